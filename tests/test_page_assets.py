"""Each stylesheet and script loads only on the pages that use it, and no script blocks the
first paint (tools/plugin/assets.py, overrides/main.html, docs/assets/startup.js).

Lighthouse's figures are a benchmark (tests/perf/bench_pageload.py); this checks the built
pages' heads and bodies: what they load, and how.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tools.buildkit.buildinfo import ROOT
from tools.plugin import assets

LESSON = "lessons/02-gradient-checkpointing.html"  # cards and a quiz, no planner
PLANNER = "lessons/02-part-3-measuring-and-choosing.html"
PLAIN_PAGES = ("review.html", "glossary.html", "index.html")  # no course items (review: its queue)


def loads(site: Path, page: str) -> tuple[list[str], list[str], list[str]]:
    """The page's stylesheets, its page-only scripts (preload links) and its script tags, as
    site paths."""
    html = (site / page).read_text("utf-8")
    up = "../" * page.count("/")

    def site_path(href: str) -> str:
        return href.removeprefix(up)

    styles = re.findall(r'<link rel="stylesheet" href="([^"]+)"', html)
    preloads = re.findall(r'<link rel="preload" as="script" href="([^"]+)"', html)
    scripts = re.findall(r"<script\b[^>]*\bsrc=\"([^\"]+)\"[^>]*>", html)
    return [site_path(s) for s in styles], [site_path(p) for p in preloads], scripts


def test_page_only_assets_are_exactly_on_the_pages_with_their_elements(built_site):
    styles, preloads, scripts = loads(built_site, PLANNER)
    assert "assets/planner.css" in styles
    assert preloads == ["assets/planner.js", "assets/review/inline.js"]
    styles, preloads, _ = loads(built_site, LESSON)
    assert "assets/planner.css" not in styles and preloads == ["assets/review/inline.js"]
    for page in PLAIN_PAGES:
        styles, preloads, _ = loads(built_site, page)
        assert preloads == [] and "assets/planner.css" not in styles, page
        assert ("assets/review/review.css" in styles) == (page == "review.html"), page
    assert "assets/review/review.css" not in loads(built_site, LESSON)[0]
    for page in (LESSON, PLANNER, *PLAIN_PAGES):
        _, _, scripts = loads(built_site, page)
        assert not any(path in s for s in scripts for path in assets.PAGE_ONLY), (page, scripts)


def test_no_course_script_blocks_the_page(built_site):
    """Every script of the course's own is deferred (Material's bundle is as in plain Material);
    the page-only ones run from preload links, after the page has loaded."""
    for page in (LESSON, PLANNER, *PLAIN_PAGES):
        html = (built_site / page).read_text("utf-8")
        for tag in re.findall(r"<script\b[^>]*\bsrc=\"[^\"]+\"[^>]*>", html):
            assert " defer" in tag or "/javascripts/bundle." in tag, (page, tag)
    head = (built_site / LESSON).read_text("utf-8").split("</head>")[0]
    assert not re.search(r"<script\b[^>]*\bsrc=", head)


def test_every_page_only_asset_is_listed_once_in_the_site_settings():
    """mkdocs.yml lists every asset; the engine's page-only ones must be among them, or a page
    that needs one would never get it."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text("utf-8"))
    listed = [
        entry if isinstance(entry, str) else entry["path"]
        for key in ("extra_css", "extra_javascript")
        for entry in config[key]
    ]
    assert sorted(p for p in listed if p in assets.PAGE_ONLY) == sorted(assets.PAGE_ONLY)


def test_split_takes_page_only_entries_out_and_of_picks_them_by_element():
    css = ["assets/course.css", "assets/planner.css"]
    js = ["assets/startup.js", "assets/planner.js", "assets/review/inline.js"]
    page_assets = assets.split(css, js)
    assert css == ["assets/course.css"] and js == ["assets/startup.js"]
    assert page_assets.of("") == {"course_styles": [], "course_scripts": []}
    card = '<details class="flashcard"><summary>Q</summary>A</details>'
    assert page_assets.of(card) == {
        "course_styles": [],
        "course_scripts": ["assets/review/inline.js"],
    }
    review = '<div id="course-review" class="course-review"><p>Needs JavaScript.</p></div>'
    assert assets.split(["assets/review/review.css"], []).of(review) == {
        "course_styles": ["assets/review/review.css"],
        "course_scripts": [],
    }
    planner = '<form class="planner"></form>'
    assert page_assets.of(planner) == {
        "course_styles": ["assets/planner.css"],
        "course_scripts": ["assets/planner.js"],
    }
    # a course that does not list an asset never gets it, whatever its pages hold
    assert assets.split([], ["assets/startup.js"]).of(planner + card) == {
        "course_styles": [],
        "course_scripts": [],
    }
