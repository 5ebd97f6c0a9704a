"""The ``benchmarks`` setting: its shape is checked where the other settings are (``check`` and
MkDocs' own config schema), what it names is imported from the course's folder, and a results
file is held to its kind's schema and to the envelope every file has."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from mkdocs_course import benchmarks
from mkdocs_course.benchmarks import registry
from mkdocs_course.plugin.settings import CourseSettings

ENTRY = {
    "views": "pkg.views:VIEWS",
    "code_hash": "pkg.views:code_hash",
    "files": {
        "cpu": {"code": "pkg/measure.py", "schema": "pkg/x.schema.json", "regenerate": "run"}
    },
}


def _entry(**changes: object) -> dict:
    return {**json.loads(json.dumps(ENTRY)), **changes}


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"Bad Name": ENTRY}, "a benchmark's name uses a-z"),
        ({"x": "pkg:VIEWS"}, "x: must be a mapping with views, code_hash and files"),
        ({"x": _entry(colour="blue")}, "x: unknown keys ['colour']"),
        ({"x": _entry(views="pkg.views")}, "x: views must be 'module:attribute'"),
        ({"x": _entry(files={})}, "x: files must map each kind of results file"),
        ({"x": _entry(files={"cpu": {"code": "a.py"}})}, "files.cpu needs code, schema and"),
        (
            {"x": _entry(files={"cpu": {**ENTRY["files"]["cpu"], "code": "../elsewhere.py"}})},
            "files.cpu.code: '../elsewhere.py' must be a path inside the course",
        ),
        ({"x": _entry(results="/tmp")}, "results must be a folder inside the course"),
        ({"x": _entry(assets="pkg/a.js")}, "assets must be a list of {file, drives}"),
        ({"x": _entry(assets=[{"file": "pkg/a.js"}])}, "assets[0] needs file and drives"),
        (
            {"x": _entry(assets=[{"file": "../a.js", "drives": "form.a"}])},
            "assets[0].file: '../a.js' must be a path inside the course",
        ),
        (
            {"x": _entry(assets=[{"file": "pkg/a.html", "drives": "form.a"}])},
            "assets[0].file: 'pkg/a.html' must be a .css or .js file",
        ),
        (
            {"x": _entry(assets=[{"file": "pkg/a.js", "drives": "form.a{}<"}])},
            "assets[0].drives: 'form.a{}<' must be a CSS selector",
        ),
        (
            {"x": _entry(assets=[{"file": "pkg/a.js", "drives": "form.a,,p"}])},
            "assets[0].drives: 'form.a,,p' must be a CSS selector",
        ),
        (
            {
                "x": _entry(assets=[{"file": "pkg/a.js", "drives": "form.a"}]),
                "y": _entry(assets=[{"file": "other/a.js", "drives": "form.b"}]),
            },
            "assets: two files named a.js would be one file of the site",
        ),
    ],
)
def test_a_misshapen_entry_names_what_is_wrong(value: dict, problem: str) -> None:
    assert problem in (registry.problem(value) or "")


def test_a_well_shaped_entry_has_no_problem() -> None:
    assert registry.problem({"x": ENTRY}) is None
    drives = "form.a, div#b [data-c='d'] > p"
    entry = _entry(assets=[{"file": "pkg/a-b_c.js", "drives": drives}])
    assert registry.problem({"x": entry}) is None
    declared = registry.declare("x", entry, results="docs/benchmarks", file="mkdocs.yml", line=1)
    assert declared.assets == (registry.PageAsset(Path("pkg/a-b_c.js"), drives),)
    assert declared.assets[0].site_path == "assets/a-b_c.js"


def test_mkdocs_refuses_a_misshapen_entry_with_its_own_config_error() -> None:
    settings = CourseSettings()
    required = {
        "deck_name": "A course",
        "deck_file": "downloads/a.apkg",
        "guid_namespace": "a-course",
        "note_type_ids": {"basic": 1, "choice": 2},
    }
    settings.load_dict({**required, "benchmarks": {"x": _entry(views="nope")}})
    failed, _ = settings.validate()
    (problem,) = [str(error) for key, error in failed if key == "benchmarks"]
    assert problem.startswith("x: views must be 'module:attribute'")


def _course(root: Path, package: str, views: str, schema: dict | None = None) -> registry.Declared:
    """A course folder with a package ``package`` (no ``__init__.py``) holding ``views.py``."""
    (root / package).mkdir(parents=True)
    (root / package / "views.py").write_text(views, "utf-8")
    (root / package / "measure.py").write_text("print('measured')\n", "utf-8")
    (root / package / "x.schema.json").write_text(json.dumps(schema or {}), "utf-8")
    entry = json.loads(json.dumps(ENTRY).replace("pkg", package))
    return registry.declare("x", entry, results="docs/benchmarks", file="mkdocs.yml", line=7)


VIEWS = """
import hashlib
from mkdocs_course.benchmarks import View

