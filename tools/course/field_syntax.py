"""Card and quiz text as it is rendered: the one markdown-it configuration that the renderer
(:mod:`tools.render.markdown_html`) reads every field with (card sides, question, options,
explanation), and that the parser's checks of what a field shows read it with.

A page is tokenized with raw HTML on (:func:`tools.course.rules.tokens.tokenizer`: an HTML block
swallows card lines, and prose may hold allowed HTML), but a field is rendered with it off, so
that no markup of a stranger's reaches a learner's Anki: a tag is text there, and the character
references in it are decoded (``<x title="&#92;(">`` shows ``\\(``). A check that read the page's
tokens would see other text than the note holds.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

from .model import MATH_OPTIONS

_ALLOWED_SCHEME = re.compile(r"^(?:https?|mailto):", re.IGNORECASE)
_ANY_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def field_markdown() -> MarkdownIt:
    """A new parser of field text: each caller keeps its own, as the renderer adds its render
    rules to its one."""
    md = MarkdownIt("commonmark", {"html": False})
    md.use(dollarmath_plugin, double_inline=True, **MATH_OPTIONS)
    md.validateLink = allowed_link  # type: ignore[method-assign]
    return md


def allowed_link(url: str) -> bool:
    """http(s), mailto and scheme-less (relative or fragment) addresses; nothing else (any other
    stays text in a field)."""
    url = url.strip()
    return bool(_ALLOWED_SCHEME.match(url)) or not _ANY_SCHEME.match(url)
