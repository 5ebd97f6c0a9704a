"""Each stylesheet and script loads only on the pages that use it, and no script blocks the
first paint (tools/plugin/assets.py, overrides/main.html, tools/plugin/static/startup.js): the
engine's, and those the course declares for its benchmarks' views (the planner's).

Lighthouse's figures are a benchmark (tests/perf/bench_pageload.py); this checks the built
pages' heads and bodies: what they load, and how.
"""

from __future__ import annotations

import gzip
import re
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import yaml
from conftest import page_scripts, serve
from mkdocs_course.benchmarks.registry import PageAsset
from mkdocs_course.buildkit.buildinfo import ROOT
from mkdocs_course.course import config as course_config
from mkdocs_course.course import published
from mkdocs_course.plugin import assets, css_minify

LESSON = "lessons/02-gradient-checkpointing.html"  # cards, no quiz (on its last page), no planner
PLANNER = "lessons/02-part-3-measuring-and-choosing.html"
PLAIN_PAGES = ("review.html", "glossary.html", "index.html")  # no course items (review: its queue)
COURSE_ASSETS = assets.course_assets(course_config.benchmarks(ROOT))  # the planner's two files
PLANNER_FILES = (
    PageAsset(Path("snippets/benchmark_views/planner.css"), "form.planner"),
    PageAsset(Path("snippets/benchmark_views/planner.js"), "form.planner"),
)


def loads(site: Path, page: str) -> tuple[list[str], list[str], list[str]]:
    """The page's stylesheets, the scripts it starts after its first paint (site paths) and its
    script tags (as written)."""
    html = (site / page).read_text("utf-8")
    up = "../" * page.count("/")
    styles = re.findall(r'<link rel="stylesheet" href="([^"]+)"', html)
    assert '<link rel="preload"' not in html, "nothing is fetched ahead of the first paint"
    scripts = re.findall(r"<script\b[^>]*\bsrc=\"([^\"]+)\"[^>]*>", html)
    return [s.removeprefix(up) for s in styles], page_scripts(html), scripts


def test_page_only_assets_are_exactly_on_the_pages_with_their_elements(built_site):
    course, index, store = assets.AFTER_PAINT
    styles, later, scripts = loads(built_site, PLANNER)
    assert "assets/planner.css" in styles
    assert later == [course, "assets/planner.js", index, store, "assets/review/inline.js"]
    styles, later, _ = loads(built_site, LESSON)
    assert "assets/planner.css" not in styles
    assert "assets/quiz.css" not in styles  # its quiz is on the lesson's last page
    assert (
        "assets/quiz.css" in loads(built_site, "lessons/02-part-3-measuring-and-choosing.html")[0]
    )
    assert later == [*assets.AFTER_PAINT, "assets/review/inline.js"]
    for page in PLAIN_PAGES:
        styles, later, _ = loads(built_site, page)
        assert later == list(assets.AFTER_PAINT) and "assets/planner.css" not in styles, page
    for page in (LESSON, PLANNER, *PLAIN_PAGES):  # store.js loads it with the queue's scripts
        assert "assets/review/review.css" not in loads(built_site, page)[0], page
    for page in (LESSON, PLANNER, *PLAIN_PAGES):
        _, _, scripts = loads(built_site, page)
        page_only = assets.page_only(COURSE_ASSETS)
        assert not any(path in s for s in scripts for path in page_only), (page, scripts)


def test_the_course_declares_the_planners_files_and_the_site_serves_them_as_they_are(built_site):
    """The planner's style sheet and script are the course's (beside its view), declared in
    its settings; the engine names neither."""
    assert COURSE_ASSETS == PLANNER_FILES
    for asset in COURSE_ASSETS:
        served = built_site / asset.site_path
        assert served.read_bytes() == (ROOT / asset.file).read_bytes(), served
        assert not (assets.STATIC / asset.file.name).exists()
        assert asset.site_path not in (*assets.STYLES, *assets.SCRIPTS, *assets.PAGE_ONLY)


