"""Course content is untrusted input: each hostile case is a path:line error or inert output.

Pull requests come from strangers, so every way a lesson, card or quiz could run script, load
from elsewhere, publish a file of the checkout or silently lose cards is tried here against the
parser, the renderers and the checks of the built HTML. The whole build is tried in
tests/test_untrusted_build.py.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from conftest import with_course_settings
from html_tags import active_markup, tags

pytest.importorskip("markdown_it", reason="the course engine's dependencies are not installed")

from mkdocs_course.course.parser import parse_course
from mkdocs_course.plugin import offline, syntax
from mkdocs_course.plugin.pages import render_cards, render_quiz
from mkdocs_course.plugin.syntax import MKDOCS
from mkdocs_course.render.markdown_html import render_markdown
from mkdocs_course.render.mathml import safe_mathml, tex_to_mathml
from test_parser import PATH, messages, parse


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    with_course_settings(root)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text).lstrip("\n"), "utf-8")
    return root


def course_errors(root: Path) -> list[str]:
    return [str(error) for error in parse_course(root, syntax=MKDOCS).errors]


def no_script(html: str) -> None:
    """Nothing in ``html`` is an element or attribute that runs script."""
    for tag, attrs in tags(html):
        assert tag not in ("script", "img", "iframe"), (tag, html)
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        assert not any("javascript:" in (value or "").lower() for value in attrs.values())


# --- math -------------------------------------------------------------------------------------

ESCAPING_TEX = [
    r"\text{</math><script>alert(1)</script>}",
    r"\text{<img src=x onerror=alert(1)>}",
    r"\text{</mtext></mrow></math><script>alert(1)</script>}",
    r"\mathrm{<svg onload=alert(1)>}",
]


@pytest.mark.parametrize("tex", ESCAPING_TEX)
def test_text_in_math_is_escaped_on_the_site(tex):
    out = tex_to_mathml(tex)
    no_script(out)
    assert out.startswith("<math") and out.count("<math") == out.count("</math>") == 1


@pytest.mark.parametrize("tex", ESCAPING_TEX)
def test_text_in_math_is_escaped_in_cards_and_quizzes(tex):
    page, errors = parse(f"# T\n\nQ ${tex}$? ::: A ${tex}$\n")
    assert not errors
    no_script(render_cards(page.blocks[0][1]))
    for target in ("site", "anki"):
        no_script(render_markdown(f"${tex}$", target=target))


def test_mathml_keeps_only_math_elements_and_attributes():
    dirty = (
        '<math display="block" onclick="x()" style="color:red"><mrow class="c" id="i">'
        '<mi href="javascript:x()">a</mi><foreignObject><b>b</b></foreignObject></mrow></math>'
    )
    assert safe_mathml(dirty) == '<math display="block"><mrow><mi>a</mi>b</mrow></math>'


UNSAFE_TEX = ["href{javascript:alert(1)}{x}", "style{color:red}{x}", "class{a}{x}", "cssId{a}{x}",
              "unicode{x41}", "require{html}", "html{<b>x</b>}", "htmlData{a}{x}",
              "csname href\\endcsname{x}", "bbox[background-image:url(https://e.org/a)]{x}",
              "def\\x{y}", "newcommand{\\x}{y}", "let\\a\\b", "color{red}{x}", "colorbox{red}{x}",
              "fbox{x}", "mathtip{a}{b}", "texttip{a}{b}", "toggle{a}{b}\\endtoggle", "tag{x}",
              "label{x}", "eqref{x}", "verb|x|", "mmlToken{mi}{x}", "frak{x}",
              "notacommand{x}"]  # fmt: skip


@pytest.mark.parametrize("command", UNSAFE_TEX)
def test_unsafe_tex_commands_are_errors_with_file_and_line(command):
    name = re.match(r"[A-Za-z]+", command).group()
    text = f"""\
        # T

        Prose math $\\{command}$ here.

        Card $\\{command}$? ::: A

        ::: quiz id=q
        1. Q?
           - [x] $\\{command}$
           - [ ] b

           Because.
        :::
        """
    expected = f"TeX command \\{name} is not allowed in course math"
    assert messages(text) == [f"{PATH}:{line}: {expected}" for line in (3, 5, 9)]
    for target in ("site", "anki"):  # and neither renderer acts on it
        out = render_markdown(f"$\\{command}$", target=target)
        assert "<code" in out and "href=" not in out and "\\(" not in out


def test_tex_environments_are_allow_listed_too():
    assert messages("# T\n\nProse $\\begin{pmatrix}a\\end{pmatrix}$ is fine.\n") == []
    assert messages("# T\n\nBad $\\begin{picture}x\\end{picture}$.\n") == [
        f"{PATH}:3: TeX command \\begin{{picture}} is not allowed in course math"
    ]


# --- the separator and HTML blocks ------------------------------------------------------------


def test_card_lines_after_a_tag_are_an_error_not_lost():
    errors = messages(
        """\
        # T

        <div>
        One? ::: 1
        Two? ::: 2
        """
    )
    assert errors == [f"{PATH}:4: ':::' in an HTML block" + errors[0].split("HTML block", 1)[1]]


def test_a_card_starting_with_a_script_tag_is_an_error():
    errors = messages("# T\n\n<script>alert(1)</script> ::: x\nQ ::: A\n")
    assert [e.split(": ':::'")[0] for e in errors if "':::'" in e] == [f"{PATH}:3"]
    assert any(
        e.startswith(f"{PATH}:3: raw HTML or address: <script> is not allowed") for e in errors
    )


def test_separator_token_carries_exact_sides_around_code_math_and_links():
    page, errors = parse(
        "# T\n\n*Why* `a ::: b` and $x ::: y$ [l](https://e.org/:::)? ::: **yes** {#i}\n"
    )
    assert not errors
    (card,) = page.cards
    assert card.front == "*Why* `a ::: b` and $x ::: y$ [l](https://e.org/:::)?"
    assert (card.back, card.explicit_id) == ("**yes**", "i")


def test_raw_html_in_course_items_is_escaped_everywhere():
    page, errors = parse(
        """\
        # T

        Q <b onclick="x()">bold</b>? ::: <img src=x onerror=alert(1)>

        ::: quiz id=q
        1. Q <script>alert(1)</script>?
           - [x] <iframe src="javascript:alert(1)"></iframe>
           - [ ] b

           <a href="javascript:alert(1)">explained</a>
        :::
        """
    )
    assert not errors
    no_script(render_cards(page.blocks[0][1]))
    no_script(render_quiz(page.quizzes[0]))


# --- links and images in course items ---------------------------------------------------------


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    return write(
        tmp_path,
        {
            "docs/lessons/02-b.md": """
                # B

                ## 2.4 Segments {#l2-4}

                ## Plain heading

                C? ::: D
                """,
            "docs/assets/plot.png": b"\x89PNG",
        },
    )


@pytest.mark.parametrize(
    "link, problem",
    [
        ("[x](02-b.md#l2-4)", None),
        ("[x](02-b.md#plain-heading)", None),
        ("[x](02-b.md#card-" + "0" * 10 + ")", "has no heading or item with id"),
        ("[x](02-b.md#l2-9)", "has no heading or item with id 'l2-9'"),
        ("[x](03-c.md)", "there is no page docs/lessons/03-c.md"),
        ("[x](../assets/nope.png)", "there is no file docs/assets/nope.png"),
        ("[x](/lessons/02-b.md)", "is absolute"),
        ("[x](../../README.md)", "points outside docs/"),
        ("[x](ftp://e.org/a)", "only http, https, mailto addresses may leave the site"),
        ("![x](../assets/plot.png)", None),
        ("![x](https://e.org/p.png)", "is not on the site"),
        ("![x](https:/e.org/p.png)", "is not on the site"),
        ("![x](//e.org/p.png)", "is not on the site"),
        ("[x](https://pytorch.org)", None),
    ],
)
def test_links_in_cards_and_quizzes_are_checked(linked, link, problem):
    write(
        linked,
        {
            "docs/lessons/01-a.md": f"""\
                # A

                Q {link}? ::: A

                ::: quiz id=q
                1. Q?
                   - [x] a
                   - [ ] b

                   See {link}.
                :::
                """
        },
    )
    errors = course_errors(linked)
    if problem is None:
        assert errors == []
    else:
        where = [e.split(": ", 1)[0] for e in errors]
        assert where == ["docs/lessons/01-a.md:3", "docs/lessons/01-a.md:10"]
        assert all(problem in e for e in errors), errors


def test_links_in_prose_get_the_same_check_with_file_and_line_all_in_one_run(linked):
    """Prose, a list, a quote and an admonition's body (indented: CommonMark's code, Python-
    Markdown's text) are checked as cards are, so a broken link is a ``check`` error, never a
    warning MkDocs gives later without a line."""
    write(
        linked,
        {
            "docs/lessons/01-a.md": """\
                # A

                See [ok](02-b.md#l2-4) and [L2.9](02-b.md#l2-9).

                - a list item with [a missing page](03-c.md)

                > a quote with [a missing file](../assets/nope.png)

                ??? success "Solution"
                    First paragraph, [fine](02-b.md).

                    Second paragraph: [here](#nowhere).

                    !!! note "Nested"
                        Deeper still: [absolute](/lessons/02-b.md).

                Back in prose: [and here](02-b.md#plain-heading-2).

                ```markdown
                [in a code block](nowhere.md) is not a link
                ```
                """
        },
    )
    errors = course_errors(linked)
    assert [e.split(": ", 1)[0] for e in errors] == [
        f"docs/lessons/01-a.md:{line}" for line in (3, 5, 7, 12, 15, 17)
    ]
    for error, problem in zip(
        errors,
        [
            "has no heading or item with id 'l2-9'",
            "there is no page docs/lessons/03-c.md",
            "there is no file docs/assets/nope.png",
            "docs/lessons/01-a.md has no heading or item with id 'nowhere'",
            "is absolute",
            "has no heading or item with id 'plain-heading-2'",
        ],
        strict=True,
    ):
        assert problem in error, error


def test_anchors_include_cards_and_questions(linked):
    page = parse_course(linked, syntax=MKDOCS).page("lessons/02-b.md")
    assert {"l2-4", "plain-heading", page.cards[0].anchor} <= page.anchors


# --- snippet includes -------------------------------------------------------------------------


@pytest.fixture
def snippets(tmp_path: Path) -> Path:
    root = write(
        tmp_path,
        {
            "snippets/ok.py": "# --8<-- [start:part]\nx = 1\n# --8<-- [end:part]\n",
            ".git/config": "[remote]\nurl = secret\n",
        },
    )
    (root / "snippets" / "link.py").symlink_to(root / ".git" / "config")
    return root


def test_every_include_is_checked_with_lesson_and_line_in_one_run(snippets):
    write(
        snippets,
        {
            "docs/lessons/01-a.md": """\
                # A

                ```python
                --8<-- "snippets/ok.py:part"
                ```

                --8<-- ".git/config"
                --8<-- "snippets/../.git/config"
                --8<-- "snippets/link.py"
                --8<-- "snippets/ok.py:missing"
                --8<-- "snippets/nope.py"
                ;--8<-- ".git/config"

                --8<--
                .git/config
                --8<--
                """
        },
    )
    errors = course_errors(snippets)
    assert [e.split(": ", 1)[0] for e in errors] == [
        f"docs/lessons/01-a.md:{n}" for n in (7, 8, 9, 10, 11, 15)
    ]
    assert sum("only files in snippets/ may be included" in e for e in errors) == 3
    assert "'..' is not allowed in an include's path" in errors[1]
    assert "has no section 'missing'" in errors[3] and "no file snippets/nope.py" in errors[4]


def test_an_include_through_a_link_and_dotdot_is_judged_as_pymdownx_reads_it(
    snippets, tmp_path_factory
):
    """In the snippets folder, ``link/../../.env.local`` resolves, links first, to
    ``sub/.env.local`` there; pymdownx drops the ``..`` lexically and opens ``.env.local`` at the
    root. A path outside the
    root that links into ``snippets/`` is refused by pymdownx, so by the check too."""
    (snippets / "snippets" / "sub" / "a" / "b").mkdir(parents=True)
    (snippets / "snippets" / "link").symlink_to("sub/a/b")
    outside = tmp_path_factory.mktemp("elsewhere") / "link"
    outside.symlink_to(snippets / "snippets")
    dotdot = "snippets/link/../../.env.local"
    write(
        snippets,
        {
            "snippets/sub/.env.local": "decoy\n",
            ".env.local": "SECRET=x\n",
            "docs/a.md": f'# A\n\n```text\n--8<-- "{dotdot}"\n--8<-- "{outside}/ok.py"\n```\n',
        },
    )
    assert course_errors(snippets) == [
        f"docs/a.md:4: include '{dotdot}': '..' is not allowed in an include's path (name the "
        "file from the repository root, e.g. snippets/NAME.py)",
        f"docs/a.md:5: include '{outside}/ok.py': only files in snippets/ may be included",
    ]


def test_nested_includes_in_snippets_are_checked(snippets):
    write(snippets, {"snippets/nest.py": '--8<-- ".git/config"\n'})
    write(snippets, {"docs/a.md": '# A\n\n--8<-- "snippets/nest.py"\n'})
    assert [e.split(": ", 1)[0] for e in course_errors(snippets)] == ["snippets/nest.py:1"]


def test_include_patterns_are_pymdownx_own():
    assert syntax.includes(['  --8<-- "a.py:x"', ";--8<-- 'b.py'", "-8<- 'c.py'"]) == [
        (0, "a.py:x"),
        (2, "c.py"),
    ]


# --- page metadata (front matter) -------------------------------------------------------------

_ALLOWED_META = (
    "a page may set title and description (plain text), hide (a list of navigation, toc, footer, "
    "feedback, tags, path) and search (exclude: true or false)"
)


def test_script_in_a_front_matter_title_is_an_error_at_its_line():
    """MkDocs and Material print a page's title and description into it without escaping."""
    text = (
        '---\ntitle: "Glossary\\x3cnoscript\\x3e\\x3cp title=\\x22\\x3c/noscript\\x3e'
        '\\x3cimg src=x onerror=alert(document.domain)\\x3e\\x22\\x3e"\n---\n\n# Glossary\n'
    )
    assert messages(text) == [
        f"{PATH}:2: front matter key 'title' must be plain text, without \" < >; {_ALLOWED_META}"
    ]
    assert parse(text)[0].title == "Glossary"


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_allowed_front_matter_is_not_markdown_and_keeps_the_lines_after_it(newline):
    text = (
        "---\ntitle: The glossary\ndescription: Words of the course, explained.\n"
        "hide: [navigation, toc]\nsearch: {exclude: true}\n...\n\n# Glossary\n\nQ? ::: A\n"
    ).replace("\n", newline)
    page, errors = parse(text)
    assert errors == [] and page.title == "The glossary"
    assert [(c.front, c.location.line) for c in page.cards] == [("Q?", 10)]
    assert [h.text for h in page.headings] == ["Glossary"]


@pytest.mark.parametrize(
    "front, line, problem",
    [
        ("template: main.html\n", 2, "front matter key 'template' is not allowed"),
        ("title: T\ndescription: 1\n", 3, "front matter key 'description' must be plain text"),
        (
            "hide: [toc, everything]\n",
            2,
            "front matter key 'hide' must be a list of navigation, "
            "toc, footer, feedback, tags, path",
        ),
        (
            "search: {boost: 2}\n",
            2,
            "front matter key 'search' must be 'exclude: true' or 'exclude: false'",
        ),
    ],
)
def test_front_matter_is_allow_listed_key_by_key(front, line, problem):
    assert messages(f"---\n{front}---\n# T\n") == [f"{PATH}:{line}: {problem}; {_ALLOWED_META}"]


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "---\ntitle: ok\nhide: [toc\n---\n# T\n",
            f"{PATH}:4: front matter is not YAML: expected ',' or ']', but got '<stream end>' "
            "(while parsing a flow sequence started by '[' at line 3)",  # the line it opened on
        ),
        (
            "---\n- a list\n---\n# T\n",
            f"{PATH}:1: front matter must be keys and values; " + _ALLOWED_META,
        ),
        (
            "Title: <b>x</b>\nQ: lost ::: card\n\n# T\n",
            f"{PATH}:1: MkDocs reads 'Key: value' lines at the top of a page as its metadata, and "
            "shows none of them: start the page with a heading, or put a title or description in "
            "YAML front matter between two '---' lines",
        ),
    ],
)
def test_metadata_that_is_not_an_allowed_mapping_is_an_error_at_its_line(text, expected):
    assert messages(text) == [expected]


