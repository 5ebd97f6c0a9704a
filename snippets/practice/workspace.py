"""A practice workspace: where it is, what it holds, its state, and how it starts and resets.

A workspace is a folder outside the course's files::

    upstream.git/   the project (a bare repository, as on the hosting site)
    fork.git/       your fork of it (made for you, as ``gh repo fork`` would)
    work/           your clone of the fork, with the ``upstream`` remote
    issues/         the project's issues, one Markdown file each
    reviews/        the reviews of your pull requests
    .practice/      the checker (a copy), its state (state.json), pull-request bodies, CI scratch
    practice.py     runs the copy of the checker in .practice/checker/

All state lives here, never in the course's repository, and every path in it is relative: a
moved or renamed workspace keeps working (its remotes are ``../fork.git``, ``../upstream.git``).
The checker writes only its own files, and refuses one that is a symbolic link: a link could
lead its writes out of the workspace. Nothing the learner wrote (work/, their
body files, their claims) is deleted, except by an explicit ``practice reset`` of that step,
and even then work/ is moved aside, not deleted.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import issues, trust, upstream
from .gitio import PracticeError, git, maybe

STATE = Path(".practice") / "state.json"
FORMAT = 1
PACKAGE = Path(__file__).resolve().parent
BUNDLE = PACKAGE / "upstream.bundle"  # only in the download
CHECKER = Path(".practice") / "checker"  # the workspace's own copy, as the package ``practice``
FIRST_PR = 1237  # after the last issue: issues and pull requests share numbers, as on GitHub


@dataclass
class Workspace:
    root: Path
    state: dict

    @property
    def upstream(self) -> Path:
        return self.root / "upstream.git"

    @property
    def fork(self) -> Path:
        return self.root / "fork.git"

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def ci_git(self) -> Path:
        return self.own(".practice", "ci.git")

    def own(self, *parts: str) -> Path:
        """The checker's own file or folder ``root/parts...``: refused when it, or a folder on
        the way to it, is a symbolic link, which could lead a write out of the workspace."""
        path = self.root
        for part in parts:
            path = path / part
            if path.is_symlink():
                raise PracticeError(
                    f"{path} is a symbolic link: the checker writes only its own files, inside "
                    f"{self.root}. Remove the link (rm {path}) and run the command again"
                )
        return path

    def write(self, *parts: str, text: str) -> None:
        """Write one of the checker's own files (its folder made when missing)."""
        folder = self.own(*parts[:-1])
        folder.mkdir(parents=True, exist_ok=True)
        self.own(*parts).write_text(text, "utf-8")

    def save(self) -> None:
        tmp = self.own(".practice", "state.tmp")
        self.write(
            ".practice", "state.tmp", text=json.dumps(self.state, indent=1, sort_keys=True) + "\n"
        )
        os.replace(tmp, self.own(*STATE.parts))

    def write_issues(self) -> None:
        for number in upstream.issue_numbers():
            record = self.state["issues"].get(str(number), {})
            self.write("issues", f"{number}.md", text=issues.render(number, record))

    def task(self) -> dict | None:
        current = self.state.get("current")
        return self.state["tasks"][current] if current else None


def _commit_env(date: str) -> dict[str, str]:
    name, email = upstream.AUTHOR
    return {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
    }


QUIET = ("-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-c", "core.hooksPath=")


def build_upstream(bare: Path) -> None:
    """Make the project's bare repository from the templates: the same commits every time."""
    name, email = upstream.AUTHOR
    with tempfile.TemporaryDirectory(prefix="simkit-") as tmp:
        src = Path(tmp)
        git(*QUIET, "init", "-q", cwd=src)
        for date, message, files in upstream.history():
            for path, text in files.items():
                (src / path).parent.mkdir(parents=True, exist_ok=True)
                (src / path).write_text(text, "utf-8")
            git("add", "-A", cwd=src)
            body = f"{message}\n\nSigned-off-by: {name} <{email}>"
            git(*QUIET, "commit", "-q", "-m", body, cwd=src, env=_commit_env(date))
        git("clone", "-q", "--bare", str(src), str(bare))
    git("remote", "remove", "origin", cwd=bare)


