"""Flashcards: a top-level paragraph whose every line is ``Question ::: Answer``."""

from __future__ import annotations

from markdown_it.token import Token

from ..model import Card, CardGroup, Span, source_hash
from .ids import EXPLICIT_ID, ID_RULE, TRAILING_ATTRIBUTES
from .source import PageState, Source
from .tokens import SEPARATOR, separators_by_line


def block(state: PageState, index: int) -> None:
    """A top-level paragraph of cards becomes a block of the page."""
    token = state.tokens[index]
    group = card_group(state.src, state.tokens[index + 1])
    if group:
        assert token.map is not None
        state.page.blocks.append((Span(*token.map), group))


def card_group(src: Source, inline: Token) -> CardGroup | None:
    """A paragraph whose lines are all ``Question ::: Answer`` cards, else None.

    A paragraph that mixes card lines with other text is an error: Markdown would join them into
    one paragraph on GitHub, and the site would have to drop the other text.
    """
    separators = separators_by_line(inline)
    if not separators:
        return None
    assert inline.map is not None
    first = inline.map[0]
    cards: list[Card] = []
    for offset, raw in enumerate(inline.content.split("\n")):
        line0 = first + offset
        columns = separators.get(offset, [])
        if not columns:
            src.error(
                line0,
                "a paragraph of flashcards holds a line without ':::' "
                "(put a blank line between cards and other text)",
            )
        elif len(columns) > 1:
            src.error(line0, f"a flashcard has one ':::' separator, this line has {len(columns)}")
        else:
            card = _card(src, line0, raw, columns[0])
            if card:
                cards.append(card)
    if not cards:
        return None
    return CardGroup(tuple(cards), src.at(first))


def _card(src: Source, line0: int, raw: str, column: int) -> Card | None:
    front, back = raw[:column].strip(), raw[column + len(SEPARATOR) :].strip()
    explicit = EXPLICIT_ID.search(back)
    if explicit:
        back = back[: explicit.start()].strip()
    if meant := TRAILING_ATTRIBUTES.search(back):  # malformed, or a second one
        src.error(
            line0,
            f"{meant.group().strip()} ends the flashcard but is not its explicit id: a card "
            f"takes one, {{#some-id}}, of {ID_RULE}, with no spaces",
        )
    if meant := TRAILING_ATTRIBUTES.search(front):
        src.error(
            line0,
            f"{meant.group().strip()} ends the flashcard's question: a card's explicit id "
            "goes after its answer ('question ::: answer {#some-id}')",
        )
    if not front or not back:
        src.error(line0, f"flashcard has an empty {'question' if not front else 'answer'}")
        return None
    return Card(
        front,
        back,
        src.at(line0),
        explicit.group(1) if explicit else None,
        span=Span(line0, line0 + 1),
        digest=source_hash(src.lines[line0 : line0 + 1]),
    )
