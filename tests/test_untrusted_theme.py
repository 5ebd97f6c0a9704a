"""Hostile input, third pass (#41): theme files and settings are content too.

Each case is one that got through before: its refusal names ``mkdocs.yml`` and the line of the
setting, or the file under ``docs/``; a build that refuses leaves ``site/`` as it was.
"""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from conftest import copy_course
from mkdocs_course.course import published, sanitize
from mkdocs_course.plugin import offline
from test_build import run_check, run_cli

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def course(tmp_path: Path) -> Path:
    return copy_course(tmp_path)


def _errors(root: Path) -> list[str]:
    result = run_check(root)
    assert result.returncode != 0, result.stdout
    assert "Traceback" not in result.stderr
    return [line for line in result.stderr.splitlines() if ": warning: " not in line]


def _set(course: Path, old: str, new: str) -> int:
    """Replace the ``mkdocs.yml`` line starting with ``old`` by ``new``; its line number."""
    settings = course / "mkdocs.yml"
    lines = settings.read_text("utf-8").splitlines()
    number = next(n for n, line in enumerate(lines) if line.startswith(old))
    lines[number] = new
    settings.write_text("\n".join(lines) + "\n", "utf-8")
    return number + 1


def _add_extra(course: Path, block: str) -> int:
    """Put ``block`` (YAML under ``extra:``) right after the ``extra:`` line; its first line."""
    settings = course / "mkdocs.yml"
    text = settings.read_text("utf-8")
    if "\nextra:\n" not in text:
        text = text.rstrip("\n") + "\nextra:\n"
    head, sep, tail = text.partition("\nextra:\n")
    settings.write_text(head + sep + block + tail, "utf-8")
    return head.count("\n") + 3


# --- settings the theme prints ------------------------------------------------------------------

TOP_LEVEL = [
    ("copyright:", 'copyright: "<script>alert(1)</script>"', "copyright", "<script>"),
    ("copyright:", "copyright: '<img src=x onerror=alert(1)>'", "copyright", "onerror"),
    (
        "site_description:",
        "site_description: '\"><script>alert(1)</script>'",
        "site_description",
        "unescaped",
    ),
    ("site_name:", "site_name: 'Course <b>'", "site_name", "unescaped"),
    ("repo_url:", "repo_url: 'javascript:alert(1)'", "repo_url", "http(s), mailto"),
]


@pytest.mark.parametrize(("old", "new", "key", "why"), TOP_LEVEL)
def test_a_top_level_setting_with_markup_is_refused_at_its_line(course, old, new, key, why):
    line = _set(course, old, new)
    errors = _errors(course)
    assert errors[0].startswith(f"mkdocs.yml:{line}: {key} "), errors
    assert why in errors[0], errors


EXTRA = [
    (
        "  alternate:\n    - name: '<img src=x onerror=alert(1)>'\n      link: ./\n"
        "      lang: en\n",
        "extra.alternate.name",
        1,
    ),
    ("  consent:\n    title: '<script>alert(1)</script>'\n", "extra.consent.title", 1),
    (
        "  consent:\n    title: Cookies\n"
        "    description: '<a href=\"javascript:alert(1)\">x</a>'\n",
        "extra.consent.description",
        2,
    ),
    ("  homepage: 'javascript:alert(1)'\n", "extra.homepage", 0),
    ("  homepage: ' JaVaScRiPt:alert(1)'\n", "extra.homepage", 0),
    (
        "  social:\n    - icon: fontawesome/brands/github\n      link: 'data:text/html,x'\n",
        "extra.social.link",
        2,
    ),
    ("  generator: '<script>x</script>'\n", "extra.generator", 0),
]


@pytest.mark.parametrize(("block", "key", "offset"), EXTRA)
def test_an_extra_setting_with_markup_or_a_script_address_is_refused_at_its_line(
    course, block, key, offset
):
    line = _add_extra(course, block) + offset
    errors = _errors(course)
    assert errors[0].startswith(f"mkdocs.yml:{line}: {key} "), errors


def test_analytics_is_refused_whatever_its_provider(course):
    line = _add_extra(course, "  analytics:\n    provider: google\n    property: G-XXXX\n")
    errors = _errors(course)
    assert errors[0].startswith(f"mkdocs.yml:{line}: extra.analytics makes every page load")


