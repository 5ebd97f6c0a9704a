"""Keep every page self-contained and inert: nothing loads from elsewhere, no author script runs.

Third-party templates add remote scripts the course does not need: mkdocs-jupyter's notebook
template always loads MathJax from a CDN (the lab notebook keeps its math out of Markdown cells,
and lessons use build-time MathML). Such tags are removed. Then every built page is read as HTML
and each address that the browser would fetch by itself (``src``, ``srcset``, ``poster``,
``data``, a loading ``<link>``, SVG references, CSS ``url()`` and ``@import``) must stay on the
site: no other scheme (``data:`` and ``blob:`` make no request), no host, no protocol-relative
``//host`` and no one-slash ``https:/host``, which browsers read as a host too. So the offline
promise is checked on every page at build time rather than hoped for.

The content of a Markdown page (what authors write; the theme's own scripts are outside it) may
hold no script at all: no ``<script>``, ``<iframe>``, ``<object>``, ``<embed>``, ``<base>``,
``<meta>`` or ``<template>`` (which exists for script to use), no ``on…=`` handler and no
``javascript:``-like address. Course items are escaped by :mod:`tools.render.safe_html`; this
catches raw HTML in prose, which Python-Markdown passes through.

Pages are read with Lexbor (selectolax), an implementation of the HTML standard's parser: the
elements and attribute values checked are the ones a browser would build, and the parsing is
done in C, so scanning every built page stays cheap.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser

from tools.course.links import LINK_SCHEMES, leaves_site

_REMOTE_SCRIPT = re.compile(
    r"<script\b[^>]*\bsrc=[\"']https?://[^\"']*[\"'][^>]*>\s*</script>\s*"
    r"(?:<!--[^>]*-->\s*)?(?:<script type=\"text/x-mathjax-config\">.*?</script>)?",
    re.DOTALL | re.IGNORECASE,
)

# Attributes whose address the browser fetches without a click.
_LOAD_ATTRIBUTES = {"src", "srcset", "poster", "data", "background", "imagesrcset"}
_LINK_NOT_LOADING = {"canonical", "next", "prev", "alternate", "author", "license", "help"}
_SVG_REFERENCES = {"image", "use", "feimage", "script"}
_CSS_URL = re.compile(r"""(?:url\(\s*|@import\s+)["']?([^"')\s;]+)""", re.IGNORECASE)
_LOCAL_SCHEMES = ("data:", "blob:")

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
}
_URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data", "poster"}
# Attributes that can make a tag load something (the rest need no look for remote loads).
_CANDIDATES = _LOAD_ATTRIBUTES | {"href", "xlink:href", "style"}


def without_remote_scripts(html: str) -> str:
    """Remove ``<script src="http...">`` tags (and MathJax's inline config that goes with them)."""
    return _REMOTE_SCRIPT.sub("", html)


def remote_loads(html: str) -> list[str]:
    """Every address in a built page that the browser would fetch from outside the site."""
    return _scan(html)[0]


def active_content(html: str) -> list[str]:
    """Every script, handler or script address in a Markdown page's content."""
    return _scan(html)[1]


def _leaves(url: str) -> bool:
    url = url.strip()
    return leaves_site(url) and not url.lower().startswith(_LOCAL_SCHEMES)


def _script_address(name: str, url: str) -> bool:
    """A scheme other than http(s) and mailto (``javascript:`` and the like, spaces ignored as
    browsers ignore them); ``data:`` only as a raster image's ``src``."""
    compact = re.sub(r"[\x00-\x20]", "", url).lower()
    scheme = re.match(r"([a-z][a-z0-9+.-]*):", compact)
    if not scheme:
        return False
    if scheme.group(1) == "data":
        raster = re.match(r"data:image/(?:png|jpe?g|gif|webp)[;,]", compact)
        return not (name in ("src", "srcset") and raster)
    return scheme.group(1) not in LINK_SCHEMES


def _scan(html: str) -> tuple[list[str], list[str]]:
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
        # Every element of every built page passes here: the common case (nothing found) builds
        # nothing; the tag is only written out for a message.
        attrs = node.attributes
        found_active = tag in _ACTIVE_TAGS
        found_remote = False
        for name, value in attrs.items():
            value = value or ""
            handler = name.startswith("on") or name == "srcdoc"
            if handler or (name in _URL_ATTRIBUTES and _script_address(name, value)):
                found_active = True
            if name in _CANDIDATES:
                if _loads(tag, name, attrs) and any(_leaves(u) for u in _addresses(name, value)):
                    found_remote = True
                if name == "style" and any(_leaves(u) for u in _CSS_URL.findall(value)):
                    found_remote = True
        if tag == "style":
            text = node.text(deep=False)
            remote += [f"<style> {url}" for url in _CSS_URL.findall(text) if _leaves(url)]
        if found_active or found_remote:
            written = " ".join(f"{k}={v or ''!r}" for k, v in attrs.items())
            shown = f"<{tag} {written}>"[:160]
            if found_active:
                active.append(shown)
            if found_remote:
                remote.append(shown)
    return remote, active


def _loads(tag: str, name: str, attrs: dict[str, str | None]) -> bool:
    if name in _LOAD_ATTRIBUTES:
        return True
    if tag == "link" and name == "href":
        rel = attrs.get("rel") or ""
        return not set(rel.lower().split()) <= _LINK_NOT_LOADING
    return tag in _SVG_REFERENCES and name in ("href", "xlink:href")


def _addresses(name: str, value: str) -> list[str]:
    if "srcset" in name:
        return [candidate.split()[0] for candidate in value.split(",") if candidate.strip()]
    return [value]
