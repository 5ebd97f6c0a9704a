"""The home page's learning path, made from a section of ``nav`` at build time, so the table a
learner follows and the order the Next buttons take are one list and cannot drift apart.

A page asks for it with a line holding only ``<!-- learning path: SECTION -->``, where SECTION
names a section of ``nav`` in ``mkdocs.yml``. Each of its entries is a step: the entry's title
linking to its page, and the time the page gives for itself (its first "about N minutes").
Entries whose files differ only by a language suffix (``quiz-en.md``, ``quiz-ur.md``) are one
step, the first linked with its time and the others after it: the same quiz in other languages.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

MARKER = re.compile(r"^<!-- learning path: (.+?) -->$", re.MULTILINE)
_TIME = re.compile(r"\babout (\d+) minutes\b", re.IGNORECASE)
_LANGUAGE_SUFFIX = re.compile(r"-[a-z]{2}$")


class PathError(ValueError):
    """A learning path that cannot be made; the message names the page and what is wrong."""


def fill(markdown: str, *, page: str, nav: list[Any], docs: Path) -> str:
    """``markdown`` with each learning-path line replaced by its table (links relative to
    ``page``, the page's path under ``docs``)."""

    def table(match: re.Match[str]) -> str:
        return _table(match.group(1), page=page, nav=nav, docs=docs)

    return MARKER.sub(table, markdown)


def steps(section: str, nav: list[Any]) -> list[list[tuple[str, str]]]:
    """The ``(title, file)`` entries of the nav section named ``section``, grouped in steps."""
    entries = next((e[section] for e in nav if isinstance(e, dict) and section in e), None)
    if not isinstance(entries, list):
        raise PathError(f"nav has no section {section!r} for the learning path")
    grouped: list[list[tuple[str, str]]] = []
    for entry in entries:
        if not (isinstance(entry, dict) and len(entry) == 1):
            raise PathError(f"nav section {section!r}: each entry must be 'Title: file'")
        ((title, file),) = entry.items()
        if not isinstance(file, str):
            raise PathError(f"nav section {section!r}: {title!r} is a section, not a page")
        if grouped and _family(grouped[-1][0][1]) == _family(file):
            grouped[-1].append((title, file))
        else:
            grouped.append([(title, file)])
    return grouped


def _family(file: str) -> str:
    stem, _ = posixpath.splitext(file)
    return _LANGUAGE_SUFFIX.sub("", stem)


def _table(section: str, *, page: str, nav: list[Any], docs: Path) -> str:
    here = posixpath.dirname(page)
    rows = ["| Step | Page | Time |", "| --- | --- | --- |"]
    for number, step in enumerate(steps(section, nav), 1):
        links = [
            f"[{_cell(title)}]({posixpath.relpath(file, here or '.')})" for title, file in step
        ]
        rows.append(f"| {number} | {' · '.join(links)} | {_time(docs, step[0][1])} |")
    return "\n".join(rows)


def _time(docs: Path, file: str) -> str:
    try:
        found = _TIME.search((docs / file).read_text("utf-8"))
    except OSError as exc:
        raise PathError(f"{file}: in the learning path, but cannot be read ({exc})") from None
    if found is None:
        raise PathError(f"{file}: in the learning path, but it says nowhere 'about N minutes'")
    return f"{found.group(1)} min"


def _cell(text: str) -> str:
    """A title inside a table cell and a link's text: its pipes and brackets escaped."""
    return re.sub(r"([|\[\]\\])", r"\\\1", text)
