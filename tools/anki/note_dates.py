"""When each Anki note last changed: the git work behind the deck's modification times.

Anki replaces an imported note only when the incoming modification time is newer, and then
reports it as updated. So a note's time is the time of the last commit that changed what it is
made of: its own source lines (:func:`tools.anki.history.line_times`) or the code that renders it
(the deck's ``RENDERER_FILES``, dated in the engine's own checkout, which need not be the
course's), never later than the build ``timestamp`` (SOURCE_DATE_EPOCH or the last commit).
A commit that edits one answer therefore updates exactly that note; the same commit
always gives the same times, in a fresh clone as in a working copy.

A note with uncommitted lines (an edit not yet committed, an untracked file) is dated at the time
of the build, so a second uncommitted edit still reaches Anki. Outside a git checkout the build
timestamp stands in. Not tracked: a new ``site_url`` (the Source links) reaches learners only with
the next note change; a shallow clone dates every line to its one commit (all notes update once).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

from tools.anki import history
from tools.build.buildinfo import git
from tools.course.notes import NoteItem


def note_times(
    items: Iterable[NoteItem], *, root: Path, timestamp: int, renderer: Iterable[Path]
) -> dict[str, int]:
    """GUID -> modification time: the last commit that changed the note's lines or one of the
    ``renderer`` files."""
    items = list(items)
    timestamp = int(timestamp)
    if not in_git(root):
        return {entry.guid: timestamp for entry in items}
    now = max(int(time.time()), timestamp)
    renderer_time = _last_commit_time(list(renderer))
    lines = history.line_times(root, sorted({entry.page.path for entry in items}))
    times = {}
    for entry in items:
        span = entry.item.span
        dated = lines.get(entry.page.path, [])[span.start : span.end]
        if len(dated) < span.end - span.start or None in dated:
            times[entry.guid] = now
        else:
            times[entry.guid] = min(max(max(dated), renderer_time), timestamp)  # type: ignore[type-var]
    return times


def in_git(root: Path) -> bool:
    return (git(root, "rev-parse", "--is-inside-work-tree") or "").strip() == "true"


def _last_commit_time(paths: list[Path]) -> int:
    """The time of the last commit to any of ``paths``, in the checkout that holds them."""
    out = git(paths[0].parent, "log", "-1", "--format=%ct", "--", *map(str, paths))
    return int(out.strip()) if out and out.strip() else 0
