"""No course item is lost without an error, and no two elements of a page share an id.

Cards and quizzes inside admonitions, lists, quotes or HTML are shown as text and missing from
the deck; raw HTML from an included file can swallow them on the site while the deck keeps them.
Each case is a ``path:line`` error, in ``check`` where the parser can see it, else in the build.
"""

from __future__ import annotations

import markdown
import pytest
import yaml
from conftest import copy_course
from mkdocs_course.buildkit.buildinfo import ROOT
from test_build import append, lesson, run_check, run_cli
from test_parser import PATH, messages, parse

_QUIZ = "::: quiz id=inner\n1. Q?\n   - [x] a\n   - [ ] b\n\n   E.\n:::\n"


@pytest.mark.parametrize(
    "text, line",
    [
        ("!!! note\n\n    Inside? ::: an admonition\n", 5),
        ("!!! note\n    Lazy? ::: a paragraph to CommonMark\n", 3),
        ('??? tip "Hidden"\n\n    Folded? ::: away\n', 5),
        ("???+ note\n\n" + _QUIZ.replace("\n", "\n    "), 5),
        ("- item\n\n  " + _QUIZ.replace("\n", "\n  "), 5),
        ("> ::: benchmark checkpointing table\n> :::\n", 3),
        ("- item\n\n  <div>\n  In HTML? ::: lost\n", 6),
        (_QUIZ.replace("   E.\n", "   E.\n\n   <div>\n   In HTML? ::: lost\n"), 11),
        ("- a list\n- Listed? ::: card\n", 4),
        ("> Quoted? ::: card\n", 3),
    ],
)
def test_separators_where_items_would_vanish_are_errors(text, line):
    found = messages(f"# T\n\n{text}")
    assert found and found[0].startswith(f"{PATH}:{line}: "), found


def test_an_item_id_equal_to_a_heading_id_is_an_error():
    found = messages("# T\n\n## Setup {#setup}\n\nQ? ::: A {#setup}\n")
    assert found == [f"{PATH}:5: this card's id 'setup' is also the id of the heading at line 3"]


def test_an_item_id_equal_to_another_items_anchor_is_an_error():
    text = (
        "# T\n\nQ? ::: A {#quiz-x}\n\n::: quiz id=x\n1. Q2?\n   - [x] a\n   - [ ] b\n\n   E.\n:::\n"
    )
    found = messages(text)
    assert found == [f"{PATH}:5: this quiz's id 'quiz-x' is also the id of the card at line 3"]


_SETEXT = (
    "a '---' or '===' line right under card lines makes them a heading to the checker (a "
    "paragraph and a rule, or a heading, on the site), never cards; put a blank line before it"
)
_ATX = (
    "a heading is never a card, so this one would be missing from the deck; write cards as a "
    "paragraph of their own (no '#'), or put the ':::' in inline code"
)
_INDENTED = (
    f"{PATH}:{{}}: ':::' in indented text ({{}}): CommonMark reads it as code, so no card or quiz "
    "there is a course item and it would be missing from the deck; put it at the top level, "
    "unindented, or show card syntax in a fenced code block (```)"
)


@pytest.mark.parametrize(
    "text, line, problem",
    [
        ("Q1? ::: A1\nQ2? ::: A2\n---\n", 3, _SETEXT),
        ("Intro text.\nQ? ::: A\n===\n", 4, _SETEXT),
        ("## Q? ::: A\n", 3, _ATX),
    ],
)
def test_a_heading_holding_a_separator_is_an_error_at_the_card_line(text, line, problem):
    """markdown-it reads card lines over '---' as a heading, Python-Markdown as a paragraph and a
    rule: the cards were in neither the deck nor the check."""
    assert messages(f"# T\n\n{text}") == [f"{PATH}:{line}: ':::' in a heading: {problem}"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Term\n:   A definition.\n\n    Q? ::: A\n", _INDENTED.format(6, "a definition")),
        ('=== "Tab"\n\n    Q? ::: A\n', _INDENTED.format(5, "a content tab")),
        ("[^1]: A note.\n\n    Q? ::: A\n", _INDENTED.format(5, "a footnote")),
        ("!!! note\n\n    Text.\n\n    Q? ::: A\n", _INDENTED.format(7, "an admonition's body")),
        (
            "??? tip\n\n    !!! note\n\n        Deeper? ::: A\n",
            _INDENTED.format(7, "an admonition's body"),
        ),
        ("Text.\n\n    Q? ::: A\n", _INDENTED.format(5, "an indented code block")),
        ("!!! note\n\n    <div>\n    Q? ::: A\n", _INDENTED.format(6, "an admonition's body")),
        (
            _QUIZ.replace("   E.\n", "   E.\n\n       Q? ::: A\n"),
            _INDENTED.format(10, "an indented code block"),
        ),
    ],
)
def test_card_lines_in_indented_text_are_an_error_whatever_opened_it(text, expected):
    """Indented text is code to CommonMark and a body to the site: its cards are in no deck."""
    assert messages(f"# T\n\n{text}") == [expected]


