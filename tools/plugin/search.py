"""What the site search holds: Material's entries for the pages' prose, then one entry for each
card and quiz question, each piece of text once.

Material's search plugin indexes a page's content as it is when the plugin reads it
(``on_page_context``). The hook has it read less than the page shows where the page holds text
twice: a notebook's code cell carries a hidden copy of its source for the copy button
(mkdocs-jupyter's ``clipboard-copy-txt``), which the plugin would index beside the cell's
highlighted source. :func:`without_copies` marks those copies ``data-search-exclude``, which the
plugin skips; search still finds the code, in the cell itself.

A benchmark embed is found by its captions and its tables' row and column headers, not by its
figures: :func:`without_figures` marks for the plugin to skip the figures' cells, each header
cell that repeats one of an earlier table of the same embed (its tables share their strategies
and columns), and its charts, whose labels and figures the plugin would read from the SVG's
text. The figures change with every
measurement, and the plugin runs neighbouring cells and labels together ("46.0 GiB46.0 GiB"),
so a search for one rarely found it; they and the repeats were much of the index's weight.
Material takes the marks out of the page once it has indexed it. Text a page says more than once
(a note or a provenance line under each of its benchmark tables, an exercise's standing
instruction) is indexed where it first appears: :func:`without_repeats` marks each later
paragraph or caption that repeats one the same way.

The cards and quiz questions are not in the prose the plugin reads (the hook puts them in after
it has indexed the page); :func:`add_item_entries` adds one entry for each, linking to it, read
back from the page (:func:`tools.plugin.pages.search_entries`). It also collapses the runs of
white space that the plugin keeps from the Markdown's indented lines (code apart, where they are
the code's).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

_COPY = re.compile(r'<div class="clipboard-copy-txt"(?=[\s>])')
_CELL = re.compile(r"<(td|svg)(?=[\s>])")


def _elements(tags: str) -> re.Pattern[str]:
    """Elements named by ``tags`` (a ``|`` list) that hold no element of their kind: groups
    tag, attributes (with their leading space), content."""
    return re.compile(rf"<({tags})((?:\s[^>]*)?)>(.*?)</\1>", re.DOTALL)


_HEADER = _elements("th")
_TEXT_BLOCK = _elements("p|caption")
_PRE = re.compile(r"(<pre>.*?</pre>)", re.DOTALL)
_SPACES = re.compile(r"\s{2,}")


def without_copies(html: str) -> str:
    """A notebook page's HTML, the copy buttons' hidden copies of its code left out of search."""
    return _COPY.sub('<div class="clipboard-copy-txt" data-search-exclude', html)


def without_figures(embed_html: str) -> str:
    """A benchmark embed's HTML, its tables' figures, its repeated header cells and its charts
    left out of search (its captions and the first of each header stay in)."""
    return _first_only(_HEADER, _CELL.sub(r'<\1 data-search-exclude="figure"', embed_html))


def without_repeats(page_html: str) -> str:
    """A page's HTML, each paragraph and caption that repeats an earlier one of the page left out
    of search: the first stays in, so search still finds its words on this page."""
    return _first_only(_TEXT_BLOCK, page_html)


def _first_only(elements: re.Pattern[str], html: str) -> str:
    """``html`` with each of ``elements`` (:func:`_elements`) whose content an earlier one had
    marked ``data-search-exclude="repeat"``."""
    seen: set[str] = set()

    def mark(match: re.Match[str]) -> str:
        tag, attrs, inner = match.groups()
        if inner not in seen:
            seen.add(inner)
            return match.group()
        return f'<{tag} data-search-exclude="repeat"{attrs}>{inner}</{tag}>'

    return elements.sub(mark, html)


def add_item_entries(index_file: Path, entries: dict[str, list[dict[str, str]]]) -> None:
    """Put each page's card and question ``entries`` (by page URL) after that page's own entries
    in Material's search index (its client expects a page's entry before those of its
    sections)."""
    if not index_file.is_file():  # no Material search
        return
    entries = dict(entries)
    index = json.loads(index_file.read_text("utf-8"))
    docs: list[dict[str, Any]] = []
    for entry in index["docs"]:
        entry["text"] = _collapsed(entry["text"])
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


def _collapsed(text: str) -> str:
    """``text`` with each run of white space outside ``<pre>`` made one space."""
    parts = _PRE.split(text)
    return "".join(part if n % 2 else _SPACES.sub(" ", part) for n, part in enumerate(parts))