# --- encoding and invisible characters --------------------------------------------------------

CARD = "# Title\n\nQ? ::: A\n"


@pytest.mark.parametrize(
    "data", [CARD.encode(), b"\xef\xbb\xbf" + CARD.encode(), CARD.replace("\n", "\r\n").encode()]
)
def test_utf8_with_or_without_bom_and_crlf_are_accepted(tmp_path, data):
    write(tmp_path, {"docs/a.md": data})
    course = parse_course(tmp_path, syntax=MKDOCS)
    assert course.errors == []
    assert course.pages[0].title == "Title" and course.pages[0].cards[0].location.line == 3


def test_other_encodings_are_an_error_naming_the_file(tmp_path):
    write(tmp_path, {"docs/a.md": "# Título\n\nQ? ::: ¿A?\n".encode("latin-1")})
    assert course_errors(tmp_path) == ["docs/a.md:1: not UTF-8 (byte 0xed); save it as UTF-8"]


@pytest.mark.parametrize(
    "char", ["\u202e", "\u2066", "\u200f", "\u061c", "\u200b", "\u200d", "\u2060", "\ufeff"]
)
def test_bidi_and_zero_width_characters_are_errors(char):
    errors = messages(
        f"""\
        # T

        Q{char}? ::: A
        Q2? ::: A {{#i{char}d}}

        ::: quiz id=q{char}
        1. Q{char}?
           - [x] a{char}
           - [ ] b

           Because{char}.
        :::
        """
    )
    ids = [e for e in errors if ": quiz id " in e or "not its explicit id" in e]  # id rules too
    assert [e.split(": ", 1)[0] for e in ids] == [f"{PATH}:4", f"{PATH}:6"]
    errors = [e for e in errors if e not in ids]
    assert [e.split(": ", 1)[0] for e in errors] == [f"{PATH}:{n}" for n in (3, 4, 6, 7, 8, 11)], (
        errors
    )
    assert all(f"U+{ord(char):04X}" in e for e in errors)


