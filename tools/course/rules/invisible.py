"""Invisible characters in course items: bidi controls and zero-width characters."""

from __future__ import annotations

import re
import unicodedata

from ..model import Embed, script_lang
from .source import PageState

# Invisible characters that reorder or hide text: bidi embeddings, overrides, isolates and marks,
# and zero-width characters. In course items they make look-alike duplicates and ids, so they
# are refused; the one exception is a ZWNJ between two Arabic-script letters, where Urdu uses it
# to keep two letters of one word from joining (see CONTRIBUTING.md).
_INVISIBLE = re.compile("[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")
_ZWNJ = "\u200c"


def rule(state: PageState) -> None:
    """Bidi controls and zero-width characters in cards, questions, options and ids are errors."""
    src = state.src
    for span, block in state.page.blocks:
        if isinstance(block, Embed):
            continue
        for line0 in range(span.start, min(span.end, len(src.lines))):
            line = src.lines[line0]
            for match in _INVISIBLE.finditer(line):
                if match.group() == _ZWNJ and _between_arabic_letters(line, match.start()):
                    continue
                name = unicodedata.name(match.group(), f"U+{ord(match.group()):04X}")
                src.error(
                    line0,
                    f"invisible character U+{ord(match.group()):04X} ({name}) at column "
                    f"{match.start() + 1}: it changes how text reads without showing; delete it",
                )


def _between_arabic_letters(line: str, index: int) -> bool:
    before, after = line[index - 1 : index], line[index + 1 : index + 2]
    return bool(before and after) and all(
        script_lang(c) == "ur" and unicodedata.category(c).startswith("L") for c in (before, after)
    )
