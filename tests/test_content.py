"""The course content keeps its promises to the seeds and to the learner.

The seed documents in ``../shared/seeds`` (or ``seeds/`` where a checkout carries them) are the
source of the exercises, flashcards and the Urdu quiz. These tests read the course through the
same parser as the site and the deck, so what they check is what learners get:

- every question and option line of the seed quiz, and its title and intro, verbatim, with the
  answer key and an explanation in each question's own language; the English version matches;
- the seed's four flashcards verbatim, each in the lesson it belongs to;
- all 15 seed exercises, each with its solution, in the right lesson, numbers intact; where a
  seed solution is partly wrong, the correction sits in the same hidden block and a "Read first"
  line opens it, so the wrong reasoning is never met alone;
- every lesson's shape: objectives first, each exercise inside the numbered section it practises,
  then key points, quiz, flashcards, sources, and at least eight flashcards of its own; a lesson
  split into pages by topic (Lesson 2) gives each page its objectives, flashcards and sources,
  numbers its sections in order across them, and ends the last with key points and the quiz;
- every claim about a named project in Lessons 1 and 4 carries a link, and every page a lesson
  links to is in its dated Sources list.
- what Lesson 2 says the measurements show holds in every committed results file.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import sys
from pathlib import Path

import pytest
from conftest import skip_or_fail
from mkdocs_course.course.model import Course, Page, script_lang
from mkdocs_course.course.parser import parse_course
from mkdocs_course.plugin.syntax import MKDOCS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# Each lesson's pages, in reading order (the order of nav in mkdocs.yml).
LESSONS = {
    1: ("lessons/01-finding-and-claiming-work.md",),
    2: (
        "lessons/02-gradient-checkpointing.md",
        "lessons/02-part-2-checkpointing-in-pytorch.md",
        "lessons/02-part-3-measuring-and-choosing.md",
    ),
    3: ("lessons/03-debugging-and-testing.md",),
    4: ("lessons/04-writing-the-pull-request.md",),
}
QUIZ_UR = "quizzes/checkpointing-ur.md"
QUIZ_EN = "quizzes/checkpointing-en.md"

# The seed's flashcard paragraph holds four cards on one line; here split, text unchanged, with
# the lesson each belongs to. ``test_seed_cards_are_the_seed_text`` proves the split is exact.
SEED_CARDS = [
    (
        "Multiplicative PR score with one factor zero equals?",
        "0 — any missing pillar fails the whole PR.",
        4,
    ),
    ("Cosine of (1,2,3) and (4,5,6) to 4 dp?", "0.9746", 3),
    ("Memory kept at k=4 in the pure $O$-model?", "25% (a 75% saving)", 2),
    (
        "Largest-$k$ rule for choosing checkpoints?",
        "pick the biggest $k$ that still fits the memory budget (least recomputation).",
        2,
    ),
]

# The seed's 15 solutions, by their opening words, each with the lesson that holds it. A seed
# paragraph that opens none of them continues the solution before it (CONTINUATIONS).
SEED_EXERCISES = [
    ("Missing step: Claim It", 1),
    ("The formula is $Q_{\\text{PR}}", 4),
    ("RAMP = Read, Active", 1),
    ("Dot product — multiply matching entries", 3),
    ("A 1-D tensor has exactly one axis", 3),
    ("Divide checkpointed by normal", 2),
    ("Memory saved — how much smaller", 2),
    ("First $L$ — the ordinary forward pass", 2),
    ("Root cause: floating-point arithmetic.", 3),
    ("## Problem", 4),
    ("Both $4.2$ GB and $8.1$ GB fit under $12$ GB", 2),
    ("Plan (all lifecycle steps):", 1),
    ("Evidence for the feature stage:", 4),
    ("$Q_{\\text{PR}}$ with a forgotten issue link", 4),
    ("Expected number: the true cosine similarity", 3),
]
CONTINUATIONS = ("Mapping:", "1. Find Issue", "a = torch.tensor", "• On buggy code")

# Further passages of the seed's solutions that must survive unchanged (numbers above all).
SEED_SOLUTIONS = [
    ('This is the only step whose stated purpose matches the failure symptom "duplicate"', 1),
    ("$3\\ge 3$, so yes, it is a good fit.", 1),
    ("$Q_{\\text{PR}}=1\\times 1\\times 1\\times 0=0.$", 4),
    ("unsqueeze (vs. hard-coding dim=0) keeps the batched API contract intact,", 4),
    ("All four = 1, so $Q_{\\text{PR}}=1$.", 4),
    ("$Q_{\\text{PR}}=1\\times 0\\times 1\\times 1=0.$", 4),
    ("Derivation alone is not enough", 4),
    ("\\frac{32}{\\sqrt{1078}}\\approx \\frac{32}{32.833}\\approx \\mathrm{0.9746.}", 3),
    ("Testing a float for exact equality is the bug, not the math.", 3),
    ("which is why it is minimal-yet-sufficient", 3),
    ("=\\frac{1}{k}=\\frac{1}{4}=0.25=25\\%.", 2),
    ("\\approx 0.8205=82.1\\%.", 2),
    ("\\approx 1.2778=127.8\\%.", 2),
    ("you recompute each discarded layer at most once", 2),
    ("is 1.67× faster", 2),
    ("Rule: choose the largest $k$ that still fits.", 2),
]
# Exercises (solution blocks) per lesson: 3 + 4 + 4 + 4 = the seed's 15 solutions, plus the
# course's own: Lesson 2's hands-on exercise (2.5) and the lab's tasks (2.6).
SEED_EXERCISE_COUNT = {1: 3, 2: 4, 3: 4, 4: 4}
OWN_EXERCISES = {2: 2}
EXERCISES = {n: count + OWN_EXERCISES.get(n, 0) for n, count in SEED_EXERCISE_COUNT.items()}
# The seed solutions that measurement or a real run partly refutes: each keeps the seed's text and
# opens with READ_FIRST, and its correction is a warning inside the same solution block.
CORRECTED = {"2.1", "2.3", "2.4", "3.1", "3.2", "3.3", "3.4", "4.2", "4.4"}
READ_FIRST = "**Read first:**"
SOLUTION = '??? success "Solution"'
MIN_NEW_CARDS = 8
MIN_LESSON_QUESTIONS = 5
ANSWER_KEY = [0, 1, 2, 3, 0, 1, 2, 3]  # index of the correct option of each seed question
ORDER_ATTRIBUTE = re.compile(r" \{order=[A-Z]+\}$")  # the shown order, beside a seed line


SEED_DIRS = (ROOT / "seeds", ROOT.parent / "shared" / "seeds")


def _seed_dir() -> Path:
    for candidate in SEED_DIRS:
        if candidate.is_dir():
            return candidate
    skip_or_fail(
        "needs the course's seed documents (the source texts its exercises, cards and Urdu quiz "
        f"must match), looked for in {' and '.join(str(d) for d in SEED_DIRS)}: put them in "
        "one of these folders to run it; the rest of the suite runs without them "
        '(python3 -m tools test -m "not seeds")'
    )


def test_without_seeds_the_skip_says_where_they_are_looked_for_and_what_runs(monkeypatch, tmp_path):
    missing = (tmp_path / "seeds", tmp_path / "shared" / "seeds")
    monkeypatch.setattr(sys.modules[__name__], "SEED_DIRS", missing)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception) as skipped:
        _seed_dir()
    assert all(str(folder) in str(skipped.value) for folder in missing)
    assert 'python3 -m tools test -m "not seeds"' in str(skipped.value)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception):  # under CI a missing seed is a failure
        _seed_dir()


def _seed(prefix: str) -> str:
    (path,) = _seed_dir().glob(f"{prefix}_*.txt")
    return path.read_text(encoding="utf-8")


def _squash(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def course() -> Course:
    parsed = parse_course(ROOT, syntax=MKDOCS)
    assert not parsed.errors, "\n".join(map(str, parsed.errors))
    return parsed


def _lesson_text(lesson: int) -> str:
    """A lesson's Markdown, its pages one after the other."""
    return "\n".join((DOCS / path).read_text(encoding="utf-8") for path in LESSONS[lesson])