def test_zwnj_inside_an_urdu_word_is_allowed_and_elsewhere_is_not():
    assert messages("# T\n\nکیا\u200cہے؟ ::: ہاں\n") == []
    assert len(messages("# T\n\nQ\u200c? ::: A\n")) == 1
    assert len(messages("# T\n\nکیا \u200cہے؟ ::: ہاں\n")) == 1


# --- built pages: nothing leaves the site, nothing runs ---------------------------------------


@pytest.mark.parametrize(
    "html",
    [
        '<img src="https://e.org/p.png">',
        '<img src="https:/e.org/p.png">',
        '<img src="//e.org/p.png">',
        '<img src="\\\\e.org/p.png">',
        '<img srcset="a.png 1x, https://e.org/b.png 2x">',
        '<video poster="http://e.org/p.png"></video>',
        '<link rel="stylesheet" href="ftp://e.org/a.css">',
        '<link rel="preload icon" href="//e.org/a">',
        '<div style="background:url(https://e.org/a.png)"></div>',
        "<style>@import 'https://e.org/a.css';</style>",
        '<svg><image href="https://e.org/a.png"/></svg>',
        '<object data="https://e.org/a.swf"></object>',
    ],
)
def test_any_load_from_outside_the_site_is_found(html):
    assert offline.remote_loads(f"<p>x</p>{html}") != []


