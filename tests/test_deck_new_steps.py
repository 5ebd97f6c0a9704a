"""The cards and quiz questions for the contribution steps added to Lessons 1 and 4 (CLA and DCO,
drafts, approval of first-time CI runs, CODEOWNERS) reach Anki.

The real course is built into a deck and imported with the official Anki library, as a learner's
Anki would; each new item must arrive as a card whose front shows its question and whose back
keeps the link to the source it cites.
"""

from __future__ import annotations

import html
import re

import pytest

pytestmark = pytest.mark.anki

pytest.importorskip("genanki", reason="the course engine's dependencies are not installed")
anki_collection = pytest.importorskip("anki.collection", reason="the anki package is not installed")

from mkdocs_course.anki import deck  # noqa: E402
from mkdocs_course.buildkit.buildinfo import ROOT  # noqa: E402
from mkdocs_course.course.parser import parse_course  # noqa: E402
from mkdocs_course.plugin.syntax import MKDOCS  # noqa: E402
from test_deck import SITE, T2, import_apkg  # noqa: E402

# (question as written in the lesson, a host its answer or explanation links to)
NEW_CARDS = [
    ("What is a CLA?", None),
    ("What is a DCO sign-off?", None),
    ("Which command adds a DCO sign-off to a commit?", "git-scm.com"),
    ("Which legal step does PyTorch require before it accepts a change?", "github.com"),
    ("Which legal step does JAX require?", "docs.jax.dev"),
    ("Does Hugging Face transformers welcome typo fixes?", "github.com"),
    ("What is a draft pull request?", "docs.github.com"),
    ("Why may CI not run on your first pull request from a fork?", "docs.github.com"),
    ("What should you do while your first pull request's CI waits for approval?", None),
    ("What does a `CODEOWNERS` file do?", "docs.github.com"),
    ("How does PyTorch assign reviewers if you name none?", "github.com"),
]
NEW_QUESTIONS = [
    ("A project asks for a DCO. What must each of your commits carry?", "git-scm.com"),
    ("its checks say they are waiting for approval. What is going on?", "docs.github.com"),
    ('What does marking a draft pull request "Ready for review" do on GitHub?', "docs.github.com"),
    ("assigns to a team. What happens when you open the pull request", "docs.github.com"),
]


def _text(rendered: str) -> str:
    """Visible text of rendered card HTML: no style block, no tags, entities decoded."""
    body = rendered.rsplit("</style>", 1)[-1]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def _plain(markdown: str) -> str:
    return " ".join(markdown.replace("`", "").split())


@pytest.fixture(scope="module")
def anki_cards(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str]]:
    course = parse_course(ROOT, syntax=MKDOCS)
    assert not course.errors, [str(e) for e in course.errors]
    folder = tmp_path_factory.mktemp("real-deck")
    apkg = folder / "course.apkg"
    deck.write_deck(course, apkg, site_url=SITE, timestamp=T2, root=ROOT)
    col = anki_collection.Collection(str(folder / "collection.anki2"))
    try:
        import_apkg(col, apkg)
        cards = [col.get_card(card_id) for card_id in col.find_cards("")]
        yield [(_text(card.question()), card.answer()) for card in cards]
    finally:
        col.close()


def _arrived(anki_cards: list[tuple[str, str]], question: str) -> list[str]:
    """The answer HTML of every imported card whose front shows ``question``."""
    return [answer for front, answer in anki_cards if _plain(question) in front]


@pytest.mark.parametrize(("question", "host"), NEW_CARDS + NEW_QUESTIONS)
def test_the_new_item_is_a_card_in_anki(anki_cards, question, host):
    answers = _arrived(anki_cards, question)
    assert len(answers) == 1, f"{question!r}: {len(answers)} cards"
    if host is not None:
        assert f'href="https://{host}/' in answers[0]


def test_the_lists_are_the_lessons_items():
    """Every question listed here is one the lessons really hold (a card or a quiz question)."""
    course = parse_course(ROOT, syntax=MKDOCS)
    fronts = {_plain(card.front) for card in course.cards}
    prompts = [_plain(question.prompt) for question in course.questions]
    for question, _ in NEW_CARDS:
        assert _plain(question) in fronts, question
    for question, _ in NEW_QUESTIONS:
        assert sum(_plain(question) in prompt for prompt in prompts) == 1, question
    assert len(NEW_CARDS) >= 6 and len(NEW_QUESTIONS) >= 3
