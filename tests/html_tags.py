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