def _page(course: Course, docs_path: str) -> Page:
    page = course.page(docs_path)
    assert page is not None, f"docs/{docs_path} is missing"
    return page


def _seed_quiz() -> tuple[str, str, list[tuple[str, list[str]]]]:
    """Title, intro line and (question, options) of the seed quiz, read from the seed file."""
    lines = [line.strip() for line in _seed("002").splitlines() if line.strip()]
    title, intro = lines[0], lines[1]
    questions: list[tuple[str, list[str]]] = []
    for line in lines[2:]:
        numbered = re.match(r"^\d+\.\s+(.*)$", line)
        if numbered:
            questions.append((numbered.group(1), []))
        else:
            assert line.startswith("•"), line
            questions[-1][1].append(line.removeprefix("•").strip())
    return title, intro, questions


# --- the seed quiz ----------------------------------------------------------------------------


@pytest.mark.seeds
def test_seed_quiz_is_verbatim_with_answers_and_explanations(course):
    title, intro, seed_questions = _seed_quiz()
    assert len(seed_questions) == len(ANSWER_KEY)
    page = _page(course, QUIZ_UR)
    source = (DOCS / QUIZ_UR).read_text(encoding="utf-8")
    assert page.title == title
    assert intro in source.splitlines()
    (quiz,) = page.quizzes
    assert (quiz.title, quiz.lang) == (title, "ur")
    assert len(quiz.questions) == len(seed_questions)
    for question, (prompt, options), answer in zip(
        quiz.questions, seed_questions, ANSWER_KEY, strict=True
    ):
        assert question.prompt == prompt
        assert [option.text for option in _in_source_order(question)] == options
        assert _seed_answer(question) == answer, prompt
        # The explanation is in the question's own language.
        assert script_lang(question.explanation) == script_lang(prompt), prompt


