"""Card and quiz Markdown -> safe HTML, shared by the site and the Anki deck so the two cannot
disagree.

Why a renderer of our own and not the site's Python-Markdown: cards travel into learners' Anki
collections, where any HTML in a field runs with the learner's privileges. So raw HTML is always
escaped (markdown-it with ``html=False``), links are limited to http(s), mailto and relative
addresses, images never load from the network inside Anki, and code is coloured with inline
styles (no stylesheet to fetch). The two targets differ only in math: Anki typesets
``\\(...\\)`` / ``\\[...\\]`` itself, while the site turns TeX into MathML at build time (no JS;
:mod:`tools.render.mathml`).

Direction is decided from the script of the text (:func:`tools.course.model.script_lang`), not by
``dir="auto"``, which reads an Urdu sentence that starts with "PyTorch" as left-to-right. Inside
Urdu text, runs of Latin script are isolated in ``<bdi dir="ltr" lang="en">`` so that dotted
names, parentheses and punctuation keep their order; English text gets no direction markup.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Literal

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import TextLexer, get_lexer_by_name
from pygments.styles import get_style_by_name
from pygments.util import ClassNotFound

from ..course import links
from ..course.model import MATH_OPTIONS, script_lang, unsafe_tex
from .mathml import tex_source, tex_to_mathml

Target = Literal["site", "anki"]

# Code colours: Pygments' "xcode" style keeps every token colour at a contrast of at least 4.5:1
# on its white background (tests/test_render.py checks this), and the panel carries its own
# background and text colour, so it reads the same in light pages, dark pages and Anki's night
# mode.
CODE_STYLE = "xcode"
CODE_BACKGROUND = "#ffffff"
CODE_FOREGROUND = "#1f2328"
_PRE_STYLE = (
    f"background:{CODE_BACKGROUND};color:{CODE_FOREGROUND};border:1px solid #8c959f;"
    "border-radius:4px;padding:0.5em 0.75em;overflow-x:auto;text-align:left;line-height:1.4"
)
_FORMATTER = HtmlFormatter(noclasses=True, nowrap=True, style=get_style_by_name(CODE_STYLE))

_ALLOWED_SCHEME = re.compile(r"^(?:https?|mailto):", re.IGNORECASE)
_ANY_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)

# A Latin-script run inside Urdu text: it starts with a Latin letter, may hold ASCII punctuation,
# digits and spaces (so "torch.utils.checkpoint" or "sqrt(N) layers" stay whole) and ends on a
# letter, digit or closing bracket (so a trailing comma or space stays in the Urdu sentence).
_LATIN = "A-Za-z\u00c0-\u024f"
_LATIN_RUN = re.compile(rf"[{_LATIN}](?:[{_LATIN}0-9\x20-\x7e]*[{_LATIN}0-9)\]])?")

_RTL_BLOCK = '<div dir="rtl" lang="ur">{}</div>'
_RTL_INLINE = '<span dir="rtl" lang="ur">{}</span>'
_LTR_ISOLATE = '<bdi dir="ltr" lang="en">{}</bdi>'


def render_markdown(
    text: str, *, target: Target, inline: bool = False, page: str = "", site_url: str = ""
) -> str:
    """Render course Markdown (a card side, option, question or explanation) to safe HTML.

    ``inline=True`` renders without a paragraph (for one-line card sides and options) and wraps
    Urdu in a ``<span>``; otherwise the result is block HTML and Urdu is wrapped in a ``<div>``.
    ``page`` is the docs path of the page the text is on: relative links are resolved from it
    (see :mod:`tools.course.links`); for Anki they become absolute through ``site_url``.
    """
    if target not in ("site", "anki"):
        raise ValueError(f"unknown render target {target!r}")
    rtl = script_lang(text) == "ur"
    if _plain(text, inline=inline):  # most card text: no parser needed
        body = _text_html(text, rtl=rtl) if inline else f"<p>{_text_html(text, rtl=rtl)}</p>"
    else:
        env: dict[str, Any] = {"target": target, "rtl": rtl, "page": page, "site_url": site_url}
        md = _renderer()
        body = md.renderInline(text, env) if inline else md.render(text, env).rstrip("\n")
    if rtl:
        return (_RTL_INLINE if inline else _RTL_BLOCK).format(body)
    return body


# Characters that can start Markdown inside a line (escapes, code, emphasis, links, images, HTML,
# entities, math) or end one; a line without them renders as its own text.
_INLINE_MARKUP = re.compile(r"[\\`*_\[\]!<>&$~]")


def _plain(text: str, *, inline: bool) -> bool:
    """Whether ``text`` renders as its escaped self: one line, no markup character, nothing a
    block could start with (a letter first) when rendered as a block. Much faster than parsing;
    ``tests/test_render.py`` checks it against the parser on every text of the course."""
    if text != text.strip() or not text.isprintable() or _INLINE_MARKUP.search(text):
        return False
    return inline or text[:1].isalpha()


# --- the markdown-it configuration ------------------------------------------------------------


@lru_cache(maxsize=1)
def _renderer() -> MarkdownIt:
    """One configured parser: building it costs more than rendering a card."""
    md = MarkdownIt("commonmark", {"html": False})
    md.use(dollarmath_plugin, double_inline=True, **MATH_OPTIONS)
    md.validateLink = _allowed_link  # type: ignore[method-assign]
    md.add_render_rule("text", _render_text)
    md.add_render_rule("code_inline", _render_code_inline)
    md.add_render_rule("fence", _render_fence)
    md.add_render_rule("code_block", _render_fence)
    md.add_render_rule("image", _render_image)
    md.add_render_rule("link_open", _render_link_open)
    for name in ("math_inline", "math_inline_double", "math_block", "math_block_label"):
        md.add_render_rule(name, _render_math)
    return md


def _allowed_link(url: str) -> bool:
    """http(s), mailto and scheme-less (relative or fragment) addresses; nothing else."""
    url = url.strip()
    return bool(_ALLOWED_SCHEME.match(url)) or not _ANY_SCHEME.match(url)


def _render_text(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    return _text_html(tokens[idx].content, rtl=bool(env.get("rtl")))


def _text_html(content: str, *, rtl: bool) -> str:
    if not rtl:
        return html.escape(content, quote=False)
    out: list[str] = []
    last = 0
    for match in _LATIN_RUN.finditer(content):
        out.append(html.escape(content[last : match.start()], quote=False))
        out.append(_LTR_ISOLATE.format(html.escape(match.group(), quote=False)))
        last = match.end()
    out.append(html.escape(content[last:], quote=False))
    return "".join(out)


def _render_code_inline(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    code = html.escape(tokens[idx].content, quote=False)
    # Code is left-to-right; inside Urdu, an element with dir= is also a bidi isolate.
    return f'<code dir="ltr">{code}</code>' if env.get("rtl") else f"<code>{code}</code>"


def _render_fence(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    token = tokens[idx]
    language = token.info.strip().split(maxsplit=1)[0] if token.info.strip() else ""
    return _highlight(token.content, language) + "\n"


@lru_cache(maxsize=512)
def _highlight(code: str, language: str) -> str:
    try:
        lexer = get_lexer_by_name(language) if language else TextLexer()
    except ClassNotFound:
        lexer = TextLexer()
    colored = highlight(code, lexer, _FORMATTER).rstrip("\n")
    lang_class = f' class="language-{html.escape(language)}"' if language else ""
    return f'<pre dir="ltr" style="{_PRE_STYLE}"><code{lang_class}>{colored}</code></pre>'


def _href(url: str, env: dict[str, Any]) -> str:
    """A link or image address as the target needs it (``.md`` -> page URL).

    With a ``site_url`` (Anki: the published site; the review page: ``./``, the site root) a
    relative address is resolved against the item's own page, so it works away from that page.
    """
    if env.get("target") == "anki" or env.get("site_url"):
        return links.absolute_href(url, env.get("page", ""), env.get("site_url", ""))
    return links.site_href(url, env.get("page", ""))


def _render_link_open(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    token = tokens[idx]
    token.attrSet("href", _href(str(token.attrGet("href") or ""), env))
    return self.renderToken(tokens, idx, options, env)


def _render_image(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    """Images load on the site, only from it; in Anki they become links, so no card fetches."""
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env)
    url = str(token.attrGet("src") or "")
    if env.get("target") == "anki":
        src = html.escape(_href(url, env))
        return f'<a href="{src}">{html.escape(alt or url, quote=False)}</a>'
    if links.leaves_site(url):  # the parser reports it; the page never loads it
        return html.escape(alt or url, quote=False)
    return f'<img src="{html.escape(_href(url, env))}" alt="{html.escape(alt)}">'


def _render_math(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    token = tokens[idx]
    display = token.type != "math_inline"
    tex = token.content.strip()
    if unsafe_tex(tex):  # the parser reports it; neither Anki's MathJax nor the site acts on it
        out = tex_source(tex)
    elif env.get("target") == "anki":
        # Anki typesets only \( \) and \[ \]; the TeX is HTML text, so <, > and & are escaped.
        escaped = html.escape(tex, quote=False)
        out = f"\\[{escaped}\\]" if display else f"\\({escaped}\\)"
    else:
        out = tex_to_mathml(tex, display=display, labelled=True)
    if token.type in ("math_block", "math_block_label"):
        return f'<div class="math">{out}</div>\n'
    return f'<bdi dir="ltr">{out}</bdi>' if env.get("rtl") else out
