"""Allow-list the HTML of content pages: what an author writes can only become what the course's
Markdown extensions emit.

Python-Markdown passes an author's raw HTML through, so a page's content is cleaned with
ammonia (through ``nh3``), a maintained sanitiser that parses as browsers do, keeping only the
elements and attributes that admonitions, details, tables, code highlighting, arithmatex math,
attribute lists and the course's own blocks produce. Everything else goes: ``<style>`` and
``style=`` (CSS can load from anywhere, and a deny-list of its syntax loses to the browser's
parser), SVG and its animations, ``ping``, handlers, unknown ``data-`` attributes. The lab
notebook is cleaned the same way inside each of its cells and outputs, the parts an author
controls; mkdocs-jupyter's own template around them stays.

Addresses are judged after normalising them as the URL standard does (tabs and newlines
removed, leading and trailing controls and spaces stripped, ``\\`` read as ``/``): what is judged
is what the browser will fetch. :func:`problems` reports, with the page's line, each piece of
raw HTML that the sanitiser would change, so ``check`` tells the author instead of the build
dropping it quietly; :mod:`tools.plugin.offline` still scans every built page as a second line.
"""

from __future__ import annotations

import re

import nh3
import tinycss2
import tinycss2.bytes
from selectolax.lexbor import LexborHTMLParser

from .links import LINK_SCHEMES

_HEADINGS = {f"h{n}" for n in range(1, 7)}
TAGS = {
    *_HEADINGS,
    *[
        "a",
        "abbr",
        "b",
        "blockquote",
        "br",
        "caption",
        "cite",
        "code",
        "col",
        "colgroup",
        "dd",
        "del",
        "details",
        "dfn",
        "div",
        "dl",
        "dt",
        "em",
        "figcaption",
        "figure",
        "hr",
        "i",
        "img",
        "ins",
        "kbd",
        "li",
        "mark",
        "ol",
        "p",
        "pre",
        "q",
        "s",
        "samp",
        "section",
        "small",
        "span",
        "strong",
        "sub",
        "summary",
        "sup",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "time",
        "tr",
        "u",
        "ul",
        "var",
        "wbr",
    ],
}
# Accessibility attributes carry no address and run nothing (a scrolling table's wrapper needs
# role, aria-label and tabindex).
_GENERIC = {"id", "class", "title", "lang", "dir", "role", "tabindex", "aria-label",
            "aria-labelledby", "aria-describedby", "aria-hidden"}  # fmt: skip
