"""tools.buildkit.git_history dates lines as ``git blame`` does, by replaying history, with a cache.

The oracle is ``git blame --line-porcelain`` on throwaway repositories built from a seeded
random sequence of commits, so every test runs the same history on every machine; for the time a
file was added at its path, ``git log --no-renames --diff-filter=A`` (one walk per file).
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from mkdocs_course.buildkit.git_history import CACHE, line_times, replay
from mkdocs_course.course.parser import split_lines

T0 = 1_600_000_000
TOPS = ("docs", "notes")
WORDS = [b"", b"same line", b"# Heading", b"Q? ::: A", b"```", b"- item"]


@pytest.fixture(autouse=True)
def plain_git(monkeypatch: pytest.MonkeyPatch) -> None:
    """No user or system git config: blame, the oracle, must see the defaults."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def git(root: Path, *args: str, when: int | None = None) -> bytes:
    env = dict(os.environ)
    if when is not None:
        env.update(GIT_AUTHOR_DATE=f"@{when} +0000", GIT_COMMITTER_DATE=f"@{when} +0000")
    command = ["git", "-c", "user.name=T", "-c", "user.email=t@example.org", *args]
    return subprocess.run(command, cwd=root, env=env, check=True, capture_output=True).stdout


def commit(root: Path, when: int, message: str = "edit") -> None:
    git(root, "add", "-A", "--", *(t for t in TOPS if (root / t).exists()))
    git(root, "commit", "-q", "--allow-empty", "-m", message, when=when)


def blame(root: Path, path: str) -> list[int | None]:
    """Committer time per line, None for a line git blame says is not committed yet."""
    out = git(root, "blame", "--line-porcelain", "--", path)
    times: list[int | None] = []
    commit_id = b""
    for row in out.split(b"\n"):
        header = re.match(rb"([0-9a-f]{40}) \d+ \d+", row)
        if header:
            commit_id = header[1]
        elif row.startswith(b"committer-time "):
            times.append(None if commit_id.strip(b"0") == b"" else int(row.split(b" ")[1]))
    return times


def tracked(root: Path) -> list[str]:
    out = git(root, "-c", "core.quotepath=off", "ls-files", "-z", "--", *TOPS)
    return sorted(os.fsdecode(p) for p in out.split(b"\0") if p and not p.endswith(b".bin"))


def blame_all(root: Path) -> dict[str, list[int | None]]:
    return {path: blame(root, path) for path in tracked(root)}


def added_at_path(root: Path, path: str) -> int | None:
    """When git log, with renames off (a move adds the file anew), last saw ``path`` added."""
    out = git(root, "log", "-1", "--no-renames", "--diff-filter=A", "--format=%ct", "--", path)
    return int(out) if out.strip() else None


def times_of(root: Path, paths: list[str] | None = None) -> dict[str, list[int | None]]:
    return line_times(root, tracked(root) if paths is None else paths)


def poison_cache(root: Path) -> None:
    """Set every cached time to 1, so any answer that reuses the cache shows it."""
    cache = json.loads((root / CACHE).read_text("utf-8"))
    cache["files"] = {p: t and [1] * len(t) for p, t in cache["files"].items()}
    cache["added"] = dict.fromkeys(cache["added"], 1)
    (root / CACHE).write_text(json.dumps(cache), "utf-8")


@dataclass
class Text:
    lines: list[bytes]
    eol: bytes = b"\n"
    final_newline: bool = True

    def data(self) -> bytes:
        tail = self.eol if self.final_newline and self.lines else b""
        return self.eol.join(self.lines) + tail


