"""Acceptance for untrusted course input, measured on built sites (figures go to test-artifacts/).

- A copy of the course with hostile cards, quiz and prose math added (tests/fixtures/) builds,
  and a browser visiting every page sees no dialog and no request that leaves the site.
- Over the normal built site, every local link and anchor resolves, links in cards and quizzes
  included, and the deck holds no script, handler or ``javascript:`` URL.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zipfile
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from conftest import LOCAL_HOSTS, ROOT, copy_course, cut_lab_to, scroll_through, serve
from html_tags import active_markup
from mkdocs_course.course import config as course_config
from mkdocs_course.course.links import leaves_site
from mkdocs_course.plugin import offline

DECK_FILE = course_config.load(ROOT).deck_file

HOSTILE = ROOT / "tests" / "fixtures" / "hostile-accepted.md"
LESSON = "docs/lessons/01-finding-and-claiming-work.md"
# Cells a hostile contributor could add to the lab: raw HTML in Markdown, HTML output from code
# (which runs at build time), a Mermaid diagram (mkdocs-jupyter would fetch its library).
HOSTILE_LAB = """\
# %% [markdown]
# Hostile cell <img src=x onerror=alert('lab-markdown')> and <a href="javascript:alert(1)">a</a>
# <svg><a href="#x"><set attributeName="href" to="javascript:alert('svg')"/>svg</a></svg>
# <style>@import url(https://evil.example/a.css)</style>
#
# ```mermaid
# graph TD; A-->B
# ```

# %%
from IPython.display import HTML, display

display(HTML(
    "<script>alert('lab-output')</script><img src=x onerror=alert('lab-img')>"
    "<p style='background:url(https://evil.example/p.png)'>styled</p>"
    "<a ping='https://evil.example/ping' href='#'>ping</a>"
))
"""


# --- reading a built site ---------------------------------------------------------------------


class _Page(HTMLParser):
    """Ids, and the local addresses of links and loads, noting which sit inside a course item."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[tuple[str, bool]] = []  # (address, inside a card or quiz)
        self._items: dict[str, list[bool]] = {"details": [], "section": []}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        for name in ("id", "name"):
            if values.get(name) and (name == "id" or tag == "a"):
                self.ids.add(values[name])
        if tag in self._items:
            classes = values.get("class", "").split()
            self._items[tag].append("flashcard" in classes or "quiz" in classes)
        inside = any(flag for flags in self._items.values() for flag in flags)
        for name in ("href", "src"):
            if name in values and tag in ("a", "img", "link", "script", "source"):
                self.links.append((values[name], inside))

    def handle_endtag(self, tag: str) -> None:
        if self._items.get(tag):
            self._items[tag].pop()


def site_path(site: Path) -> str:
    """The path part of the published address (``/course/``): 404.html's links start with it."""
    locations = re.findall(r"<loc>([^<]+)</loc>", (site / "sitemap.xml").read_text("utf-8"))
    return urlsplit(min(locations, key=len)).path.rsplit("/", 1)[0] + "/" if locations else "/"