def test_no_course_script_runs_or_loads_before_the_first_paint(built_site):
    """Of the course's scripts only startup.js is a script tag, deferred (Material's bundle is as
    in plain Material); it starts the others once the page has been painted."""
    for page in (LESSON, PLANNER, *PLAIN_PAGES):
        html = (built_site / page).read_text("utf-8")
        tags = re.findall(r"<script\b[^>]*\bsrc=\"[^\"]+\"[^>]*>", html)
        course_tags = [tag for tag in tags if "/javascripts/bundle." not in tag]
        assert len(course_tags) == 1 and "assets/startup.js" in course_tags[0], (page, tags)
        assert " defer" in course_tags[0]
    head = (built_site / LESSON).read_text("utf-8").split("</head>")[0]
    assert not re.search(r"<script\b[^>]*\bsrc=", head)


def test_the_review_pages_head_holds_only_what_its_first_paint_needs(built_site):
    """The queue's stylesheet and scripts come after the first paint (store.js; the browser tests
    check that they come): the page's head holds Material's stylesheets and course.css, which
    keeps the queue's room."""
    styles, later, _ = loads(built_site, "review.html")
    assert [s for s in styles if "/stylesheets/" not in s] == ["assets/course.css"]
    assert later == list(assets.AFTER_PAINT)
    course_css = (assets.STATIC / "course.css").read_text("utf-8")
    assert ".course-review:not([data-state=" in course_css  # the room kept for the queue


def test_every_page_only_asset_is_one_of_the_engines_files_listed_once():
    """The engine lists its stylesheets and scripts (assets.STYLES, SCRIPTS), each a file it
    ships; the page-only ones must be among them, or a page that needs one would never get it."""
    listed = [*assets.STYLES, *assets.SCRIPTS]
    assert len(set(listed)) == len(listed)
    assert {*assets.PAGE_ONLY, *assets.AFTER_PAINT} <= set(listed)
    generated = {"assets/review/index.js"}  # written by tools/plugin/review.py
    for path in set(listed) - generated:
        assert (assets.STATIC / path.removeprefix("assets/")).is_file(), path
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text("utf-8"))
    assert "extra_css" not in config and "extra_javascript" not in config  # the course has none


def test_split_takes_page_only_entries_out_and_of_picks_them_by_element():
    css = ["assets/course.css", "assets/planner.css"]
    js = ["assets/startup.js", "assets/course.js", "assets/planner.js", "assets/review/inline.js"]
    page_assets = assets.split(css, js, PLANNER_FILES)
    assert css == ["assets/course.css"] and js == ["assets/startup.js"]
    every = ["assets/course.js"]  # of AFTER_PAINT, the one this site lists
    assert page_assets.of("") == {"course_styles": [], "course_scripts": every}
    card = '<details class="flashcard"><summary>Q</summary>A</details>'
    assert page_assets.of(card) == {
        "course_styles": [],  # grading's buttons are styled in course.css
        "course_scripts": [*every, "assets/review/inline.js"],
    }
    quiz = '<section class="quiz"><fieldset class="quiz-question"></fieldset></section>'
    assert page_assets.of(quiz) == {
        "course_styles": [],  # this site does not list quiz.css
        "course_scripts": [*every, "assets/review/inline.js"],
    }
    assert assets.split(["assets/course.css", "assets/quiz.css"], []).of(quiz)["course_styles"] == [
        "assets/quiz.css"
    ]
    assert assets.split(["assets/quiz.css"], []).of(card)["course_styles"] == []
    planner = '<form class="planner"></form>'
    assert page_assets.of(planner) == {
        "course_styles": ["assets/planner.css"],
        "course_scripts": [*every, "assets/planner.js"],
    }
    # an asset no course declares is none of the page-only ones: it stays in MkDocs' lists
    css = ["assets/planner.css"]
    assert assets.split(css, []).of(planner) == {"course_styles": [], "course_scripts": []}
    assert css == ["assets/planner.css"]
    # a course that does not list an asset never gets it, whatever its pages hold
    assert assets.split([], ["assets/startup.js"], PLANNER_FILES).of(planner + card) == {
        "course_styles": [],
        "course_scripts": [],
    }


# --- the engine's files ship with the plugin ----------------------------------------------------


