"""Keep every page self-contained and inert: nothing loads from elsewhere, no author script runs.

Third-party templates add remote scripts the course does not need: mkdocs-jupyter's notebook
template always loads MathJax, from a CDN or, with no URL set, from an empty ``src``; the
course's math is build-time MathML, lessons and notebook cells alike (:mod:`tools.render`). Such
tags are removed. Then every built page is read as HTML
and each address that the browser would fetch by itself (``src``, ``srcset``, ``poster``,
``data``, a loading ``<link>``, SVG references, CSS ``url()`` and ``@import``) must stay on the
site: no other scheme (``data:`` and ``blob:`` make no request), no host, no protocol-relative
``//host`` and no one-slash ``https:/host``, which browsers read as a host too. So the offline
promise is checked on every page at build time rather than hoped for.

The content of a Markdown page (what authors write; the theme's own scripts are outside it) may
hold no script at all: no ``<script>``, ``<iframe>``, ``<object>``, ``<embed>``, ``<base>``,
``<meta>``, ``<template>`` (which exists for script to use) or ``<noscript>``, no ``on…=``
handler and no ``javascript:``-like address. Course items are escaped by
:mod:`tools.render.markdown_html`; this catches raw HTML in prose, which Python-Markdown passes
through.

Addresses are judged as the URL standard reads them
(:func:`tools.course.sanitize.normalised_url`), and CSS, in ``<style>`` and ``style=``, is read
with a CSS tokenizer (tinycss2, :func:`tools.course.sanitize.css_addresses`): escapes,
``@import`` and ``image-set()`` are seen as the browser sees them. This scan is the second line
behind the allow-list of :mod:`tools.course.sanitize`. The lab page's content is checked too: its
only scripts may be mkdocs-jupyter's own (:data:`NOTEBOOK_SCRIPTS`).

Pages are read with Lexbor (selectolax), an implementation of the HTML standard's parser: the
elements and attribute values checked are the ones a browser would build, and the parsing is
done in C, so scanning every built page stays cheap.
"""

from __future__ import annotations

import functools
import hashlib
import re
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from ..course.links import LINK_SCHEMES
from ..course.sanitize import css_addresses, leaves, normalised_url
from ..course.sanitize import off_site as sanitize_off_site

_REMOTE_SCRIPT = re.compile(
    r"<script\b[^>]*\bsrc=[\"'](?:https?://[^\"']*)?[\"'][^>]*>\s*</script>\s*"
    r"(?:<!--[^>]*-->\s*)?(?:<script type=\"text/x-mathjax-config\">.*?</script>)?",
    re.DOTALL | re.IGNORECASE,
)

# Attributes whose address the browser fetches without a click.
_LOAD_ATTRIBUTES = {"src", "srcset", "poster", "data", "background", "imagesrcset"}
_LINK_NOT_LOADING = {"canonical", "next", "prev", "alternate", "author", "license", "help"}
_SVG_REFERENCES = {"image", "use", "feimage", "script"}
# CSS functions whose string arguments the browser fetches.

# What may not appear in a Markdown page's content.
_ACTIVE_TAGS = {
    "script",
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "base",
    "meta",
    "applet",
    "template",
    "set",  # SVG animation can set an href to a remote or script address
    "animate",
    "animatemotion",
    "animatetransform",
    # Read here as a browser with script off reads it: its content as elements. A browser with
    # script on reads that content as text up to the first "</noscript>", wherever that falls
    # (inside an attribute value too), so what this scan sees is not what runs. No page needs it.
    "noscript",
}
# The scripts of mkdocs-jupyter 0.26's notebook template (sha256 of their text): the only ones a
# lab page's content may hold. A new mkdocs-jupyter that changes them fails the build until the
# new ones are read and listed here.
NOTEBOOK_SCRIPTS = {
    "858c16af2d8aebc7",  # ClipboardCopyElement (the code cells' copy button)
    "1b9c6d787348200f",  # its clipboard-copy event listener
    "36a9e7f1c95b82ff",  # an empty <script src=""> where MathJax's CDN script was
    "5cf2a413795fed9c",  # MathJax configuration (inert: MathJax is never loaded)
    "0bb1ad5d2574f666",  # Mermaid diagrams (none: cells may not carry its classes)
}
# The inline scripts of Material 9.8's templates (sha256 of their text, the base address its
# first one holds written as BASE): with mkdocs-jupyter's, the only inline scripts a whole built
# page may hold. The rest of a page (the theme, its overrides/ and the settings that reach
# them, such as the copyright or extra.homepage) is scanned like the content, so a script that
# comes from there fails the build. A new Material fails it until its scripts are read and
# listed here.
THEME_SCRIPTS = {
    "9e2703283f0df807",  # __md_scope and Material's storage helpers
    "0eb10c249dbdb0be",  # the stored colour palette
    "ffcc0f7735fdab43",  # opening the <details> a link's fragment names
}
# <script type=...> that browsers never run: a data block (Material's __config).
_DATA_SCRIPT_TYPES = {"application/json"}
_SCOPE_BASE = re.compile(r'new URL\("[^"\\]*",location\)')
_URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data", "poster"}
# Attributes that can make a tag load something (the rest need no look for remote loads).
_CANDIDATES = _LOAD_ATTRIBUTES | {"href", "xlink:href", "style", "ping"}