class History:
    """A throwaway repository and a seeded random sequence of commits to its course files.

    Scripted steps add the awkward cases: a rename with an edit, a file deleted and re-added, a
    final newline added and removed, a mode-only change, a binary file.
    """

    def __init__(self, root: Path, seed: int) -> None:
        self.root, self.rng, self.clock, self.step = root, random.Random(seed), T0, 0
        self.texts = {
            "docs/a.md": self.new_text(),
            "docs/b file.md": self.new_text(),
            "docs/ur/سبق.md": self.new_text(),
            'docs/odd "q" \\ name.md': self.new_text(),
            "docs/crlf.md": Text(self.new_text().lines, eol=b"\r\n"),
            "docs/nonl.md": Text(self.new_text().lines, final_newline=False),
            "notes/n.md": self.new_text(),
        }
        root.mkdir(parents=True, exist_ok=True)
        git(root, "init", "-q", "-b", "main")
        (root / "docs").mkdir()
        (root / "docs" / "img.bin").write_bytes(bytes(range(256)) * 4)
        self.commit("start")

    def line(self) -> bytes:
        if self.rng.random() < 0.3:
            return self.rng.choice(WORDS)
        return f"line {self.rng.randrange(10**6)}".encode()

    def new_text(self) -> Text:
        return Text([self.line() for _ in range(20)])

    def commit(self, message: str = "edit") -> None:
        for path, text in self.texts.items():
            (self.root / path).parent.mkdir(parents=True, exist_ok=True)
            (self.root / path).write_bytes(text.data())
        self.clock += 1000
        commit(self.root, self.clock, message)

    def run(self, commits: int) -> None:
        for _ in range(commits):
            self.step += 1
            scripted = getattr(self, f"step_{self.step}", None)
            (scripted or self.random_change)()
            self.commit(f"step {self.step}")

    def random_change(self) -> None:
        lines = self.texts[self.rng.choice(sorted(self.texts))].lines
        for _ in range(self.rng.randint(1, 3)):
            kind, at = self.rng.choice("eid"), self.rng.randrange(len(lines))
            if kind == "e":
                lines[at] = self.line()
            elif kind == "i":
                lines[at:at] = [self.line() for _ in range(self.rng.randint(1, 3))]
            elif len(lines) > 3:
                del lines[at : at + self.rng.randint(1, 3)]

    def step_8(self) -> None:
        self.texts["docs/nonl.md"].final_newline = True

    def step_12(self) -> None:
        text = self.texts.pop("docs/a.md")
        text.lines[5] = b"edited while renamed"
        (self.root / "docs/a.md").unlink()
        self.texts["docs/lessons/a renamed.md"] = text

    def step_15(self) -> None:
        (self.root / "docs/crlf.md").chmod(0o755)

    def step_18(self) -> None:
        self.texts["docs/nonl.md"].final_newline = False
        self.texts["docs/nonl.md"].lines[-1] = b"last, without newline"

    def step_20(self) -> None:
        self.removed = self.texts.pop("docs/b file.md")
        (self.root / "docs/b file.md").unlink()

    def step_30(self) -> None:
        self.texts["docs/b file.md"] = Text([*self.removed.lines[:10], self.line()])


def history(root: Path, seed: int, commits: int = 40) -> History:
    repo = History(root, seed)
    repo.run(commits)
    return repo


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_replayed_history_dates_every_line_as_git_blame_does(tmp_path, seed):
    root = history(tmp_path, seed).root
    expected = blame_all(root)
    assert "docs/lessons/a renamed.md" in expected and "docs/b file.md" in expected
    assert len(set(expected["docs/lessons/a renamed.md"])) > 1  # dated before and after it moved
    times = times_of(root)
    assert times == expected


@pytest.mark.parametrize("seed", [1, 2])
def test_each_file_is_dated_when_it_was_added_at_its_path(tmp_path, seed):
    repo = history(tmp_path, seed)
    root = repo.root
    paths = tracked(root)
    assert replay(root, paths).added == {p: added_at_path(root, p) for p in paths}
    renamed, readded = "docs/lessons/a renamed.md", "docs/b file.md"
    assert replay(root, paths).added[renamed] == T0 + 12 * 1000 + 1000  # the rename's commit
    assert replay(root, paths).added[readded] == T0 + 30 * 1000 + 1000  # added again, not first
    (root / CACHE).unlink()
    repo.run(5)
    (root / "docs/new.md").write_text("untracked\n", "utf-8")
    warm = replay(root, [*paths, "docs/new.md"])
    assert warm.added == {**{p: added_at_path(root, p) for p in paths}, "docs/new.md": None}
    poison_cache(root)
    assert replay(root, paths).added[renamed] == 1  # from the cache, not from a walk