def test_the_course_holds_only_content_and_the_site_serves_the_plugins_files(built_site):
    """The engine's stylesheets, scripts, fonts and libraries are package data of the plugin
    (tools/plugin/static/), served at assets/ as they are (its stylesheets minified); the
    course's docs/ has none."""
    assert not (ROOT / "docs" / "assets").exists()
    shipped = [path for path in assets.STATIC.rglob("*") if path.is_file()]
    assert {"course.css", "startup.js", "review/store.js", "vendor/ts-fsrs/index.umd.js"} <= {
        path.relative_to(assets.STATIC).as_posix() for path in shipped
    }
    for path in shipped:
        served = built_site / "assets" / path.relative_to(assets.STATIC)
        if path.suffix == ".css":
            minified = css_minify.minified(path.read_text("utf-8"), str(path))
            assert served.read_text("utf-8") == minified, served
        else:
            assert served.read_bytes() == path.read_bytes(), served
    pyproject = (ROOT / "pyproject.toml").read_text("utf-8")
    assert '"mkdocs_course.plugin" = ["static/**/*"]' in pyproject  # installed with the plugin


def test_the_plugins_files_pass_the_checks_a_courses_files_pass():
    """What the course check asks of docs/ (style sheets in UTF-8 that load nothing from
    elsewhere, no symlink out, every file that runs in a browser named), the plugin's files
    meet too, with every script of theirs named."""
    scripts = tuple(
        path.relative_to(assets.STATIC).as_posix() for path in assets.STATIC.rglob("*.js")
    )
    static = assets.STATIC
    assert published.check(static.parent, static.name, scripts) == []
    assert published.check(static.parent, static.name, ()) != []  # the check does look


def test_the_plugin_puts_its_files_before_the_courses_own_and_keeps_one_it_lists():
    config = SimpleNamespace(
        extra_css=["extra.css"], extra_javascript=["assets/course.js"], docs_dir=str(ROOT / "docs")
    )
    assets.add_to_config(config, PLANNER_FILES)
    # the course's benchmark assets after the engine's own files, before the Review page's
    assert config.extra_css == [
        "assets/course.css", "assets/quiz.css", "assets/planner.css", "extra.css"
    ]  # fmt: skip
    scripts = [str(entry) for entry in config.extra_javascript]
    assert scripts == [
        "assets/startup.js", "assets/planner.js", *assets.SCRIPTS[2:], "assets/course.js"
    ]  # fmt: skip
    assert all(entry.defer for entry in config.extra_javascript[:-1])
    # a course without a Review page gets no review scripts (nor their files)
    bare = SimpleNamespace(extra_css=[], extra_javascript=[], docs_dir=str(ROOT / "snippets"))
    assets.add_to_config(bare, PLANNER_FILES)
    assert bare.extra_css == [*assets.STYLES, "assets/planner.css"]
    assert not any("/review/" in str(entry) for entry in bare.extra_javascript)
    # a course that declares no assets gets only the engine's
    none = SimpleNamespace(extra_css=[], extra_javascript=[], docs_dir=str(ROOT / "docs"))
    assets.add_to_config(none)
    assert none.extra_css == list(assets.STYLES)
    assert [str(entry) for entry in none.extra_javascript] == list(assets.SCRIPTS)


def test_the_page_load_benchmark_serves_text_gzipped_as_github_pages_does(built_site: Path) -> None:
    """bench_pageload weighs pages as learners download them: text gzip-encoded to a browser that
    accepts it, the same bytes once decoded; images, and browsers that accept no gzip, get the
    file as it is."""

    def get(url: str, accept: str) -> tuple[str | None, bytes]:
        request = urllib.request.Request(url, headers={"Accept-Encoding": accept})
        with urllib.request.urlopen(request) as response:
            return response.headers["Content-Encoding"], response.read()

    page, image = built_site / LESSON, built_site / "assets/images/favicon.png"
    with serve(built_site, gzip_text=True) as url:
        encoding, body = get(url + LESSON, "gzip, deflate")
        assert encoding == "gzip" and gzip.decompress(body) == page.read_bytes()
        assert len(body) < page.stat().st_size / 3
        assert get(url + LESSON, "identity") == (None, page.read_bytes())
        assert get(url + "assets/images/favicon.png", "gzip") == (None, image.read_bytes())
    with serve(built_site) as url:
        assert get(url + LESSON, "gzip") == (None, page.read_bytes())