@pytest.mark.seeds
def test_seed_quiz_lines_appear_verbatim_in_the_source():
    """Belt and braces: every seed line is a line of the page, whatever the parser does."""
    title, intro, seed_questions = _seed_quiz()
    lines = {line.strip() for line in (DOCS / QUIZ_UR).read_text(encoding="utf-8").splitlines()}
    assert f"# {title}" in lines
    assert intro in lines
    for number, (prompt, options) in enumerate(seed_questions, start=1):
        # The seed's line, or the seed's line with the order its options are shown in beside it.
        assert f"{number}. {prompt}" in {ORDER_ATTRIBUTE.sub("", line) for line in lines}
        for option in options:
            assert f"- [ ] {option}" in lines or f"- [x] {option}" in lines, option


@pytest.mark.seeds
def test_english_quiz_matches_the_seed_quiz(course):
    _, _, seed_questions = _seed_quiz()
    (quiz,) = _page(course, QUIZ_EN).quizzes
    assert quiz.lang == "en"
    assert [_seed_answer(q) for q in quiz.questions] == ANSWER_KEY
    for question, (prompt, options) in zip(quiz.questions, seed_questions, strict=True):
        assert script_lang(question.prompt + question.explanation) == "en"
        assert len(question.options) == len(options)
        if script_lang(prompt) == "en":  # English seed questions are kept word for word
            assert question.prompt == prompt
            assert [option.text for option in _in_source_order(question)] == options


def _in_source_order(question) -> list:
    return sorted(question.options, key=lambda option: option.letter)


def _seed_answer(question) -> int:
    """The correct option's index in the seed's (the source's) order."""
    return "ABCDEFGH".index(question.options[question.answer].letter)


@pytest.mark.parametrize("path", [QUIZ_UR, QUIZ_EN])
def test_seed_quizzes_show_their_options_in_an_order_that_gives_nothing_away(course, path):
    """The seed lists its correct options A B C D A B C D. Shown in the order stored beside each
    question, no position holds the answer more often than another, and the pattern is gone."""
    (quiz,) = _page(course, path).quizzes
    shown = [q.answer for q in quiz.questions]
    counts = [shown.count(position) for position in range(4)]
    assert max(counts) - min(counts) <= 1, shown
    assert shown != ANSWER_KEY
    assert all(q.answer != _seed_answer(q) for q in quiz.questions), shown
    assert not any(later == earlier + 1 for earlier, later in itertools.pairwise(shown)), shown


def test_both_seed_quizzes_show_each_question_in_the_same_order(course):
    """The two versions are one quiz question for question: a learner who takes both meets the
    options of each question in the same places."""
    (urdu,) = _page(course, QUIZ_UR).quizzes
    (english,) = _page(course, QUIZ_EN).quizzes
    for ur, en in zip(urdu.questions, english.questions, strict=True):
        assert [o.letter for o in ur.options] == [o.letter for o in en.options]


def test_the_two_quiz_versions_link_to_each_other():
    assert "(checkpointing-en.md)" in (DOCS / QUIZ_UR).read_text(encoding="utf-8")
    assert "(checkpointing-ur.md)" in (DOCS / QUIZ_EN).read_text(encoding="utf-8")


# --- the seed flashcards ----------------------------------------------------------------------


@pytest.mark.seeds
def test_seed_cards_are_the_seed_text():
    last_paragraph = _seed("000").strip().split("\n\n")[-1].strip()
    assert " ".join(f"{front} ::: {back}" for front, back, _ in SEED_CARDS) == last_paragraph


# Seed cards the course refutes: their wording stays, and the back adds the reality check.
REFUTED_SEED_CARDS = {
    "Memory kept at k=4 in the pure $O$-model?",
    "Largest-$k$ rule for choosing checkpoints?",
}


@pytest.mark.parametrize(("front", "back", "lesson"), SEED_CARDS)
def test_seed_card_is_verbatim_in_its_lesson(course, front, back, lesson):
    pages = [_page(course, path) for path in LESSONS[lesson]]
    (card,) = [card for page in pages for card in page.cards if card.front == front]
    if front in REFUTED_SEED_CARDS:
        assert card.back.startswith(f"{back} **Reality check:** ")
    else:
        assert card.back == back
    assert f"{front} ::: {back}" in _lesson_text(lesson)


# --- the seed exercises -----------------------------------------------------------------------


@pytest.mark.parametrize(("lesson", "expected"), EXERCISES.items())
def test_every_seed_exercise_is_in_its_lesson(lesson, expected):
    text = _lesson_text(lesson)
    exercises = "".join(_exercise_texts(text).values())
    assert exercises.count(SOLUTION) == expected
    assert len(_exercise_texts(text)) == expected
    assert text.count(SOLUTION) == expected  # no solution blocks outside the exercises


