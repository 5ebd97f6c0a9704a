"""Finding a note's card in an Anki collection, for the progress tests (tests/test_progress*.py)."""

from __future__ import annotations


def card_id(col, guid: str) -> int:
    """The card of the note ``guid`` (GUIDs hold search syntax, so no search string)."""
    return col.db.scalar(
        "SELECT cards.id FROM cards JOIN notes ON notes.id = cards.nid WHERE notes.guid = ?", guid
    )
