"""A page's metadata (YAML front matter), by allow-list: MkDocs takes it out of the Markdown and
the theme prints some of it (the title, the description) into the page without escaping, so
course content may set only what the course needs, as plain text.

The lines MkDocs reads as metadata are handed in by the site's syntax
(:attr:`~tools.course.model.SiteSyntax.metadata`); the parser reads the page with those lines
blank, so every line after them keeps its number and none is read as Markdown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from .. import yaml_problems
from .source import Source

_TEXT_KEYS = ("title", "description")
_HIDE = ("navigation", "toc", "footer", "feedback", "tags", "path")  # Material's page parts
_ALLOWED = (
    f"title and description (plain text), hide (a list of {', '.join(_HIDE)}) and search "
    "(exclude: true or false)"
)


@dataclass(frozen=True)
class FrontMatter:
    lines: int  # how many lines at the top of the page it takes (0: none)
    title: str | None  # the page title it gives, if any and allowed


def read(src: Source, lines: int, text: str | None) -> FrontMatter:
    """The front matter of ``src``: its first ``lines`` lines, whose YAML is ``text`` (None for
    MultiMarkdown-style lines); each problem is an error at its line."""
    if not lines:
        return FrontMatter(0, None)
    if text is None:
        src.error(
            0,
            "MkDocs reads 'Key: value' lines at the top of a page as its metadata, and shows "
            "none of them: start the page with a heading, or put a title or description in YAML "
            "front matter between two '---' lines",
        )
        return FrontMatter(lines, None)
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()  # the keys' lines
        data = loader.construct_document(node) if node else None
    except yaml.YAMLError as exc:
        line, problem = yaml_problems.located(exc, first_line=2)  # below the opening '---'
        src.error((line or 2) - 1, f"front matter is not YAML: {problem}")
        return FrontMatter(lines, None)
    finally:
        loader.dispose()
    if not isinstance(node, yaml.MappingNode) or not isinstance(data, dict):
        src.error(0, f"front matter must be keys and values; a page may set {_ALLOWED}")
        return FrontMatter(lines, None)
    for key_node, _ in node.value:
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.tag)
        problem = _problem(key, data[key]) if key in data else "is not allowed"
        if problem:
            src.error(
                1 + key_node.start_mark.line,
                f"front matter key {key!r} {problem}; a page may set {_ALLOWED}",
            )
    title = data.get("title")
    return FrontMatter(lines, title if isinstance(title, str) and not _text(title) else None)


def _problem(key: str, value: Any) -> str | None:
    """What is wrong with ``value`` for ``key`` (None: nothing)."""
    if key in _TEXT_KEYS:
        return _text(value)
    if key == "hide":
        fine = isinstance(value, list) and all(part in _HIDE for part in value)
        return None if fine else f"must be a list of {', '.join(_HIDE)}"
    if key == "search":
        fine = isinstance(value, dict) and all(
            k == "exclude" and isinstance(v, bool) for k, v in value.items()
        )
        return None if fine else "must be 'exclude: true' or 'exclude: false'"
    return "is not allowed"


def _text(value: Any) -> str | None:
    """Plain text: a string without the characters that make markup or end an attribute."""
    if not isinstance(value, str) or not value.strip():
        return "must be plain text"
    bad = sorted({c for c in value if c in '<>"'})
    return f"must be plain text, without {' '.join(bad)}" if bad else None
