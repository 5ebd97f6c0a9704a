"""What the site search holds: Material's entries for the pages' prose, then one entry for each
card and quiz question, each piece of text once.

Material's search plugin indexes a page's content as it is when the plugin reads it
(``on_page_context``). The hook has it read less than the page shows where the page holds text
twice: a notebook's code cell carries a hidden copy of its source for the copy button
(mkdocs-jupyter's ``clipboard-copy-txt``), which the plugin would index beside the cell's
highlighted source. :func:`without_copies` marks those copies ``data-search-exclude``, which the
plugin skips; search still finds the code, in the cell itself.

The cards and quiz questions are not in the prose the plugin reads (the hook puts them in after
it has indexed the page); :func:`add_item_entries` adds one entry for each, linking to it, read
back from the page (:func:`tools.site.pages.search_entries`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

_COPY = re.compile(r'<div class="clipboard-copy-txt"(?=[\s>])')


def without_copies(html: str) -> str:
    """A notebook page's HTML, the copy buttons' hidden copies of its code left out of search."""
    return _COPY.sub('<div class="clipboard-copy-txt" data-search-exclude', html)


def add_item_entries(index_file: Path, entries: dict[str, list[dict[str, str]]]) -> None:
    """Put each page's card and question ``entries`` (by page URL) after that page's own entries
    in Material's search index (its client expects a page's entry before those of its
    sections)."""
    if not entries or not index_file.is_file():  # no Material search
        return
    entries = dict(entries)
    index = json.loads(index_file.read_text("utf-8"))
    docs: list[dict[str, Any]] = []
    for entry in index["docs"]:
        url = entry["location"].partition("#")[0]
        if docs and docs[-1]["location"].partition("#")[0] != url:
            docs += _entries_of(entries, docs[-1]["location"].partition("#")[0])
        docs.append(entry)
    if docs:
        docs += _entries_of(entries, docs[-1]["location"].partition("#")[0])
    index["docs"] = docs
    index_file.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), "utf-8")


def _entries_of(entries: dict[str, list[dict[str, str]]], url: str) -> list[dict[str, str]]:
    return [
        {"location": f"{url}#{e['anchor']}", "title": e["title"], "text": e["text"]}
        for e in entries.pop(url, [])
    ]
