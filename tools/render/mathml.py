"""TeX -> MathML for the site, safe to put in a page: formulas in course items and on pages.

The site turns TeX into MathML at build time, so no page loads a script to typeset it (Anki
typesets TeX itself: the deck gets the TeX, see :mod:`tools.render.markdown_html`).
latex2mathml copies ``\\text{...}`` into ``<mtext>`` unescaped, so its output is markup an author
controls: it passes through an allow-list of MathML elements and attributes before it reaches a
page. Lessons' formulas come marked by pymdownx.arithmatex, notebook pages' as ``$...$`` for
MathJax; both get the same MathML as course items.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from html.parser import HTMLParser

import latex2mathml.converter

from ..course.model import unsafe_tex
from .mathml_trim import without_inferred_rows


@lru_cache(maxsize=2048)
def tex_to_mathml(tex: str, *, display: bool = False, labelled: bool = False) -> str:
    """MathML for one formula, left-to-right even on a right-to-left page.

    TeX that latex2mathml cannot read stays visible as escaped source in a ``<code>``, so a
    build never fails on a formula and the reader still sees what the author wrote.

    ``labelled`` gives the formula a text read from the TeX (:func:`speakable_tex`), for course
    items: an option or a card question may be nothing but a formula, and the accessible name of
    a button or summary ignores MathML (role ``math`` is named by authors only), so without a
    label the control would have no name at all. HTML allows no ``aria-label`` on ``<math>``,
    and browsers do not read MathML's ``alttext`` (which it gets too, for tools that do): the
    name sits on a wrapper of role ``math``.
    """
    if unsafe_tex(tex):
        return tex_source(tex)
    try:
        mathml = latex2mathml.converter.convert(tex, display="block" if display else "inline")
    except Exception:  # latex2mathml raises many kinds of errors on malformed TeX
        return tex_source(tex)
    # No xmlns (not an allowed attribute: an HTML parser puts <math> in MathML's namespace by
    # itself) and no display="inline", the default: a lesson holds over a hundred formulas.
    mathml = without_inferred_rows(safe_mathml(mathml)).replace(' display="inline"', "", 1)
    if not labelled:
        return mathml.replace("<math", '<math dir="ltr"', 1)
    label = html.escape(speakable_tex(tex))
    mathml = mathml.replace("<math", f'<math dir="ltr" alttext="{label}"', 1)
    return f'<span role="math" aria-label="{label}">{mathml}</span>'


def tex_source(tex: str) -> str:
    """TeX shown as its escaped source, for a formula that is not turned into math."""
    return f'<code class="math-source" dir="ltr">{html.escape(tex, quote=False)}</code>'


# MathML that renders math and nothing else: no links, styles, classes, ids or events.
MATHML_ELEMENTS = frozenset(
    [
        "math",
        "mrow",
        "mi",
        "mn",
        "mo",
        "ms",
        "mtext",
        "mspace",
        "msup",
        "msub",
        "msubsup",
        "mfrac",
        "msqrt",
        "mroot",
        "mstyle",
        "mtable",
        "mtr",
        "mtd",
        "mlabeledtr",
        "munder",
        "mover",
        "munderover",
        "mpadded",
        "mphantom",
        "menclose",
        "mfenced",
        "mmultiscripts",
        "mprescripts",
        "none",
        "merror",
        "semantics",
        "annotation",
    ]
)
MATHML_ATTRIBUTES = frozenset(
    [
        "display",
        "dir",
        "mathvariant",
        "mathsize",
        "stretchy",
        "fence",
        "separator",
        "separators",
        "lspace",
        "rspace",
        "form",
        "movablelimits",
        "accent",
        "accentunder",
        "largeop",
        "symmetric",
        "minsize",
        "maxsize",
        "width",
        "height",
        "depth",
        "linethickness",
        "columnalign",
        "rowalign",
        "columnspacing",
        "rowspacing",
        "columnlines",
        "rowlines",
        "frame",
        "framespacing",
        "displaystyle",
        "scriptlevel",
        "notation",
        "encoding",
        "open",
        "close",
        "align",
        "equalrows",
        "equalcolumns",
        "rowspan",
        "columnspan",
        "bevelled",
        "numalign",
        "denomalign",
        "voffset",
    ]
)


class _MathMLFilter(HTMLParser):
    """Re-emit MathML keeping allowed elements and attributes; every text node is escaped.

    latex2mathml copies ``\\text{...}`` into ``<mtext>`` unescaped, so its output is markup an
    author controls: parsing it and writing back only what is allowed makes it inert. An end tag
    counts only when it closes the innermost open element, so a ``</math>`` written inside
    ``\\text`` cannot end the formula early; whatever is left open is closed at the end.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in MATHML_ELEMENTS:
            return
        kept = "".join(
            f' {name}="{html.escape(value or "")}"'
            for name, value in attrs
            if name in MATHML_ATTRIBUTES
        )
        self.out.append(f"<{tag}{kept}>")
        self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.open and self.open[-1] == tag:
            self.out.append(f"</{self.open.pop()}>")

    def handle_data(self, data: str) -> None:
        self.out.append(html.escape(data, quote=False))


