"""The theme's compiled templates are kept in the virtual environment between builds
(``tools/plugin/template_bytecode.py``): a second environment compiles nothing it compiled
before, a changed template compiles again, and outside a virtual environment nothing is kept."""

from __future__ import annotations

import sys
from pathlib import Path

import jinja2
import pytest
from mkdocs_course.plugin import template_bytecode


def _env(templates: Path) -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates)))


def _compiled(env: jinja2.Environment, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names ``env`` compiles from source from now on."""
    names: list[str] = []
    compile_ = env.compile

    def counted(source, name=None, *args, **kwargs):
        names.append(name)
        return compile_(source, name, *args, **kwargs)

    monkeypatch.setattr(env, "compile", counted)
    return names


@pytest.fixture
def venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A virtual environment's prefix of this test's own."""
    prefix = tmp_path / "venv"
    monkeypatch.setattr(sys, "prefix", str(prefix))
    monkeypatch.setattr(sys, "base_prefix", str(tmp_path / "base"))
    return prefix


def test_a_template_compiled_once_is_not_compiled_again(tmp_path, venv, monkeypatch):
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "page.html").write_text("<p>{{ title | upper }}</p>", "utf-8")
    first = template_bytecode.install(_env(templates))
    compiled = _compiled(first, monkeypatch)
    assert first.get_template("page.html").render(title="a") == "<p>A</p>"
    assert compiled == ["page.html"]
    kept = list(venv.joinpath(template_bytecode.FOLDER).rglob("*.cache"))
    assert len(kept) == 1

    second = template_bytecode.install(_env(templates))
    compiled = _compiled(second, monkeypatch)
    assert second.get_template("page.html").render(title="b") == "<p>B</p>"
    assert compiled == []  # read back from the cache

    (templates / "page.html").write_text("<p>{{ title }}</p>", "utf-8")
    third = template_bytecode.install(_env(templates))
    compiled = _compiled(third, monkeypatch)
    assert third.get_template("page.html").render(title="c") == "<p>c</p>"
    assert compiled == ["page.html"]  # its source changed


def test_environments_with_other_extensions_keep_their_templates_apart(venv):
    plain = template_bytecode.folder(jinja2.Environment())
    i18n = template_bytecode.folder(jinja2.Environment(extensions=["jinja2.ext.i18n"]))
    assert plain is not None and i18n is not None and plain != i18n
    assert plain.is_relative_to(venv) and i18n.is_relative_to(venv)


def test_outside_a_virtual_environment_or_where_it_cannot_write_nothing_is_kept(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(sys, "base_prefix", sys.prefix)
    env = template_bytecode.install(jinja2.Environment())
    assert env.bytecode_cache is None
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder", "utf-8")
    monkeypatch.setattr(sys, "prefix", str(blocked))
    monkeypatch.setattr(sys, "base_prefix", str(tmp_path))
    env = template_bytecode.install(jinja2.Environment())
    assert env.bytecode_cache is None


def test_one_entry_per_template_name_whichever_folder_it_came_from(tmp_path, venv, monkeypatch):
    """Courses in other folders (a test's temporary copies) replace each other's entry instead
    of adding one each time, and each still renders its own template."""
    for n, text in enumerate(["<p>first</p>", "<p>second</p>", "<p>first</p>"]):
        templates = tmp_path / f"course-{n}"
        templates.mkdir()
        (templates / "main.html").write_text(text, "utf-8")
        env = template_bytecode.install(_env(templates))
        assert env.get_template("main.html").render() == text
    assert len(list(venv.joinpath(template_bytecode.FOLDER).rglob("*.cache"))) == 1
