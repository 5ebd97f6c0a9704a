"""No course item is lost without an error, and no two elements of a page share an id.

Cards and quizzes inside admonitions, lists, quotes or HTML are shown as text and missing from
the deck; raw HTML from an included file can swallow them on the site while the deck keeps them.
Each case is a ``path:line`` error, in ``check`` where the parser can see it, else in the build.
"""

from __future__ import annotations

import pytest
from conftest import copy_course
from test_build import append, lesson, run_check, run_cli
from test_parser import PATH, messages

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
