"""Read HTML the way a browser would, for tests that assert on tags and attributes."""

from __future__ import annotations

from html.parser import HTMLParser


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags(html: str) -> list[tuple[str, dict[str, str | None]]]:
    """Every start tag in ``html``, in order, with its attributes."""
    parser = _Tags()
    parser.feed(html)
    return parser.tags


def active_markup(html: str) -> dict[str, int]:
    """What in ``html`` could run script, counted as a browser reads it: ``<script>`` elements,
    ``on…=`` handler attributes and attribute values that are ``javascript:`` URLs."""
    found = tags(html)
    return {
        "script": sum(tag == "script" for tag, _ in found),
        "handlers": sum(name.startswith("on") for _, attrs in found for name in attrs),
        "javascript": sum(
            "".join((value or "").split()).lower().startswith("javascript:")
            for _, attrs in found
            for value in attrs.values()
        ),
    }
