"""The engine knows no course (issue #38): no file under ``tools/`` names what only this course
has, so a second course reuses the engine unchanged and declares its own in its settings.

The words are this course's own: its benchmark (``checkpointing``), the planner view and its
files, the memory model the planner ports, the FSDP runs it measures, the modules its views and
code hash live in. A generic word such as ``benchmark`` or ``snippets`` (the folder the engine
reads a course's Python from) is no proof of course knowledge and is not looked for.

The practice workspace is this course's exercise too (its project simkit, the MLPStack it asks to
checkpoint, the cosine-similarity bug): it lives in ``snippets/practice/``, and the engine only
calls the functions that ``mkdocs.yml`` names (``practice_bundle``, ``practice_cli``).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "tools"

COURSE_WORDS = re.compile(
    r"planner|checkpointing|memory_model|benchmark_views|fsdp|codehash|simkit|mlpstack|cosine",
    re.IGNORECASE,
)


def course_words(folder: Path, root: Path) -> dict[str, list[str]]:
    """Each text file under ``folder`` (path relative to ``root``) -> the course words it holds."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError:  # a font or another binary file: it names nothing
            continue
        words = sorted({match.lower() for match in COURSE_WORDS.findall(text)})
        if words:
            found[path.relative_to(root).as_posix()] = words
    return found


def test_no_engine_file_names_the_course():
    found = course_words(ENGINE, ROOT)
    assert found == {}, "the engine names the course: declare it in mkdocs.yml instead"


def test_a_planted_course_name_is_found(tmp_path: Path):
    engine = tmp_path / "tools"
    (engine / "plugin" / "static").mkdir(parents=True)
    (engine / "plugin" / "assets.py").write_text('STYLES = ("assets/course.css",)\n', "utf-8")
    (engine / "plugin" / "static" / "font.woff2").write_bytes(b"\xff\xfe\x00planner")
    assert course_words(engine, tmp_path) == {}
    planted = 'PAGE_ONLY = {"assets/Planner.js": "form.planner"}  # the FSDP ranks\n'
    (engine / "plugin" / "assets.py").write_text(planted, "utf-8")
    (engine / "cli.py").write_text("from .exercise import simkit  # MLPStack\n", "utf-8")
    assert course_words(engine, tmp_path) == {
        "tools/cli.py": ["mlpstack", "simkit"],
        "tools/plugin/assets.py": ["fsdp", "planner"],
    }
