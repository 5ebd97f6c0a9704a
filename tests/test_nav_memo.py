"""The memoized navigation (``tools/plugin/nav_memo.py``) writes exactly Material's bytes.

Small Material sites with nested sections, pages in folders at several depths (one outside the
section of its folder), a section index and an external link are built twice in this process,
once as Material renders them and once with the memo installed, under each navigation feature
that changes the macro's output; every file of the two sites must be the same. The memo must
also have been used (it holds HTML), so a memo that silently stopped applying fails here too.
"""

from __future__ import annotations

import filecmp
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pytest
import yaml
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.utils.templates import url_filter
from mkdocs_course.plugin import nav_memo

PAGES = {
    "index.md": "# Home\n\nWelcome.\n",
    "six.md": "# Six\n\n## A part\n\nText.\n",
    "a/one.md": "# One\n\n## First\n\nText.\n\n## Second\n\nMore.\n",
    "a/two.md": "# Two\n\nText.\n",
    "a/sub/three.md": "# Three\n\n## Deep\n\nText.\n",
    "a/sub/four.md": "# Four\n\nText.\n",
    "b/index.md": "# B\n\nThe section's own page.\n",
    "b/five.md": "# Five\n\nText.\n",
    "a/extra.md": "# Extra\n\nIn section A's folder, not in section A.\n",
}
NAV = [
    {"Home": "index.md"},
    {"A": ["a/one.md", "a/two.md", {"Sub": ["a/sub/three.md", "a/sub/four.md"]}]},
    {"B": ["b/index.md", "b/five.md"]},
    {"Elsewhere": "https://example.org/"},
    "six.md",
    "a/extra.md",  # its links into A read as from A's pages: the parent's state tells them apart
]
FEATURES = [
    [],
    ["navigation.sections"],
    ["navigation.tabs", "navigation.sections"],
    ["navigation.indexes", "navigation.expand"],
    ["navigation.prune"],
]
HOOK = """
from mkdocs_course.plugin import nav_memo


def on_env(env, config, files):
    return nav_memo.install(env)
"""


def _site(tmp: Path, features: list[str], directory_urls: bool, memo: bool) -> Path:
    root = tmp / ("memo" if memo else "material")
    for name, text in PAGES.items():
        (root / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "docs" / name).write_text(text, "utf-8")
    settings = {
        "site_name": "Nav",
        "site_url": "https://example.org/nav/",
        "use_directory_urls": directory_urls,
        "theme": {"name": "material", "features": features},
        "plugins": [],
        "nav": NAV,
        "markdown_extensions": ["toc"],
    }
    if memo:
        (root / "hook.py").write_text(HOOK, "utf-8")
        settings["hooks"] = [str(root / "hook.py")]
    (root / "mkdocs.yml").write_text(yaml.safe_dump(settings), "utf-8")
    site = root / "site"
    build(load_config(str(root / "mkdocs.yml"), site_dir=str(site)))
    return site


def _differences(left: Path, right: Path) -> list[str]:
    """Files that differ or exist on one side only, under two folders."""
    compared = filecmp.dircmp(left, right)
    out = [f"{left.name}: only {n}" for n in compared.left_only]
    out += [f"{right.name}: only {n}" for n in compared.right_only]
    out += [str(Path(left, n)) for n in compared.diff_files]
    for name in compared.common_dirs:
        out += _differences(left / name, right / name)
    return out


@pytest.mark.parametrize("directory_urls", [True, False], ids=["directory-urls", "file-urls"])
@pytest.mark.parametrize("features", FEATURES, ids=lambda f: "+".join(f) or "no-features")
def test_memoized_navigation_is_materials_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, features: list[str], directory_urls: bool
) -> None:
    made: list[nav_memo.NavMemo] = []
    init = nav_memo.NavMemo.__init__

    def recorded(self: nav_memo.NavMemo) -> None:
        init(self)
        made.append(self)

    monkeypatch.setattr(nav_memo.NavMemo, "__init__", recorded)
    material = _site(tmp_path, features, directory_urls, memo=False)
    assert not made
    memoized = _site(tmp_path, features, directory_urls, memo=True)
    assert len(made) == 1 and made[0]._html, "the memo was not used"
    assert not _differences(material, memoized)
    page = memoized / ("a/sub/three/index.html" if directory_urls else "a/sub/three.html")
    assert "md-nav__link--active" in page.read_text("utf-8")  # the page's own entry, as Material's


def test_installed_material_has_the_one_recursive_call_the_memo_takes_over() -> None:
    source = (nav_memo.MATERIAL_TEMPLATES / nav_memo.TEMPLATE).read_text("utf-8")
    assert source.count(nav_memo.RECURSION) == 1, "Material changed: the memo no longer applies"
    assert nav_memo.memoized(source).count(nav_memo.MEMOIZED) == 1


def test_a_template_without_that_call_is_left_as_it_is() -> None:
    source = "{% macro render(nav_item) %}{{ nav_item.title }}{% endmacro %}"
    assert nav_memo.memoized(source) == source
    twice = f"{nav_memo.RECURSION}a) }}}}{nav_memo.RECURSION}b) }}}}"
    assert nav_memo.memoized(twice) == twice


def test_a_course_that_overrides_the_template_renders_its_own(tmp_path: Path) -> None:
    """A theme folder's ``nav-item.html`` is the course's, not Material's: not rewritten."""
    overrides = tmp_path / "partials"
    overrides.mkdir()
    own = "{% macro render(nav_item, path, level, parent) %}{{ render(item, path) }}{% endmacro %}"
    (overrides / "nav-item.html").write_text(own, "utf-8")
    env = nav_memo.install(
        jinja2.Environment(
            loader=jinja2.FileSystemLoader([str(tmp_path), str(nav_memo.MATERIAL_TEMPLATES)])
        )
    )
    source, *_ = env.loader.get_source(env, nav_memo.TEMPLATE)
    assert source == own
    material = jinja2.FileSystemLoader(str(nav_memo.MATERIAL_TEMPLATES))
    env = nav_memo.install(jinja2.Environment(loader=material))
    source, *_ = env.loader.get_source(env, nav_memo.TEMPLATE)
    assert nav_memo.MEMOIZED in source


def test_a_part_that_holds_the_page_is_rendered_for_every_page() -> None:
    """An active item, or one whose ``pages`` hold the page (Material's blog views), is
    Material's to render each time; any other is rendered once for the same links."""
    env = jinja2.Environment()
    env.filters["url"] = url_filter
    page = SimpleNamespace(url="a/one/")
    renders: list[str] = []

    def render(item, *args):
        renders.append(item.title)
        return item.title

    view = SimpleNamespace(title="view", url="a/", children=None, active=False, pages=[page])
    active = SimpleNamespace(title="active", url="a/one/", children=None, active=True)
    other = SimpleNamespace(title="other", url="b/", children=None, active=False)
    parent = SimpleNamespace(active=True)
    memo = nav_memo.NavMemo()
    context = jinja2.runtime.new_context(env, "t", {}, {"page": page, "base_url": ".."})
    for _ in range(2):
        for item in (view, active, other):
            assert memo(context, render, item, "__nav_1_1", 2, parent) == item.title
    assert renders == ["view", "active", "other", "view", "active"]