def _exercise_texts(text: str) -> dict[str, str]:
    """Each exercise of a lesson, from its ``### Exercise N.M`` heading to the next heading."""
    found = {}
    for chunk in re.split(r"^(?=##+ )", text, flags=re.MULTILINE):
        number = re.match(r"### Exercise (\d\.\d) ", chunk)
        if number:
            found[number.group(1)] = chunk
    return found


@pytest.mark.parametrize("lesson", LESSONS)
def test_each_exercise_follows_the_section_it_practises(lesson):
    """Exercises sit inside numbered sections, not in a block at the end; their ids stay."""
    text = _lesson_text(lesson)
    section = None
    seen = []
    for line in text.splitlines():
        if line.startswith("## "):
            section = line
        exercise = re.match(r"### Exercise (\d)\.(\d) .*\{#ex-(\d)-(\d)\}$", line)
        if exercise:
            number, anchor = exercise.group(1, 2), exercise.group(3, 4)
            assert number == anchor, line  # the anchor (Anki links, bookmarks) is unchanged
            assert re.match(rf"## {lesson}\.\d ", section or ""), (line, section)
            seen.append(line)
    assert len(seen) == EXERCISES[lesson]


@pytest.mark.seeds
def test_the_seed_has_exactly_these_fifteen_solutions():
    paragraphs = [p.strip() for p in _seed("000").strip().split("\n\n")[1:-1]]  # no title, cards
    openings = [opening for opening, _ in SEED_EXERCISES]
    found = []
    for paragraph in paragraphs:
        starts = [o for o in openings if paragraph.lstrip("• ").startswith(o)]
        if not starts:
            assert paragraph.startswith(CONTINUATIONS), f"unexpected seed paragraph: {paragraph}"
        found += starts
    assert found == openings
    assert len(openings) == sum(SEED_EXERCISE_COUNT.values()) == 15


@pytest.mark.parametrize(("opening", "lesson"), SEED_EXERCISES)
def test_seed_exercise_solution_is_in_its_lesson(opening, lesson):
    text = _lesson_text(lesson)
    solutions = _squash("".join(_exercise_texts(text).values()))
    assert _squash(opening) in solutions


@pytest.mark.seeds
@pytest.mark.parametrize(("passage", "lesson"), SEED_SOLUTIONS)
def test_seed_solution_text_is_in_its_lesson(passage, lesson):
    seed = _squash(_seed("000"))
    assert _squash(passage) in seed, f"not a seed passage: {passage}"
    assert _squash(passage) in _squash(_lesson_text(lesson))


def test_solutions_citing_seed_sections_link_to_them():
    anchors = {
        "L1.1": ("01-finding-and-claiming-work.md", "l1-1"),
        "L2.3": ("02-gradient-checkpointing.md", "l2-3"),
        "L4.1": ("04-writing-the-pull-request.md", "l4-1"),
    }
    texts = {path: (DOCS / path).read_text(encoding="utf-8") for path in _all_pages()}
    for label, (file, anchor) in anchors.items():
        heading = re.compile(rf"^## {label[1:]} .*\{{#{anchor}\}}$", re.MULTILINE)
        assert heading.search(texts[f"lessons/{file}"]), f"no section {label} {{#{anchor}}}"
        for path, text in texts.items():
            own = file == Path(path).name
            for citation in re.findall(rf"\[{re.escape(label)}\]\(([^)]*)\)", text):
                assert citation in ({f"#{anchor}"} if own else {f"{file}#{anchor}"}), citation
        assert any(f"[{label}](" in text for text in texts.values()), f"{label} is never cited"


def test_corrections_of_the_seed_error_message_sit_beside_it():
    """The seed's "RuntimeError: expected 2D" is kept in its solutions, and corrected there."""
    for lesson in (3, 4):
        text = _lesson_text(lesson)
        for block in text.split("### Exercise")[1:]:
            if "RuntimeError" in block:
                assert "IndexError: Dimension out of range" in block


def _exercise_sections() -> dict[str, list[str]]:
    """Every exercise's lines, from its heading to the next heading, by number ("2.1")."""
    found: dict[str, list[str]] = {}
    for path in _all_pages():
        text = (DOCS / path).read_text(encoding="utf-8")
        for number, chunk in _exercise_texts(text).items():
            found[number] = chunk.splitlines()
    return found


def _solution_block(lines: list[str]) -> tuple[list[str], list[str]]:
    """(the solution block's lines, dedented; the section's lines outside it)."""
    start = lines.index(SOLUTION)
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or lines[end].startswith("    ")):
        end += 1
    return [line[4:] for line in lines[start + 1 : end]], lines[:start] + lines[end:]