def test_a_binary_file_has_no_dated_lines(tmp_path):
    root = history(tmp_path, 4, commits=3).root
    lines = split_lines((root / "docs/img.bin").read_bytes().decode("latin-1"))
    assert line_times(root, ["docs/img.bin"]) == {"docs/img.bin": [None] * len(lines)}


def test_uncommitted_edits_and_untracked_files_are_none_exactly_there(tmp_path):
    repo = history(tmp_path, 5, commits=10)
    root = repo.root
    committed = times_of(root)
    lines = repo.texts["docs/ur/سبق.md"].lines
    lines[2] = b"changed, not committed"
    lines[7:7] = [b"inserted, not committed"]
    del lines[12]
    (root / "docs/ur/سبق.md").write_bytes(repo.texts["docs/ur/سبق.md"].data())
    crlf = repo.texts["docs/crlf.md"]
    crlf.lines[0] = b"staged, not committed"
    (root / "docs/crlf.md").write_bytes(crlf.data())
    git(root, "add", "docs/crlf.md")
    (root / "docs/new lesson.md").write_text("# New\n\nQ? ::: A\n", "utf-8")

    times = line_times(root, [*tracked(root), "docs/new lesson.md"])
    urdu = times["docs/ur/سبق.md"]
    assert [i for i, t in enumerate(urdu) if t is None] == [2, 7]
    assert urdu == blame(root, "docs/ur/سبق.md")
    assert times["docs/crlf.md"] == [None, *committed["docs/crlf.md"][1:]]
    assert times["docs/new lesson.md"] == [None, None, None]
    assert times["notes/n.md"] == committed["notes/n.md"]


def test_a_warm_run_replays_only_new_commits_onto_the_cache(tmp_path):
    repo = history(tmp_path, 6, commits=10)
    times_of(repo.root)
    poison_cache(repo.root)
    repo.texts["notes/n.md"].lines[4] = b"the only new line"
    repo.commit()
    times = times_of(repo.root)
    assert times["notes/n.md"][4] == repo.clock
    rest = [t for p, ts in times.items() for i, t in enumerate(ts) if (p, i) != ("notes/n.md", 4)]
    assert set(rest) == {1}


def test_warm_runs_after_more_commits_equal_a_cold_run_and_blame(tmp_path):
    repo = history(tmp_path, 7, commits=10)
    assert times_of(repo.root) == blame_all(repo.root)
    repo.run(25)  # through the rename, the deletion and the re-addition
    warm = times_of(repo.root)
    assert warm == blame_all(repo.root)
    (repo.root / CACHE).unlink()
    assert times_of(repo.root) == warm


def amend(root: Path) -> None:
    (root / "notes/n.md").write_text("amended\n", "utf-8")
    commit(root, T0 + 10**6, "amended")
    git(root, "reset", "-q", "--soft", "HEAD~2")
    commit(root, T0 + 2 * 10**6, "squashed")


def reset_to_older(root: Path) -> None:
    git(root, "reset", "-q", "--hard", "HEAD~3")


def switch_branch(root: Path) -> None:
    git(root, "checkout", "-q", "-b", "other", "HEAD~4")
    (root / "notes/n.md").write_text("on another branch\n", "utf-8")
    commit(root, T0 + 10**6)


@pytest.mark.parametrize("rewrite", [amend, reset_to_older, switch_branch])
def test_a_rewritten_history_is_replayed_from_the_root(tmp_path, rewrite):
    root = history(tmp_path, 8, commits=12).root
    times_of(root)
    poison_cache(root)
    rewrite(root)
    assert times_of(root) == blame_all(root)


def test_a_cached_commit_merged_as_a_second_parent_is_not_continued(tmp_path):
    root = history(tmp_path, 9, commits=6).root
    git(root, "checkout", "-q", "-b", "side")
    (root / "docs/a.md").write_text("side\n", "utf-8")
    commit(root, T0 + 10**6)
    times_of(root)
    poison_cache(root)  # the cache is at side's tip, an ancestor of the merge below
    git(root, "checkout", "-q", "main")
    (root / "notes/n.md").write_text("main\n", "utf-8")
    commit(root, T0 + 2 * 10**6)
    git(root, "merge", "-q", "--no-ff", "-m", "merge", "side", when=T0 + 3 * 10**6)
    warm = times_of(root)
    (root / CACHE).unlink()
    assert warm == times_of(root)
    assert warm["docs/a.md"] == [T0 + 3 * 10**6]


