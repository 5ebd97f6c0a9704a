"""Bad input fails the build with a message naming the file, and never loses what was built.

Each test copies the course into a temporary folder, breaks one thing, runs the real CLI there
and checks both the message and that the previously built ``site/`` survived. ``check``, which
writes nothing, may run in the test's own process (:func:`run_check`); ``deck`` and ``build``
run as the processes a maintainer starts.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import copy_course

pytestmark = pytest.mark.slow


@pytest.fixture
def course_copy(tmp_path: Path) -> Path:
    copy_course(tmp_path)
    old_site(tmp_path)
    return tmp_path


def old_site(root: Path) -> None:
    """A site folder that a build must keep when it fails (:func:`assert_site_kept`)."""
    (root / "site").mkdir()
    (root / "site" / "built-before.txt").write_text("keep me")


def run_cli(
    root: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs_course.cli", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env={**_env(), "SOURCE_DATE_EPOCH": "1767225600", **(env or {})},
    )


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "COURSE_STRICT_RESULTS"}


def run_check(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m mkdocs_course.cli check ARGS`` run in ``root`` as :func:`run_cli` runs it,
    but in this process: the same function, settings and output, without starting Python and
    importing the engine again for each of the dozens of courses the tests check. What the
    command changes of the process (its folder, environment, collector settings) is put back."""
    from mkdocs_course import cli

    out, err = io.StringIO(), io.StringIO()
    environ, threshold = dict(os.environ), gc.get_threshold()
    try:
        os.environ.clear()
        os.environ.update({**_env(), "SOURCE_DATE_EPOCH": "1767225600"})
        with (
            contextlib.chdir(root),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            code = cli.main(["check", *args])
    finally:
        os.environ.clear()
        os.environ.update(environ)
        gc.set_threshold(*threshold)
    return subprocess.CompletedProcess(["check", *args], code, out.getvalue(), err.getvalue())


def lesson(root: Path) -> Path:
    return sorted((root / "docs" / "lessons").glob("*.md"))[0]


def append(path: Path, text: str) -> int:
    """Append text to a page and return the 1-based line number where it starts."""
    before = path.read_text("utf-8")
    path.write_text(before.rstrip("\n") + "\n\n" + text + "\n", "utf-8")
    return before.rstrip("\n").count("\n") + 3


def assert_site_kept(root: Path) -> None:
    assert (root / "site" / "built-before.txt").read_text() == "keep me"


def test_broken_prose_links_fail_check_and_build_with_file_and_line(course_copy):
    """``check`` (the gate before a pull request) finds them all, each with its line, and the
    build stops there, before MkDocs' own link warnings (which name no line) could."""
    page = lesson(course_copy)
    line = append(page, "See [the missing page](no-such-page.md).\n\nAnd [this](#no-such-anchor).")
    where = f"docs/lessons/{page.name}"
    for command in ("check", "build"):
        result = run_cli(course_copy, command)
        assert result.returncode != 0
        output = result.stdout + result.stderr
        assert f"{where}:{line}: link 'no-such-page.md'" in output, output[-2000:]
        assert f"{where}:{line + 2}: link '#no-such-anchor'" in output
        assert "2 problem(s)" in output and "WARNING" not in output
    assert_site_kept(course_copy)


# Lines a notebook kernel or torch's profiler logs: noise to a reader and to a maintainer.
KERNEL_NOISE = ("USDT:", "STAGE:", "SyncActivityProfilerHandler", "[IPKernelApp]", "encryption")


def test_failing_notebook_cell_fails_the_build(course_copy):
    """The lab runs anew (its text changed), every cell up to the broken last one: the build
    fails, and its log holds none of what the kernel or torch's profiler (the CPU peak meter)
    print about themselves (tests/test_site.py checks the built lab page for the same)."""
    notebook = course_copy / "docs" / "lab" / "checkpointing-lab.py"
    notebook.write_text(
        notebook.read_text("utf-8") + '\n# %%\nraise RuntimeError("lab cell broke")\n', "utf-8"
    )
    result = run_cli(course_copy, "build")
    assert result.returncode != 0
    log = result.stdout + result.stderr
    assert "lab cell broke" in log
    assert [line for line in log.splitlines() if any(n in line for n in KERNEL_NOISE)] == []
    assert_site_kept(course_copy)


# --- untrusted input: refused with file and line, and nothing built is touched ----------------


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under site/ and build/ with its bytes, to compare before and after."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for folder in ("site", "build")
        for path in sorted((root / folder).rglob("*"))
        if path.is_file()
    }


