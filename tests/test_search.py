"""Site search: every flashcard and quiz question is a search result of its own, linking to it.

Material's search plugin indexes each page before the hook puts the cards and quizzes in
(``on_page_context``); the hook then adds one entry per item to ``search/search_index.json``,
read back from the HTML the page shows (:func:`tools.plugin.pages.search_entries`). The browser
side (typing in the search box finds a card) is in ``test_site_browser.py``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from mkdocs_course.buildkit.buildinfo import ROOT
from mkdocs_course.course.check import load_checked_course
from mkdocs_course.course.parser import parse_page
from mkdocs_course.plugin import pages as site_pages
from mkdocs_course.plugin import search
from mkdocs_course.plugin.syntax import MKDOCS
from selectolax.lexbor import LexborHTMLParser

LESSON = """\
# A lesson

Prose before, with $a^2$ in it.

## Flashcards

What does $x^2 + 1$ cost? ::: One `a < b` compare & a <b>tag</b> {#cost}
کیا چیک پوائنٹنگ میموری بچاتی ہے؟ ::: ہاں، دوبارہ گنتی سے

::: quiz id=demo title="Demo"
1. Which call checkpoints a module?
   - [ ] `torch.optim.SGD`
   - [x] `torch.utils.checkpoint`

   Explanation: it recomputes the *forward* pass.
:::
"""


def entries_of(text: str, tmp_path: Path) -> list[dict[str, str]]:
    page, errors = parse_page("docs/lessons/a.md", "lessons/a.md", text, syntax=MKDOCS)
    assert not errors, errors
    _, blocks = site_pages.render_page(page, text, root=tmp_path, strict_results=False)
    return site_pages.search_entries(blocks)


def test_each_card_and_question_is_an_entry_with_its_anchor_title_and_text(tmp_path):
    cost, urdu, question = entries_of(LESSON, tmp_path)
    assert cost == {
        "anchor": "cost",
        "title": "What does x^2 + 1 cost?",  # math as its TeX, as the page's prose is indexed
        "text": "<p>One a &lt; b compare &amp; a &lt;b&gt;tag&lt;/b&gt;</p>",  # escaped text
    }
    assert urdu["anchor"].startswith("card-")
    assert (urdu["title"], urdu["text"]) == (
        "کیا چیک پوائنٹنگ میموری بچاتی ہے؟",
        "<p>ہاں، دوبارہ گنتی سے</p>",
    )
    assert question["anchor"].startswith("q-")
    assert question["title"] == "Which call checkpoints a module?"
    assert question["text"] == (
        "<ol><li>torch.optim.SGD</li><li>torch.utils.checkpoint</li></ol>"
        "<p>Explanation: it recomputes the forward pass.</p>"
    )


def test_a_page_without_cards_or_quizzes_has_no_entries(tmp_path):
    assert entries_of("# Prose\n\nOnly text.\n", tmp_path) == []


# --- the built site ---------------------------------------------------------------------------


def test_the_built_index_has_every_item_once_after_its_page_and_no_card_text_twice(built_site):
    docs = json.loads((built_site / "search" / "search_index.json").read_text("utf-8"))["docs"]
    course = load_checked_course(ROOT, syntax=MKDOCS)
    expected = sorted(
        f"{page.docs_path.removesuffix('.md')}.html#{item.anchor}"
        for page in course.pages
        for item in (*page.cards, *(q for quiz in page.quizzes for q in quiz.questions))
    )
    found = sorted(d["location"] for d in docs if d["location"] in set(expected))
    assert found == expected  # each card and question once
    seen_pages: set[str] = set()
    for doc in docs:  # Material's client needs a page's entry before its sections' entries
        path, _, anchor = doc["location"].partition("#")
        assert not anchor or path in seen_pages, doc["location"]
        seen_pages.add(path)
    card = next(c for c in course.cards if c.back.isascii() and len(c.back) > 30)
    answer = " ".join(card.back.split())[:30]
    holders = [d["location"] for d in docs if answer in d["text"]]
    assert len(holders) == 1 and holders[0].endswith(f"#{card.anchor}"), holders


def test_a_notebook_cells_code_is_in_the_index_once(built_site):
    """The copy button's hidden copy of each cell's source is left out; the cell itself is in."""
    docs = json.loads((built_site / "search" / "search_index.json").read_text("utf-8"))["docs"]
    lab = " ".join(d["text"] for d in docs if d["location"].startswith("lab/"))
    html = (built_site / "lab" / "checkpointing-lab.html").read_text("utf-8")
    assert html.count('<div class="clipboard-copy-txt" data-search-exclude') > 1
    assert html.count("def find_snippets(") == 1  # the copy (the cell is highlighted)
    assert lab.count("def find_snippets(") == 1  # the cell


def test_a_benchmark_embed_is_indexed_by_its_captions_and_first_headers_only():
    embed = (
        '<div class="benchmark"><table><caption>Run A</caption>'
        '<tr><th scope="row">No checkpointing</th><td class="num">46.1 MiB</td></tr></table>'
        '<table><tr><th scope="row">No checkpointing</th><th>Step time</th><td>9 ms</td></tr>'
        '</table><figure><svg viewBox="0 0 1 1"><text>46.1 MiB</text></svg>'
        "<figcaption>Peaks</figcaption></figure></div>"
    )
    marked = search.without_figures(embed)
    assert marked.count('<td data-search-exclude="figure" class="num">') == 1
    assert marked.count('<td data-search-exclude="figure">') == 1
    assert '<svg data-search-exclude="figure" viewBox="0 0 1 1">' in marked
    assert marked.count('<th scope="row">No checkpointing</th>') == 1  # the first stays in
    assert '<th data-search-exclude="repeat" scope="row">No checkpointing</th>' in marked
    assert "<th>Step time</th>" in marked and "<caption>Run A</caption>" in marked
    # Material's search plugin takes the marks out of the page once it has indexed it
    assert re.sub(r"\s?data-search-\w+=\"[^\"]+\"", "", marked) == embed


def test_the_built_index_holds_tables_by_their_words_not_their_figures(built_site):
    docs = json.loads((built_site / "search" / "search_index.json").read_text("utf-8"))["docs"]
    page = "lessons/02-gradient-checkpointing.html"
    tree = LexborHTMLParser((built_site / page).read_text("utf-8"))
    assert "data-search-" not in tree.html
    table = tree.css_first(".benchmark table")
    caption, cell = table.css_first("caption").text(), table.css_first("td").text()
    text = " ".join(d["text"] for d in docs if d["location"].startswith(page))
    assert " ".join(caption.split()) in text
    assert cell not in text, cell  # figures are in the tables, not the index
    for doc in docs:  # white space once, except in code
        prose = re.sub(r"<pre>.*?</pre>", "<pre></pre>", doc["text"], flags=re.DOTALL)
        assert not re.search(r"\s\s", prose), doc["location"]


def test_a_paragraph_or_caption_a_page_repeats_is_indexed_where_it_first_appears():
    page = (
        "<p>Read the answer.</p><p>Other text.</p>"
        '<table><caption>Run A</caption></table><p class="provenance">measured on X</p>'
        '<table><caption>Run A</caption></table><p class="provenance">measured on X</p>'
        "<pre>&lt;p&gt;Read the answer.&lt;/p&gt;</pre>"
        "<p>Read the answer.</p><p>Read the answer!</p>"
    )
    marked = search.without_repeats(page)
    assert marked.count("data-search-exclude") == 3
    assert marked.startswith("<p>Read the answer.</p><p>Other text.</p><table><caption>Run A<")
    assert '<caption data-search-exclude="repeat">Run A</caption>' in marked
    assert '<p data-search-exclude="repeat" class="provenance">measured on X</p>' in marked
    assert marked.endswith(
        '<p data-search-exclude="repeat">Read the answer.</p><p>Read the answer!</p>'
    )
    assert re.sub(r"\s?data-search-\w+=\"[^\"]+\"", "", marked) == page


def test_the_built_index_holds_each_paragraph_of_a_page_once(built_site):
    """A note or a provenance line under each of a lesson's benchmark tables is indexed once."""
    docs = json.loads((built_site / "search" / "search_index.json").read_text("utf-8"))["docs"]
    page = "lessons/02-part-3-measuring-and-choosing.html"
    tree = LexborHTMLParser((built_site / page).read_text("utf-8"))
    provenance = [" ".join(p.text().split()) for p in tree.css("p.benchmark-provenance")]
    repeated = {line for line in provenance if provenance.count(line) > 1}
    assert repeated, "the page no longer repeats a provenance line: pick another page"
    text = " ".join(d["text"] for d in docs if d["location"].startswith(page))
    for line in repeated:
        assert text.count(line[:60]) == 1, line