def code_hash(entry, root):
    name = entry.relative_to(root).as_posix()
    return {"files": [name], "sha256": hashlib.sha256(entry.read_bytes()).hexdigest()}

VIEWS = {"rows": View(lambda results: f"{len(results)} files", ("cpu",))}
"""


def test_the_views_are_imported_from_the_courses_folder_without_a_path_edit(
    tmp_path: Path,
) -> None:
    package = "course_package_for_this_test"
    declared = _course(tmp_path, package, VIEWS)
    path = list(sys.path)
    try:
        found = benchmarks.benchmark("x", {"x": declared}, tmp_path)
        assert sys.path == path
        assert list(found.views) == ["rows"]
        assert sys.modules[package].__path__ == [str((tmp_path / package).resolve())]
        measured = found.code_hash(tmp_path / package / "measure.py", tmp_path)
        results = tmp_path / "docs" / "benchmarks"
        results.mkdir(parents=True)
        envelope = {
            "benchmark": "x",
            "provenance": {
                "device": {"type": "cpu", "name": "A CPU", "slug": "cpu"},
                "code": {"files": measured["files"], "sha256": measured["sha256"]},
            },
        }
        (results / "x-cpu.json").write_text(json.dumps(envelope), "utf-8")
        assert benchmarks.render_embed(["x", "rows"], tmp_path, {"x": declared}, strict=True) == (
            "1 files"
        )
        # A file its own (lax) schema passes is still held to what the engine reads of it.
        del envelope["provenance"]["code"]
        (results / "x-cpu.json").write_text(json.dumps(envelope), "utf-8")
        with pytest.raises(benchmarks.BenchmarkError, match=r"envelope\.schema\.json") as caught:
            benchmarks.render_embed(["x", "rows"], tmp_path, {"x": declared}, strict=False)
        assert "provenance: 'code' is a required property" in str(caught.value)
        # A kind of file the benchmark does not declare is refused, naming the kinds it has.
        envelope["provenance"]["code"] = {"files": [], "sha256": "0" * 64}
        envelope["provenance"]["device"]["type"] = "tpu"
        (results / "x-cpu.json").write_text(json.dumps(envelope), "utf-8")
        with pytest.raises(benchmarks.BenchmarkError, match="'tpu' is no kind of file"):
            benchmarks.render_embed(["x", "rows"], tmp_path, {"x": declared}, strict=False)
    finally:
        for name in [m for m in sys.modules if m.split(".")[0] == package]:
            del sys.modules[name]


@pytest.mark.parametrize(
    ("views", "message"),
    [
        ("raise RuntimeError('broken on import')", "cannot import '{p}.views' (RuntimeError"),
        ("VIEWS = [1, 2]", "{p}.views:VIEWS is not a mapping of View"),
        (
            "from mkdocs_course.benchmarks import View\n"
            "VIEWS = {'t': View(str, ('cpu', 'cuda'))}\ncode_hash = None\n",
            "view 't' shows kinds ['cuda'] that files lacks",
        ),
    ],
)
def test_an_entry_that_does_not_resolve_names_the_setting_and_its_line(
    tmp_path: Path, views: str, message: str
) -> None:
    package = f"course_package_{abs(hash(views))}"
    declared = _course(tmp_path, package, views)
    try:
        with pytest.raises(benchmarks.RegistryError) as caught:
            benchmarks.benchmark("x", {"x": declared}, tmp_path)
    finally:
        for name in [m for m in sys.modules if m.split(".")[0] == package]:
            del sys.modules[name]
    assert str(caught.value).startswith("plugins.course.benchmarks.x.views: ")
    assert message.format(p=package) in str(caught.value)
    assert (caught.value.file, caught.value.line) == ("mkdocs.yml", 7)


def test_a_course_function_is_read_from_its_source_without_running_it(tmp_path: Path):
    """``function_problem`` judges ``module:function`` by the module's source: a module that
    would do harm (or only be slow) when imported is not run by reading the settings."""
    package = tmp_path / "coursepkg"
    package.mkdir()
    (package / "made.py").write_text(
        "raise SystemExit('ran')\n"
        "from os.path import join as joined\n"
        "NAME = 'x'\n"
        "class Maker: ...\n"
        "def make():\n    return b''\n",
        "utf-8",
    )
    problem = registry.function_problem
    assert problem("coursepkg.made:make", tmp_path) is None
    assert problem("coursepkg.made:joined", tmp_path) is None  # its use will tell
    assert problem("coursepkg.made:NAME", tmp_path) == "coursepkg.made:NAME is not a function"
    assert problem("coursepkg.made:Maker", tmp_path) == "coursepkg.made:Maker is not a function"
    assert problem("coursepkg.made:gone", tmp_path) == "'coursepkg.made' has no 'gone'"
    assert problem("coursepkg.absent:make", tmp_path) == (
        "cannot import 'coursepkg.absent' (no such module)"
    )