def start(root: Path, name: str | None, email: str | None) -> Workspace:
    root = root.expanduser().resolve()
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise PracticeError(
            f"{root} exists and is not an empty folder: choose a new folder (nothing there was "
            "touched)"
        )
    name = name or maybe("config", "--global", "user.name")
    email = email or maybe("config", "--global", "user.email")
    if not name or not email:
        raise PracticeError(
            "git does not know your name and email, which sign-offs need: "
            'git config --global user.name "Your Name" && '
            "git config --global user.email you@example.org"
            " (or pass --name and --email)"
        )
    try:
        (root / ".practice").mkdir(parents=True)
    except OSError as exc:  # a file on the way (/etc/passwd/x), a folder nobody may write (/proc)
        raise PracticeError(
            f"{root}: cannot make a folder there ({exc.strerror}): choose one you can write to"
        ) from None
    bare = root / "upstream.git"
    if BUNDLE.is_file():
        git("clone", "-q", "--bare", str(BUNDLE), str(bare))
        git("remote", "remove", "origin", cwd=bare)
        git("symbolic-ref", "HEAD", f"refs/heads/{upstream.MAIN}", cwd=bare)
    else:
        build_upstream(bare)
    main = git("rev-parse", upstream.MAIN, cwd=bare)
    ws = Workspace(
        root,
        {
            "format": FORMAT,
            "learner": {"name": name, "email": email},
            "upstream_main": main,
            "issues": {},
            "tasks": {},
            "current": None,
            "next_pr": FIRST_PR,
        },
    )
    _refuse_pushes(ws)
    make_fork(ws)
    ws.write_issues()
    (root / "reviews").mkdir()
    _copy_checker(root)
    _write_launcher(root)
    ws.save()
    return ws


def _refuse_pushes(ws: Workspace) -> None:
    """Upstream takes no push from the learner, as a hosted repository they cannot write to
    answers (GitHub's words); the project changes its main only by merging. The hook path is
    set in the repository's own config, so a global ``core.hooksPath`` cannot bypass it."""
    login = issues.login(ws.state["learner"]["name"])
    hook = ws.upstream / "hooks" / "pre-receive"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(
        "#!/bin/sh\n"
        f"echo 'Permission to simkit/simkit.git denied to {login}.' >&2\n"
        "echo 'fatal: The requested URL returned error: 403 (push to your fork: git push "
        "origin BRANCH)' >&2\n"
        "exit 1\n",
        "utf-8",
    )
    hook.chmod(0o755)
    git("config", "core.hooksPath", "hooks", cwd=ws.upstream)


def checker_files() -> list[Path]:
    """The package's files a workspace runs from: code and issues, not the project's templates."""
    keep = [p for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    templates = PACKAGE / "upstream" / "project"
    return sorted(p for p in keep if templates not in p.parents and p.suffix in {".py", ".md"})


def _copy_checker(root: Path) -> None:
    """The workspace's own copy of the checker: it keeps working when the course's folder or
    the unpacked zip is moved or deleted, and moves with the workspace."""
    target = root / CHECKER / "practice"
    for path in checker_files():
        dest = target / path.relative_to(PACKAGE)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest)


def _write_launcher(root: Path) -> None:
    """``practice.py`` in the workspace: the workspace's copy of the checker, found next to the
    launcher wherever the folder now is, run by the Python that started it (the one with torch
    and pytest), from anywhere inside the workspace."""
    launcher = root / "practice.py"
    launcher.write_text(
        f"#!{sys.executable}\n"
        '"""The checker: ./practice.py status|claim N|pr open BODY|check|reset STEP."""\n'
        "import sys\nfrom pathlib import Path\n\n"
        f"sys.path.insert(0, str(Path(__file__).resolve().parent / {CHECKER.as_posix()!r}))\n"
        "from practice.cli import main\n\nsys.exit(main(sys.argv[1:]))\n",
        "utf-8",
    )
    launcher.chmod(0o755)


def make_fork(ws: Workspace) -> None:
    """fork.git from upstream's main, and work/ cloned from it with the upstream remote."""
    git("clone", "-q", "--bare", str(ws.upstream), str(ws.fork))
    git("remote", "remove", "origin", cwd=ws.fork)
    git("clone", "-q", str(ws.fork), str(ws.work))
    git("remote", "set-url", "origin", "../fork.git", cwd=ws.work)  # relative: the folder can move
    git("remote", "add", "upstream", "../upstream.git", cwd=ws.work)
    git("fetch", "-q", "upstream", cwd=ws.work)
    learner = ws.state["learner"]
    git("config", "user.name", learner["name"], cwd=ws.work)
    git("config", "user.email", learner["email"], cwd=ws.work)


def find(start_dir: Path) -> Workspace:
    """The workspace holding ``start_dir`` (or above it), checked for damage."""
    return verified(locate(start_dir))


def locate(start_dir: Path) -> Path:
    """The root of the workspace holding ``start_dir``. When folders above it hold a
    ``.practice`` too (one placed inside ``work/``, say), the outermost is the workspace: a
    state file found inside the workspace's own files is never trusted."""
    here = start_dir.resolve()
    found = [folder for folder in (here, *here.parents) if (folder / ".practice").is_dir()]
    if not found:
        raise PracticeError(
            f"{here} is not inside a practice workspace: cd into the folder that "
            "`practice start DIR` made (or pass -C DIR)"
        )
    root = found[-1]
    if not (root / STATE).is_file() or (root / STATE).is_symlink():
        raise PracticeError(
            f"{root / STATE} is missing: this workspace was damaged; start a new one"
        )
    return root