def test_a_theme_logo_from_elsewhere_is_refused(course):
    line = _set(course, "  font: false", "  font: false\n  logo: https://evil.example/l.png")
    errors = _errors(course)
    assert errors[0].startswith(f"mkdocs.yml:{line + 1}: theme.logo "), errors


def test_plain_settings_and_an_allowed_copyright_link_pass(course):
    _set(
        course,
        "copyright:",
        'copyright: Text CC BY 4.0 · <a href="https://mit-license.org">MIT</a>',
    )
    _add_extra(course, "  homepage: https://example.org/\n  consent:\n    title: Cookies\n")
    assert run_check(course).returncode == 0


# --- the theme's output: overrides/ and whatever else reaches a page ----------------------------


def test_overrides_output_is_scanned_like_pages_and_a_refused_build_keeps_the_site(course):
    """A partial that builds ``<script>`` out of pieces, so only the rendered page shows it."""
    built = run_cli(course, "build")
    assert built.returncode == 0, built.stderr[-2000:]
    before = (course / "site" / "index.html").read_bytes()
    partial = course / "overrides" / "partials" / "copyright.html"
    partial.write_text('{{ "<scr" ~ "ipt>alert(document.cookie)</scr" ~ "ipt>" }}\n', "utf-8")
    result = run_cli(course, "build")
    assert result.returncode != 0
    assert "the built page would run script that is not the theme's own: <script" in result.stderr
    assert "Traceback" not in result.stderr
    assert (course / "site" / "index.html").read_bytes() == before
    assert not list(course.glob(".site-*"))


def test_every_built_page_holds_only_the_themes_own_scripts(built_site):
    pages = sorted(built_site.rglob("*.html"))
    assert len(pages) > 10
    assert {str(p.relative_to(built_site)): offline.built_page_active_content(p.read_text())
            for p in pages} == {str(p.relative_to(built_site)): [] for p in pages}  # fmt: skip


@pytest.mark.parametrize(
    "injected",
    [
        "<script>alert(1)</script>",
        '<a class="md-logo" href="javascript:alert(1)">logo</a>',
        '<div onmouseover="alert(1)">x</div>',
        '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
        '<script src="data:text/javascript,alert(1)"></script>',
        '<script type="module">alert(1)</script>',
        '<script type="application/json" src="x.js" onload="alert(1)"></script>',
        '<iframe src="about:blank"></iframe>',
        # Inert to a parser with script off, an <img onerror> to a browser with script on.
        '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></p></noscript>',
    ],
)
@pytest.mark.parametrize("page", ["index.html", "lab/checkpointing-lab.html"])
def test_script_outside_the_content_of_a_built_page_is_found(built_site, injected, page):
    built = (built_site / page).read_text("utf-8")
    hostile = built.replace("</footer>", injected + "</footer>", 1)
    assert hostile != built
    assert offline.built_page_active_content(hostile) != [], injected


# --- files under docs/ that a browser renders as a document ------------------------------------


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("page.xht", '<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>'),
        (
            "page.xhtm",
            '<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>',
        ),
        ("page.mht", "MIME-Version: 1.0\n\n<script>alert(1)</script>"),
        ("page.shtm", "<script>alert(1)</script>"),
        ("feed.rss", "<rss><script>alert(1)</script></rss>"),
        ("style.xsl", "<xsl:stylesheet/>"),
        ("notes", "<html><script>alert(1)</script></html>"),  # sniffed when opened from disk
    ],
)
def test_every_type_a_browser_renders_as_a_document_is_refused_unless_listed(course, name, body):
    (course / "docs" / name).write_text(body, "utf-8")
    errors = [e for e in _errors(course) if e.startswith("docs/")]
    assert [e.split(": ", 1)[0] for e in errors] == [f"docs/{name}:1"], errors
    assert "plugins.course.active_files" in errors[0]


def test_a_listed_document_and_inert_files_pass(course):
    (course / "docs" / "notes").write_text("plain words, no markup\n", "utf-8")
    (course / "docs" / "widget.js").write_text("void 0;\n", "utf-8")
    assert published.check(course, "docs", ()) != []  # the script is not listed
    assert published.check(course, "docs", ("widget.js",)) == []