def check_links(site: Path) -> dict[str, Any]:
    """Every local address in every built page: does its file exist, and its anchor?

    Root-absolute addresses (MkDocs writes them in 404.html, which is served at any depth) are
    read from the published address's path.
    """
    pages = {path: _read(path) for path in sorted(site.rglob("*.html"))}
    prefix = site_path(site) if (site / "sitemap.xml").exists() else "/"
    figures: Counter[str] = Counter()
    problems = []
    for path, page in pages.items():
        for url, inside in page.links:
            if leaves_site(url) or not url.strip():
                continue
            figures["local links"] += 1
            figures["local links in cards and quizzes"] += inside
            parts = urlsplit(url)
            folder = path.parent
            if parts.path.startswith(prefix):
                folder, parts = site, parts._replace(path=parts.path.removeprefix(prefix))
            target = (folder / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file() or not target.is_relative_to(site.resolve()):
                figures["broken links"] += 1
                problems.append(f"{path.relative_to(site)}: {url}")
            elif target in pages and unquote(parts.fragment or "") not in {"", *pages[target].ids}:
                figures["missing anchors"] += 1
                problems.append(f"{path.relative_to(site)}: {url} (no such id)")
    return {
        "pages": len(pages),
        **{key: figures[key] for key in ("local links", "local links in cards and quizzes")},
        "broken links": figures["broken links"],
        "missing anchors": figures["missing anchors"],
        "problems": problems,
    }


def _read(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text("utf-8"))
    return page


def deck_html(site: Path) -> str:
    """All note fields of the site's deck, as one string of HTML."""
    import sqlite3

    with zipfile.ZipFile(site / DECK_FILE) as archive:
        data = archive.read("collection.anki2")
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(data)
        return "\n".join(
            row[0].replace("\x1f", "\n") for row in conn.execute("SELECT flds FROM notes")
        )
    finally:
        conn.close()


# --- the normal site --------------------------------------------------------------------------


def test_every_link_and_anchor_of_the_built_site_resolves(built_site, artifacts):
    figures = check_links(built_site)
    (artifacts / "link-check.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(f"link check: {json.dumps({k: v for k, v in figures.items() if k != 'problems'})}")
    assert figures["problems"] == []
    assert figures["local links in cards and quizzes"] > 0  # quizzes link to lesson sections


def test_the_link_check_finds_a_broken_link_and_a_missing_anchor(tmp_path):
    (tmp_path / "a.html").write_text(
        '<p id="here"><a href="#here">ok</a><a href="b.html">gone</a></p>'
        '<details class="flashcard"><a href="a.html#nowhere">x</a></details>'
    )
    figures = check_links(tmp_path)
    assert (figures["broken links"], figures["missing anchors"]) == (1, 1)
    assert figures["local links in cards and quizzes"] == 1


_DECK_MATH = re.compile(r"\\\((.*?)\\\)|\\\[(.*?)\\\]", re.DOTALL)
_ADDRESS_IN_TEX = re.compile(r"[a-z][a-z0-9+.-]*:|//|\\(?:href|url|bbox|style|require)", re.I)


def deck_remote_urls(fields: str) -> list[str]:
    """What Anki would fetch from elsewhere: addresses in loading attributes or CSS of the notes'
    HTML, and any address in their TeX (MathJax in Anki acts on it at every review). Links a
    learner may click (``<a href>``) are not fetches."""
    found = offline.remote_loads(fields)
    for match in _DECK_MATH.finditer(fields):
        tex = match.group(1) or match.group(2) or ""
        found += [tex[:80]] if _ADDRESS_IN_TEX.search(tex) else []
    return found


def test_deck_remote_urls_finds_tex_and_loads():
    assert deck_remote_urls('<img src="https://e.org/a.png">') != []
    assert deck_remote_urls("\\(\\bbox[background:url(https://e.org)]{x}\\)") != []
    assert deck_remote_urls('<a href="https://e.org/">a</a> \\(x^2\\)') == []


def test_the_sites_deck_holds_no_remote_url(built_site):
    assert deck_remote_urls(deck_html(built_site)) == []


def test_the_sites_deck_holds_no_script_handler_or_javascript_url(built_site, artifacts):
    counts = active_markup(deck_html(built_site))
    (artifacts / "deck-active-markup.json").write_text(json.dumps(counts) + "\n")
    print(f"deck: {counts}")
    assert counts == {"script": 0, "handlers": 0, "javascript": 0}


# --- the course with hostile input added ------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the course with tests/fixtures/hostile-accepted.md appended to lesson 1 and
    the hostile cells after the lab's opening, built."""
    root = copy_course(tmp_path_factory.mktemp("hostile"))
    lesson = root / LESSON
    lesson.write_text(
        lesson.read_text("utf-8").rstrip("\n") + "\n\n" + HOSTILE.read_text("utf-8"), "utf-8"
    )
    cut_lab_to(root, HOSTILE_LAB)
    env = {k: v for k, v in os.environ.items() if k != "COURSE_STRICT_RESULTS"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs_course.cli", "build"],
        cwd=root,
        capture_output=True,
        text=True,
        env={**env, "SOURCE_DATE_EPOCH": "1767225600"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return root / "site"


@pytest.mark.slow
@pytest.mark.browser
def test_hostile_course_shows_no_dialog_and_loads_nothing_from_elsewhere(
    browser, hostile_site, artifacts
):
    context = browser.new_context()
    page = context.new_page()
    dialogs: list[str] = []
    requests: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    context.on("request", lambda request: requests.append(request.url))
    page.goto("about:blank")
    page.evaluate("alert('probe')")  # the recorder itself works
    assert dialogs == ["probe"]
    dialogs.clear()
    visited = 0
    try:
        with serve(hostile_site) as base:
            for path in sorted(hostile_site.rglob("*.html")):
                page.goto(base + path.relative_to(hostile_site).as_posix(), wait_until="load")
                page.evaluate(_PROVOKE)
                page.wait_for_timeout(100)
                visited += 1
            page.goto(base + "lessons/01-finding-and-claiming-work.html")
            scroll_through(page)  # its cards are below the first screen
            text = page.inner_text("body")
            page.goto(base + "lab/checkpointing-lab.html")
            lab_text = page.inner_text("body")
            page.evaluate(_CLICK_LOCAL)
            page.wait_for_timeout(200)
    finally:
        context.close()
    foreign = [
        url
        for url in requests
        if urlsplit(url).scheme not in ("data", "blob", "about")
        and urlsplit(url).hostname not in LOCAL_HOSTS
    ]
    counts = active_markup(deck_html(hostile_site))
    counts["remote URLs"] = len(deck_remote_urls(deck_html(hostile_site)))
    figures = {"pages": visited, "dialogs": len(dialogs), "off-site requests": len(foreign)}
    figures.update({f"deck {key}": value for key, value in counts.items()})
    (artifacts / "hostile-site.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(f"hostile site: {json.dumps(figures)}")
    assert "<script>alert('card')</script>" in text  # the hostile cards are there, as text
    assert "Hostile cell" in lab_text and "styled" in lab_text  # the hostile cells, inert
    assert visited == len(list(hostile_site.rglob("*.html"))) > 5
    assert (dialogs, foreign) == ([], [])
    assert counts == {"script": 0, "handlers": 0, "javascript": 0, "remote URLs": 0}


# Click every link that stays on the page (a ping, or an href an animation set, would fire).
_CLICK_LOCAL = """() => document.querySelectorAll('.jupyter-wrapper a').forEach(a => {
  const href = a.getAttribute('href');
  if (href === null || href.startsWith('#')) a.click();
})"""

# Open every card and answer, hover and focus every element: handlers that hid anywhere would fire.
_PROVOKE = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  for (const el of document.querySelectorAll('body *')) {
    for (const type of ['mouseover', 'mouseenter', 'focus', 'toggle', 'animationstart']) {
      el.dispatchEvent(new Event(type, {bubbles: true}));
    }
  }
  document.querySelectorAll('.quiz-option').forEach(b => b.click());
}"""
