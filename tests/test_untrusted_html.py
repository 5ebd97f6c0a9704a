"""Raw HTML in prose is allowed-listed: each hostile piece is a ``path:line`` error in ``check``,
comes out of the sanitiser harmless, and (where it would load or run something) is still found
by the scan of built pages, the second line.

The cases are the ways past a deny-list that a browser's lenient parsers open: CSS escapes,
``@import`` and ``image-set()``, tabs and controls inside addresses, SVG animation that sets an
``href``, ``ping``, and the course's own attributes pointed elsewhere.
"""

from __future__ import annotations

import pytest

pytest.importorskip("nh3", reason="the course engine's dependencies are not installed")

from mkdocs_course.course import sanitize
from mkdocs_course.plugin import offline
from test_parser import PATH, messages

# (raw HTML, found by the built-page scan when not sanitised)
HOSTILE = [
    ("<style>@import url(https://e.org/a.css)</style>", True),
    ("<style>@import 'https://e.org/a.css';</style>", True),
    ("<style>p{background:\\75 rl(https://e.org/x.png)}</style>", True),
    ('<p style="background:url(\\68ttps://e.org/x.png)">x</p>', True),
    ("<p style='background:image-set(\"https://e.org/x.png\" 1x)'>x</p>", True),
    ('<p style="color:red">x</p>', False),
    ('<img src="h&#9;ttps://e.org/x.png">', True),
    ('<img src="/&#9;/e.org/x.png">', True),
    ('<img src="/&#10;/e.org/x.png">', True),
    ('<img src="\\\\e.org\\x.png">', True),
    ('<img src="&#1;https://e.org/x.png">', True),
    ('<svg><a href="#x"><set attributeName="href" to="javascript:alert(1)"/>x</a></svg>', True),
    ('<svg><animate attributeName="href" to="https://e.org/"/></svg>', True),
    ('<a ping="https://e.org/p" href="#x">x</a>', True),
    ('<img src="x.png" onerror="alert(1)">', True),
    ('<a href="java&#10;script:alert(1)">x</a>', True),
    ('<a href="&#1;javascript:alert(1)">x</a>', True),
    ('<iframe src="https://e.org/"></iframe>', True),
    ('<link rel="stylesheet" href="https://e.org/a.css">', True),
    ('<form action="https://e.org/"><button>x</button></form>', False),
    ('<input autofocus onfocus="alert(1)">', True),
    ('<details open ontoggle="alert(1)">x</details>', True),
    ('<base href="https://e.org/">', True),
    ('<meta http-equiv="refresh" content="0;url=https://e.org/">', True),
    ('<math><mi href="javascript:alert(1)">x</mi></math>', True),
    ('<object data="https://e.org/x.swf"></object>', True),
    ('<video src="https://e.org/v.mp4"></video>', True),
    ('<div data-ui="https://e.org/x.js"></div>', False),
    ('<div data-md-component="search"></div>', False),
    ('<div data-course-block="0"></div>', False),
]


@pytest.mark.parametrize(("html", "scanned"), HOSTILE)
def test_hostile_raw_html_is_an_error_with_file_and_line(html, scanned):
    found = messages(f"# T\n\nSome prose.\n\n{html}\n")
    assert found, html
    assert all(m.startswith(f"{PATH}:5: raw HTML or address: ") for m in found), found


@pytest.mark.parametrize(("html", "scanned"), HOSTILE)
def test_inline_hostile_html_is_an_error_on_its_line(html, scanned):
    found = messages(f"# T\n\nSome prose\nand then {html} inline.\n")
    assert found and all(m.startswith(f"{PATH}:4: raw HTML or address: ") for m in found), found


@pytest.mark.parametrize(("html", "scanned"), HOSTILE)
def test_the_sanitiser_leaves_nothing_that_loads_or_runs(html, scanned):
    cleaned = sanitize.clean_page(f"<p>before</p>{html}<p>after</p>")
    assert offline.remote_loads(cleaned) == [] and offline.active_content(cleaned) == []
    for word in ("style", "https://e.org", "javascript", "ping", "onerror", "data-ui", "<svg"):
        assert word not in cleaned, (word, cleaned)
    assert "<p>before</p>" in cleaned and "<p>after</p>" in cleaned


@pytest.mark.parametrize("html", [h for h, scanned in HOSTILE if scanned])
def test_the_built_page_scan_finds_it_without_the_sanitiser(html):
    assert offline.remote_loads(html) + offline.active_content(html) != [], html


def test_what_the_course_writes_passes_unchanged():
    html = (
        '<div class="admonition note"><p class="admonition-title">Note</p><p>x</p></div>'
        '<details class="success"><summary>Solution</summary><p><a href="../a.html#b">a</a>'
        ' <a href="https://pytorch.org/">b</a> <code>c</code> <kbd>d</kbd></p></details>'
        "<table><thead><tr><th>h</th></tr></thead><tbody><tr><td>v</td></tr></tbody></table>"
        '<div class="highlight"><pre><span></span><code><span class="n">x</span></code></pre></div>'
        '<p><span class="arithmatex">\\(x^2\\)</span></p>'
        '<figure class="lifecycle"><img alt="a" src="../assets/a.png"><figcaption>c</figcaption>'
        '</figure><div data-course-block="3"></div>'
        '<div class="course-review" data-ui="assets/review/page.js" id="course-review"></div>'
        '<div class="table-wrap" role="region" aria-label="Results" tabindex="0"><p>t</p></div>'
    )
    assert sanitize.clean_page(html) == html


@pytest.mark.parametrize(
    "url",
    ["h\tttps://e.org/", " \x01https://e.org/", "/\n/e.org/x", "\\\\e.org", "/\\e.org", "HTTPS:x"],
)
def test_addresses_are_judged_as_the_url_standard_reads_them(url):
    assert sanitize.off_site(url)
    assert not sanitize.url_allowed("src", url)


def test_local_addresses_stay_local():
    for url in ("a.png", "../x/a.png", "#top", "a.html?x=1#y", "data:image/png;base64,AA"):
        assert sanitize.url_allowed("src", url), url
    assert not sanitize.url_allowed("src", "data:image/svg+xml,<svg onload=alert(1)>")


def test_notebook_cells_are_cleaned_and_the_template_kept():
    template_script = "<script>window.templateSays = 1;</script>"
    html = (
        f'{template_script}<div class="jp-Cell">'
        '<div class="jp-RenderedHTMLCommon jp-MarkdownOutput">'
        '<p>ok</p><img src="x.png" onerror="alert(1)"><script>alert(2)</script></div>'
        '<div class="jp-RenderedHTML jp-OutputArea-output" data-mime-type="text/html">'
        '<div class="jp-Mermaid"><pre class="mermaid">graph</pre></div>'
        "<style>@import url(https://e.org/a.css)</style><b>out</b></div></div>"
    )
    cleaned = sanitize.clean_notebook(html)
    assert cleaned.startswith(template_script)
    assert "<p>ok</p>" in cleaned and "<b>out</b>" in cleaned
    for word in ("onerror", "alert(2)", "jp-Mermaid", "e.org"):
        assert word not in cleaned, (word, cleaned)
    # the second line: only the template's known scripts may be there
    assert offline.notebook_active_content(cleaned) != []  # templateSays is not a known script
    known = offline.NOTEBOOK_SCRIPTS | {offline.script_digest("window.templateSays = 1;")}
    assert offline._scan(cleaned, known_scripts=known)[1] == []