@pytest.mark.parametrize(
    "text",
    [
        '??? example "Card syntax"\n    ```text\n    Q? ::: A\n    ```\n',
        "!!! note\n\n    Write `Q ::: A` and $a ::: b$.\n",
        "    ```\n    Q? ::: A\n    ```\n",
    ],
)
def test_card_syntax_shown_as_code_in_indented_text_passes(text):
    assert messages(f"# T\n\n{text}") == []


@pytest.mark.parametrize(
    "text, line, fence",
    [
        ("``` text\ncode\n``` end\n\nLost? ::: in code\n", 3, "```"),
        ("~~~~\ncode\n~~~\n\nLost? ::: in code\n", 3, "~~~~"),
        ("- item\n\n  ```\n  code\n\nFound? ::: after the list\n", 5, "```"),
    ],
)
def test_a_fence_never_closed_is_an_error_at_its_opening_line(text, line, fence):
    """CommonMark shows the rest of the page (or of the list) as code, Python-Markdown as text."""
    assert messages(f"# T\n\n{text}") == [
        f"{PATH}:{line}: this {fence} code fence is never closed: everything after it, to the end "
        "of the page or block, is code to the checker and text on the site; end it with a line "
        f"holding only {fence} (no text after it)"
    ]


@pytest.mark.parametrize(
    "text, line, fence, where",
    [
        ("!!! note\n\n    ```python\n    x = 1\n\nAfter.\n", 5, "```", "an admonition's body"),
        ("Term\n:   Said.\n\n    ~~~~\n    x\n\nAfter.\n", 6, "~~~~", "a definition"),
        ('??? tip "T"\n    Text.\n\n    ```\n    x\n', 6, "```", "an admonition's body"),
    ],
)
def test_a_fence_never_closed_in_an_admonitions_body_is_an_error(text, line, fence, where):
    """The site reads the body as Markdown: the fence's lines show as a paragraph, backticks
    and all, while CommonMark reads the whole body as one indented code block."""
    assert messages(f"# T\n\n{text}") == [
        f"{PATH}:{line}: this {fence} code fence in {where} is never closed there: the site shows "
        f"its lines as text, {fence} and all; end it with a line holding only {fence}, indented "
        "as the body is"
    ]


def test_the_site_shows_a_fence_never_closed_in_an_admonitions_body_as_text():
    """What the rule above reports is what the site does: Python-Markdown, with the course's
    extensions (``mkdocs.yml``), shows the fence's lines as a paragraph, backticks and all."""
    entries = yaml.safe_load((ROOT / "mkdocs.yml").read_text("utf-8"))["markdown_extensions"]
    names = [next(iter(e)) if isinstance(e, dict) else e for e in entries]
    configs = {next(iter(e)): next(iter(e.values())) for e in entries if isinstance(e, dict)}
    site = markdown.Markdown(extensions=names, extension_configs=configs)
    html = site.convert("!!! note\n\n    ```python\n    x = 1\n\nAfter.\n")
    assert "<p>```python\nx = 1</p>" in html and "<code" not in html


@pytest.mark.parametrize(
    "text",
    [
        "!!! note\n\n    ```python\n    x = 1\n\n    y = 2\n    ```\n",  # a blank line in it
        "Text.\n\n    ```\n    shown as code, as it is\n",  # an indented code block
    ],
)
def test_a_fence_closed_in_the_body_or_shown_in_indented_code_passes(text):
    assert messages(f"# T\n\n{text}") == []