def test_local_loads_and_plain_links_are_fine():
    html = (
        '<img src="assets/a.png"><img src="data:image/png;base64,AA"><link rel="canonical" '
        'href="https://e.org/"><a href="https://e.org/">out</a><link rel=stylesheet href="a.css">'
    )
    assert offline.remote_loads(html) == []


@pytest.mark.parametrize(
    "html",
    [
        "<script>alert(1)</script>",
        '<p onclick="alert(1)">x</p>',
        '<a href="javascript:alert(1)">x</a>',
        '<a href=" java\tscript:alert(1)">x</a>',
        '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
        '<img src="data:image/svg+xml,<svg onload=alert(1)>">',
        '<form action="javascript:alert(1)"></form>',
        '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    ],
)
def test_script_in_a_pages_content_is_found(html):
    assert offline.active_content(html) != []


@pytest.mark.parametrize(
    "html",
    [
        "<SCRIPT>x()</SCRIPT>",
        '<p ONCLICK="x()">x</p>',
        '<a href="&#106;ava&#x73;cript:x()">x</a>',
        '<svg><a xlink:href="javascript:x()">x</a></svg>',
        "<template><p>x</p></template>",
    ],
)
def test_script_is_found_as_a_browser_reads_the_markup(html):
    assert offline.active_content(html) != []


@pytest.mark.parametrize(
    "html",
    [
        "<textarea><script>x()</script></textarea>",
        "<!-- <script>x()</script> -->",
        "<p>&lt;script&gt; onclick=x() javascript:x()</p>",
    ],
)
def test_markup_a_browser_reads_as_text_is_not_script(html):
    assert offline.active_content(html) == []


def test_svg_references_count_in_the_case_svg_writes_them():
    html = '<svg><filter><feImage href="https://e.org/a.png"/></filter></svg>'
    assert offline.remote_loads(html) != []
    assert offline.remote_loads('<svg><a href="https://e.org/">x</a></svg>') == []


def test_active_markup_counts_what_a_browser_would_run():
    html = (
        '<script>x()</script><p onclick="x()">&lt;script&gt; onload=</p>'
        '<a href=" javascript:x()">a</a><p>javascript: in text</p>'
    )
    assert active_markup(html) == {"script": 1, "handlers": 1, "javascript": 1}


@pytest.mark.parametrize("target", ["snippets/ok.py:2,", "snippets/ok.py:1,,2"])
def test_an_include_target_is_split_into_file_and_lines_as_pymdownx_splits_it(snippets, target):
    """pymdownx reads ``ok.py:2,`` as the file of that whole name, not as lines of ``ok.py``:
    the check follows that file, and so finds what it includes."""
    write(snippets, {target: '--8<-- ".git/config"\n', "docs/a.md": f'# A\n\n--8<-- "{target}"\n'})
    assert course_errors(snippets) == [
        f"{target}:1: include '.git/config': only files in snippets/ may be included"
    ]
