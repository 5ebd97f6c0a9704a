"""Which rule reads what, in what order: the parser's dispatch table.

``BLOCK`` maps the type of a top-level token (nesting level 0: cards in list items or quotes are
not course items) to the rule that turns it into a course item or reports what it hides. The
``PAGE`` rules run after every block, in the order listed: each reads the whole token stream or
what the rules before it put on the page (the invisible-character check reads the blocks; the
anchors read the headings). Errors are sorted by place at the end, and errors at one place keep
the order the rules found them in, so the order here is part of the output.
"""

from __future__ import annotations

from collections.abc import Callable

from . import (
    anchors,
    cards,
    console,
    containers,
    fences,
    headings,
    html,
    invisible,
    prose,
    quizzes,
    references,
    separators,
    tex,
)
from .source import PageState

BlockRule = Callable[[PageState, int], None]  # (the page, the index of its opening token)
PageRule = Callable[[PageState], None]

BLOCK: dict[str, BlockRule] = {
    "paragraph_open": cards.block,
    "container_quiz_open": quizzes.block,
    "container_benchmark_open": containers.embed_block,
    "fence": console.block,
    "html_block": html.block,
}

PAGE: tuple[tuple[str, PageRule], ...] = (
    ("references", references.rule),
    ("prose", prose.rule),
    ("stray separators", separators.stray_separators),
    ("unclosed fences", fences.rule),
    ("raw HTML", html.raw_html),
    ("unsafe math", tex.rule),
    ("invisible characters", invisible.rule),
    ("headings", headings.rule),
    ("anchors", anchors.rule),
)
