"""Print how long dating every line of 160 lessons takes with tools.buildkit.git_history and
with git blame.

Run: ``.venv/bin/python tests/perf/bench_history.py`` (a benchmark, not a test). It builds a
throwaway repository the size of a grown course: 160 lessons of 150 lines, then 1,000 commits
that each change 1-3 lines of one lesson, all from a fixed seed and with fixed dates, written
with ``git fast-import`` (one process instead of a thousand commits). It prints a cold run (no
cache), a warm run (cache at HEAD), a run after one more commit, and ``git blame`` on every
lesson one after the other, as ``tools/anki/deck.py`` did.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mkdocs_course.buildkit.git_history import CACHE, line_times  # noqa: E402

LESSONS, LINES, COMMITS, SEED = 160, 150, 1000, 20260101
T0 = 1_700_000_000
GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    env = {**os.environ, **GIT_ENV}
    command = ["git", "-c", "user.name=Bench", "-c", "user.email=bench@example.org", *args]
    return subprocess.run(
        command, cwd=root, env=env, input=stdin, check=True, capture_output=True
    ).stdout


def data(text: bytes) -> bytes:
    return b"data %d\n%s\n" % (len(text), text)


def history_stream(rng: random.Random) -> tuple[bytes, dict[str, list[bytes]]]:
    """A fast-import stream of the whole history, and the lessons as they are at its end."""
    lessons = {
        f"docs/lessons/{n:03d}.md": [b"line %d of lesson %d" % (i, n) for i in range(LINES)]
        for n in range(LESSONS)
    }
    stream = []
    for number in range(COMMITS + 1):
        changed = [rng.choice(sorted(lessons))] if number else sorted(lessons)
        if number:
            for at in rng.sample(range(LINES), rng.randint(1, 3)):
                lessons[changed[0]][at] = b"edited in commit %d" % number
        stream.append(b"commit refs/heads/main\nmark :%d\n" % (number + 1))
        stream.append(b"committer Bench <bench@example.org> %d +0000\n" % (T0 + 60 * number))
        stream.append(data(b"commit %d" % number))
        if number:
            stream.append(b"from :%d\n" % number)
        for path in changed:
            stream.append(b"M 100644 inline %s\n" % path.encode())
            stream.append(data(b"\n".join(lessons[path]) + b"\n"))
    return b"".join(stream), lessons


def build(root: Path) -> list[str]:
    git(root, "init", "-q", "-b", "main")
    stream, lessons = history_stream(random.Random(SEED))
    git(root, "fast-import", "--quiet", stdin=stream)
    git(root, "reset", "-q", "--hard", "main")
    return sorted(lessons)


def seconds(action, repeat: int = 1) -> float:
    """Median wall time of ``action`` over ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def blame_all(root: Path, paths: list[str]) -> None:
    for path in paths:
        git(root, "blame", "--line-porcelain", "--", path)


def one_more_commit(root: Path, path: str) -> None:
    lesson = root / path
    lesson.write_bytes(lesson.read_bytes().replace(b"line 7 of", b"line seven of", 1))
    git(root, "commit", "-q", "-am", "one more")


def main() -> None:
    os.environ.update(GIT_ENV)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        paths = build(root)
        print(f"repository: {LESSONS} lessons x {LINES} lines, {COMMITS} commits after the first")
        print(f"  built in {time.perf_counter() - start:.1f} s")
        cold = seconds(lambda: ((root / CACHE).unlink(missing_ok=True), line_times(root, paths)))
        print(f"line_times, cold (no cache):        {cold * 1000:8.0f} ms")
        warm = seconds(lambda: line_times(root, paths), repeat=5)
        print(f"line_times, warm (cache at HEAD):   {warm * 1000:8.0f} ms")
        one_more_commit(root, paths[7])
        after = seconds(lambda: line_times(root, paths))
        print(f"line_times, after one more commit:  {after * 1000:8.0f} ms")
        blame = seconds(lambda: blame_all(root, paths))
        print(f"git blame on every lesson, serially: {blame * 1000:7.0f} ms")


if __name__ == "__main__":
    main()
