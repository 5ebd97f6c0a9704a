"""The course parser (tools/course/parser.py): what it finds; bad input as path:line: message."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from conftest import with_course_settings

pytest.importorskip("markdown_it", reason="the course engine's dependencies are not installed")

from mkdocs_course.course.model import Card, CardGroup, Quiz
from mkdocs_course.course.parser import parse_course, parse_page
from mkdocs_course.plugin.syntax import MKDOCS

PATH = "docs/lessons/01-x.md"


def parse(text: str):
    return parse_page(PATH, "lessons/01-x.md", textwrap.dedent(text).lstrip("\n"), syntax=MKDOCS)


def messages(text: str) -> list[str]:
    return [str(error) for error in parse(text)[1]]


def cards(text: str) -> list[tuple[str, str, str | None, int]]:
    page, errors = parse(text)
    assert not errors, [str(e) for e in errors]
    return [(c.front, c.back, c.explicit_id, c.location.line) for c in page.cards]


GOOD_QUIZ = """\
# Quiz page

Some text.

::: quiz id=q1 lang=en title="My quiz"
1. Which *one*? {#q-first}
   - [x] the `right` one
   - [ ] a wrong one

   Because $a<b$.

   A second paragraph.

2. And this?
   - [ ] a
   - [X] b
   - [ ] c

   Explained.
:::
"""


def quiz_messages(old: str, new: str) -> list[str]:
    assert old in GOOD_QUIZ
    return messages(GOOD_QUIZ.replace(old, new, 1))


# --- flashcards -------------------------------------------------------------------------------


def test_flashcards_one_per_line_with_lines_and_ids():
    page, errors = parse(
        """
        # Lesson

        Intro paragraph.

        ## Flashcards

        What is *this*? ::: A `card` with $x$
        Second card? ::: Its answer {#second-card}

        After a blank line? ::: Still a card
        """
    )
    assert errors == []
    assert page.title == "Lesson"
    assert [(c.front, c.back, c.explicit_id, str(c.location)) for c in page.cards] == [
        ("What is *this*?", "A `card` with $x$", None, f"{PATH}:7"),
        ("Second card?", "Its answer", "second-card", f"{PATH}:8"),
        ("After a blank line?", "Still a card", None, f"{PATH}:10"),
    ]
    groups = [block for _, block in page.blocks if isinstance(block, CardGroup)]
    assert [len(group.cards) for group in groups] == [2, 1]


def test_card_key_and_anchor_follow_the_explicit_id_or_the_normalized_question():
    plain = Card("  What   IS this? ", "x", None)  # type: ignore[arg-type]
    assert plain.key == "what is this?"
    assert plain.anchor.startswith("card-")
    assert Card("Q", "A", None, "my-id").key == "my-id"  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "`a ::: b` is inline code\n",
        "Text with `a ::: b` inside\n",
        "```\na ::: b\n```\n",
        "~~~python\nx = 'a ::: b'\n~~~\n",
        "$a ::: b$ is math\n",
        "Math $x ::: y$ inside\n",
        "$$\na ::: b\n$$\n",
    ],
)
def test_separator_in_code_or_math_is_never_a_card(text):
    page, errors = parse_page(PATH, "lessons/01-x.md", text, syntax=MKDOCS)
    assert page.cards == [] and errors == []


def test_math_ends_at_a_blank_line_so_card_lines_after_it_are_read_as_on_the_site():
    """pymdownx.arithmatex holds no blank line: the site shows lines after one as prose, so
    card lines there are cards, or an error, never math."""
    assert cards("$$\nx\n\nQ? ::: A.\n\n$$\n") == [("Q?", "A.", None, 4)]
    assert messages("$$\nx\n\nQ? ::: A.\n$$\n") == [
        f"{PATH}:5: a paragraph of flashcards holds a line without ':::' "
        "(put a blank line between cards and other text)"
    ]


def test_separator_inside_inline_code_on_a_side_stays_text():
    assert cards("Operator? ::: `a ::: b` is not split\n") == [
        ("Operator?", "`a ::: b` is not split", None, 1)
    ]


def test_urdu_card_keeps_its_text():
    (card,) = parse("PyTorch میں چیک پوائنٹ؟ ::: torch.utils.checkpoint\n")[0].cards
    assert card.lang == "ur" and card.back == "torch.utils.checkpoint"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (" ::: answer\n", [f"{PATH}:1: flashcard has an empty question"]),
        ("Question? :::\n", [f"{PATH}:1: flashcard has an empty answer"]),
        ("Question? ::: {#some-id}\n", [f"{PATH}:1: flashcard has an empty answer"]),
        (
            "A ::: B ::: C\n",
            [f"{PATH}:1: a flashcard has one ':::' separator, this line has 2"],
        ),
        *(  # an id the author meant, malformed or one too many: never text with nothing applied
            (
                f"Good ::: card\nWhat makes a PR? ::: Merge {written}\n",
                [
                    f"{PATH}:2: {shown} ends the flashcard but is not its explicit id: a card "
                    "takes one, {#some-id}, of letters, digits, '-' and '_', starting with a "
                    "letter, with no spaces"
                ],
            )
            for written, shown in [
                ("{#bad id!}", "{#bad id!}"),
                ("{#my id}", "{#my id}"),
                ("{#my-id }", "{#my-id }"),
                ("{#1abc}", "{#1abc}"),
                ("{ordr=DCBA}", "{ordr=DCBA}"),
                ("{.note}", "{.note}"),
                ("{#first} {#second}", "{#first}"),
            ]
        ),
        *(  # on the question side: shown as text, with nothing applied
            (
                f"Good ::: card\nWhat makes a PR? {written} ::: Merge\n",
                [
                    f"{PATH}:2: {written} ends the flashcard's question: a card's explicit id "
                    "goes after its answer ('question ::: answer {#some-id}')"
                ],
            )
            for written in ("{#pr-quality}", "{.note}")
        ),
        (
            "Good ::: card\nplain text in the same paragraph\n",
            [
                f"{PATH}:2: a paragraph of flashcards holds a line without ':::' "
                "(put a blank line between cards and other text)"
            ],
        ),
        (
            "- In a list ::: no\n",
            [f"{PATH}:1: flashcards must be top-level paragraphs, not inside lists or quotes"],
        ),
        (
            "> In a quote ::: no\n",
            [f"{PATH}:1: flashcards must be top-level paragraphs, not inside lists or quotes"],
        ),
    ],
)
def test_bad_flashcards(text, expected):
    assert messages(text) == expected


@pytest.mark.parametrize("ending", ["\\{#escaped\\}", "{option:A}", "{1, 2}", "`{#code}`"])
def test_braces_that_are_no_attribute_list_stay_text(ending):
    assert cards(f"Which set? ::: The set {ending}\n") == [
        ("Which set?", f"The set {ending}", None, 1)
    ]
    page, errors = parse(GOOD_QUIZ.replace("2. And this?", f"2. And this {ending}"))
    assert errors == [] and page.quizzes[0].questions[1].prompt == f"And this {ending}"


def test_cards_in_one_list_or_quote_get_one_error_each_block():
    """A card in a list pulls the lines after it into the item: one mistake, one error."""
    text = "1. Q1? ::: A1\nQ2? ::: A2\nnot a card\nQ3 ::: A3\n\n- a ::: b\n- c ::: d\n\n> e ::: f\n"
    assert messages(text) == [
        f"{PATH}:1: flashcards must be top-level paragraphs, not inside lists or quotes (this list "
        "holds 3 card lines, 1 to 4: take them out of it, after a blank line)",
        f"{PATH}:6: flashcards must be top-level paragraphs, not inside lists or quotes (this list "
        "holds 2 card lines, 6 to 7: take them out of it, after a blank line)",
        f"{PATH}:9: flashcards must be top-level paragraphs, not inside lists or quotes",
    ]


def test_all_flashcard_errors_in_one_run_and_good_cards_kept():
    page, errors = parse("A ::: B\n ::: x\nC ::: D ::: E\nF ::: G\n")
    assert [str(e) for e in errors] == [
        f"{PATH}:2: flashcard has an empty question",
        f"{PATH}:3: a flashcard has one ':::' separator, this line has 2",
    ]
    assert [c.front for c in page.cards] == ["A", "F"]


# --- quizzes ----------------------------------------------------------------------------------


def test_good_quiz():
    page, errors = parse(GOOD_QUIZ)
    assert errors == []
    (quiz,) = page.quizzes
    assert (quiz.quiz_id, quiz.lang, quiz.title, str(quiz.location)) == (
        "q1",
        "en",
        "My quiz",
        f"{PATH}:5",
    )
    first, second = quiz.questions
    assert (first.prompt, first.explicit_id, first.location.line) == ("Which *one*?", "q-first", 6)
    assert [(o.text, o.correct, o.location.line) for o in first.options] == [
        ("the `right` one", True, 7),
        ("a wrong one", False, 8),
    ]
    assert first.explanation == "Because $a<b$.\n\nA second paragraph."
    assert (second.prompt, second.answer, second.explanation) == ("And this?", 1, "Explained.")
    (span, block) = next((s, b) for s, b in page.blocks if isinstance(b, Quiz))
    assert (span.start, span.end) == (4, 20)  # 0-based: the opening line to the closing ':::'
    assert block is quiz


def test_quiz_defaults_and_urdu():
    page, errors = parse(
        """
        # صفحہ

        ::: quiz id=ur-quiz lang=ur
        1. PyTorch میں کون سی افادیت؟
           - [x] torch.utils.checkpoint
           - [ ] torch.optim.SGD

           یہی درست ہے۔
        :::
        """
    )
    assert errors == []
    (quiz,) = page.quizzes
    assert (quiz.lang, quiz.title) == ("ur", "صفحہ")
    assert quiz.questions[0].lang == "ur" and quiz.questions[0].options[0].lang == "en"


def test_options_are_shown_in_the_stored_order_and_keep_their_source_letters():
    """``{order=CAB}`` shows the source's third option first; identity, lines and the answer
    follow the options, and ``{option:X}`` in the explanation names the label X is shown with."""
    plain, _ = parse(GOOD_QUIZ)
    text = GOOD_QUIZ.replace("2. And this?", "2. And this? {order=CAB}").replace(
        "   Explained.", "   Explained: {option:B} is right, {option:C} is not."
    )
    page, errors = parse(text)
    assert errors == []
    before, after = plain.quizzes[0].questions[1], page.quizzes[0].questions[1]
    assert [(o.letter, o.text, o.location.line) for o in after.options] == [
        ("C", "c", 17),
        ("A", "a", 15),
        ("B", "b", 16),
    ]
    assert (after.prompt, after.answer, after.options[after.answer].text) == ("And this?", 2, "b")
    assert after.explanation == "Explained: C is right, A is not."
    assert (after.key, after.anchor) == (before.key, before.anchor)  # the note stays the same note


def test_order_and_explicit_id_share_one_attribute_list():
    page, errors = parse(GOOD_QUIZ.replace("{#q-first}", "{#q-first order=BA}"))
    assert errors == []
    first = page.quizzes[0].questions[0]
    assert (first.prompt, first.explicit_id) == ("Which *one*?", "q-first")
    assert [o.text for o in first.options] == ["a wrong one", "the `right` one"]


def test_urdu_questions_name_options_by_urdu_digits():
    page, errors = parse(
        """
        ::: quiz id=ur-order lang=ur
        1. کون سا درست ہے؟ {order=BA}
           - [x] یہ والا
           - [ ] وہ والا

           آپشن {option:A} درست ہے۔
        :::
        """
    )
    assert errors == []
    question = page.quizzes[0].questions[0]
    assert [question.label(i) for i in range(2)] == ["۱", "۲"]
    assert question.explanation == "آپشن ۲ درست ہے۔"


def test_cards_after_a_quiz_are_found():
    page, errors = parse(GOOD_QUIZ + "\nAfter ::: the quiz\n")
    assert errors == [] and [c.front for c in page.cards] == ["After"]
    assert len(page.quizzes[0].questions) == 2


def test_separator_inside_a_quiz_option_is_not_a_card():
    page, errors = parse(GOOD_QUIZ.replace("a wrong one", "a ::: b"))
    assert errors == [] and page.cards == []
    assert page.quizzes[0].questions[0].options[1].text == "a ::: b"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("lang=en", "lang=fr", [f"{PATH}:5: unknown language 'fr' (this course has: en, ur)"]),
        ("id=q1 ", "", [f"{PATH}:5: a quiz needs an id (::: quiz id=some-name)"]),
        ('title="My quiz"', "colour=red", [f"{PATH}:5: unknown quiz attribute(s): colour"]),
        (
            "   - [ ] a wrong one\n",
            "",
            [f"{PATH}:6: a question needs at least 2 options, found 1"],
        ),
        (
            "   - [ ] a wrong one\n",
            "   - [x] a wrong one\n",
            [f"{PATH}:6: a single-choice question needs exactly one [x] option, found 2"],
        ),
        (
            "   - [X] b\n",
            "   - [ ] b\n",
            [f"{PATH}:14: a single-choice question needs exactly one [x] option, found 0"],
        ),
        (
            "   Explained.\n",
            "",
            [f"{PATH}:14: a question needs an explanation (paragraphs after its options)"],
        ),
        (
            "   - [ ] a\n",
            "   - a\n",
            [f"{PATH}:15: an option starts with '[x] ' (correct) or '[ ] ' (wrong)"],
        ),
        *(  # shown as text, with nothing applied
            (
                "   - [ ] a\n",
                f"   - [ ] a {written}\n",
                [
                    f"{PATH}:15: {written} ends an option: options take no attributes (a "
                    "question's go after its text: '1. Which? {#some-id order=CADB}')"
                ],
            )
            for written in ("{#opt-a}", "{order=AB}")
        ),
        (
            "2. And this?",
            "2. Which   *ONE*?",
            [f"{PATH}:14: duplicate question (first at line 6)"],
        ),
        (
            "2. And this?",
            "2. Which *one*? {#q-again}",
            [f"{PATH}:14: duplicate question (first at line 6)"],
        ),
        (  # a right and a wrong option alike: two identical options on the site and in Anki
            "   - [ ] a wrong one\n",
            "   - [ ] The `right`  ONE\n",
            [f"{PATH}:8: duplicate option (first at line 7)"],
        ),
        (  # as questions are compared: case and spacing aside
            "   - [ ] c\n",
            "   - [ ] c\n   - [ ] A\n   - [ ]   B \n",
            [
                f"{PATH}:18: duplicate option (first at line 15)",
                f"{PATH}:19: duplicate option (first at line 16)",
            ],
        ),
        (
            "1. Which",
            "Intro text inside the quiz.\n\n1. Which",
            [f"{PATH}:5: a quiz holds exactly one numbered list of questions"],
        ),
        (
            "   - [ ] a\n   - [X] b\n   - [ ] c\n",
            "",
            [
                f"{PATH}:14: a question needs a list of options ('- [x] right', '- [ ] wrong')",
            ],
        ),
        *(  # attributes the author meant, malformed or unknown: never text with nothing applied
            (
                "2. And this?",
                f"2. And\n   this? {written}",
                [
                    f"{PATH}:15: {shown} ends the question but is not its attribute list: a "
                    "question takes one, {#some-id} (an explicit id, of letters, digits, '-' and "
                    "'_', starting with a letter), {order=CADB} or both, {#some-id order=CADB}"
                ],
            )
            for written, shown in [
                ("{#1abc}", "{#1abc}"),
                ("{ordr=DCBA}", "{ordr=DCBA}"),
                ("{#q-two ordr=CAB}", "{#q-two ordr=CAB}"),
                ("{#q two}", "{#q two}"),
                ("{#q-two} {order=CAB}", "{#q-two}"),
            ]
        ),
        (
            "2. And this?",
            "2. And this? {order=CAA}",
            [
                f"{PATH}:14: order='CAA': give each option's letter (A to C, in the order the "
                "source lists them) exactly once, in the order to show them"
            ],
        ),
        (
            "2. And this?",
            "2. And this? {order=AB}",
            [
                f"{PATH}:14: order='AB': give each option's letter (A to C, in the order the "
                "source lists them) exactly once, in the order to show them"
            ],
        ),
        (
            "   Explained.",
            "   Explained: see {option:D}.",
            [f"{PATH}:19: {{option:D}} names no option of this question (use its source letter)"],
        ),
        (  # at the line it is written on, not the question's or its explanation's first
            "   A second paragraph.",
            "   A second paragraph,\n   not {option:C}, nor {option:Z}.",
            [
                f"{PATH}:13: {{option:C}} names no option of this question (use its source letter)",
                f"{PATH}:13: {{option:Z}} names no option of this question (use its source letter)",
            ],
        ),
    ],
)
def test_bad_quizzes(old, new, expected):
    assert quiz_messages(old, new) == expected


def test_all_quiz_errors_in_one_run():
    text = GOOD_QUIZ.replace("lang=en", "lang=de").replace("   - [X] b\n", "   - [ ] b\n")
    assert messages(text) == [
        f"{PATH}:5: unknown language 'de' (this course has: en, ur)",
        f"{PATH}:14: a single-choice question needs exactly one [x] option, found 0",
    ]


def test_line_numbers_ignore_unicode_line_separators():
    """Regression: str.splitlines() split at U+2028, so every later line was off by one."""
    page, errors = parse("Pasted\u2028text.\n\n" + GOOD_QUIZ.split("\n", 2)[2])
    assert errors == []
    (question, _) = page.quizzes[0].questions
    assert [o.location.line for o in question.options] == [7, 8]
    assert question.explanation.startswith("Because")


# --- the whole course -------------------------------------------------------------------------


def write(root: Path, files: dict[str, str]) -> Path:
    with_course_settings(root)
    for name, text in files.items():
        path = root / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), "utf-8")
    return root


def test_course_wide_duplicates_reported_together_and_sorted(tmp_path):
    root = write(
        tmp_path,
        {
            "lessons/01-a.md": """
                # A

                Same question? ::: one {#shared}
                same   QUESTION? ::: two
                ::: bad card
                """,
            "lessons/02-b.md": """
                # B

                Other? ::: three {#shared}
                Same question? ::: on another page: one GUID for two cards
                """,
            "quizzes/q.md": GOOD_QUIZ.replace("id=q1", "id=shared"),
        },
    )
    course = parse_course(root, syntax=MKDOCS)
    assert [str(error) for error in course.errors] == [
        "docs/lessons/01-a.md:4: duplicate flashcard question (first at docs/lessons/01-a.md:3)",
        "docs/lessons/01-a.md:5: flashcard has an empty question",
        "docs/lessons/02-b.md:3: duplicate id 'shared' (first at docs/lessons/01-a.md:3)",
        "docs/lessons/02-b.md:4: duplicate flashcard question (first at docs/lessons/01-a.md:3)",
        "docs/quizzes/q.md:5: duplicate id 'shared' (first at docs/lessons/01-a.md:3)",
    ]
    assert [page.docs_path for page in course.pages] == [
        "lessons/01-a.md",
        "lessons/02-b.md",
        "quizzes/q.md",
    ]


def test_clean_course_counts(tmp_path):
    root = write(
        tmp_path,
        {"lessons/01-a.md": "# A\n\nQ1 ::: A1\nQ2 ::: A2\n", "quizzes/q.md": GOOD_QUIZ},
    )
    course = parse_course(root, syntax=MKDOCS)
    assert course.errors == []
    assert len(course.cards) == 2 and len(course.questions) == 2
    assert course.page("quizzes/q.md") is course.pages[1]


@pytest.mark.parametrize("name", ["quiz", "benchmark"])
def test_unclosed_container_is_an_error(name):
    text = (
        GOOD_QUIZ.replace("\n:::\n", "\n") if name == "quiz" else "# P\n\n::: benchmark x table\n"
    )
    line = next(n for n, row in enumerate(text.splitlines(), 1) if row.startswith("::: "))
    assert (
        f"{PATH}:{line}: '::: {name}' is never closed: end it with a line holding only ':::'"
        in (messages(text))
    )


def test_pages_parsed_in_worker_processes_make_the_same_course(tmp_path, monkeypatch):
    """The build parses pages on both cores (tools.buildkit.workers); problems cross processes
    too."""
    import pickle

    from mkdocs_course.buildkit.buildinfo import ROOT
    from mkdocs_course.buildkit.workers import Background
    from mkdocs_course.course import check

    serial = parse_course(ROOT, syntax=MKDOCS)
    background = Background()
    try:
        parallel = check.start_checking(ROOT, syntax=MKDOCS, workers=background)()
    finally:
        background.close()
    assert [p.path for p in parallel.pages] == [p.path for p in serial.pages]
    assert parallel.pages == serial.pages and parallel.errors == serial.errors == []
    root = with_course_settings(tmp_path)
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text("# A\n\nQ ::: A ::: B\n", "utf-8")
    (error,) = parse_course(root, syntax=MKDOCS).errors
    copy = pickle.loads(pickle.dumps(error))
    assert (str(copy), copy.location, copy.message) == (str(error), error.location, error.message)
