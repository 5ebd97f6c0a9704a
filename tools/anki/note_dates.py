"""When each Anki note last changed: the git work behind the deck's modification times.

Anki replaces an imported note only when the incoming modification time is newer, and then
reports it as updated. So a note's time is the time of the last commit that changed what it is
made of: its own source lines (:func:`tools.buildkit.git_history.replay`) or the code that
renders it (the deck's ``RENDERER_FILES``, dated in the engine's own checkout, which need not be
the course's), never later than the build ``timestamp`` (SOURCE_DATE_EPOCH or the last commit).
A commit that edits one answer therefore updates exactly that note; the same commit
always gives the same times, in a fresh clone as in a working copy.

A note's fields also show things outside its lines: its page's address (the "Open in the
course" link, which a rename or move changes), the page's title (its deck) and the course's
``site_url`` and deck name in ``mkdocs.yml``. So the time is also never earlier than the commit
that put the page at its current path (git blame follows a rename; the link does not), the last
change to the page's title line, and the last change to those settings' lines.

A note with uncommitted lines (an edit not yet committed, an untracked file) is dated at the time
of the build, so a second uncommitted edit still reaches Anki. Outside a git checkout the build
timestamp stands in. A shallow clone dates every line to its one commit (all notes update once).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

from ..buildkit import git_history
from ..buildkit.buildinfo import git
from ..course.model import Page
from ..course.notes import NoteItem
from ..course.parser import split_lines

# Settings in mkdocs.yml that note fields show.
SETTINGS_FILE = "mkdocs.yml"
SETTINGS_KEYS = ("site_url:", "deck_name:")


def note_times(
    items: Iterable[NoteItem],
    *,
    root: Path,
    timestamp: int,
    renderer: Iterable[Path],
    replayed: git_history.Replayed | None = None,
) -> dict[str, int]:
    """GUID -> modification time: the last commit that changed the note's lines or one of the
    ``renderer`` files. ``replayed``: :func:`history`, when the caller had it worked out while
    the pages parsed."""
    items = list(items)
    timestamp = int(timestamp)
    if not in_git(root):
        return {entry.guid: timestamp for entry in items}
    now = max(int(time.time()), timestamp)
    renderer_time = _last_commit_time(list(renderer))
    paths = sorted({entry.page.path for entry in items})
    if replayed is None:
        replayed = git_history.replay(root, [*paths, SETTINGS_FILE])
    lines = replayed.lines
    settings = _settings_time(root, lines.get(SETTINGS_FILE))
    pages = {entry.page.path: entry.page for entry in items}
    page_times = {
        path: _page_time(pages[path], lines.get(path, []), replayed.added.get(path))
        for path in paths
    }
    times = {}
    for entry in items:
        span = entry.item.span
        dated = lines.get(entry.page.path, [])[span.start : span.end]
        shown = page_times[entry.page.path]
        if len(dated) < span.end - span.start or None in dated or None in (shown, settings):
            times[entry.guid] = now
        else:
            newest = max(*dated, renderer_time, shown, settings)  # type: ignore[type-var]
            times[entry.guid] = min(newest, timestamp)
    return times


def history(root: Path, pages: Iterable[str]) -> git_history.Replayed:
    """The git history :func:`note_times` dates notes from, for the course's pages (paths from
    ``root``; the pages without notes do no harm): it needs no parsed page, so a caller can
    have it replayed while the pages parse."""
    return git_history.replay(root, [*sorted(pages), SETTINGS_FILE])


def _page_time(page: Page, lines: list[int | None], added: int | None) -> int | None:
    """When the page's address or title last changed: the commit that added the file at this
    path (``added``: a rename or move adds it anew) or last changed its title line; None if
    uncommitted."""
    if added is None:
        return None
    titles = [lines[h.line] for h in page.headings if h.level == 1 and h.line < len(lines)]
    return None if None in titles else max([added, *titles])  # type: ignore[type-var]


def _settings_time(root: Path, lines: list[int | None] | None) -> int | None:
    """The last change to the lines of mkdocs.yml that notes show; None if uncommitted."""
    if lines is None:
        return 0
    text = split_lines((root / SETTINGS_FILE).read_text("utf-8"))
    times = [t for t, line in zip(lines, text, strict=False) if line.startswith(SETTINGS_KEYS)]
    return None if None in times else max([0, *times])  # type: ignore[type-var]


def in_git(root: Path) -> bool:
    return (git(root, "rev-parse", "--is-inside-work-tree") or "").strip() == "true"


def _last_commit_time(paths: list[Path]) -> int:
    """The time of the last commit to any of ``paths``, in the checkout that holds them."""
    out = git(paths[0].parent, "log", "-1", "--format=%ct", "--", *map(str, paths))
    return int(out.strip()) if out and out.strip() else 0
