"""Per-line commit times for course files, and when each was added at its path, from one forward
replay of git history instead of blame.

``git blame`` walks the whole history once per file, and so does ``git log -- PATH``, so dating
every lesson that way costs files x commits on every build. Replaying history forwards reads
each commit's diff once, for all files together: one ``git log -p`` lists the commits on HEAD's
first-parent chain, oldest first, and each hunk ``@@ -a,b +c,d @@`` removes ``b`` line times
from the file's list and inserts ``d`` times stamped with the commit's committer time. Only hunk
headers are read, never line contents, and ``-U0`` makes them exact. On a linear history this is
blame's answer: both come from the same diff of each commit against its parent.

The same replay records when each file was last added at its current path (:func:`replay`'s
``added``): a ``new file`` or the ``rename to`` side of a rename, which is what
``git log --no-renames --diff-filter=A -- PATH`` finds, without a walk of history per file.

Where the answer differs from blame, on purpose:

* Merges are applied as their diff against the first parent, so lines that came in with a
  merged branch are dated at the merge, when they reached the main line (blame would date them
  at the branch's commit). This depends only on the first-parent chain, so it is deterministic.
* Renames are detected (``-M``) among files under the requested paths' top folders only: a file
  moved in from elsewhere counts as new there.
* A binary file has no lines to date; its lines are None, like an uncommitted file's.

Every option that changes which lines a diff reports is pinned on the command line (algorithm,
prefixes, inter-hunk context, rename detection, root commit, ...), so a contributor's git config
cannot change the answers. Git's output is read as bytes: text mode would turn a lone CR inside
a line into a line break, and fails on content that is not UTF-8 (which is why this module does
not use :func:`tools.buildkit.buildinfo.git`).

The working tree comes last: ``git diff HEAD`` marks changed and added lines None, and a file
HEAD does not have (untracked, ignored, only staged) is None throughout.

Git ends lines at LF only; the course parser also ends them at a lone CR. Each git line's time
goes to every parser line inside it; :func:`_parser_lines` must agree with
``tools.course.parser.split_lines`` (tests/test_git_history.py checks it). It is not imported from
there: that module loads markdown-it, and works on decoded text where this works on bytes.

Cache: the replayed state at HEAD (every file under the top folders, which renames need) is kept
in ``.cache/history/lines.json`` with HEAD's commit id. A later run replays only the commits
after it, provided that commit is still on HEAD's first-parent chain; after a rebase, an amend,
a switch to another branch or a reset to an older commit it is not, and the replay starts again
from the root. Each commit's diff against its first parent does not depend on where a replay
started, so a warm run gives exactly the cold run's answer. The cache is also ignored when it is
unreadable, has another format version, was made for other top folders, or for another set of
shallow-clone boundaries (deepening a shallow clone changes the oldest answers). It is written
to a temporary file and renamed, so a concurrent build never reads half a cache.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .buildinfo import write_atomically

CACHE = Path(".cache") / "history" / "lines.json"
CACHE_VERSION = 2

LineTimes = list[int | None]


@dataclass
class Replayed:
    """What the replay knows about each file: its line times (None: no history, such as a
    binary file) and the time of the commit that added it at its path (None: not committed)."""

    lines: dict[str, LineTimes | None] = field(default_factory=dict)
    added: dict[str, int | None] = field(default_factory=dict)


# Every setting that could change which lines git reports is pinned (see the module docstring);
# ``tests/test_git_history.py`` runs with a hostile config to check it.
_GIT = (
    "git",
    "-c",
    "core.quotepath=off",
    "-c",
    "log.follow=false",
    "-c",
    "log.showSignature=false",
    "--literal-pathspecs",
)
_DIFF = (
    "-p",
    "-U0",
    "--inter-hunk-context=0",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--diff-algorithm=myers",
    "--indent-heuristic",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--relative",
)
_LOG = (
    "log",
    "--reverse",
    "--first-parent",
    "--diff-merges=first-parent",
    "--root",
    "-M",
    "--format=%x00%H %ct",
    *_DIFF,
)
_WORKTREE_DIFF = ("diff", "--no-renames", *_DIFF, "HEAD")
_HUNK = re.compile(rb"@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_ESCAPE = re.compile(rb'\\([0-7]{3}|[abtnvfr"\\])')
_ESCAPED = dict(zip(b'abtnvfr"\\', b'\a\b\t\n\v\f\r"\\', strict=True))
_COMMIT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def line_times(root: Path, paths: Iterable[str]) -> dict[str, list[int | None]]:
    """For each path (relative to root, posix), one entry per line of the file as it is now in
    the working tree (lines split as tools.course.parser.split_lines does: only \\r\\n, \\r, \\n
    end a line): the committer time (int, seconds) of the commit that last changed that line, or
    None for a line that is not committed (uncommitted edit, untracked file). A path that is not a
    file is absent from the result. Outside a git checkout: every path maps to a list of None."""
    return replay(root, paths).lines  # type: ignore[return-value]


def replay(root: Path, paths: Iterable[str]) -> Replayed:
    """:func:`line_times` for ``paths`` (``lines``, never None per file), and for each of them
    the committer time of the commit that added it at its path (``added``; None when the file
    is not committed as it is: untracked, only staged, or outside a checkout)."""
    root = Path(root)
    requested = set(paths)
    files = sorted(p for p in requested if (root / p).is_file())
    head = _head(root) if files else None
    if head is None:
        current = Replayed()
    else:
        tops = sorted({p.split("/", 1)[0] for p in requested})
        current = _uncommitted(root, _committed(root, head, tops), files)
    lines = {p: _per_parser_line((root / p).read_bytes(), current.lines.get(p)) for p in files}
    return Replayed(lines, {p: current.added.get(p) for p in files})  # type: ignore[arg-type]


def _git(root: Path, *args: str) -> bytes | None:
    """Standard output of git in ``root``, as bytes; None outside a checkout or on failure.

    GIT_OPTIONAL_LOCKS=0: ``git diff`` would otherwise refresh the index, writing to ``.git``
    during a build and contending for its lock with whatever else runs git there.
    """
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
    try:
        result = subprocess.run([*_GIT, *args], cwd=root, env=env, capture_output=True)
    except OSError:
        return None
    return result.stdout if result.returncode == 0 else None


def _head(root: Path) -> tuple[str, list[str]] | None:
    """HEAD's commit id and the shallow-clone boundaries; None without a commit or a checkout."""
    out = _git(root, "rev-parse", "--git-path", "shallow", "HEAD")
    if out is None:
        return None
    shallow_file, commit = os.fsdecode(out).splitlines()[:2]
    try:
        boundaries = sorted((root / shallow_file).read_text("ascii").split())
    except (OSError, ValueError):
        boundaries = []
    return commit, boundaries