def without_remote_scripts(html: str) -> str:
    """Remove ``<script src="http...">`` and ``<script src="">`` tags (and MathJax's inline config
    that goes with them)."""
    return _REMOTE_SCRIPT.sub("", html)


def remote_loads(html: str) -> list[str]:
    """Every address in a built page that the browser would fetch from outside the site."""
    return _scan(html)[0]


def active_content(html: str) -> list[str]:
    """Every script, handler or script address in a Markdown page's content."""
    return _scan(html)[1]


def notebook_active_content(html: str) -> list[str]:
    """Every script, handler or script address in the lab page's content, apart from the
    scripts of mkdocs-jupyter's template (:data:`NOTEBOOK_SCRIPTS`)."""
    return _scan(html, known_scripts=NOTEBOOK_SCRIPTS)[1]


def built_page_active_content(html: str) -> list[str]:
    """Every script, handler or script address in a whole built page, apart from the theme's
    and mkdocs-jupyter's known inline scripts, data blocks, ``<meta>`` that only describes the
    page, and scripts loaded from the site itself (its files are checked where they come from:
    ``extra.course.active_files``, the theme's own)."""
    return built_page_scan(html)[1]


def built_page_scan(html: str) -> tuple[list[str], list[str]]:
    """``(remote_loads(html), built_page_active_content(html))`` from one reading of the page:
    what a page would load from elsewhere does not depend on which scripts are the theme's, and
    a built page, with its navigation, is the largest text a build scans."""
    return _scan(html, known_scripts=THEME_SCRIPTS | NOTEBOOK_SCRIPTS, whole_page=True)


def script_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _theme_script_digest(text: str) -> str:
    """:func:`script_digest` with the base address of Material's first script left out (it is
    ``.``, ``..`` or the site's path, by page)."""
    return script_digest(_SCOPE_BASE.sub('new URL("BASE",location)', text))


def _passive_in_page(tag: str, attrs: dict[str, str | None]) -> bool:
    """A ``<meta>`` that only describes the page, a data block, or a script file of the site."""
    if tag == "meta":
        return "http-equiv" not in attrs
    if tag != "script":
        return False
    if (attrs.get("type") or "").strip().lower() in _DATA_SCRIPT_TYPES:
        return True
    src = attrs.get("src")
    return bool(src) and not sanitize_off_site(src)


def _script_address(name: str, url: str) -> bool:
    """A scheme other than http(s) and mailto (``javascript:`` and the like, spaces ignored as
    browsers ignore them); ``data:`` only as a raster image's ``src``."""
    compact = re.sub(r"[\x00-\x20]", "", normalised_url(url)).lower()
    scheme = re.match(r"([a-z][a-z0-9+.-]*):", compact)
    if not scheme:
        return False
    if scheme.group(1) == "data":
        raster = re.match(r"data:image/(?:png|jpe?g|gif|webp)[;,]", compact)
        return not (name in ("src", "srcset") and raster)
    return scheme.group(1) not in LINK_SCHEMES


