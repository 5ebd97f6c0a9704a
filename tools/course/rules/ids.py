"""Ids: the form of explicit ids and quiz ids, and the rule that ids and flashcard questions are
unique in the whole course (they make note GUIDs, :mod:`tools.course.notes`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ..model import CourseError, Location, Page, normalize

ID = re.compile(r"[A-Za-z][\w-]*")  # explicit ids and quiz ids
ID_RULE = "letters, digits, '-' and '_', starting with a letter"
EXPLICIT_ID = re.compile(r"\s*\{#(" + ID.pattern + r")\}\s*$")
# A ``{...}`` that ends a card or a question and reads as an attribute list (an id ``#x``, a
# class ``.x``, a ``key=value``; not escaped): the author meant one, so one that the item does
# not take is an error, not text shown on the site and in the deck with nothing applied.
TRAILING_ATTRIBUTES = re.compile(r"(?<!\\)\{\s*(?:[#.]|[A-Za-z][\w-]*\s*=)[^{}]*\}\s*$")


def duplicate_ids(pages: list[Page]) -> list[CourseError]:
    """Explicit ids and flashcard questions are course-wide (they make GUIDs)."""
    ids: list[tuple[str | None, Location]] = []
    for page in pages:
        ids += [(q.explicit_id, q.location) for quiz in page.quizzes for q in quiz.questions]
        ids += [(c.explicit_id, c.location) for c in page.cards]
        ids += [(quiz.quiz_id, quiz.location) for quiz in page.quizzes]
    errors = [
        CourseError(location, f"duplicate id {item_id!r} (first at {first})")
        for item_id, location, first in repeats((i, at) for i, at in ids if i is not None)
    ]
    # Course-wide: a card's GUID is its question (tools.course.notes.note_guid), not its page.
    cards = ((normalize(card.front), card.location) for page in pages for card in page.cards)
    errors += [
        CourseError(location, f"duplicate flashcard question (first at {first})")
        for _, location, first in repeats(cards)
    ]
    return errors


def repeats(items: Iterable[tuple[str, Location]]) -> Iterator[tuple[str, Location, Location]]:
    """``(key, location, first location)`` for every item whose key an earlier item had."""
    first_at: dict[str, Location] = {}
    for key, location in items:
        if key in first_at:
            yield key, location, first_at[key]
        else:
            first_at[key] = location