def _committed(root: Path, head: tuple[str, list[str]], tops: list[str]) -> Replayed:
    """Line and addition times at HEAD of every file under ``tops``: the cache, brought up to
    HEAD."""
    commit, boundaries = head
    key = {"version": CACHE_VERSION, "tops": tops, "shallow": boundaries}
    cached = _load(root, key)
    if cached is not None and _continues(root, cached["commit"], commit):
        state, since = Replayed(cached["files"], cached["added"]), cached["commit"]
    else:
        state, since = Replayed(), None
    if since != commit:
        patch = _git(root, *_LOG, *([f"^{since}"] if since else []), commit, "--", *tops)
        if patch is None:
            return Replayed()
        _replay(state, patch)
        _save(root, {**key, "commit": commit, "files": state.lines, "added": state.added})
    return state


def _continues(root: Path, since: str, head: str) -> bool:
    """Whether ``since`` is on HEAD's first-parent chain, so replaying ``since..HEAD`` extends it.

    Being an ancestor is not enough: merged in as a second parent, its state is not the state
    the first-parent diffs after it apply to.
    """
    if since == head:
        return True
    out = _git(root, "rev-list", "--first-parent", "--parents", f"^{since}", head)
    chain = (out or b"").splitlines()
    return bool(chain) and chain[-1].split()[1:2] == [since.encode()]


def _uncommitted(root: Path, committed: Replayed, files: list[str]) -> Replayed:
    """The committed times of ``files`` with the working tree's changed and added lines None."""
    lines = {p: list(t) for p in files if (t := committed.lines.get(p)) is not None}
    current = Replayed(lines, {p: committed.added.get(p) for p in lines})  # type: ignore[arg-type]
    if lines:  # with no path at all, git diff would compare the whole tree
        patch = _git(root, *_WORKTREE_DIFF, "--", *lines)
        if patch is None:
            return Replayed()
        _replay(current, patch)
    return current