REFUSED_BY_CHECK = [
    ("Question ::: answer ::: more", 0, "a flashcard has one ':::' separator, this line has 2"),
    ("<div>\nA card? ::: swallowed by the HTML block", 1, "':::' in an HTML block"),
    ("Math $\\href{javascript:alert(1)}{x}$? ::: y", 0, "TeX command \\href is not allowed"),
    ("Link? ::: [L2.4](02-gradient-checkpointing.md#l2-99)", 0, "has no heading or item"),
    ("Image ![x](https:/evil.example/p.png)? ::: y", 0, "is not on the site"),
    ('```text\n--8<-- ".git/config"\n```', 1, "only files in snippets/ may be included"),
    ('```python\n--8<-- "snippets/cosine_fixed.py:nope"\n```', 1, "has no section 'nope'"),
    ('```python\n--8<-- "snippets/no_such_snippet.py:part"\n```', 1, "no_such_snippet.py"),
    ("Look\u202ealike? ::: y", 0, "invisible character U+202E"),
]
COMMANDS = (("check",), ("deck", "-o", "build/deck.apkg"), ("build",))


@dataclass
class Refused:
    """One course copy holding every hostile item, where each line each item starts on is
    known, and what each command printed when run on it once."""

    root: Path
    page: str
    lines: list[int]
    before: dict[str, bytes]
    runs: dict[tuple[str, ...], subprocess.CompletedProcess[str]]


@pytest.fixture(scope="module")
def refused(tmp_path_factory: pytest.TempPathFactory) -> Refused:
    """``check`` reports every problem of a run, with its line, and ``deck`` and ``build`` run
    the same check first: one copy with all the items and one run of each command show whether
    each item is refused, so the items share a copy instead of each making its own."""
    root = tmp_path_factory.mktemp("refused")
    copy_course(root)
    old_site(root)
    page = lesson(root)
    lines = [append(page, text) + offset for text, offset, _ in REFUSED_BY_CHECK]
    (root / ".git").mkdir(exist_ok=True)
    (root / ".git" / "config").write_text("[remote]\nurl = secret\n")
    (root / "build").mkdir()
    (root / "build" / "deck.apkg").write_bytes(b"previous deck")
    before = snapshot(root)
    runs = {args: run_cli(root, *args) for args in COMMANDS[1:]}
    runs[COMMANDS[0]] = run_check(root)
    return Refused(root, page.relative_to(root).as_posix(), lines, before, runs)


@pytest.mark.parametrize("number", range(len(REFUSED_BY_CHECK)))
@pytest.mark.parametrize("args", COMMANDS, ids=lambda args: args[0])
def test_hostile_course_items_are_refused_with_file_and_line(refused, args, number):
    _, _, message = REFUSED_BY_CHECK[number]
    result = refused.runs[args]
    assert result.returncode != 0
    where = f"{refused.page}:{refused.lines[number]}: "
    assert any(line.startswith(where) and message in line for line in result.stderr.splitlines())


def test_refused_items_leave_site_and_deck_identical(refused):
    """The previous site and deck (and the secret a hostile include names) are untouched."""
    assert all(result.returncode != 0 for result in refused.runs.values())
    assert snapshot(refused.root) == refused.before
    assert (refused.root / "site" / "built-before.txt").read_text() == "keep me"
    assert not list(refused.root.glob(".site-*"))


def test_a_non_utf8_page_is_an_error_naming_it(course_copy):
    page = lesson(course_copy)
    page.write_bytes(page.read_bytes() + "\n\nCafé? ::: oui\n".encode("latin-1"))
    result = run_check(course_copy)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert f"{page.relative_to(course_copy).as_posix()}:" in result.stderr
    assert "not UTF-8" in result.stderr


PROSE_REFUSED = [
    ("<script>alert(1)</script>", "<script> is not allowed"),
    ('<span onclick="alert(1)">click</span>', "the attribute onclick is not allowed"),
    ("![x](https:/evil.example/p.png)", "'https:/evil.example/p.png' is not allowed"),
    ('<img src="//evil.example/p.png">', "'//evil.example/p.png'>: this address is not allowed"),
]


