"""The wheel holds the whole engine, under its import name: pyproject.toml lists every package of
``tools/`` (a new folder left off the list would be missing from a stranger's install, while this
checkout's editable install still found it), installed as ``mkdocs_course``."""

from __future__ import annotations

import tomllib
from pathlib import Path

from mkdocs_course import bootstrap

ROOT = Path(__file__).resolve().parents[1]
SOURCE = "tools"


def packages_on_disk(root: Path) -> set[str]:
    """Every package of the engine folder under ``root``, named as installed: a folder with an
    ``__init__.py`` inside a package (as setuptools finds packages: a folder without one, such
    as a folder of data, is package data, not a package)."""
    found, todo = set(), [(root / SOURCE, bootstrap.PACKAGE)]
    while todo:
        folder, name = todo.pop()
        if not (folder / "__init__.py").is_file():
            continue
        found.add(name)
        todo += [(sub, f"{name}.{sub.name}") for sub in folder.iterdir() if sub.is_dir()]
    return found


def setuptools_settings(root: Path) -> dict:
    return tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]


def test_the_package_list_is_every_folder_of_the_engine():
    listed = setuptools_settings(ROOT)["packages"]
    assert sorted(listed) == listed, "keep the list sorted"
    assert set(listed) == packages_on_disk(ROOT)


def test_the_engine_folder_installs_under_the_name_the_bootstrap_runs():
    settings = setuptools_settings(ROOT)
    assert settings["package-dir"] == {bootstrap.PACKAGE: SOURCE}
    data = settings["package-data"]
    assert all(key == "*" or key.split(".")[0] == bootstrap.PACKAGE for key in data)


def test_the_check_finds_a_folder_left_off_the_list(tmp_path: Path):
    for folder in ("tools", "tools/a", "tools/a/b", "tools/data/c"):
        (tmp_path / folder).mkdir(parents=True)
    for init in ("tools", "tools/a", "tools/a/b", "tools/data/c"):
        (tmp_path / init / "__init__.py").write_text("")
    assert packages_on_disk(tmp_path) == {"mkdocs_course", "mkdocs_course.a", "mkdocs_course.a.b"}