# --- style sheets as a browser decodes them -----------------------------------------------------


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (
            codecs.BOM_UTF16_LE + "p{background:url(https://e.org/x.png)}".encode("utf-16-le"),
            "utf-16le",
        ),
        (
            codecs.BOM_UTF16_BE + "p{background:url(https://e.org/x.png)}".encode("utf-16-be"),
            "utf-16be",
        ),
        (b'@charset "windows-1252";\np{content:"\xe9"}', "windows-1252"),
        (b"p{}\np{content:'\xff'}", "not valid UTF-8"),
    ],
)
def test_a_style_sheet_that_is_not_utf8_is_refused(course, data, why):
    (course / "docs" / "assets").mkdir(exist_ok=True)
    (course / "docs" / "assets" / "extra.css").write_bytes(data)
    errors = [e for e in _errors(course) if e.startswith("docs/")]
    assert len(errors) == 1 and errors[0].startswith("docs/assets/extra.css:"), errors
    assert why in errors[0], errors
    if why == "not valid UTF-8":
        assert errors[0].startswith("docs/assets/extra.css:2:"), errors


def test_a_utf8_sheet_with_bom_or_charset_is_read_as_the_browser_reads_it():
    sheet = codecs.BOM_UTF8 + b'@charset "utf-8";\np{background:url(https://e.org/x.png)}'
    text, problem = sanitize.stylesheet_text(sheet)
    assert problem is None and sanitize.css_addresses(text) == ["https://e.org/x.png"]
    # A @charset naming UTF-16 is read as UTF-8, as CSS Syntax says: the address is still seen.
    text, problem = sanitize.stylesheet_text(b'@charset "utf-16le";p{background:url(//e.org/x)}')
    assert problem is None and sanitize.css_addresses(text) == ["//e.org/x"]


# --- downloads the build writes -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "existing", "why"),
    [
        ("      practice_download: index.html", None, "must end in .zip"),
        ("      practice_download: assets/review/store.js", None, "must end in .zip"),
        ("      practice_download: downloads/kept.zip", "downloads/kept.zip", "would replace"),
        ("      deck_file: downloads/kept.apkg", "downloads/kept.apkg", "would replace"),
    ],
)
def test_a_download_path_cannot_name_a_file_the_build_publishes(course, setting, existing, why):
    if existing:
        (course / "docs" / existing).parent.mkdir(parents=True, exist_ok=True)
        (course / "docs" / existing).write_bytes(b"PK\x05\x06" + bytes(18))
    key = setting.split(":")[0]
    line = _set(course, key, setting)
    errors = [e for e in _errors(course) if e.startswith("mkdocs.yml:")]
    assert errors[0].startswith(f"mkdocs.yml:{line}: plugins.course.{key.strip()}"), errors
    assert why in errors[0], errors


@pytest.mark.parametrize(
    ("setting", "why"),
    [
        ("      practice_bundle: snippets.nowhere:zip_bytes", "cannot import 'snippets.nowhere'"),
        ("      practice_bundle: snippets.practice.bundle:no_such", "has no 'no_such'"),
        ("      practice_bundle: zip the workspace", "must be 'module:function'"),
        ("      practice_bundle: snippets.practice.bundle:TOP", "is not a function"),
        (
            "      practice_cli: snippets.practice.gone:main",
            "cannot import 'snippets.practice.gone'",
        ),
    ],
)
def test_a_course_function_that_does_not_import_is_refused_at_its_setting(course, setting, why):
    """The engine calls the course's own functions (the practice zip's maker, the practice
    command) by the names ``mkdocs.yml`` gives: a name that is not one is found by ``check``."""
    key = setting.split(":")[0]
    line = _set(course, key, setting)
    errors = [e for e in _errors(course) if e.startswith("mkdocs.yml:")]
    assert errors[0].startswith(f"mkdocs.yml:{line}: plugins.course.{key.strip()}"), errors
    assert why in errors[0], errors


def test_a_practice_download_without_its_maker_is_refused_at_its_line(course):
    line = _set(course, "      practice_bundle:", "")
    errors = [e for e in _errors(course) if e.startswith("mkdocs.yml:")]
    assert errors[0].startswith(f"mkdocs.yml:{line - 1}: plugins.course.practice_download"), errors
    assert "needs practice_bundle" in errors[0], errors
