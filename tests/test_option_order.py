"""A question's stored option order (``{order=...}``) reaches the site and the deck alike: both
show the options in that order, the site with the labels the explanation names them by."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("genanki", reason="the course engine's dependencies are not installed")

from mkdocs_course.anki import deck
from mkdocs_course.course.parser import parse_page
from mkdocs_course.plugin import pages as site
from mkdocs_course.plugin.syntax import MKDOCS

QUIZ = textwrap.dedent(
    """\
    # Order

    ::: quiz id=order-demo
    1. Which one is right? {order=CAB}
       - [x] The right one
       - [ ] A wrong one
       - [ ] Another wrong one

       Option {option:A} is right; {option:C} is not.
    :::
    """
)
SHOWN = ["Another wrong one", "The right one", "A wrong one"]


@pytest.fixture
def question():
    page, errors = parse_page("docs/quizzes/o.md", "quizzes/o.md", QUIZ, syntax=MKDOCS)
    assert not errors, errors
    return page, page.quizzes[0].questions[0]


def _texts(html: str, css_class: str) -> list[str]:
    return re.findall(rf'<span class="{css_class}"[^>]*>(.*?)</span>', html)


def test_the_site_shows_the_stored_order_with_labels_and_the_right_answer_index(question):
    page, _ = question
    out, blocks = site.render_page(page, QUIZ, root=Path("."), strict_results=False)
    html = site.fill_blocks(site.fill_blocks(out, blocks, items=False), blocks, items=True)
    assert _texts(html, "quiz-option-text") == SHOWN
    assert _texts(html, "quiz-option-label") == ["A", "B", "C"]
    assert 'data-answer="1"' in html
    assert "Option B is right; A is not." in html


def test_the_deck_lists_the_options_in_the_same_order(question):
    _, q = question
    front = deck._options_html(q, marked=False, page="quizzes/o.md", site_url="")
    back = deck._options_html(q, marked=True, page="quizzes/o.md", site_url="")
    assert re.findall(r"<li>([^<]*)</li>", front) == SHOWN
    assert re.search(r'<li class="correct"><span class="tick">✓</span>The right one</li>', back)
    assert back.index("Another wrong one") < back.index("The right one") < back.index("A wrong")


def test_the_deck_numbers_its_options_with_the_labels_the_model_gives():
    """The deck's note type numbers option lists by CSS; the model's labels must be the same."""
    css = (deck.ROOT / "deck" / "cards.css").read_text("utf-8")  # this course's templates
    assert re.search(r"ol\.options \{[^}]*list-style-type: upper-latin", css)
    assert re.search(r'ol\.options\[lang="ur"\] \{[^}]*list-style-type: persian', css)
