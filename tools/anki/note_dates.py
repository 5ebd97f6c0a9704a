"""When each Anki note last changed: the git work behind the deck's modification times.

Anki replaces an imported note only when the incoming modification time is newer, and then
reports it as updated. So a note's time is the time of the last commit that changed what it is
made of: its own source lines (:func:`tools.anki.history.line_times`) or the code that renders it
(:data:`RENDERER_FILES`), never later than the build ``timestamp`` (SOURCE_DATE_EPOCH or the last
commit). A commit that edits one answer therefore updates exactly that note; the same commit
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
from typing import TYPE_CHECKING

from tools.anki import history
from tools.build.buildinfo import git

if TYPE_CHECKING:
    from tools.anki.deck import NoteItem

# The code that turns a card's Markdown into its fields: a commit to one of these re-dates every
# note, so learners receive the new rendering.
RENDERER_FILES = (
    "tools/render/safe_html.py",
    "tools/course/links.py",
    "tools/anki/deck.py",
    "tools/course/model.py",
    "constraints.txt",
)


def note_times(items: Iterable[NoteItem], *, root: Path, timestamp: int) -> dict[str, int]:
    """GUID -> modification time: the last commit that changed the note's lines or renderer."""
    items = list(items)
    timestamp = int(timestamp)
    if not in_git(root):
        return {entry.guid: timestamp for entry in items}
    now = max(int(time.time()), timestamp)
    renderer = _last_commit_time(root, RENDERER_FILES)
    lines = history.line_times(root, sorted({entry.page.path for entry in items}))
    times = {}
    for entry in items:
        span = entry.item.span
        dated = lines.get(entry.page.path, [])[span.start : span.end]
        if len(dated) < span.end - span.start or None in dated:
            times[entry.guid] = now
        else:
            times[entry.guid] = min(max(max(dated), renderer), timestamp)  # type: ignore[type-var]
    return times


def in_git(root: Path) -> bool:
    return (git(root, "rev-parse", "--is-inside-work-tree") or "").strip() == "true"


def _last_commit_time(root: Path, paths: tuple[str, ...]) -> int:
    out = git(root, "log", "-1", "--format=%ct", "--", *paths)
    return int(out.strip()) if out and out.strip() else 0