@pytest.fixture(scope="module")
def prose_refused(tmp_path_factory: pytest.TempPathFactory) -> Refused:
    """One copy with every kind of prose that would run script or load from elsewhere, each in
    a paragraph of its own, and one build of it (every problem is reported in one run)."""
    root = tmp_path_factory.mktemp("prose")
    copy_course(root)
    old_site(root)
    page = lesson(root)
    lines = [append(page, prose) for prose, _ in PROSE_REFUSED]
    before = snapshot(root)
    runs = {("build",): run_cli(root, "build")}
    return Refused(root, page.relative_to(root).as_posix(), lines, before, runs)


@pytest.mark.parametrize("number", range(len(PROSE_REFUSED)))
def test_prose_that_runs_script_or_loads_from_elsewhere_fails_the_build(prose_refused, number):
    _, message = PROSE_REFUSED[number]
    result = prose_refused.runs["build",]
    assert result.returncode != 0
    output = result.stdout + result.stderr
    where = f"{prose_refused.page}:{prose_refused.lines[number]}: "
    assert any(where in line and message in line for line in output.splitlines()), output[-3000:]
    assert snapshot(prose_refused.root) == prose_refused.before
    assert not list(prose_refused.root.glob(".site-*"))


# What an interrupted build prints last: SIGTERM is made SystemExit with this message, Ctrl-C is
# Python's own KeyboardInterrupt (and the build dies by the signal, as Python does).
INTERRUPTED = {
    signal.SIGTERM: "interrupted by signal 15; site/ was left as it was",
    signal.SIGINT: "KeyboardInterrupt",
}


