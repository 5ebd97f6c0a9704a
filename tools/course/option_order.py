"""The order a question's options are shown in, and the option labels its explanation names.

A quiz whose wording is given (a seed text kept word for word) may list its correct options in a
pattern, such as always first or in the order A B C D A B C D, that a learner can pick up without
reading. Rewording is not allowed there, but the order learners see is ours to choose: a question
line may end with ``{order=CADB}``, the source's option letters in the order to show them, and
site and deck both show that order, because the parser hands them the options already ordered.
An explanation then names an option as ``{option:C}`` (its source letter) and reads, once
resolved, the label shown beside that option, so the text stays right whatever the order.

Kept out of the parser, which only finds the attribute and the references in the tokens.
"""

from __future__ import annotations

import re

from .model import Option, option_label

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
REFERENCE = re.compile(r"\{option:([^{}\s]*)\}")


def source_letters(count: int) -> str:
    """The letters of ``count`` options in source order: A, B, C, ..."""
    return LETTERS[:count]


def order_error(order: str, count: int) -> str | None:
    """Why ``order`` cannot order ``count`` options, or None when it is a permutation of them."""
    letters = source_letters(count)
    if len(order) != count or set(order) != set(letters):
        return (
            f"order={order!r}: give each option's letter ({letters[0]} to {letters[-1]}, in the "
            "order the source lists them) exactly once, in the order to show them"
        )
    return None


def shown(options: list[Option], order: str | None) -> list[Option]:
    """``options`` (with their source letters) in the order ``order`` names, or as written."""
    if order is None:
        return options
    by_letter = {option.letter: option for option in options}
    return [by_letter[letter] for letter in order]


def resolve_references(
    explanation: str, options: list[Option], lang: str
) -> tuple[str, list[tuple[str, int]]]:
    """``explanation`` with each ``{option:X}`` replaced by the label shown beside the option
    whose source letter is X, and the references that name no option, each with the line (from
    0) of ``explanation`` it is written on (to report there)."""
    position = {option.letter: index for index, option in enumerate(options)}
    unknown: list[tuple[str, int]] = []

    def label(found: re.Match[str]) -> str:
        letter = found.group(1)
        if letter not in position:
            unknown.append((found.group(0), explanation.count("\n", 0, found.start())))
            return found.group(0)
        return option_label(lang, position[letter])

    return REFERENCE.sub(label, explanation), unknown
