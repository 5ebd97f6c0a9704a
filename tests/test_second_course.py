"""A second course reuses the engine: tests/fixtures/second-course has a mkdocs.yml, docs/, its
note templates and its benchmark's Python.

It installs the engine as a stranger would, into a virtual environment of its own (``pip
install`` of this repository, not editable, here with uv), and builds with plain ``mkdocs
build``: MkDocs finds the ``course`` plugin by its entry point, with no path to this repository,
and the engine, imported as ``mkdocs_course``, reads nothing from this checkout. Its deck is
imported into one Anki collection together with this course's: its own deck name, note types
and GUIDs, so neither course touches the other's notes.

To add something of its own (a benchmark of its own, say), a course puts it in its own folder
and names it in its ``course`` plugin settings; :func:`stranger_venv` is the environment to build
it in, and :func:`second_site` the build.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import deck_query
from mkdocs_course import bootstrap
from mkdocs_course.anki import deck
from mkdocs_course.buildkit.buildinfo import ROOT
from mkdocs_course.course import check as course_check
from mkdocs_course.course import config as course_config
from mkdocs_course.course import notes as course_notes
from mkdocs_course.course.parser import parse_course
from mkdocs_course.plugin.assets import STATIC
from mkdocs_course.plugin.css_minify import minified
from mkdocs_course.plugin.syntax import MKDOCS

FIXTURE = ROOT / "tests" / "fixtures" / "second-course"
SECOND = course_config.load(FIXTURE)
FIRST = course_config.load(ROOT)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs_course.cli", *args], cwd=ROOT, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def stranger_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Python of a new virtual environment with this repository installed into it by uv.

    The dependencies are this environment's, made visible to the new one by a ``.pth`` file
    (no network, and no second copy of torch); the engine itself is built and installed, not
    editable, from a copy of the repository's package files (a build writes into the folder it
    builds), as a stranger's ``pip install`` would, and is only reachable through that install:
    the course's folder holds no ``tools/``."""
    uv = bootstrap.find_uv()
    if uv is None:
        pytest.skip("uv cannot be had here (bootstrap.find_uv)")
    venv = tmp_path_factory.mktemp("stranger") / "venv"
    started = time.perf_counter()
    subprocess.run([str(uv), "venv", "-q", "--python", sys.executable, str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    ours = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
    Path(purelib, "_dependencies.pth").write_text("".join(f"{p}\n" for p in ours))
    install = [str(uv), "pip", "install", "-q", "--offline", "--python", str(python)]
    source = venv.parent / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "tools", source / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    install += ["--no-deps", "--no-build-isolation", str(source)]
    result = subprocess.run(install, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    print(f"installed the engine into {venv} in {time.perf_counter() - started:.1f} s")
    return python


@pytest.fixture(scope="module")
def second_site(stranger_venv: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The second course built by ``mkdocs build`` in the stranger's environment."""
    course = tmp_path_factory.mktemp("second") / "course"
    shutil.copytree(FIXTURE, course)
    started = time.perf_counter()
    result = subprocess.run(
        [str(stranger_venv), "-m", "mkdocs", "build", "-q"],
        cwd=course, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    print(f"mkdocs build of the second course: {time.perf_counter() - started:.1f} s")
    return course / "site"


def test_the_installed_plugin_is_the_one_mkdocs_loads(stranger_venv: Path, tmp_path: Path):
    """Run from outside this repository, the stranger's environment finds the plugin by its
    entry point alone."""
    find = (
        "from importlib.metadata import entry_points;"
        "(e,) = [e for e in entry_points(group='mkdocs.plugins') if e.name == 'course'];"
        "print(e.value, e.load().__module__)"
    )
    result = subprocess.run(
        [str(stranger_venv), "-c", find], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "mkdocs_course.plugin.plugin:CoursePlugin",
        "mkdocs_course.plugin.plugin",
    ]


def test_the_installed_engine_is_its_own_copy_under_its_own_name(stranger_venv: Path, tmp_path):
    """Not editable: the package lies in the stranger's environment, and nothing of this
    checkout is importable there (no ``tools``, which would collide with other projects')."""
    where = (
        "import importlib.util, mkdocs_course;"
        "print(mkdocs_course.__file__, importlib.util.find_spec('tools'))"
    )
    result = subprocess.run(
        [str(stranger_venv), "-c", where], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    installed, tools = result.stdout.split()
    assert Path(installed).is_relative_to(stranger_venv.parent.parent), installed
    assert tools == "None"


def notes(apkg: Path) -> list[tuple]:
    """``(guid, note type id, tags)`` of every note in a deck file."""
    return deck_query(apkg, "select guid, mid, tags from notes order by id")


def test_the_settings_are_the_second_courses_own():
    assert SECOND.deck_name == "Reading Other People's Code"
    assert SECOND.guid_namespace != FIRST.guid_namespace
    assert set(SECOND.note_type_ids.values()).isdisjoint(FIRST.note_type_ids.values())
    assert SECOND.languages == ("en",)


def test_the_second_course_builds_with_its_own_pages_and_deck(second_site: Path):
    lesson = (second_site / "lessons" / "01-finding-your-way.html").read_text("utf-8")
    assert 'class="flashcard"' in lesson and 'class="quiz"' in lesson
    assert "<math" in lesson  # the quiz's $O(n)$, as MathML
    assert "Reading Other People" in (second_site / "index.html").read_text("utf-8")
    assert not (second_site / "assets" / "review").exists()  # it has no review page
    apkg = second_site / SECOND.deck_file
    course = parse_course(FIXTURE, syntax=MKDOCS)
    expected = [item.guid for item in course_notes.note_items(course)]
    found = notes(apkg)
    assert [guid for guid, _, _ in found] == expected
    assert {mid for _, mid, _ in found} == set(SECOND.note_type_ids.values())
    templates = FIXTURE / SECOND.deck_templates
    models = json.loads(deck_query(apkg, "select models from col")[0][0])
    styles = {model["css"] for model in models.values()}
    assert styles == {(templates / "cards.css").read_text("utf-8")}  # its own, not this course's


def test_the_second_course_gets_the_engines_files_from_the_installed_plugin(second_site: Path):
    """It has no docs/assets of its own: the plugin adds its stylesheets, scripts and fonts to
    the site and to the pages; without a Review page, none of the review scripts."""
    assert not (FIXTURE / "docs" / "assets").exists()
    for name in ("course.js", "startup.js", "fonts/OFL.txt"):
        assert (second_site / "assets" / name).read_bytes() == (STATIC / name).read_bytes(), name
    css = minified((STATIC / "course.css").read_text("utf-8"), "course.css")
    assert (second_site / "assets" / "course.css").read_text("utf-8") == css
    lesson = (second_site / "lessons" / "01-finding-your-way.html").read_text("utf-8")
    assert '<link rel="stylesheet" href="../assets/course.css">' in lesson
    assert '<script src="../assets/startup.js" defer>' in lesson
    assert "assets/review/" not in lesson


def test_the_second_course_declares_no_page_assets_and_gets_none(second_site: Path):
    """The first course's planner files are its own (its settings declare them): a course
    without a planner gets neither the files nor a link to them."""
    served = {path.relative_to(second_site).as_posix() for path in second_site.rglob("*")}
    assert not {"assets/planner.js", "assets/planner.css"} & served
    for page in second_site.rglob("*.html"):
        assert "planner" not in page.read_text("utf-8"), page


def test_guids_come_from_the_courses_namespace():
    course = parse_course(FIXTURE, syntax=MKDOCS)
    card = course.cards[0]
    mine = course_notes.note_guid(card, namespace=SECOND.guid_namespace)
    theirs = course_notes.note_guid(card, namespace=FIRST.guid_namespace)
    assert next(item.guid for item in course_notes.note_items(course)) == mine != theirs


def test_both_courses_live_in_one_anki_collection(second_site: Path, tmp_path: Path):
    collection = pytest.importorskip("anki.collection", reason="the anki package is not installed")
    first = tmp_path / "first.apkg"
    deck.write_deck(parse_course(ROOT, syntax=MKDOCS), first, timestamp=1_700_000_000, root=ROOT)
    col = collection.Collection(str(tmp_path / "collection.anki2"))
    try:
        for apkg in (first, second_site / SECOND.deck_file):
            request = collection.ImportAnkiPackageRequest(
                package_path=str(apkg),
                options=collection.ImportAnkiPackageOptions(with_scheduling=False),
            )
            col.import_anki_package(request)
        assert col.note_count() == len(notes(first)) + len(notes(second_site / SECOND.deck_file))
        tops = {name.split("::")[0] for name in col.decks.all_names()}
        assert {FIRST.deck_name, SECOND.deck_name} <= tops
    finally:
        col.close()


def test_a_course_without_settings_is_refused_with_the_file_named(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n", "utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: Nameless\n", "utf-8")
    result = run_cli("check", "--course", str(tmp_path))
    assert result.returncode == 1
    assert "mkdocs.yml:1: no 'course' plugin settings" in result.stderr


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("guid_namespace: Has Spaces", "plugins.course.guid_namespace: 'Has Spaces'"),
        ("deck_file: ../outside.apkg", "must stay inside the site"),
        ("note_type_ids: {basic: 5, choice: 5}", "each note type needs its own id"),
        ("languages: [en, fr]", "plugins.course.languages: ['fr'] unknown"),
        ("languages: en", "plugins.course.languages: missing, or not a list"),
        ("deck_templates: cards", "plugins.course.deck_templates: 'cards': no such folder"),
        ("deck_templates: ../deck", "plugins.course.deck_templates: '../deck' must be a folder"),
    ],
)
def test_bad_settings_name_file_line_and_key(tmp_path: Path, setting: str, message: str):
    shutil.copytree(FIXTURE / "docs", tmp_path / "docs")
    text = (FIXTURE / "mkdocs.yml").read_text("utf-8")
    key = setting.split(":")[0]
    lines = [
        f"      {setting}" if line.strip().startswith(key + ":") else line
        for line in text.splitlines()
    ]
    (tmp_path / "mkdocs.yml").write_text("\n".join(lines) + "\n", "utf-8")
    result = run_cli("check", "--course", str(tmp_path))
    assert result.returncode == 1
    line = next(n for n, row in enumerate(lines, 1) if row.strip().startswith(key + ":"))
    assert f"mkdocs.yml:{line}: " in result.stderr and message in result.stderr


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("deck_name: Reading Other People's Code", "deck_name: 123",
         "plugins.course.deck_name: missing, or not a str"),
        ("languages: [en]", "colour: blue", "plugins.course.colour: unknown setting (the plugin "
         f"has: {sorted(setting.name for setting in course_config.SETTINGS)})"),
    ],
)  # fmt: skip
def test_a_settings_error_is_reported_alone(tmp_path: Path, old: str, new: str, message: str):
    """docs/index.md links to the deck that the settings name: with the settings unread, which
    files the build makes is not known, and that link was reported as one to a missing file."""
    course = tmp_path / "course"
    shutil.copytree(FIXTURE, course)
    text = (course / "mkdocs.yml").read_text("utf-8")
    (course / "mkdocs.yml").write_text(text.replace(old, new), "utf-8")
    line = text[: text.index(old)].count("\n") + 1
    report = course_check.report(course_check.load_checked_course(course, syntax=MKDOCS))
    assert report == f"mkdocs.yml:{line}: {message}"


def test_a_settings_error_comes_without_errors_about_the_active_files_it_lists(tmp_path: Path):
    """With the settings unread, which files they list as active is not known either: a listed
    page of script was reported as one not listed."""
    course = tmp_path / "course"
    shutil.copytree(FIXTURE, course)
    (course / "docs" / "widget.html").write_text("<p>A widget.</p>\n", "utf-8")
    text = (course / "mkdocs.yml").read_text("utf-8")
    listed = text.replace("languages: [en]", "languages: [en]\n      active_files: [widget.html]")
    (course / "mkdocs.yml").write_text(listed, "utf-8")
    assert course_check.load_checked_course(course, syntax=MKDOCS).errors == []
    old = "deck_name: Reading Other People's Code"
    (course / "mkdocs.yml").write_text(listed.replace(old, "deck_name: 123"), "utf-8")
    line = listed[: listed.index(old)].count("\n") + 1
    report = course_check.report(course_check.load_checked_course(course, syntax=MKDOCS))
    assert report == f"mkdocs.yml:{line}: plugins.course.deck_name: missing, or not a str"


def test_broken_yaml_names_the_line_where_what_it_breaks_opened(tmp_path: Path):
    """PyYAML gives up lines after a '[' that is never closed; the message says where it opened
    (it named only the line where the parser gave up), and no link is judged without settings."""
    course = tmp_path / "course"
    shutil.copytree(FIXTURE, course)
    text = (course / "mkdocs.yml").read_text("utf-8")
    (course / "mkdocs.yml").write_text(text.replace("languages: [en]", "languages: [en"), "utf-8")
    opened = text[: text.index("languages: [en]")].count("\n") + 1
    report = course_check.report(course_check.load_checked_course(course, syntax=MKDOCS))
    assert report == (
        f"mkdocs.yml:{opened + 1}: not valid YAML: expected ',' or ']', but got ':' (while "
        f"parsing a flow sequence started by '[' at line {opened})"
    )


def test_a_missing_note_template_names_the_setting_and_the_file(tmp_path: Path):
    course = tmp_path / "course"
    shutil.copytree(FIXTURE, course)
    (course / "note-templates" / "choice.back.html").unlink()
    result = run_cli("check", "--course", str(course))
    assert result.returncode == 1
    line = (
        (course / "mkdocs.yml")
        .read_text("utf-8")
        .splitlines()
        .index("      deck_templates: note-templates  # its cards' own HTML and CSS")
    )
    assert (
        f"mkdocs.yml:{line + 1}: plugins.course.deck_templates: "
        "note-templates/choice.back.html: no such file"
    ) in result.stderr


def _with_setting(course: Path, setting: str) -> Path:
    """The second course with one more line in its plugin settings."""
    shutil.copytree(FIXTURE, course)
    text = (course / "mkdocs.yml").read_text("utf-8")
    anchor = "      languages: [en]\n"
    (course / "mkdocs.yml").write_text(text.replace(anchor, anchor + f"      {setting}\n"))
    return course


@pytest.mark.parametrize(
    ("setting", "mkdocs_says", "check_says"),
    [
        (
            "colour: blue",
            "Plugin 'course' option 'colour': Unrecognised configuration name: colour",
            "plugins.course.colour: unknown setting",
        ),
        (
            "active_files: assets/a.js",
            "Plugin 'course' option 'active_files': missing, or not a list",
            "plugins.course.active_files: missing, or not a list",
        ),
    ],
)
def test_an_unknown_or_mistyped_setting_is_mkdocs_own_config_error_and_checks(
    tmp_path: Path, setting: str, mkdocs_says: str, check_says: str
):
    """``mkdocs build`` refuses it while loading mkdocs.yml (the plugin's schema), naming the
    setting; ``check``, which runs without MkDocs, refuses it from the same table at its line."""
    course = _with_setting(tmp_path / "course", setting)
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-d", str(tmp_path / "site")],
        cwd=course, capture_output=True, text=True,
    )  # fmt: skip
    assert built.returncode == 1 and mkdocs_says in built.stderr, built.stderr
    assert not (tmp_path / "site").exists()
    checked = run_cli("check", "--course", str(course))
    line = (course / "mkdocs.yml").read_text("utf-8").splitlines().index(f"      {setting}") + 1
    assert checked.returncode == 1 and f"mkdocs.yml:{line}: {check_says}" in checked.stderr


def test_the_deck_command_writes_the_second_courses_deck(tmp_path: Path):
    course = tmp_path / "course"
    shutil.copytree(FIXTURE, course)
    out = tmp_path / "second.apkg"
    result = run_cli("deck", "--course", str(course), "-o", str(out))
    assert result.returncode == 0, result.stderr
    expected = [item.guid for item in course_notes.note_items(parse_course(course, syntax=MKDOCS))]
    assert [guid for guid, _, _ in notes(out)] == expected
    names = deck_query(out, "select decks from col")[0][0]
    assert SECOND.deck_name in names and FIRST.deck_name not in names


def test_the_second_course_renders_a_benchmark_of_its_own(second_site: Path):
    """Its own results file, view, schema and code (``reading/``), declared in its settings: the
    installed engine draws the view, current, from a folder that holds no ``tools/``."""
    assert not (FIXTURE / "tools").exists()
    lesson = (second_site / "lessons" / "01-finding-your-way.html").read_text("utf-8")
    assert 'class="benchmark benchmark-search"' in lesson
    assert "Finding a word on" in lesson and '<td class="num">100,000</td>' in lesson
    assert "docs/benchmarks/search-cpu.json" in lesson
    assert "Stale results" not in lesson


def _check_copy(course: Path, *edits: tuple[str, str, str]) -> subprocess.CompletedProcess[str]:
    """``check --strict-results`` of a copy of the second course with ``(file, old, new)``
    edits."""
    shutil.copytree(FIXTURE, course, ignore=shutil.ignore_patterns("__pycache__"))
    for name, old, new in edits:
        path = course / name
        assert old in path.read_text("utf-8")
        path.write_text(path.read_text("utf-8").replace(old, new), "utf-8")
    return run_cli("check", "--course", str(course), "--strict-results")


def test_the_second_courses_benchmark_is_checked_by_its_own_hash(tmp_path: Path):
    assert _check_copy(tmp_path / "same").returncode == 0
    edit = ("reading/search.py", "ROUNDS = 5", "ROUNDS = 7")
    result = _check_copy(tmp_path / "edited", edit)
    assert result.returncode == 1
    assert "docs/benchmarks/search-cpu.json: results are stale" in result.stderr
    assert "regenerate: python -m reading.search" in result.stderr


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "views: reading.views:VIEWS",
            "views: reading.missing:VIEWS",
            "plugins.course.benchmarks.search.views: cannot import 'reading.missing' "
            "(ModuleNotFoundError",
        ),
        (
            "views: reading.views:VIEWS",
            "views: reading.views:TABLES",
            "plugins.course.benchmarks.search.views: 'reading.views' has no 'TABLES'",
        ),
        (
            "code_hash: reading.codehash:code_hash",
            "code_hash: reading.codehash:VIEWS",
            "plugins.course.benchmarks.search.code_hash: 'reading.codehash' has no 'VIEWS'",
        ),
    ],
)
def test_a_benchmark_that_does_not_import_names_the_setting_and_its_line(
    tmp_path: Path, old: str, new: str, message: str
):
    result = _check_copy(tmp_path / "course", ("mkdocs.yml", old, new))
    assert result.returncode == 1
    text = (FIXTURE / "mkdocs.yml").read_text("utf-8").splitlines()
    line = next(n for n, row in enumerate(text, 1) if row.strip() == "search:")
    assert f"mkdocs.yml:{line}: {message}" in result.stderr, result.stderr


def test_a_misshapen_benchmark_entry_is_a_settings_error(tmp_path: Path):
    result = _check_copy(
        tmp_path / "course", ("mkdocs.yml", "views: reading.views:VIEWS", "views: reading.views")
    )
    assert result.returncode == 1
    assert "plugins.course.benchmarks: search: views must be 'module:attribute'" in result.stderr


def test_an_unknown_view_of_the_second_courses_benchmark_names_the_embed(tmp_path: Path):
    lesson = "docs/lessons/01-finding-your-way.md"
    result = _check_copy(tmp_path / "course", (lesson, "search table", "search chart"))
    assert result.returncode == 1
    line = next(
        n
        for n, row in enumerate((FIXTURE / lesson).read_text("utf-8").splitlines(), 1)
        if row.startswith("::: benchmark")
    )
    assert f"{lesson}:{line}: unknown benchmark view 'chart'; use one of table" in result.stderr