def load(root: Path) -> Workspace:
    """The workspace's state as the checker wrote it; a state edited into nonsense is refused."""
    path = root / STATE
    text = Workspace(root, {}).own(*STATE.parts).read_text("utf-8")
    try:
        state = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PracticeError(
            f"{path}:{exc.lineno}: not valid JSON ({exc.msg}): the checker's state was edited by "
            "hand; start a new workspace (your work/ can be copied over)"
        ) from None
    why = (
        "format: not this checker's"
        if not isinstance(state, dict) or state.get("format") != FORMAT
        else trust.problems(state)
    )
    if why:
        raise PracticeError(
            f"{path}:1: not a state this checker wrote (edited by hand?): {why}; start a new "
            "workspace (your work/ can be copied over)"
        )
    return Workspace(root, state)


def verified(root: Path) -> Workspace:
    """The workspace, refused when part of it was deleted or edited by hand."""
    ws = load(root)
    state = ws.state
    if not (ws.own("upstream.git") / "HEAD").is_file():
        raise PracticeError(
            f"{ws.upstream} is missing: the project was deleted; start a new workspace"
        )
    main = maybe("rev-parse", "--verify", f"refs/heads/{upstream.MAIN}", cwd=ws.upstream)
    if main != state["upstream_main"]:
        raise PracticeError(
            f"{ws.upstream}: main is at {str(main)[:12]}, not at {state['upstream_main'][:12]}: it "
            "was changed by hand (only a merge by the maintainers moves it). "
            "`./practice.py reset merge` puts it back"
        )
    trust.refuse_tampered(ws)
    for number in upstream.issue_numbers():
        file = ws.own("issues", f"{number}.md")
        expected = issues.render(number, state["issues"].get(str(number), {}))
        if not file.is_file() or file.read_text("utf-8") != expected:
            raise PracticeError(
                f"{file} was deleted or edited by hand: comment with `./practice.py claim "
                f"{number}` instead. `./practice.py reset find` rewrites the issues as the "
                "project holds them (your claims stay)"
            )
    return ws


RESETTABLE = {
    "find": "rewrite issues/ as the project holds them (your claims stay)",
    "claim": "withdraw your claim comment on the current issue, and forget the current issue",
    "fork": "make fork.git and work/ again from upstream (the old ones are moved aside)",
    "pr": "close the current pull request (your body file is kept), and its review",
    "review": "withdraw the review, so the next check reviews the pull request again",
    "merge": "put upstream's main back where the project had it (undoes the current merge)",
}


def reset(root: Path, step: str) -> str:
    if step not in RESETTABLE:
        own = "branch, code and revisions are your git history: change it with git"
        raise PracticeError(f"cannot reset {step!r}: choose one of {', '.join(RESETTABLE)} ({own})")
    ws = load(root) if step in {"find", "merge"} else verified(root)
    task = ws.task()
    if step == "find":
        ws.write_issues()
    elif step == "claim":
        if task is None:
            raise PracticeError("nothing to reset: you have not claimed an issue")
        number = ws.state["current"]
        record = ws.state["issues"][number]
        record["comments"] = [c for c in record["comments"] if c.get("kind") != "claim"]
        del ws.state["tasks"][number]
        ws.state["current"] = None
        ws.write_issues()
    elif step == "fork":
        for old in (ws.fork, ws.work):
            if old.exists():
                n = 1
                while old.with_name(f"{old.name}.old-{n}").exists():
                    n += 1
                old.rename(old.with_name(f"{old.name}.old-{n}"))
        make_fork(ws)
    elif step in {"pr", "review"}:
        if task is None or task.get("pr") is None:
            raise PracticeError("nothing to reset: no pull request is open")
        task["review"] = None
        if step == "pr":
            task["pr"] = None
    elif step == "merge":
        trust.forget_unverified(ws)
        merged = task.get("merged") if task else None
        target = merged["parent"] if merged else ws.state["upstream_main"]
        if maybe("cat-file", "-e", f"{target}^{{commit}}", cwd=ws.upstream) is None:
            target = git("rev-parse", upstream.MAIN, cwd=ws.upstream)  # an invented id: stay
        git("update-ref", f"refs/heads/{upstream.MAIN}", target, cwd=ws.upstream)
        ws.state["upstream_main"] = target
        if merged:
            task["merged"] = None
            for record in ws.state["issues"].values():  # every issue its `Fixes` lines closed
                if record.get("closed_by") == task["pr"]["number"]:
                    del record["closed_by"]
                    record["comments"] = [c for c in record["comments"] if c["kind"] != "close"]
        ws.write_issues()
    ws.save()
    return RESETTABLE[step]
