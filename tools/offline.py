"""Keep every page self-contained: nothing a page loads may come from another origin.

Third-party templates add remote scripts the course does not need: mkdocs-jupyter's notebook
template always loads MathJax from a CDN (the lab notebook keeps its math out of Markdown cells,
and lessons use build-time MathML). Such tags are removed, and anything remote that remains is
reported, so the offline promise is checked on every page at build time rather than hoped for.
"""

from __future__ import annotations

import re

_REMOTE_SCRIPT = re.compile(
    r"<script\b[^>]*\bsrc=[\"']https?://[^\"']*[\"'][^>]*>\s*</script>\s*"
    r"(?:<!--[^>]*-->\s*)?(?:<script type=\"text/x-mathjax-config\">.*?</script>)?",
    re.DOTALL | re.IGNORECASE,
)
_REMOTE_LOAD = re.compile(
    r"<(?:script|img|iframe|source|audio|video)\b[^>]*\bsrc=[\"'](?:https?:)?//"
    r"|<link\b(?=[^>]*\brel=[\"']?(?:stylesheet|preload|icon|modulepreload))"
    r"[^>]*\bhref=[\"'](?:https?:)?//"
    r"|@import\s+url\([\"']?(?:https?:)?//",
    re.IGNORECASE,
)


def without_remote_scripts(html: str) -> str:
    """Remove ``<script src="http...">`` tags (and MathJax's inline config that goes with them)."""
    return _REMOTE_SCRIPT.sub("", html)


def remote_loads(html: str) -> list[str]:
    """The start of every tag or rule in ``html`` that would load something from another origin."""
    return [html[m.start() : m.start() + 120] for m in _REMOTE_LOAD.finditer(html)]