def test_lines_merged_from_a_branch_are_dated_at_the_merge(tmp_path):
    root = tmp_path
    git(root, "init", "-q", "-b", "main")
    (root / "docs").mkdir()
    lesson = root / "docs/l.md"
    lesson.write_text("1\n2\n3\n4\n5\n", "utf-8")
    commit(root, T0 + 1)
    git(root, "checkout", "-q", "-b", "side")
    lesson.write_text("1\nside\n3\n4\n5\n", "utf-8")
    commit(root, T0 + 2)
    git(root, "checkout", "-q", "main")
    lesson.write_text("1\n2\n3\nmain\n5\n", "utf-8")
    commit(root, T0 + 3)
    git(root, "merge", "-q", "--no-ff", "-m", "merge", "side", when=T0 + 4)
    assert lesson.read_text("utf-8") == "1\nside\n3\nmain\n5\n"
    assert line_times(root, ["docs/l.md"])["docs/l.md"] == [T0 + 1, T0 + 4, T0 + 1, T0 + 3, T0 + 1]
    # main has not moved since: the merge's tree is the side branch's, and still counts
    git(root, "checkout", "-q", "side")
    git(root, "merge", "-q", "main", when=T0 + 5)  # fast-forward to the merge first
    lesson.write_text("1\nside\n3\nmain\nside again\n", "utf-8")
    commit(root, T0 + 6)
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-ff", "-m", "merge again", "side", when=T0 + 7)
    expected = [T0 + 1, T0 + 4, T0 + 1, T0 + 3, T0 + 7]
    assert line_times(root, ["docs/l.md"])["docs/l.md"] == expected
    (root / CACHE).unlink()
    assert line_times(root, ["docs/l.md"])["docs/l.md"] == expected


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"",
        b"[]",
        b'{"version": 1}',
        "wrong version",
        "a time that is not a number",
        "an addition time that is not a number",
        "a commit that is an option",
    ],
)
def test_an_unusable_cache_is_ignored(tmp_path, content):
    root = history(tmp_path, 10, commits=8).root
    times_of(root)
    poison_cache(root)
    if isinstance(content, bytes):
        (root / CACHE).write_bytes(content)
    else:
        cache = json.loads((root / CACHE).read_text("utf-8"))
        if content == "wrong version":
            cache["version"] += 1
        elif content == "a time that is not a number":
            cache["files"]["notes/n.md"][0] = "1"
        elif content == "an addition time that is not a number":
            cache["added"]["notes/n.md"] = None
        else:
            cache["commit"] = "--all"
        (root / CACHE).write_text(json.dumps(cache), "utf-8")
    assert times_of(root) == blame_all(root)
    head = git(root, "rev-parse", "HEAD").decode().strip()
    assert json.loads((root / CACHE).read_text("utf-8"))["commit"] == head  # rewritten


def test_a_cache_made_for_other_folders_is_not_used(tmp_path):
    root = history(tmp_path, 11, commits=8).root
    docs = [p for p in tracked(root) if p.startswith("docs/")]
    line_times(root, docs)
    poison_cache(root)
    assert times_of(root) == blame_all(root)  # docs and notes
    poison_cache(root)
    assert line_times(root, docs) == {p: blame(root, p) for p in docs}


def test_the_answers_do_not_depend_on_the_users_git_config(tmp_path):
    root = history(tmp_path, 12, commits=40).root
    expected = times_of(root)
    hostile = {
        "diff.noprefix": "true",
        "diff.mnemonicPrefix": "true",
        "diff.algorithm": "patience",
        "diff.indentHeuristic": "false",
        "diff.context": "5",
        "diff.interHunkContext": "10",
        "diff.renames": "copies",
        "diff.external": "false",
        "diff.relative": "true",
        "log.showRoot": "false",
        "log.follow": "true",
        "color.ui": "always",
        "core.quotepath": "true",
    }
    for key, value in hostile.items():
        git(root, "config", key, value)
    (root / CACHE).unlink()
    assert line_times(root, tracked(root)) == expected