def test_corrected_solutions_open_with_what_holds_and_hold_their_correction():
    sections = _exercise_sections()
    assert set(sections) >= CORRECTED
    opened, corrected = set(), set()
    for number, lines in sections.items():
        block, outside = _solution_block(lines)
        first = next(line for line in block if line.strip())
        if first.startswith(READ_FIRST):
            opened.add(number)
        if any(line.startswith("!!! warning") for line in block):
            corrected.add(number)
        # A correction never stands outside the hidden block, where it would be read alone
        # (or before the learner has tried the exercise).
        assert not [line for line in outside if re.match(r"\s*(!!!|///) warning", line)], number
    assert opened == corrected == CORRECTED


@pytest.mark.parametrize("number", sorted(CORRECTED))
def test_the_seed_text_follows_the_read_first_line(number):
    """The seed's solution is kept, after the line that says what holds: in reading order."""
    block, _ = _solution_block(_exercise_sections()[number])
    text = _squash("\n".join(block))
    lesson = int(number[0])
    openings = [_squash(o) for o, n in SEED_EXERCISES if n == lesson and _squash(o) in text]
    assert len(openings) == 1, openings
    read_first = text.index(READ_FIRST)
    seed = text.index(openings[0])
    correction = text.index("!!! warning")
    assert read_first < seed < correction


# Seed passages a solution rewords instead of keeping: each is quoted, word for word, in a
# "Reworded" note inside the same solution block, so no rewording is silent.
REWORDED = {
    "2.2": 'that constant factor is precisely the "spare compute cycles" the parent said GPUs can '
    "afford",
}


@pytest.mark.seeds
@pytest.mark.parametrize(("number", "passage"), REWORDED.items())
def test_a_reworded_seed_passage_is_quoted_in_a_reworded_note(number, passage):
    assert _squash(passage) in _squash(_seed("000"))
    block, _ = _solution_block(_exercise_sections()[number])
    text = "\n".join(block)
    assert _squash(passage) not in _squash(text.split('!!! note "Reworded"')[0])
    note = text.split('!!! note "Reworded"', 1)[1]
    assert _squash(passage) in _squash(note)


def test_the_seed_assertion_of_exercise_3_4_cannot_fail_on_the_buggy_helper():
    """Ex 3.4 says the seed's assertion calls PyTorch's own function, so it passes whatever the
    helper does: run the code shown in the lesson, with the buggy helper in scope, and see."""
    torch = pytest.importorskip("torch")
    import cosine_buggy

    block, _ = _solution_block(_exercise_sections()["3.4"])
    fences = re.findall(r"^```python\n(.*?)^```", "\n".join(block), re.MULTILINE | re.DOTALL)
    seed_code = fences[0]
    assert "F.cosine_similarity(a, b, dim=0)" in seed_code
    scope = {
        "torch": torch,
        "F": torch.nn.functional,
        "cosine_similarity": cosine_buggy.cosine_similarity,
    }
    exec(seed_code, scope)  # the assertion holds: the buggy helper is never called
    with pytest.raises(IndexError):
        cosine_buggy.cosine_similarity(scope["a"], scope["b"])


# --- named projects and sources -----------------------------------------------------------------

NAMED = re.compile(r"\b(PyTorch|transformers|JAX|vLLM|scikit-learn|GitHub)\b")
LINK = re.compile(r"\]\((https?://[^)\s]+)\)")
CLAIM_LESSONS = (1, 4)  # the lessons about how projects run contributions


def _units(text: str) -> list[tuple[int, str]]:
    """(line, text) of each unit a claim lives in: a paragraph, list item, table row, card line
    or quiz question. Headings, code and the Sources list are left out."""
    units: list[tuple[int, str]] = []
    current: list[str] = []
    start = 0
    in_code = in_quiz = False

    def flush() -> None:
        if current:
            units.append((start, " ".join(current)))
            current.clear()

    text = text.split("\n## Sources", 1)[0]
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            in_code = not in_code
            flush()
            continue
        if in_code or stripped.startswith("#"):
            flush()
            continue
        if re.fullmatch(r"\|[\s|:-]*\|", stripped):  # a table's header rule: the header names
            current.clear()  # columns, it claims nothing
            continue
        if stripped.startswith("::: quiz"):
            in_quiz = True
            flush()
            continue
        if in_quiz and stripped == ":::":
            in_quiz = False
            flush()
            continue
        if in_quiz:
            new_unit = bool(re.match(r"\d+\.\s", line))  # a question, with options and explanation
        else:
            new_unit = (
                not stripped
                or " ::: " in line  # one card per line
                or bool(re.match(r"\s*([-*]|\d+\.)\s", line))
                or stripped.startswith("|")
            )
        if new_unit or (not in_quiz and not current):
            flush()
            start = number
        if stripped:
            current.append(stripped)
    flush()
    return units


INTERNAL_LINK = re.compile(r"\]\((?:([\w-]+\.md))?#([\w-]+)\)")


