"""Warnings about what a page gives away or gets wrong without being broken (``path:line:``).

None of these stops a build (the sources are valid); each names the place to look:

- a quiz whose correct options can be picked without reading: mostly the longest, mostly the
  second-longest, mostly the shortest, or mostly in one position;
- a paragraph that is a fragment: it starts in lower case, has no verb, or is shorter than
  :data:`MIN_PARAGRAPH_WORDS` words (a leftover of an edit, such as "from measurements.");
- exercises that a page shows out of their number order;
- a stated reading time below what the page's words take at :data:`WORDS_PER_MINUTE`.

The fragment test is a heuristic: a paragraph counts as having a verb when one of its words is a
common verb or auxiliary (:data:`VERBS`) or ends like an inflected verb ("-s", "-ed"). It errs
towards silence; Urdu text is not judged.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterator

from .model import Course, Page, Prose, Quiz, script_lang

# A quiz this long or longer is judged for cues; a shorter one has too few answers to show one.
CUE_MIN_QUESTIONS = 4
# The reading rate the course's Time lines are stated at (CONTRIBUTING.md, "Add a lesson").
WORDS_PER_MINUTE = 120
# A top-level paragraph with fewer words than this is a fragment.
MIN_PARAGRAPH_WORDS = 3

VERBS = frozenset(
    re.findall(
        r"\S+",
        """
    am is are was were be been being has have had do does did can could may might must shall
    should will would go get give keep let make need put run say see set show take tell try
    use want work fit come read write ask choose find hold mean open push pull add call change
    check fix measure count start stop look learn pick
    """,
    )
)
# A word after a subject pronoun is taken for a verb ("you push", "it fails").
_SUBJECTS = frozenset(("i", "you", "we", "they", "it", "he", "she"))
_WORD = re.compile(r"[^\W_][\w'’-]*")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_ATTRIBUTES = re.compile(r"\{\s*[#:.][^{}]*\}")
_LINK_ONLY = re.compile(r"^!?\[[^\]]*\]\([^)]*\)\s*(\{[^{}]*\})?$")
_EXERCISE = re.compile(r"^Exercise (\d+)\.(\d+)\b")
_TIME = re.compile(r"^\*\*Time:\*\*")
_READING = re.compile(r"(\d+) minutes? reading")
_TOTAL = re.compile(r"about (\d+) minutes?")


def course_warnings(course: Course) -> list[str]:
    """Every warning of the course, page by page, each ``path:line: warning: ...``."""
    return [warning for page in course.pages for check in _CHECKS for warning in check(page)]


def words(text: str) -> list[str]:
    """The words a reader reads in a piece of Markdown: link targets and ``{#id}`` attributes are
    not read; a word holds a letter or a digit."""
    return _WORD.findall(_ATTRIBUTES.sub(" ", _LINK_TARGET.sub("]", text)))


def reading_words(page: Page) -> int:
    """The words of the page's running text (:attr:`tools.course.model.Page.prose`)."""
    return sum(len(words(piece.text)) for piece in page.prose)


# --- quizzes ----------------------------------------------------------------------------------


def quiz_warnings(page: Page) -> Iterator[str]:
    for quiz in page.quizzes:
        for cue in quiz_cues(quiz):
            yield f"{quiz.location}: warning: quiz {quiz.quiz_id!r}: {cue}"


def length_ranks(quiz: Quiz) -> dict[str, list[int]]:
    """Which questions (their lines) have the correct option strictly the longest, strictly the
    second-longest (one option longer, the rest shorter) or strictly the shortest, by the length
    of its source text."""
    ranks: dict[str, list[int]] = {"longest": [], "second-longest": [], "shortest": []}
    for q in quiz.questions:
        right = len(q.options[q.answer].text)
        others = [len(o.text) for o in q.options if not o.correct]
        longer = sum(length > right for length in others)
        if longer == 0 and all(length < right for length in others):
            ranks["longest"].append(q.location.line)
        elif longer == 1 and all(length != right for length in others):
            ranks["second-longest"].append(q.location.line)
        if all(length > right for length in others):
            ranks["shortest"].append(q.location.line)
    return ranks


def quiz_cues(quiz: Quiz) -> list[str]:
    """The cues of one quiz: in more than half of its questions the correct option has one
    length rank, or sits in one position (as shown)."""
    questions = quiz.questions
    if len(questions) < CUE_MIN_QUESTIONS:
        return []
    half = len(questions) / 2
    cues = []
    for rank, lines in length_ranks(quiz).items():
        if len(lines) > half:
            listed = ", ".join(str(line) for line in lines)
            cues.append(
                f"the correct option is the {rank} in {len(lines)} of {len(questions)} questions "
                f"(lines {listed}); make the options' lengths tell nothing about which is right"
            )
    positions = [q.answer for q in questions]
    common = max(set(positions), key=lambda i: (positions.count(i), -i))
    if positions.count(common) > half:
        cues.append(
            f"the correct option is option {common + 1} in {positions.count(common)} of "
            f"{len(questions)} questions; vary its position"
        )
    return cues


# --- paragraphs -------------------------------------------------------------------------------


def fragment_warnings(page: Page) -> Iterator[str]:
    for piece in page.prose:
        problem = fragment(piece)
        if problem:
            yield f"{piece.location}: warning: this paragraph {problem}; finish it or remove it"


def fragment(piece: Prose) -> str | None:
    """Why a top-level English paragraph reads as a fragment, or None."""
    text = piece.text
    if not piece.paragraph or script_lang(text) != "en" or _TIME.match(text):
        return None
    if _LINK_ONLY.match(text):  # a button or an image stands alone
        return None
    found = words(text)
    if len(found) < MIN_PARAGRAPH_WORDS:
        return f"has {len(found)} word(s), fewer than {MIN_PARAGRAPH_WORDS}"
    if text[0].islower() and not piece.after_math:
        return f"starts in lower case ({' '.join(found[:3])} ...)"
    plain = [w.lower().strip("'’") for w in found]
    after_subject = any(w in _SUBJECTS for w in plain[:-1])
    if not after_subject and not any(w in VERBS or w.endswith(("s", "ed")) for w in plain):
        return "has no verb"
    return None


# --- exercises and reading time ---------------------------------------------------------------


def exercise_order_warnings(page: Page) -> Iterator[str]:
    exercises = [
        (tuple(map(int, found.groups())), heading)
        for heading in page.headings
        if (found := _EXERCISE.match(heading.text))
    ]
    for (before, _), (number, heading) in itertools.pairwise(exercises):
        if number < before:
            yield (
                f"{page.path}:{heading.line + 1}: warning: Exercise {number[0]}.{number[1]} comes "
                f"after Exercise {before[0]}.{before[1]} on this page; show exercises in number "
                "order (move one, keeping its id)"
            )


def reading_time_warnings(page: Page) -> Iterator[str]:
    stated = next((p for p in page.prose if p.paragraph and _TIME.match(p.text)), None)
    if stated is None:
        return
    found = _READING.search(stated.text) or _TOTAL.search(stated.text)
    count = reading_words(page)
    needed = count / WORDS_PER_MINUTE
    if found and int(found.group(1)) < needed:
        yield (
            f"{stated.location}: warning: the page states {found.group(1)} minutes of reading, "
            f"but its {count} words take {math.ceil(needed)} at {WORDS_PER_MINUTE} words a minute"
        )


_CHECKS: tuple[Callable[[Page], Iterator[str]], ...] = (
    reading_time_warnings,
    fragment_warnings,
    exercise_order_warnings,
    quiz_warnings,
)