ATTRIBUTES = {
    "*": _GENERIC,
    "a": {"href", "name"},
    "img": {"src", "alt", "width", "height", "loading"},
    "details": {"open"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan", "scope"},
    "col": {"span"},
    "colgroup": {"span"},
    "ol": {"start", "type", "reversed"},
    "li": {"value"},
    "abbr": {"title"},
    "p": {"hidden"},
}
# The course's own blocks in a page: a placeholder the engine fills (tools/plugin/pages.py), and the
# review page's mount point, whose scripts are named by these fixed values (store.js loads them).
ATTRIBUTE_VALUES = {
    "div": {
        "data-fsrs": {"assets/vendor/ts-fsrs/index.umd.js"},
        "data-content": {"assets/review/content.js"},
        "data-ui": {"assets/review/page.js"},
    }
}
_PLACEHOLDER = re.compile(r"\d+")
# Lab cells: what nbconvert emits inside a Markdown cell or an output, besides the above.
_NOTEBOOK_ATTRIBUTES = {"div": {"tabindex", "data-mime-type"}}
# mkdocs-jupyter turns these classes into diagrams fetched from elsewhere: never in a cell.
_NOTEBOOK_CLASSES = re.compile(r"^(jp-Mermaid|mermaid)", re.IGNORECASE)
_CELL_CONTENT = ".jp-RenderedHTMLCommon, .jp-OutputArea-output"
_RASTER = re.compile(r"^data:image/(?:png|jpe?g|gif|webp)[;,]", re.IGNORECASE)
_SCHEME = re.compile(r"^([a-z][a-z0-9+.-]*):", re.IGNORECASE)
_URL_ATTRIBUTES = {"href", "src"}
_CSS_LOADING_FUNCTIONS = {"url", "src", "image-set", "-webkit-image-set", "image", "cross-fade"}
_LOCAL_SCHEMES = ("data:", "blob:")


def normalised_url(url: str) -> str:
    """``url`` as the URL standard's parser reads it before resolving: leading and trailing C0
    controls and spaces stripped, every tab and newline removed, and ``\\`` read as ``/`` (as for
    the http(s) addresses pages are served under)."""
    url = re.sub(
        r"[\t\n\r]",
        "",
        url.strip(
            "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r"
            "\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19"
            "\x1a\x1b\x1c\x1d\x1e\x1f "
        ),
    )
    scheme = _SCHEME.match(url)
    if scheme is None or scheme.group(1).lower() in ("http", "https"):
        head, sep, rest = url.partition("?")
        path, hsep, fragment = head.partition("#")
        url = path.replace("\\", "/") + hsep + fragment + sep + rest
    return url


def off_site(url: str) -> bool:
    """Whether the normalised ``url`` names another origin: a scheme, or a host (``//host``)."""
    url = normalised_url(url)
    return bool(_SCHEME.match(url)) or url.startswith("//")


def url_allowed(attribute: str, url: str) -> bool:
    """A link may leave the site by http(s) or mailto; what loads by itself (``src``) stays on
    the site, or is a raster image inline."""
    url = normalised_url(url)
    scheme = _SCHEME.match(url)
    if attribute == "src":
        return bool(_RASTER.match(url)) or not off_site(url)
    if scheme:
        return scheme.group(1).lower() in LINK_SCHEMES
    return not url.startswith("//")


def _filter(notebook: bool):
    def keep(tag: str, attribute: str, value: str) -> str | None:
        if attribute in _URL_ATTRIBUTES:
            return value if url_allowed(attribute, value) else None
        if attribute == "data-course-block":
            return value if _PLACEHOLDER.fullmatch(value) else None
        if attribute == "class" and notebook:
            kept = [name for name in value.split() if not _NOTEBOOK_CLASSES.match(name)]
            return " ".join(kept) or None
        return value

    return keep


def _clean(html: str, *, notebook: bool = False) -> str:
    attributes = {tag: set(names) for tag, names in ATTRIBUTES.items()}
    attributes.setdefault("div", set()).add("data-course-block")
    if notebook:
        for tag, names in _NOTEBOOK_ATTRIBUTES.items():
            attributes.setdefault(tag, set()).update(names)
    return nh3.clean(
        html,
        tags=TAGS,
        clean_content_tags={"script", "style", "template", "textarea", "noscript"},
        attributes=attributes,
        tag_attribute_values=ATTRIBUTE_VALUES,
        attribute_filter=_filter(notebook),
        url_schemes={*LINK_SCHEMES, "data"},
        link_rel=None,
        strip_comments=True,
    )


def clean_page(html: str) -> str:
    """A Markdown page's content, as Python-Markdown made it, reduced to the allow-list."""
    return _clean(html)


def clean_notebook(html: str) -> str:
    """The lab page's content with every Markdown cell and output reduced to the allow-list;
    mkdocs-jupyter's template around them is left as it is (the built-page scan then allows only
    its known scripts, :data:`tools.plugin.offline.NOTEBOOK_SCRIPTS`)."""
    tree = LexborHTMLParser(f"<!DOCTYPE html><html><head></head><body>{html}</body></html>")
    cells = tree.css(_CELL_CONTENT)
    if not cells:
        return html
    for cell in cells:
        if any(outer in cells for outer in _ancestors(cell)):
            continue  # cleaned with the cell that holds it
        inner = "".join(child.html or "" for child in cell.iter(include_text=True))
        cleaned = LexborHTMLParser(f"<body>{_clean(inner, notebook=True)}</body>").body
        for child in list(cell.iter(include_text=True)):
            child.decompose()
        assert cleaned is not None
        for child in cleaned.iter(include_text=True):
            cell.insert_child(child)
    body = tree.body
    assert body is not None
    return "".join(child.html or "" for child in body.iter(include_text=True))


def _ancestors(node):
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def problems(fragment: str) -> list[str]:
    """What the sanitiser would take out of a piece of raw HTML: each element, attribute or
    address not on the allow-list, written as the browser reads it, for a ``path:line`` error."""
    found = []
    for node in LexborHTMLParser(f"<body>{fragment}</body>").body.traverse():
        tag = node.tag
        if tag.startswith("-") or tag in ("html", "head", "body"):
            continue
        if tag not in TAGS:
            found.append(f"<{tag}> is not allowed in course pages")
            continue
        allowed = ATTRIBUTES.get(tag, set()) | _GENERIC | {"markdown"}  # md_in_html's switch
        values = ATTRIBUTE_VALUES.get(tag, {})
        for name, value in node.attributes.items():
            value = value or ""
            if name in values:
                if value not in values[name]:
                    found.append(f"<{tag} {name}={value!r}>: {name} may only be {values[name]}")
            elif name not in allowed:
                found.append(f"<{tag} {name}=...>: the attribute {name} is not allowed")
            elif name in _URL_ATTRIBUTES and not url_allowed(name, value):
                found.append(f"<{tag} {name}={value!r}>: this address is not allowed")
    return found


def leaves(url: str) -> bool:
    """Whether the browser would fetch ``url`` from another origin (``data:``/``blob:`` fetch
    nothing)."""
    return off_site(url) and not normalised_url(url).lower().startswith(_LOCAL_SCHEMES)


def stylesheet_text(data: bytes) -> tuple[str, tuple[int, str] | None]:
    """A style sheet's text as a browser decodes it (byte-order mark first, then ``@charset``,
    else UTF-8: CSS Syntax's rules, as tinycss2 implements them), and ``(line, why)`` when it is
    not UTF-8 or not valid UTF-8. The site's sheets are UTF-8; any other encoding would make
    the text a check reads differ from the text a browser reads."""
    text, encoding = tinycss2.bytes.decode_stylesheet_bytes(data)
    if encoding.name != "utf-8":
        return text, (1, f"a style sheet in {encoding.name} (by its byte-order mark or @charset): "
                         "save it as UTF-8")  # fmt: skip
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return text, (line, f"not valid UTF-8 (byte {exc.start}): save the style sheet as UTF-8")
    return text, None


def css_addresses(css: str, *, declarations: bool = False) -> list[str]:
    """Every address that ``css`` (a style sheet, or a ``style=`` value) makes the browser fetch,
    read by a CSS tokenizer: ``url()``, ``@import``, and strings in ``image-set()`` and the like."""
    if declarations:
        values = tinycss2.parse_component_value_list(css, skip_comments=True)
    else:
        values = tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
    found: list[str] = []
    stack = list(values)
    while stack:
        node = stack.pop()
        kind = getattr(node, "type", "")
        if kind == "url":
            found.append(node.value)
        elif kind == "function" and node.lower_name in _CSS_LOADING_FUNCTIONS:
            found += [arg.value for arg in node.arguments if arg.type == "string"]
            stack += node.arguments
        elif kind == "at-rule" and node.lower_at_keyword == "import":
            found += [tok.value for tok in node.prelude if tok.type == "string"]
            stack += node.prelude
        else:
            for part in ("prelude", "content", "arguments"):
                stack += getattr(node, part, None) or []
    return found
