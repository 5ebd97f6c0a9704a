"""Anchors: the ids on the built page (headings, cards, quizzes, questions), each used once."""

from __future__ import annotations

from ..model import CourseError, Page
from .source import PageState


def rule(state: PageState) -> None:
    """The page's anchors, and an error at each item whose anchor is taken already."""
    page = state.page
    page.anchors = frozenset(h.anchor for h in page.headings) | _item_anchors(page)
    _anchor_collisions(state)


def _anchor_collisions(state: PageState) -> None:
    """An item's anchor equal to a heading's id or to another item's anchor on the page would
    give the built page two elements with one id: links and the Review page would find the
    first only. Reported at the item."""
    page = state.page
    taken = {h.anchor: f"the id of the heading at line {h.line + 1}" for h in page.headings}
    items = [(card.anchor, card.location, "card") for card in page.cards]
    for quiz in page.quizzes:
        items.append((f"quiz-{quiz.quiz_id}", quiz.location, "quiz"))
        items += [(q.anchor, q.location, "question") for q in quiz.questions]
    for anchor, location, what in sorted(items, key=lambda item: item[1]):
        if anchor in taken:
            state.src.errors.append(
                CourseError(location, f"this {what}'s id {anchor!r} is also {taken[anchor]}")
            )
        else:
            taken[anchor] = f"the id of the {what} at line {location.line}"


def _item_anchors(page: Page) -> frozenset[str]:
    anchors = {card.anchor for card in page.cards}
    for quiz in page.quizzes:
        anchors |= {f"quiz-{quiz.quiz_id}", *(q.anchor for q in quiz.questions)}
    return frozenset(anchors)