def test_a_shallow_clone_dates_every_line_at_its_oldest_commit(tmp_path):
    origin = history(tmp_path / "origin", 13, commits=10).root
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "2", f"file://{origin}", str(clone))
    shallow = times_of(clone)
    assert shallow == blame_all(clone)
    boundary = int(git(clone, "log", "-1", "--format=%ct", "HEAD~1"))
    assert {t for ts in shallow.values() for t in ts} <= {boundary, boundary + 1000}
    git(clone, "fetch", "-q", "--unshallow")
    assert times_of(clone) == blame_all(clone) == blame_all(origin)


def test_lines_are_split_as_the_parser_splits_them(tmp_path):
    rng = random.Random(14)
    pieces = ["a", "ب", "\r", "\n", "\r\n", "\u2028", "\x0c", "\x85", ""]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randrange(12))) for _ in range(300)]
    texts += ["", "\r", "\n", "x\r", "\r\r\n", "a\rb"]
    (tmp_path / "docs").mkdir()
    for i, text in enumerate(texts):
        (tmp_path / "docs" / f"{i}.md").write_bytes(text.encode())
    git(tmp_path, "init", "-q")
    commit(tmp_path, T0)
    times = line_times(tmp_path, [f"docs/{i}.md" for i in range(len(texts))])
    assert [len(times[f"docs/{i}.md"]) for i in range(len(texts))] == [
        len(split_lines(text)) for text in texts
    ]
    lesson = tmp_path / "docs/l.md"
    lesson.write_bytes("one\r\ntwo\rstill git's line two\nthree\u2028same line\n".encode())
    commit(tmp_path, T0 + 1)
    lesson.write_bytes("one\r\ntwo\rstill git's line two\nthree\u2028changed\n".encode())
    commit(tmp_path, T0 + 2)
    assert line_times(tmp_path, ["docs/l.md"]) == {"docs/l.md": [T0 + 1, T0 + 1, T0 + 1, T0 + 2]}


def test_outside_a_git_checkout_every_line_is_none(tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    root = tmp_path / "course"
    (root / "docs").mkdir(parents=True)
    (root / "docs/l.md").write_text("# L\n\nQ? ::: A", "utf-8")
    paths = ["docs/l.md", "docs", "docs/missing.md"]
    assert line_times(root, paths) == {"docs/l.md": [None, None, None]}
    assert not (root / CACHE).exists()


def test_a_course_in_a_folder_of_a_larger_repository(tmp_path):
    """Paths are relative to root, not to the repository; a file moved in from outside the
    requested top folders counts as new there (blame would follow it)."""
    course = tmp_path / "course"
    (course / "docs").mkdir(parents=True)
    (tmp_path / "drafts").mkdir()
    (course / "docs/l.md").write_text("a\nb\nc\n", "utf-8")
    (tmp_path / "drafts/d.md").write_text("moved in\n", "utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "one", when=T0 + 1)
    (course / "docs/l.md").write_text("a\nB\nc\n", "utf-8")
    git(tmp_path, "mv", "drafts/d.md", "course/docs/d.md")
    git(tmp_path, "commit", "-q", "-am", "two", when=T0 + 2)
    (course / "docs/l.md").write_text("a\nB\nc\nuncommitted\n", "utf-8")
    times = line_times(course, ["docs/l.md", "docs/d.md"])
    assert times == {"docs/l.md": [T0 + 1, T0 + 2, T0 + 1, None], "docs/d.md": [T0 + 2]}
    assert replay(course, ["docs/l.md", "docs/d.md"]).added == {
        "docs/l.md": T0 + 1,
        "docs/d.md": T0 + 2,
    }
    assert blame(course, "docs/d.md") == [T0 + 1]
    assert (course / CACHE).is_file() and not (tmp_path / CACHE).exists()


def test_a_repository_without_commits_has_no_dated_lines(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/l.md").write_text("a\nb\n", "utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "docs")
    assert line_times(tmp_path, ["docs/l.md"]) == {"docs/l.md": [None, None]}


def test_a_cache_that_cannot_be_written_only_costs_time(tmp_path):
    root = history(tmp_path, 15, commits=5).root
    (root / ".cache").write_text("a file where the cache folder would go", "utf-8")
    assert times_of(root) == blame_all(root)