def _process_state(pid: int) -> str:
    """The process's state letter in ``/proc`` (``T`` stopped, ``Z`` ended and not yet waited)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rpartition(")")[2].split()[0]


def _staging_made(root: Path) -> bool:
    return bool(list(root.glob(".site-*")))


def _pages_written(root: Path) -> bool:
    return any(path.is_file() for path in root.glob(".site-*/**/*.html"))


def _signal_state(pid: int) -> str:
    """What ``/proc`` says of the process's signals (pending, blocked, ignored, caught), for the
    message of a build that went on after its signal."""
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return " ".join(line for line in lines if line.startswith(("SigPnd", "ShdPnd", "Sig")))


@pytest.mark.parametrize("under_way", [_staging_made, _pages_written], ids=["early", "mid"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_an_interrupted_build_leaves_no_staging_folder_and_the_old_site(
    course_copy, signum, under_way
):
    """Early (the staging folder just made, MkDocs still loading) and mid-way (pages written
    into it), either signal ends the build with nothing of it left and the old site kept."""
    # Enough cards that the build is still under way when the signal comes.
    cards = "".join(f"Slow question {n}? ::: Slow answer {n}\n" for n in range(4000))
    append(lesson(course_copy), "\n" + cards)
    before = snapshot(course_copy)
    # The signal must come while the build runs, and a busy machine can hold this process back
    # until the build has ended. So the build is stopped first, and signalled only when it is
    # seen stopped (not ended) with its staging folder still there (not swapped in); a build
    # seen ended is started again. A build that ignored the signal would end with 0 each time.
    for _ in range(5):
        build = subprocess.Popen(
            [sys.executable, "-m", "mkdocs_course.cli", "build"],
            cwd=course_copy,
            env={**_env(), "SOURCE_DATE_EPOCH": "1767225600"},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 120
        while not under_way(course_copy) and build.poll() is None:
            assert time.monotonic() < deadline, f"the build never reached {under_way.__name__}"
            time.sleep(0.02)
        signalled = False
        if build.poll() is None:  # not yet waited for: its /proc entry stays until it is
            build.send_signal(signal.SIGSTOP)
            while _process_state(build.pid) not in "TZ":  # a stop takes effect asynchronously
                time.sleep(0.001)
            signalled = _process_state(build.pid) == "T" and _staging_made(course_copy)
            if signalled:
                build.send_signal(signum)
                seen = _signal_state(build.pid)
            build.send_signal(signal.SIGCONT)
        _, stderr = build.communicate(timeout=60)
        if signalled:
            break
        assert build.returncode == 0, stderr[-2000:]  # it ended before the signal: by building
        shutil.rmtree(course_copy / "site")  # the next try starts from the old site
        old_site(course_copy)
    else:
        pytest.fail("each build ended before it could be signalled")
    assert build.returncode != 0, f"{seen}\n{stderr[-2000:]}"
    assert stderr.rstrip().splitlines()[-1].endswith(INTERRUPTED[signum]), stderr[-2000:]
    assert not _staging_made(course_copy)
    assert snapshot(course_copy) == before


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the point
def test_a_signal_whose_exception_was_dropped_still_keeps_the_build_out(tmp_path):
    """Python drops an exception raised while a finaliser runs (it prints it and goes on): a
    Ctrl-C that lands there raises nothing in the build, which must still not be swapped in."""
    from mkdocs_course import build_staging

    class Finaliser:
        def __del__(self) -> None:
            signal.raise_signal(signal.SIGINT)  # its KeyboardInterrupt is printed and dropped

    site, staging = tmp_path / "site", tmp_path / "staging"
    site.mkdir()
    (site / "old.html").write_text("old")
    staging.mkdir()
    with build_staging.signals_end_the_build() as interrupts:
        Finaliser()  # made and dropped: its __del__ runs here
        assert interrupts.came == [signal.SIGINT]
        with pytest.raises(KeyboardInterrupt):
            build_staging.swap_in(staging, site, tmp_path / "old", interrupts)
    assert (site / "old.html").read_text() == "old"
    assert staging.is_dir() and not (tmp_path / "old").exists()


def test_a_signal_during_the_swap_comes_after_it_and_says_the_new_site_is_in(tmp_path, monkeypatch):
    """SIGTERM while the old site is renamed away is held until the new one is in place: no
    moment without a site, and the message says which site is there."""
    from mkdocs_course import build_staging

    site, staging, old = tmp_path / "site", tmp_path / "staging", tmp_path / "old"
    site.mkdir()
    (site / "page.html").write_text("old")
    staging.mkdir()
    (staging / "page.html").write_text("new")
    rename = Path.rename

    def rename_and_signal(self: Path, target: Path) -> Path:
        if self == site:
            signal.raise_signal(signal.SIGTERM)  # comes between the two renames
        return rename(self, target)

    monkeypatch.setattr(Path, "rename", rename_and_signal)
    with (
        build_staging.signals_end_the_build() as interrupts,
        pytest.raises(SystemExit, match="signal 15; the new site/ is in place"),
    ):
        build_staging.swap_in(staging, site, old, interrupts)
    assert (site / "page.html").read_text() == "new"
    assert not staging.exists()


@dataclass
class Built:
    """One course copy with every change below that a build must take in its stride, and what
    its one build printed. The changes touch different pages and folders, so one build shows
    each of them instead of a build each."""

    root: Path
    result: subprocess.CompletedProcess[str]
    crlf: Path  # a lesson saved with a BOM and CRLF line ends
    crlf_text: str  # its text as written, before the BOM and CRLF
    script_link: Path  # a lesson whose prose links to javascript:
    abandoned: Path  # a staging folder whose build's process has ended
    running: Path  # one whose process (this one) is alive
    unnamed: Path  # one whose name says no process

    def built(self, page: Path) -> str:
        return (self.root / "site" / "lessons" / page.name.replace(".md", ".html")).read_text()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("built")
    copy_course(root)
    first, second = sorted((root / "docs" / "lessons").glob("*.md"))[:2]
    text = first.read_text("utf-8")
    first.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8"))
    append(second, "Prose [the words](javascript:alert(1)) here.")
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # a pid whose process has ended
    abandoned = root / f".site-{gone.pid}-abc123"
    running = root / f".site-{os.getpid()}-def456"
    unnamed = root / ".site-legacy"
    for folder in (abandoned, running, unnamed):
        (folder / "lessons").mkdir(parents=True)
        (folder / "lessons" / "page.html").write_text("half-written", "utf-8")
    umask = os.umask(0o022)
    try:
        result = run_cli(root, "build")
    finally:
        os.umask(umask)
    assert result.returncode == 0, result.stderr[-2000:]
    return Built(root, result, first, text, second, abandoned, running, unnamed)


def test_a_script_link_in_prose_is_built_as_plain_text(built):
    """CommonMark (the checker's parser) reads ``[x](javascript:...)`` as text; Python-Markdown
    makes it a link, whose address the sanitiser drops: the page shows the words, inert."""
    page = built.built(built.script_link)
    assert "the words" in page and "javascript:" not in page


def test_a_lesson_with_a_bom_and_crlf_builds_with_its_title_and_cards(built):
    page, text = built.built(built.crlf), built.crlf_text
    assert page.count('class="flashcard"') == text.count(" ::: ") > 0
    title = text.splitlines()[0].lstrip("# ")
    assert "<h1" in page and title.split(" · ")[-1] in page


def test_a_killed_builds_staging_folder_is_removed_by_the_next_build(built):
    assert not built.abandoned.exists()
    # A live build's, or one it cannot tell:
    assert built.running.is_dir() and built.unnamed.is_dir()


def test_the_site_folder_gets_normal_permissions(built):
    assert (built.root / "site").stat().st_mode & 0o777 == 0o755


def test_mkdocs_own_command_builds_the_course_with_the_plugin(course_copy):
    """``mkdocs build`` (the console script, whose sys.path lacks the course) runs the same
    plugin, found by its entry point: deck, search entries and all, with nothing imported from
    where it was run."""
    mkdocs = Path(sys.executable).with_name("mkdocs")
    result = subprocess.run(
        [str(mkdocs), "build", "--strict", "-d", "built"],
        cwd=course_copy,
        capture_output=True,
        text=True,
        # The copy's own engine (tools/ is copied with the course), ahead of the checkout the
        # environment has installed editable, which may be another worktree's. The benchmark
        # views the course declares need no path: the engine finds them in the course's folder.
        env={**_env(), "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(course_copy)},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    built = course_copy / "built"
    assert list((built / "downloads").glob("*.apkg"))
    index = (built / "search" / "search_index.json").read_text("utf-8")
    assert "#card-" in index and "#q-" in index


def test_a_read_only_old_site_is_replaced_without_leftovers(tmp_path):
    """Root writes into read-only folders anyway, so as root the build runs as ``nobody``."""
    import tempfile

    as_other = os.geteuid() == 0
    if as_other and not shutil.which("setpriv"):
        pytest.skip("running as root without setpriv: a read-only folder stops nothing")
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    if as_other:
        probe = subprocess.run([*nobody, sys.executable, "-c", "import markdown_it"], cwd="/")
        if probe.returncode != 0:  # e.g. a checkout in a 0700 folder (mktemp -d)
            pytest.skip("running as root, and nobody cannot read this checkout's environment")
    root = Path(tempfile.mkdtemp(dir="/tmp" if as_other else tmp_path))
    try:
        copy_course(root)
        if as_other:
            # ``nobody`` cannot read root's home, where this machine's Python may live: its
            # interpreter then runs with another standard library, which the lab notebook's
            # HTML export trips on. Execute the notebook here, so ``nobody``'s build reuses it.
            warm = [
                sys.executable,
                "-m",
                "mkdocs_course.cli",
                "build",
                "--site-dir",
                str(root / "warm"),
            ]
            subprocess.run(warm, cwd=root, check=True, capture_output=True, env=_env())
            shutil.rmtree(root / "warm")
        site = root / "site"
        (site / "sub").mkdir(parents=True)
        (site / "sub" / "old.txt").write_text("old")
        command = [sys.executable, "-m", "mkdocs_course.cli", "build"]
        if as_other:
            subprocess.run(["chown", "-R", "65534:65534", str(root)], check=True)
            root.chmod(0o755)
            command = [*nobody, *command]
        for folder in (site / "sub", site):
            folder.chmod(0o555)
        result = subprocess.run(
            command,
            cwd=root,
            capture_output=True,
            text=True,
            env={**_env(), "SOURCE_DATE_EPOCH": "1767225600", "HOME": str(root)},
        )
        assert result.returncode == 0, result.stderr[-2000:]
        assert (site / "index.html").is_file() and not (site / "sub").exists()
        assert not list(root.glob(".site-*"))
    finally:
        for folder, _, _ in os.walk(root):
            os.chmod(folder, 0o755)
        shutil.rmtree(root, ignore_errors=True)