def _shows_a_run(page: str, anchor: str) -> bool:
    """Whether the section ``anchor`` of lesson file ``page`` shows a real run (a console block,
    which tests/test_snippets.py compares with the snippet's actual output)."""
    text = (DOCS / "lessons" / page).read_text(encoding="utf-8")
    match = re.search(rf"^(#+) .*\{{#{re.escape(anchor)}\}}$", text, re.MULTILINE)
    if not match:
        return False
    rest = text[match.end() :]
    end = re.search(rf"^#{{1,{len(match.group(1))}}} ", rest, re.MULTILINE)
    return "```console" in rest[: end.start() if end else len(rest)]


def _has_evidence(unit: str, page: str) -> bool:
    """A claim's evidence: a link to where the project says it, or to a section showing a run."""
    if LINK.search(unit):
        return True
    return any(
        _shows_a_run(target or page, anchor) for target, anchor in INTERNAL_LINK.findall(unit)
    )


@pytest.mark.parametrize("lesson", CLAIM_LESSONS)
def test_claims_about_named_projects_carry_a_link(lesson):
    unlinked = [
        f"docs/{path}:{line}: {unit[:80]}"
        for path in LESSONS[lesson]
        for line, unit in _units((DOCS / path).read_text(encoding="utf-8"))
        if NAMED.search(unit) and not _has_evidence(unit, Path(path).name)
    ]
    assert not unlinked, "\n".join(unlinked)


def test_the_claim_check_finds_an_unlinked_claim():
    """The check above is not vacuous: it sees a card, a list item and a quiz explanation."""
    text = (
        "Intro.\n\nCan you claim in PyTorch? ::: No.\n\n- JAX asks for a CLA.\n\n"
        "::: quiz id=q\n1. Where?\n   - [x] Here\n   - [ ] There\n\n   GitHub says so.\n:::\n"
    )
    flagged = [u for _, u in _units(text) if NAMED.search(u) and not _has_evidence(u, "x.md")]
    assert len(flagged) == 3, flagged
    # A link to a section without a run is no evidence; one to a section with a run is.
    no_run = "PyTorch raises this ([Lesson 3](03-debugging-and-testing.md#l3-4))."
    run = "PyTorch raises this ([Lesson 3](03-debugging-and-testing.md#l3-1))."
    assert not _has_evidence(no_run, "x.md") and _has_evidence(run, "x.md")


def _all_pages() -> list[str]:
    return [path for pages in LESSONS.values() for path in pages]


@pytest.mark.parametrize("path", _all_pages())
def test_every_linked_page_is_a_dated_source(path):
    """Each page lists what it links to: a reader of one page of a split lesson sees its own."""
    text = (DOCS / path).read_text(encoding="utf-8")
    body, sources = text.split("\n## Sources", 1)
    assert re.search(r"\b(read|checked)\b[^.]*\b20\d\d-\d\d-\d\d\b", sources, re.IGNORECASE)
    listed = set(LINK.findall(sources))
    used = set(LINK.findall(body))
    assert used <= listed, sorted(used - listed)


# --- lesson shape -----------------------------------------------------------------------------


@pytest.mark.parametrize("lesson", LESSONS)
def test_lesson_has_its_parts_in_order(course, lesson):
    """Every page opens with its objectives and ends with its key points, flashcards and
    sources; the last page of the lesson has the quiz before its flashcards; sections run in
    order."""
    numbered = []
    for i, path in enumerate(LESSONS[lesson], start=1):
        text = (DOCS / path).read_text(encoding="utf-8")
        assert re.search(r"^\*\*Time:\*\* about ", text, re.MULTILINE), path
        headings = re.findall(r"^## (.+?)(?: \{#[\w-]+\})?$", text, re.MULTILINE)
        assert headings[0] == "Objectives", path
        last = i == len(LESSONS[lesson])
        tail = ["Key points", "Quiz", "Flashcards", "Sources"]
        if not last:
            tail.remove("Quiz")
        assert headings[-len(tail) :] == tail, path
        assert last or "Quiz" not in headings, path
        numbered += [h for h in headings if re.match(r"\d\.\d ", h)]
    assert numbered and all(h.startswith(f"{lesson}.") for h in numbered)
    assert [h.split()[0] for h in numbered] == [
        f"{lesson}.{n}" for n in range(1, len(numbered) + 1)
    ]


TIME = re.compile(r"^\*\*Time:\*\* about (\d+) minutes: (\d+) minutes reading", re.MULTILINE)


def test_a_split_lessons_total_is_the_sum_of_its_pages():
    """Lesson 2's first page states the lesson's total: the parts' own times added up."""
    texts = [(DOCS / path).read_text(encoding="utf-8") for path in LESSONS[2]]
    pages = [int(TIME.search(text).group(1)) for text in texts]
    total = re.search(r"Lesson 2 has three parts, (\d+) minutes in all", texts[0])
    assert total and int(total.group(1)) == sum(pages), pages