def test_cards_the_two_markdown_readers_disagree_on_are_all_reported_in_one_run():
    """The report's page: five cards missing from the deck, and ``check`` said ok."""
    text = (
        "# T\n\nSetext-lost one? ::: Answer one.\nSetext-lost two? ::: Answer two.\n---\n\n"
        "Term\n:   A definition is given here.\n\n    Deflist-lost? ::: Answer three.\n\n"
        "$$\nx\n\nMath-lost? ::: Answer four.\n$$\n\n"
        "``` text\ncode\n``` end\n\nFence-lost? ::: Answer five.\n"
    )
    page, errors = parse(text)
    assert [e.location.line for e in errors] == [3, 10, 16, 18]
    assert [c.front for c in page.cards] == ["Math-lost?"]


@pytest.mark.parametrize("quiz_id", ["has space", "a#b", "naïve?", "1st", "x/y"])
def test_quiz_ids_follow_the_explicit_id_rule(quiz_id):
    text = f'# T\n\n::: quiz id="{quiz_id}"\n1. Q?\n   - [x] a\n   - [ ] b\n\n   E.\n:::\n'
    found = messages(text)
    assert found and found[0].startswith(f"{PATH}:3: quiz id {quiz_id!r}: use letters"), found


# --- in the build: what only the built page shows ------------------------------------------------


@pytest.fixture
def course(tmp_path):
    return copy_course(tmp_path)


def test_an_unclosed_comment_from_an_included_file_is_an_error_at_the_lost_item(course):
    (course / "snippets" / "opens-comment.md").write_text("Some text.\n\n<!-- a comment opens\n")
    page = lesson(course)
    line = append(page, '--8<-- "snippets/opens-comment.md"\n\nLost? ::: on the site\n\nEnd -->\n')
    result = run_cli(course, "build")
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert f"docs/lessons/{page.name}:{line + 2}: this course block is missing" in result.stderr


def test_a_stray_placeholder_from_an_included_file_is_an_error_not_a_traceback(course):
    (course / "snippets" / "placeholder.md").write_text('<div data-course-block="0"></div>\n')
    page = lesson(course)
    line = append(page, '--8<-- "snippets/placeholder.md"\n')
    result = run_cli(course, "build")
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert f"docs/lessons/{page.name}:" in result.stderr
    assert "is the engine's placeholder" in result.stderr, result.stderr[-1500:]
    assert line > 0


def test_a_stray_placeholder_in_prose_is_a_check_error_with_its_line(course):
    page = lesson(course)
    line = append(page, '<div data-course-block="0"></div>')
    result = run_check(course)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert f"docs/lessons/{page.name}:{line}: raw HTML" in result.stderr, result.stderr


@pytest.mark.parametrize(
    "name", ["lessons/01 a b.md", "lessons/02-#1.md", "lessons/03-why?.md", "lessons/04-café.md"]
)
def test_deck_and_review_links_are_percent_encoded_as_mkdocs_writes_page_urls(tmp_path, name):
    from mkdocs.structure.files import File
    from mkdocs_course.course import links

    mkdocs_url = File(name, str(tmp_path), str(tmp_path / "site"), use_directory_urls=False).url
    assert links.page_url("https://e.org/c/", name) == "https://e.org/c/" + mkdocs_url
    assert links.page_url("./", name) == "./" + mkdocs_url
    assert not set("# ?é") & set(links.page_url("./", name))


def test_the_built_page_check_finds_an_item_inside_a_comment():
    from mkdocs_course.plugin.pages import item_anchors, lost_items
    from test_parser import parse

    page, errors = parse("# T\n\nQ? ::: A\n")
    assert not errors
    anchor = page.cards[0].anchor
    assert lost_items(f'<details id="{anchor}"></details>', item_anchors(page)) == []
    lost = lost_items(f'<!-- <details id="{anchor}"></details> -->', item_anchors(page))
    assert lost == [f"{PATH}:3: " + lost[0].split(": ", 1)[1]] and "missing" in lost[0]


def test_an_item_id_repeated_by_raw_html_is_a_build_error(course):
    page = lesson(course)
    line = append(page, 'Q unique? ::: A {#my-card}\n\n<p id="my-card">prose</p>\n')
    result = run_cli(course, "build")
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert f"docs/lessons/{page.name}:{line}: the built page has 2 elements" in result.stderr
