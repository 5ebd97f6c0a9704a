"""The check's warnings (``tools.course.cues``): each one from a page made to trigger it, with the
file and line it names, and a page written well that triggers none. Warnings never fail a build."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("markdown_it", reason="the course engine's dependencies are not installed")

from mkdocs_course.buildkit.buildinfo import ROOT
from mkdocs_course.course import cues
from mkdocs_course.course.parser import parse_page
from mkdocs_course.plugin.syntax import MKDOCS

PATH = "docs/lessons/01-page.md"

GOOD = """\
# A page

**Time:** about 10 minutes: 5 minutes reading, 5 minutes for its exercise.

## 1.1 A section {#l1-1}

The section explains one thing, in a paragraph that has a subject and a verb.

$$
x = 1
$$

where the paragraph after display math goes on with the sentence before it.

[Download the deck](deck.apkg){ .md-button }

### Exercise 1.1 · First {#ex-1-1}

Try it yourself first.

### Exercise 1.2 · Second {#ex-1-2}

Try this one too.
"""


def warnings(text: str) -> list[str]:
    page, errors = parse_page(PATH, PATH.removeprefix("docs/"), text, syntax=MKDOCS)
    assert not errors, errors
    return [w for check in cues._CHECKS for w in check(page)]


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), start=1) if needle in line)


def test_a_page_written_well_draws_no_warning():
    assert warnings(GOOD) == []


@pytest.mark.parametrize(
    ("fragment", "problem"),
    [
        ("from measurements.", "has 2 word(s), fewer than 3"),
        ("and then the rest of a sentence that lost its start.", "starts in lower case"),
        ("The contribution lifecycle, from the issue to the merge.", "has no verb"),
    ],
)
def test_a_fragment_is_reported_with_its_line(fragment, problem):
    text = GOOD.replace("[Download the deck]", f"{fragment}\n\n[Download the deck]")
    (warning,) = warnings(text)
    assert warning.startswith(f"{PATH}:{line_of(text, fragment)}: warning: this paragraph ")
    assert problem in warning


def test_prose_inside_lists_solutions_and_cards_is_not_judged_as_a_paragraph():
    text = GOOD + (
        "\n- from a list item\n\n"
        '??? success "Solution"\n    from a solution.\n\n    and its second paragraph\n\n'
        "Question? ::: answer\n"
    )
    assert warnings(text) == []


def test_exercises_out_of_number_order_are_reported_at_the_later_heading():
    first = GOOD.index("### Exercise 1.1")
    second = GOOD.index("### Exercise 1.2")
    swapped = GOOD[:first] + GOOD[second:] + "\n" + GOOD[first:second]
    (warning,) = warnings(swapped)
    line = line_of(swapped, "### Exercise 1.1")
    assert warning == (
        f"{PATH}:{line}: warning: Exercise 1.1 comes after Exercise 1.2 on this page; show "
        "exercises in number order (move one, keeping its id)"
    )


def test_a_reading_time_below_the_word_count_is_reported_on_the_time_line():
    words = cues.WORDS_PER_MINUTE * 6  # six minutes of reading, stated as five
    text = GOOD + "\n" + "\n\n".join(["Here is one more sentence of the text."] * (words // 8))
    (warning,) = warnings(text)
    count = cues.reading_words(parse_page(PATH, "x.md", text, syntax=MKDOCS)[0])
    assert warning == (
        f"{PATH}:3: warning: the page states 5 minutes of reading, but its {count} words take "
        f"{-(-count // cues.WORDS_PER_MINUTE)} at {cues.WORDS_PER_MINUTE} words a minute"
    )
    # Stated at what the words take, it is quiet.
    assert warnings(text.replace("5 minutes reading", "10 minutes reading")) == []


def test_reading_words_leave_out_code_link_targets_cards_and_solutions():
    text = (
        "# T\n\nOne two [three](https://example.org/a/very/long/address) four.\n\n"
        "```python\nnot counted at all\n```\n\n"
        '??? success "Solution"\n    not counted\n\n    nor this\n\n'
        '!!! note "Counted"\n    five six\n\n    seven\n\n'
        "Card? ::: not counted\n"
    )
    page, _ = parse_page(PATH, "x.md", text, syntax=MKDOCS)
    # "T", "One two three four." and the note's two paragraphs (not its title).
    assert cues.reading_words(page) == 1 + 4 + 2 + 1


QUIZ = """\
::: quiz id=lengths
1. First? {order=ORDER1}
   - [x] Yes
   - [ ] A longer wrong option
   - [ ] Another long wrong one

   Because.

2. Second?
   - [ ] A longer wrong option
   - [x] Yes
   - [ ] Another long wrong one

   Because.

3. Third?
   - [ ] A longer wrong option
   - [ ] Another long wrong one
   - [x] Yes

   Because.

4. Fourth?
   - [ ] Middling one
   - [ ] A longer wrong option
   - [x] Fine

   Because.
:::
"""


def test_a_quiz_whose_right_option_is_mostly_the_shortest_is_reported():
    text = GOOD + "\n" + QUIZ.replace(" {order=ORDER1}", "")
    (warning,) = warnings(text)
    line = line_of(text, "::: quiz")
    assert warning.startswith(
        f"{PATH}:{line}: warning: quiz 'lengths': the correct option is the shortest in 4 of 4"
    )


def test_a_quiz_whose_right_option_is_mostly_the_second_longest_is_reported():
    """One wrong option longer, one shorter, the right one between, in 3 of 4 questions."""
    second = (
        QUIZ.replace(" {order=ORDER1}", "")
        .replace("A longer wrong option", "No")
        .replace("[x] Yes", "[x] Right, and careful")
        .replace("[x] Fine", "[x] Right, and careful")
    )
    (warning,) = warnings(GOOD + "\n" + second)
    assert "the correct option is the second-longest in 3 of 4 questions" in warning


def test_the_position_cue_reads_the_order_the_options_are_shown_in():
    """Right first in the source, but shown third: the stored order is what learners see."""
    text = GOOD + "\n" + QUIZ.replace("{order=ORDER1}", "{order=BCA}")
    positions = [w for w in warnings(text) if "option 3 in" in w]
    assert positions and "in 3 of 4 questions" in positions[0]


def test_check_prints_the_new_warnings_and_still_succeeds(tmp_path: Path):
    course = tmp_path / "course"
    shutil.copytree(ROOT / "tests" / "fixtures" / "second-course", course)
    lesson = course / "docs" / "lessons" / "01-finding-your-way.md"
    text = lesson.read_text(encoding="utf-8")
    head, tail = text.split("\n## ", 1)
    added = "**Time:** about 1 minute: 0 minutes reading.\n\nfrom measurements.\n"
    lesson.write_text(f"{head}\n{added}\n## {tail}", encoding="utf-8")
    lines = lesson.read_text(encoding="utf-8").splitlines()
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs_course.cli", "check", "--course", str(course)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    where = "docs/lessons/01-finding-your-way.md"
    time_line = lines.index(added.splitlines()[0]) + 1
    fragment_line = lines.index("from measurements.") + 1
    assert f"{where}:{time_line}: warning: the page states 0 minutes of reading" in result.stderr
    assert f"{where}:{fragment_line}: warning: this paragraph has 2 word(s)" in result.stderr
    assert result.stdout.startswith("ok: ")