def safe_mathml(mathml: str) -> str:
    """``mathml`` with only :data:`MATHML_ELEMENTS` and :data:`MATHML_ATTRIBUTES`, text escaped."""
    parser = _MathMLFilter()
    parser.feed(mathml)
    parser.close()
    return "".join(parser.out) + "".join(f"</{tag}>" for tag in reversed(parser.open))


_TEX_SYMBOLS = {
    "cdot": "·",
    "times": "×",
    "le": "≤",
    "leq": "≤",
    "ge": "≥",
    "geq": "≥",
    "ne": "≠",
    "neq": "≠",
    "approx": "≈",
    "to": "→",
    "infty": "∞",
    "ldots": "…",
    "dots": "…",
    "cdots": "…",
}


def speakable_tex(tex: str) -> str:
    """A short plain-text reading of TeX, e.g. ``\\sqrt{c \\cdot L}`` -> ``√(c · L)``."""
    previous = None
    while previous != tex:
        previous = tex
        tex = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)", tex)
        tex = re.sub(r"\\sqrt\{([^{}]*)\}", r"√(\1)", tex)
        tex = re.sub(r"\\(?:text|mathrm|mathit|mathbf|operatorname)\{([^{}]*)\}", r"\1", tex)
        tex = re.sub(r"(?<![A-Za-z}])\{([^{}]*)\}", r"\1", tex)
    tex = re.sub(r"\\(?:left|right|big|Big|bigg|Bigg)\b", "", tex)
    tex = re.sub(r"\\[,;:! ]", " ", tex)
    tex = re.sub(r"\\([A-Za-z]+)", lambda m: _TEX_SYMBOLS.get(m.group(1), m.group(1)), tex)
    return " ".join(tex.split())


# pymdownx.arithmatex (generic mode) output: TeX between \( \) or \[ \], HTML-escaped, in a span
# (inline) or a div (display block). `$$...$$` written inside a paragraph comes out as a span
# holding \[...\], so the delimiter, not the tag, says whether the formula is displayed.
_ARITHMATEX = re.compile(
    r'<(span|div) class="arithmatex">(?:\\\((?P<inline>.*?)\\\)|\\\[(?P<display>.*?)\\\])</\1>',
    re.DOTALL,
)


def mathml_in_html(page_html: str) -> str:
    """Replace arithmatex's marked TeX in a page's HTML with MathML (runs on every site page)."""
    if 'class="arithmatex"' not in page_html:
        return page_html

    def convert(match: re.Match[str]) -> str:
        display = match.group("display") is not None
        tex = html.unescape(match.group("display") if display else match.group("inline"))
        mathml = tex_to_mathml(tex.strip(), display=display)
        return f'<div class="arithmatex">{mathml}</div>' if match.group(1) == "div" else mathml

    return _ARITHMATEX.sub(convert, page_html)


# Notebook pages (mkdocs-jupyter) leave the TeX of Markdown cells as $...$ and $$...$$ for
# MathJax, which an offline site does not load: their cells get the same MathML as lessons.
_NOTEBOOK_MARKDOWN = re.compile(
    r'(<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown[^"]*"[^>]*>)(.*?)(</div>)', re.DOTALL
)
_CODE_OR_TAG = re.compile(r"<(code|pre)\b.*?</\1>|<[^>]*>", re.DOTALL)
_DOLLAR_MATH = re.compile(
    r"\$\$(?P<display>.+?)\$\$|(?<![\\$])\$(?P<inline>[^\s$](?:[^$]*?[^\s$\\])?)\$(?!\d)",
    re.DOTALL,
)


def notebook_math_in_html(page_html: str) -> str:
    """Replace the ``$...$`` TeX of a notebook page's Markdown cells with MathML; code and tags
    inside a cell are left as they are."""
    if "jp-RenderedMarkdown" not in page_html:
        return page_html

    def formula(match: re.Match[str]) -> str:
        display = match.group("display") is not None
        tex = html.unescape(match.group("display") if display else match.group("inline"))
        return tex_to_mathml(tex.strip(), display=display)

    def cell(match: re.Match[str]) -> str:
        body, out, end = match.group(2), [], 0
        for code in _CODE_OR_TAG.finditer(body):
            out += [_DOLLAR_MATH.sub(formula, body[end : code.start()]), code.group(0)]
            end = code.end()
        out.append(_DOLLAR_MATH.sub(formula, body[end:]))
        return match.group(1) + "".join(out) + match.group(3)

    return _NOTEBOOK_MARKDOWN.sub(cell, page_html)