@pytest.mark.parametrize("lesson", LESSONS)
def test_lesson_has_its_own_cards_and_quiz(course, lesson):
    pages = [_page(course, path) for path in LESSONS[lesson]]
    seed_fronts = {front for front, _, _ in SEED_CARDS}
    own = [card for page in pages for card in page.cards if card.front not in seed_fronts]
    assert len(own) >= MIN_NEW_CARDS
    assert all(page.cards for page in pages)  # each page of a split lesson has its own cards
    (quiz,) = [quiz for page in pages for quiz in page.quizzes]
    assert quiz.quiz_id == f"lesson{lesson}-quiz"
    assert quiz.lang == "en"
    assert len(quiz.questions) >= MIN_LESSON_QUESTIONS
    assert all(question.explanation for question in quiz.questions)


def test_course_pages_exist_and_link_the_deck():
    deck = "downloads/contributing-to-open-source-ml.apkg"
    for name in ("index.md", "flashcards.md"):
        assert f"]({deck})" in (DOCS / name).read_text(encoding="utf-8")
    flashcards = (DOCS / "flashcards.md").read_text(encoding="utf-8")
    for path in _all_pages():
        assert f"({path}#flashcards)" in flashcards
    assert (DOCS / "glossary.md").is_file()
    assert (DOCS / "lab" / "checkpointing-lab.py").is_file()


def test_lab_notebook_is_a_percent_notebook_using_the_harness():
    jupytext = pytest.importorskip("jupytext")
    notebook = jupytext.read(DOCS / "lab" / "checkpointing-lab.py")
    kinds = [cell.cell_type for cell in notebook.cells]
    assert "markdown" in kinds and "code" in kinds
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    assert "import checkpointing" in code and "run_benchmark" in code
    markdown = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    assert "download" in markdown.lower()


# --- Lesson 2's claims about the measurements -------------------------------------------------
# The lesson types in no measured number, but it states what the results show. These tests read
# every committed results file (CPU now, a GPU file once one is committed), so a regeneration that
# contradicts a sentence of the lesson fails here, next to the sentence it breaks.

RESULT_FILES = sorted(  # measured files: the traced one has its own tests (test_benchmarks_traced)
    p
    for p in (DOCS / "benchmarks").glob("checkpointing-*.json")
    if p.name != "checkpointing-traced.json"
)


