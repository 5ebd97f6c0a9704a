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
hold no script at all: no ``<script>``, ``<iframe>``, ``<object>``, ``<embed>``, ``<base>`` or
``<meta>``, no ``on…=`` handler and no ``javascript:``-like address. Course items are escaped by
:mod:`tools.render`; this catches raw HTML in prose, which Python-Markdown passes through.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from tools.links import LINK_SCHEMES, leaves_site

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
}
_URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data", "poster"}
# Attributes that can make a tag load something (the rest need no look for remote loads).
_CANDIDATES = _LOAD_ATTRIBUTES | {"href", "xlink:href", "style"}


def without_remote_scripts(html: str) -> str:
    """Remove ``<script src="http...">`` tags (and MathJax's inline config that goes with them)."""
    return _REMOTE_SCRIPT.sub("", html)


def remote_loads(html: str) -> list[str]:
    """Every address in a built page that the browser would fetch from outside the site."""
    scan = _Scan()
    scan.feed(html)
    scan.close()
    return scan.remote


def active_content(html: str) -> list[str]:
    """Every script, handler or script address in a Markdown page's content."""
    scan = _Scan()
    scan.feed(html)
    scan.close()
    return scan.active


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


class _Scan(HTMLParser):
    """One pass over a page: addresses that leave the site, and active content."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.remote: list[str] = []
        self.active: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # Called for every tag of every built page: the common case (nothing found) builds
        # nothing; the tag is only written out for a message.
        self._in_style = tag == "style"
        found_active = tag in _ACTIVE_TAGS
        found_remote = False
        for name, value in attrs:
            value = value or ""
            handler = name.startswith("on") or name == "srcdoc"
            if handler or (name in _URL_ATTRIBUTES and _script_address(name, value)):
                found_active = True
            if name in _CANDIDATES:
                if self._loads(tag, name, attrs) and any(
                    _leaves(u) for u in _addresses(name, value)
                ):
                    found_remote = True
                if name == "style" and any(_leaves(u) for u in _CSS_URL.findall(value)):
                    found_remote = True
        if found_active or found_remote:
            values = {name: value or "" for name, value in attrs}
            shown = f"<{tag} {' '.join(f'{k}={v!r}' for k, v in values.items())}>"[:160]
            if found_active:
                self.active.append(shown)
            if found_remote:
                self.remote.append(shown)

    handle_startendtag = handle_starttag

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.remote += [f"<style> {url}" for url in _CSS_URL.findall(data) if _leaves(url)]

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    @staticmethod
    def _loads(tag: str, name: str, attrs: list[tuple[str, str | None]]) -> bool:
        if name in _LOAD_ATTRIBUTES:
            return True
        if tag == "link" and name == "href":
            rel = next((value or "" for key, value in attrs if key == "rel"), "")
            return not set(rel.lower().split()) <= _LINK_NOT_LOADING
        return tag in _SVG_REFERENCES and name in ("href", "xlink:href")


def _addresses(name: str, value: str) -> list[str]:
    if "srcset" in name:
        return [candidate.split()[0] for candidate in value.split(",") if candidate.strip()]
    return [value]
