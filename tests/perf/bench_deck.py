"""Print how long a deck of 500 generated cards takes to build (a benchmark, not a test).

Run: ``.venv/bin/python tests/perf/bench_deck.py``. The generated course (400 flashcards over
five lessons, 100 quiz questions in two quizzes; English and Urdu, with math, code and links) is
committed to a throwaway git repository, so the time includes dating every note from git history,
as in the real build. Target: under 2 s for parse + deck on a 2-core machine.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mkdocs_course.anki import deck  # noqa: E402
from mkdocs_course.course.parser import parse_course  # noqa: E402
from mkdocs_course.plugin.syntax import MKDOCS  # noqa: E402

LESSONS, CARDS_PER_LESSON, QUIZZES, QUESTIONS_PER_QUIZ = 5, 80, 2, 50
TIMESTAMP = 1_700_000_000


def lesson(number: int) -> str:
    lines = [f"# Lesson {number}", "", "## Flashcards", ""]
    for i in range(CARDS_PER_LESSON):
        if i % 4 == 0:
            lines.append(f"PyTorch میں سوال {number}-{i}؟ ::: torch.utils.checkpoint جواب {i}")
        elif i % 4 == 1:
            lines.append(f"Memory at $k={i}$ in lesson {number}? ::: $O(\\sqrt{{{i}}})$ of it")
        else:
            lines.append(
                f"What does `f{i}()` do in *lesson* {number}? ::: It returns [{i}](https://x.org/{i})"
            )
    return "\n".join(lines) + "\n"


def quiz(number: int) -> str:
    lang = "ur" if number % 2 else "en"
    lines = [f"# Quiz {number}", "", f"::: quiz id=quiz-{number} lang={lang}"]
    for i in range(QUESTIONS_PER_QUIZ):
        prompt = f"سوال {i} PyTorch میں؟" if lang == "ur" else f"Question {i} about `x`?"
        marker = f"{i + 1}. "
        pad = " " * len(marker)  # item content lines up after "10. ", not after "1. "
        lines += [
            marker + prompt,
            f"{pad}- [x] right {i}",
            f"{pad}- [ ] wrong {i}",
            f"{pad}- [ ] also wrong {i}",
            "",
            f"{pad}Because of $a_{{{i}}}$:",
            "",
            f"{pad}```python",
            f"{pad}y = checkpoint(f, x{i}, use_reentrant=False)",
            f"{pad}```",
            "",
        ]
    return "\n".join([*lines, ":::"]) + "\n"


def generate(root: Path) -> None:
    for n in range(1, LESSONS + 1):
        path = root / "docs" / "lessons" / f"{n:02d}-lesson.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(lesson(n), "utf-8")
    for n in range(1, QUIZZES + 1):
        path = root / "docs" / "quizzes" / f"quiz-{n}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(quiz(n), "utf-8")
    shutil.copy2(ROOT / "mkdocs.yml", root / "mkdocs.yml")  # this course's settings (extra.course)
    shutil.copytree(ROOT / "deck", root / "deck")  # and its note templates, which they name
    env = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    steps = (["init", "-q"], ["add", "docs", "mkdocs.yml"], ["commit", "-q", "-m", "generated"])
    for args in steps:
        subprocess.run(
            ["git", "-c", "user.name=Bench", "-c", "user.email=bench@example.org", *args],
            cwd=root,
            env=env,
            check=True,
        )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root)
        runs = []
        for _ in range(3):
            started = time.perf_counter()
            course = parse_course(root, syntax=MKDOCS)
            parsed = time.perf_counter()
            assert not course.errors, course.errors[:3]
            deck.write_deck(
                course,
                root / "out" / "deck.apkg",
                site_url="https://example.org/course/",
                timestamp=TIMESTAMP,
                root=root,
            )
            runs.append((parsed - started, time.perf_counter() - parsed))
        notes = len(course.cards) + len(course.questions)
        size = (root / "out" / "deck.apkg").stat().st_size
    parse_s = statistics.median(r[0] for r in runs)
    deck_s = statistics.median(r[1] for r in runs)
    print(f"{notes} cards ({len(course.cards)} flashcards, {len(course.questions)} questions)")
    print(f"first run (cold caches): {sum(runs[0]):.2f} s")
    print(f"median of 3: parse {parse_s:.2f} s + deck {deck_s:.2f} s = {parse_s + deck_s:.2f} s")
    print(f"deck size: {size / 1024:.0f} KiB (target: under 2 s)")


if __name__ == "__main__":
    main()