def _scan(
    html: str, known_scripts: frozenset[str] | set[str] = frozenset(), *, whole_page: bool = False
) -> tuple[list[str], list[str]]:
    """``(remote loads, active content)`` of ``html``, read into elements as a browser reads it.

    Lexbor follows the HTML standard's parsing algorithm, so what counts is what a browser would
    build: attribute values with their character references decoded, tag case and SVG or MathML
    names as the browser has them, text in ``<textarea>`` or a comment as text. A ``<template>``'s
    content stays inert (never loaded, never run); in page content the tag itself is refused.
    """
    remote: list[str] = []
    active: list[str] = []
    for node in LexborHTMLParser(html).root.traverse():
        tag = node.tag.lower()
        if tag.startswith("-"):  # -comment, -text, -document
            continue
        attrs = node.attributes
        if tag in ("script", "style"):  # their text counts too
            found_active, found_remote = _text_element(node, tag, attrs, known_scripts, whole_page)
            if tag == "style":
                text = node.text(deep=True)
                remote += [f"<style> {url}" for url in css_addresses(text) if leaves(url)]
        else:
            found_active, found_remote = _element(tag, tuple(attrs.items()), whole_page)
        # Every element of every built page passes here: the common case (nothing found) builds
        # nothing; the tag is only written out for a message.
        if found_active or found_remote:
            written = " ".join(f"{k}={v or ''!r}" for k, v in attrs.items())
            shown = f"<{tag} {written}>"[:160]
            if found_active:
                active.append(shown)
            if found_remote:
                remote.append(shown)
    return remote, active


@functools.lru_cache(maxsize=1 << 16)
def _element(tag: str, attrs: tuple[tuple[str, str | None], ...], whole_page: bool) -> tuple:
    """``(active, remote)`` for an element whose text does not count: its tag and attributes
    decide. Kept for the next element with the same ones: every built page repeats the theme's
    header and the whole navigation, whose links are the same on every page of a folder, so a
    build would otherwise judge each of them once per page."""
    return _judged(tag, dict(attrs), tag in _ACTIVE_TAGS, whole_page)


def _text_element(
    node: Any, tag: str, attrs: dict, known_scripts: frozenset[str] | set[str], whole_page: bool
) -> tuple[bool, bool]:
    """``(active, remote)`` for a ``<script>`` or ``<style>``: a script whose text is a known
    one (and has no ``src``) is not active content."""
    found_active = tag in _ACTIVE_TAGS
    if tag == "script" and known_scripts:
        text = node.text(deep=True)
        digest = _theme_script_digest(text) if whole_page else script_digest(text)
        if digest in known_scripts and not attrs.get("src"):
            found_active = False
    return _judged(tag, attrs, found_active, whole_page)


def _judged(
    tag: str, attrs: dict[str, str | None], found_active: bool, whole_page: bool
) -> tuple[bool, bool]:
    """``(active, remote)`` of an element from its attributes, ``found_active`` what its tag
    (and a script's text) decided."""
    if whole_page and found_active and _passive_in_page(tag, attrs):
        found_active = False
    found_remote = False
    for name, value in attrs.items():
        value = value or ""
        handler = name.startswith("on") or name == "srcdoc"
        if handler or (name in _URL_ATTRIBUTES and _script_address(name, value)):
            found_active = True
        if name in _CANDIDATES:
            if _loads(tag, name, attrs) and any(leaves(u) for u in _addresses(name, value)):
                found_remote = True
            if name == "style" and any(leaves(u) for u in css_addresses(value, declarations=True)):
                found_remote = True
    return found_active, found_remote


def _loads(tag: str, name: str, attrs: dict[str, str | None]) -> bool:
    if name in _LOAD_ATTRIBUTES or name == "ping":  # ping: a request on every click
        return True
    if tag == "link" and name == "href":
        rel = attrs.get("rel") or ""
        return not set(rel.lower().split()) <= _LINK_NOT_LOADING
    return tag in _SVG_REFERENCES and name in ("href", "xlink:href")


def _addresses(name: str, value: str) -> list[str]:
    if name == "ping":
        return value.split()
    if "srcset" in name:
        return [candidate.split()[0] for candidate in value.split(",") if candidate.strip()]
    return [value]
