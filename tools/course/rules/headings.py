"""Headings: the page's title, and each heading with the id the built page gives it."""

from __future__ import annotations

import re
from collections.abc import Iterator

from markdown_it.token import Token

from ..model import Heading, SiteSyntax, script_lang
from .ids import EXPLICIT_ID
from .source import PageState

_HEADING_ATTRS = re.compile(r"\s*\{:?([^{}]*)\}\s*$")


def title(tokens: list[Token]) -> str | None:
    """The text of the page's first ``h1``, without an explicit id."""
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h1":
            return EXPLICIT_ID.sub("", tokens[index + 1].content).strip()
    return None


def rule(state: PageState) -> None:
    state.page.headings = tuple(_headings(state.tokens, state.syntax))


def _headings(tokens: list[Token], syntax: SiteSyntax) -> Iterator[Heading]:
    """Each heading with the id the built page has, and its script (for direction and font).

    ``given``: the author wrote the id (``{#id}``). Else an Urdu ``#`` heading gets an Urdu slug
    (the site writes it into the heading, since the toc's ASCII slug of Urdu is empty) and any
    other heading the id the site's toc gives it (both from ``syntax``). The site and the link
    check use these.
    """
    used: set[str] = set()
    for index, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        assert token.map is not None
        inline = tokens[index + 1]
        attrs = _HEADING_ATTRS.search(inline.content)
        text = inline.content[: attrs.start()] if attrs else inline.content
        explicit = re.search(r"(?:^|\s)#([^\s}]+)", attrs.group(1)) if attrs else None
        atx = token.markup.startswith("#")
        if explicit:
            used.add(explicit.group(1))
            anchor = explicit.group(1)
        elif script_lang(text) == "ur" and atx:
            anchor = _unique_slug(syntax.urdu_heading_id(text.strip()) or "section", used)
        else:
            plain = "".join(
                c.content for c in inline.children or [] if c.type in ("text", "code_inline")
            )
            anchor = syntax.heading_id(plain, used)
        yield Heading(
            line=token.map[0],
            level=int(token.tag[1]),
            anchor=anchor,
            given=explicit is not None,
            lang=script_lang(text),
            atx=atx,
            top_level=token.level == 0,
            text=text.strip(),
        )


def _unique_slug(slug: str, used: set[str]) -> str:
    candidate, n = slug, 1
    while candidate in used:
        candidate, n = f"{slug}-{n}", n + 1
    used.add(candidate)
    return candidate