def _results(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _memory(result: dict, row: dict) -> int:
    """The memory the tables show: the peak where measured (CUDA), else the bytes saved."""
    return row["peak_bytes"] if row["peak_bytes"] is not None else row["saved_bytes"]


def _ok(result: dict, strategy: str) -> list[dict]:
    return [r for r in result["rows"] if r["strategy"] == strategy and r["status"] == "ok"]


def test_there_are_results_for_the_lesson():
    assert any(path.name == "checkpointing-cpu.json" for path in RESULT_FILES)


@pytest.mark.parametrize("path", RESULT_FILES, ids=lambda p: p.name)
def test_every_strategy_keeps_the_gradients(path):
    """2.5 "the results tables report it", 2.8 "Every strategy must match the reference"."""
    rows = [r for r in _results(path)["rows"] if r["status"] == "ok" and r["strategy"] != "none"]
    assert rows
    assert all(r["grads_equal"] is True for r in rows), [r for r in rows if not r["grads_equal"]]


@pytest.mark.parametrize("path", RESULT_FILES, ids=lambda p: p.name)
def test_the_rows_the_exercises_point_to_exist(path):
    """Ex 2.1's reality check sends the learner to the "4 layers per group" row and the
    no-checkpointing row; 2.8 and Ex 2.3 to the overhead bound of the per-group rows."""
    result = _results(path)
    assert _ok(result, "none")
    assert 4 in result["config"]["layers_per_group"]
    assert {"groups", "segments", "selective", "offload"} <= {r["strategy"] for r in result["rows"]}


@pytest.mark.parametrize("path", RESULT_FILES, ids=lambda p: p.name)
def test_group_size_moves_memory_not_recomputation(path):
    """2.8 "all per-group rows share one bound"; Ex 2.4 "k = 4 would store fewer boundaries than
    k = 1" and "group size moves memory, not the amount recomputed"."""
    groups = sorted(_ok(_results(path), "groups"), key=lambda r: r["layers_per_group"])
    assert len(groups) >= 2
    assert {r["recomputed_fraction"] for r in groups} == {1.0}
    bounds = {r["overhead_bound"] for r in groups}
    assert len(bounds) == 1, bounds  # one bound for every group size (or None: no timings)
    saved = [r["saved_bytes"] for r in groups]
    assert saved == sorted(saved, reverse=True) and len(set(saved)) == len(saved), saved


@pytest.mark.parametrize("path", RESULT_FILES, ids=lambda p: p.name)
def test_more_segments_is_not_always_less_memory(path):
    """2.4 and 2.8: checkpoint_sequential's uncheckpointed last segment makes memory bump where L
    does not divide evenly; the lab says the stored bytes are not monotone in the segments."""
    result = _results(path)
    segments = sorted(_ok(result, "segments"), key=lambda r: r["segments"])
    memory = [_memory(result, r) for r in segments]
    assert any(later > earlier for earlier, later in itertools.pairwise(memory)), memory


@pytest.mark.parametrize("path", RESULT_FILES, ids=lambda p: p.name)
def test_selective_sits_between_none_and_full_checkpointing(path):
    """2.6 "On memory it sits between no checkpointing and full checkpointing"."""
    result = _results(path)
    (none,), (selective,) = _ok(result, "none"), _ok(result, "selective")
    full = next(r for r in _ok(result, "groups") if r["layers_per_group"] == 1)
    assert _memory(result, full) < _memory(result, selective) < _memory(result, none)


@pytest.mark.parametrize("path", RESULT_FILES, ids=lambda p: p.name)
def test_saved_bytes_are_close_to_the_prediction(path):
    """2.3 and the lab: a and c predict what autograd stores (the tables' ratio column)."""
    for row in _results(path)["rows"]:
        if row["status"] == "ok":
            ratio = row["saved_bytes"] / row["predicted_saved_bytes"]
            assert 0.98 <= ratio <= 1.02, (row["strategy"], ratio)


@pytest.mark.parametrize("path", RESULT_FILES, ids=lambda p: p.name)
def test_offload_stores_on_the_host_and_recomputes_nothing(path):
    """The lab: offload "stores as much as no checkpointing, but on the host, and recomputes
    nothing"."""
    rows = [r for r in _results(path)["rows"] if r["strategy"] == "offload"]
    assert rows and all(r["saved_on"] == "host" and r["recomputed_fraction"] is None for r in rows)


def test_cpu_autocast_leaves_layer_norm_in_its_input_dtype():
    """2.7: `layer_norm` is not on the CPU list of ops that autocast to float32. Under CPU
    bfloat16 autocast it computes in its input's dtype, while a matmul is cast to bfloat16 and an
    op that is on the list (`mse_loss`) is cast to float32: what keeps LayerNorm in float32 in the
    course's measurement is its float32 input, the residual stream."""
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    low = torch.randn(4, 8, dtype=torch.bfloat16)
    high = torch.randn(4, 8)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert F.layer_norm(low, (8,)).dtype == torch.bfloat16
        assert torch.nn.LayerNorm(8)(low).dtype == torch.bfloat16
        assert F.layer_norm(high, (8,)).dtype == torch.float32
        assert torch.nn.Linear(8, 8)(high).dtype == torch.bfloat16
        assert F.mse_loss(low, low).dtype == torch.float32
        assert (high + low).dtype == torch.float32


def test_the_gpu_configuration_is_what_the_lesson_says():
    """2.4: the GPU run measures segment counts around sqrt(L) and sqrt(c * L); 2.7 and 2.8: it
    runs in bfloat16. The GPU file may not be committed yet, so this reads the harness's config."""
    checkpointing = pytest.importorskip("checkpointing")
    gpu, c = checkpointing.CONFIGS["gpu"], checkpointing.ACTIVATIONS_PER_LAYER
    assert gpu.dtype == "bfloat16"
    root_l, root_cl = math.sqrt(gpu.layers), math.sqrt(c * gpu.layers)
    assert min(abs(s - root_l) for s in gpu.segments) <= 1
    assert any(root_l + 1 < s <= root_cl for s in gpu.segments)
    assert any(s >= root_cl for s in gpu.segments)


def test_the_course_draws_no_warning_but_the_seed_quizzes_length_cue(course):
    """No quiz cue, fragment, exercise out of order or short reading time anywhere.

    The seed quizzes keep their given wording, so their correct options stay the longest and
    ``check`` warns about that; their positions are shuffled, so no position cue remains."""
    from mkdocs_course.course.check import cue_warnings

    warnings = cue_warnings(course)
    seed = [w for w in warnings if "quizzes/checkpointing-" in w]
    assert not [w for w in warnings if w not in seed], "\n".join(warnings)
    assert len(seed) == 2 and all("is the longest" in w for w in seed), seed  # the check sees it


def test_lesson_pages_sort_in_reading_order():
    """The deck and the review page list pages by file name: a split lesson's files sort in the
    order nav reads them (``02-part-2-...`` after ``02-gradient-...``), so "part 2" never comes
    before "part 1" there."""
    import yaml

    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    (path,) = [entry["Learning path"] for entry in nav if "Learning path" in entry]
    lessons = [page for entry in path for page in entry.values() if page.startswith("lessons/")]
    assert lessons == _all_pages() == sorted(_all_pages())