def _replay(state: Replayed, patch: bytes) -> None:
    """Apply a ``-U0`` patch to per-file line times, stamping the lines it adds, and the
    addition times of the files it creates or renames.

    A commit line (NUL, id, committer time) sets the stamp for the diffs after it; before any,
    as in a working-tree diff, added lines are None. A file without known history (binary, or
    patched without having been added) is None or absent.
    """
    files, added = state.lines, state.added
    path, moved, stamp = None, None, None
    for line in patch.split(b"\n"):
        if line[:1] in b"+- \\":  # hunk contents (and blank lines): only the headers matter
            continue
        if line.startswith(b"@@ "):
            times = files.get(path)
            if times is not None:
                _apply_hunk(times, line, stamp)
        elif line.startswith(b"\0"):
            stamp = int(line.split(b" ")[1])
        elif line.startswith(b"diff --git "):
            path = _header_path(line[len(b"diff --git ") :])
        elif line.startswith(b"rename from "):
            old = _unquote(line[len(b"rename from ") :])
            moved = files.pop(old, None)
            added.pop(old, None)
        elif line.startswith(b"rename to "):
            path = _unquote(line[len(b"rename to ") :])
            files[path], added[path] = moved, stamp
        elif line.startswith(b"new file mode"):
            files[path], added[path] = [], stamp
        elif line.startswith(b"deleted file mode"):
            files.pop(path, None)
            added.pop(path, None)
        elif line.startswith(b"Binary files ") and path in files:
            files[path] = None


def _apply_hunk(times: LineTimes, header: bytes, stamp: int | None) -> None:
    """Replace the lines a hunk ``@@ -a,b +c,d @@`` removes (b) by as many ``stamp`` as it adds (d).

    Hunks come in file order and earlier ones are already applied, so the hunk's position in the
    new file (c) is its position in ``times``. When d is 0, c is the line before the gap.
    """
    match = _HUNK.match(header)
    if match is None:
        return
    removed, start, added = (int(n) if n is not None else 1 for n in match.groups())
    first = start - 1 if added else start
    times[first : first + removed] = [stamp] * added


def _header_path(names: bytes) -> str:
    """The path in ``a/<path> b/<path>``: both halves are the same length unless it is a rename,
    and then ``rename to`` names the path instead."""
    return _unquote(names[: (len(names) - 1) // 2])[2:]


def _unquote(name: bytes) -> str:
    """A path as git prints it: in double quotes with C escapes when it has odd characters."""
    if len(name) >= 2 and name.startswith(b'"') and name.endswith(b'"'):
        name = _ESCAPE.sub(_unescape, name[1:-1])
    return name.decode("utf-8", "surrogateescape")


def _unescape(match: re.Match[bytes]) -> bytes:
    code = match[1]
    return bytes([int(code, 8) if len(code) == 3 else _ESCAPED[code[0]]])


def _per_parser_line(data: bytes, times: LineTimes | None) -> LineTimes:
    """Times per git line spread over the parser's lines; all None when they cannot be matched
    (no history, or a clean filter that changes how many lines git sees)."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    if times is None or len(times) != len(lines):
        return [None] * sum(_parser_lines(line) for line in lines)
    if b"\r" not in data:
        return list(times)
    return [t for line, t in zip(lines, times, strict=True) for _ in range(_parser_lines(line))]


def _parser_lines(line: bytes) -> int:
    """How many lines ``tools.course.parser.split_lines`` makes of one git line (its LF removed).

    Every CR in it ends a line, except a final one: that is part of CRLF, or ends the file.
    """
    return 1 + line.count(b"\r") - line.endswith(b"\r")


def _load(root: Path, key: dict) -> dict | None:
    """The cache when it is readable, well formed and made with ``key``; else None."""
    try:
        data = json.loads((root / CACHE).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or any(data.get(k) != v for k, v in key.items()):
        return None
    commit, files, added = data.get("commit"), data.get("files"), data.get("added")
    if not (isinstance(commit, str) and _COMMIT_ID.fullmatch(commit)):
        return None
    if not (isinstance(files, dict) and isinstance(added, dict)):
        return None
    if not all(_well_formed(times) for times in files.values()):
        return None
    if not all(type(t) is int for t in added.values()):
        return None
    return data


def _well_formed(times: object) -> bool:
    return times is None or (isinstance(times, list) and all(type(t) is int for t in times))


def _save(root: Path, data: dict) -> None:
    """Write the cache atomically; a read-only checkout still gets its answers, only slower."""
    with contextlib.suppress(OSError):
        write_atomically(root / CACHE, json.dumps(data, separators=(",", ":")).encode())
