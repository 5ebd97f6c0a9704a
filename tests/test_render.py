"""Card and quiz Markdown -> HTML (tools/render/markdown_html.py) and TeX -> MathML
(tools/render/mathml.py), for both targets: site and Anki."""

from __future__ import annotations

import html
import re

import pytest
from html_tags import tags

pytest.importorskip("markdown_it", reason="the course engine's dependencies are not installed")

from mkdocs_course.plugin.syntax import MKDOCS
from mkdocs_course.render.markdown_html import CODE_BACKGROUND, CODE_FOREGROUND, render_markdown
from mkdocs_course.render.mathml import mathml_in_html, speakable_tex

TARGETS = ["site", "anki"]
URDU = "PyTorch میں گریڈینٹ چیک پوائنٹ کے لیے torch.utils.checkpoint استعمال ہوتا ہے"


# --- Markdown features and safety --------------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
def test_emphasis_code_and_links(target):
    out = render_markdown(
        "*Claim* the `issue` on [GitHub](https://github.com)", target=target, inline=True
    )
    assert out == (
        '<em>Claim</em> the <code>issue</code> on <a href="https://github.com">GitHub</a>'
    )


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("inline", [True, False])
@pytest.mark.parametrize(
    "evil",
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        '<a href="javascript:alert(1)">x</a>',
        "<iframe src=https://evil.example></iframe>",
        "<style>body{display:none}</style>",
    ],
)
def test_raw_html_is_escaped(target, inline, evil):
    out = render_markdown(f"Before {evil} after", target=target, inline=inline)
    assert {tag for tag, _ in tags(out)} <= {"p"}, out
    assert "&lt;" in out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    "url",
    ["javascript:alert(1)", "JavaScript:alert(1)", "vbscript:x", "data:text/html,x", "file:///x"],
)
def test_unsafe_link_schemes_are_not_links(target, url):
    out = render_markdown(f"[click]({url})", target=target, inline=True)
    assert not [attrs for tag, attrs in tags(out) if tag == "a"], out


@pytest.mark.parametrize(
    "url", ["https://pytorch.org/docs", "http://example.org", "mailto:a@b.org", "../lab/x.html#y"]
)
def test_safe_links_are_kept(url):
    out = render_markdown(f"[ok]({url})", target="anki", inline=True)
    assert [attrs["href"] for tag, attrs in tags(out) if tag == "a"] == [url]


def test_images_are_links_in_anki_and_images_on_the_site():
    text = "![a plot](../assets/plot.png)"
    where = {"page": "lessons/01-x.md", "inline": True}
    anki = render_markdown(text, target="anki", site_url="https://example.org/c/", **where)
    assert tags(anki) == [("a", {"href": "https://example.org/c/assets/plot.png"})]
    assert tags(render_markdown(text, target="site", **where)) == [
        ("img", {"src": "../assets/plot.png", "alt": "a plot"})
    ]


@pytest.mark.parametrize("url", ["https://example.org/p.png", "https:/example.org/p.png", "//h/p"])
def test_images_from_elsewhere_never_load_on_the_site(url):
    out = render_markdown(f"![a plot]({url})", target="site", inline=True)
    assert tags(out) == [] and "a plot" in out


def test_page_links_become_page_urls_and_absolute_in_anki():
    text = "[L2.4](../lessons/02-x.md#l2-4) and [here](#card-1) and [out](https://pytorch.org)"
    where = {"page": "quizzes/q.md", "inline": True}
    site = [a["href"] for t, a in tags(render_markdown(text, target="site", **where))]
    assert site == ["../lessons/02-x.html#l2-4", "#card-1", "https://pytorch.org"]
    anki = render_markdown(text, target="anki", site_url="https://e.org/c", **where)
    assert [a["href"] for t, a in tags(anki)] == [
        "https://e.org/c/lessons/02-x.html#l2-4",
        "https://e.org/c/quizzes/q.html#card-1",
        "https://pytorch.org",
    ]


def test_block_and_inline_modes():
    assert render_markdown("One\n\nTwo", target="anki") == "<p>One</p>\n<p>Two</p>"
    assert render_markdown("One", target="anki", inline=True) == "One"


def test_unknown_target_is_an_error():
    with pytest.raises(ValueError, match="target"):
        render_markdown("x", target="pdf")  # type: ignore[arg-type]


# --- math ------------------------------------------------------------------------------------


def test_anki_math_uses_ankis_delimiters_with_escaped_tex():
    out = render_markdown("If $a<b & c>d$ then", target="anki", inline=True)
    assert out == "If \\(a&lt;b &amp; c&gt;d\\) then"
    block = render_markdown("$$\nx^2 < y\n$$", target="anki")
    assert "\\[x^2 &lt; y\\]" in block
    assert "$" not in block


def test_site_math_is_mathml():
    inline = render_markdown("Cost $O(\\sqrt{n})$ memory", target="site", inline=True)
    (math,) = [attrs for tag, attrs in tags(inline) if tag == "math"]
    assert "display" not in math and math["dir"] == "ltr"  # inline, MathML's default
    assert math["alttext"] == "O(√(n))"
    # A formula-only option still has a name: on a wrapper, since <math> may not carry one.
    assert '<span role="math" aria-label="O(√(n))"><math ' in inline
    assert "<msqrt>" in inline and "\\sqrt" not in inline
    block = render_markdown("$$\na < b\n$$", target="site")
    assert [attrs["display"] for tag, attrs in tags(block) if tag == "math"] == ["block"]


@pytest.mark.parametrize(
    ("tex", "spoken"),
    [
        (r"\sqrt{c \cdot L}", "√(c · L)"),
        (r"\frac{a^{2}}{b}", "(a^2)/(b)"),
        (r"O(\sqrt{N})", "O(√(N))"),
        (r"\text{Mem}_{\text{ckpt}} \approx \frac{L}{k}", "Mem_ckpt ≈ (L)/(k)"),
        (r"\alpha \le \beta", "alpha ≤ beta"),
    ],
)
def test_speakable_tex(tex, spoken):
    assert speakable_tex(tex) == spoken


def test_malformed_tex_stays_visible_on_the_site():
    out = render_markdown("Broken $a^{$ here", target="site", inline=True)
    assert '<code class="math-source" dir="ltr">a^{</code>' in out and "<math" not in out


@pytest.mark.parametrize("target", TARGETS)
def test_math_ends_at_a_blank_line_as_on_the_site(target):
    """pymdownx.arithmatex, the pages' math, holds no blank line: a quiz explanation shows such
    lines as prose too, as the parser reads them."""
    out = render_markdown("$$\nx\n\ny\n$$", target=target)
    assert out == "<p>$$\nx</p>\n<p>y\n$$</p>"


def test_dollars_in_code_are_not_math():
    out = render_markdown("`$HOME` costs $5", target="anki", inline=True)
    assert "<code>$HOME</code>" in out and "\\(" not in out


# --- code ------------------------------------------------------------------------------------


def _luminance(color: str) -> float:
    color = color.lstrip("#")
    if len(color) == 3:
        color = "".join(ch * 2 for ch in color)
    channels = [int(color[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: str, b: str) -> float:
    high, low = sorted([_luminance(a), _luminance(b)], reverse=True)
    return (high + 0.05) / (low + 0.05)


CODE = """```python
import torch  # a comment
from torch.utils.checkpoint import checkpoint


def f(x: torch.Tensor) -> float:
    \"\"\"Doc.\"\"\"
    return checkpoint(lambda t: t * 2.5, x, use_reentrant=False).sum() < 1 or "s" @ x
```"""


@pytest.mark.parametrize("target", TARGETS)
def test_code_is_highlighted_with_inline_styles_only(target):
    out = render_markdown(CODE, target=target)
    found = tags(out)
    assert found[0][0] == "pre" and found[0][1]["dir"] == "ltr"
    assert any(tag == "span" and "color" in (attrs.get("style") or "") for tag, attrs in found)
    assert not [a for _, a in found if "class" in a and a["class"] != "language-python"]
    assert "<link" not in out and "<style" not in out


def test_code_colours_are_readable_on_the_code_background():
    """Every colour Pygments uses meets WCAG AA (4.5:1) on the panel's own background."""
    out = render_markdown(CODE, target="anki")
    colours = set(re.findall(r"color: ?(#[0-9a-fA-F]{3,6})", out)) | {CODE_FOREGROUND}
    assert len(colours) >= 4, "expected several token colours"
    for colour in colours:
        assert _contrast(colour, CODE_BACKGROUND) >= 4.5, colour
    pre = tags(out)[0][1]["style"] or ""
    assert f"background:{CODE_BACKGROUND}" in pre and f"color:{CODE_FOREGROUND}" in pre


def test_unknown_language_is_plain_escaped_code():
    out = render_markdown("```nosuchlang\n<b>x</b>\n```", target="anki")
    assert "&lt;b&gt;x&lt;/b&gt;" in out and "<b>" not in out


# --- direction -------------------------------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
def test_english_gets_no_direction_markup(target):
    out = render_markdown("Use *torch.utils.checkpoint* with `x` and $a$", target=target)
    assert "dir=" not in out.replace('<math dir="ltr"', "<math") and "<bdi" not in out


@pytest.mark.parametrize("target", TARGETS)
def test_urdu_block_and_inline_are_right_to_left(target):
    block = render_markdown(URDU, target=target)
    assert block.startswith('<div dir="rtl" lang="ur"><p>') and block.endswith("</p></div>")
    inline = render_markdown(URDU, target=target, inline=True)
    assert inline.startswith('<span dir="rtl" lang="ur">') and inline.endswith("</span>")


def test_latin_runs_inside_urdu_are_isolated():
    out = render_markdown(URDU, target="anki", inline=True)
    isolated = re.findall(r'<bdi dir="ltr" lang="en">(.*?)</bdi>', out)
    assert isolated == ["PyTorch", "torch.utils.checkpoint"]
    text = render_markdown("کیا sqrt(N) layers، یا N؟", target="anki", inline=True)
    assert '<bdi dir="ltr" lang="en">sqrt(N) layers</bdi>،' in text


@pytest.mark.parametrize(
    ("text", "isolated"),
    [
        ("صحت (health) سے", '(<bdi dir="ltr" lang="en">health</bdi>) سے'),  # checkpointing-ur
        ("یہ `git commit -s` ہے (DCO)", '(<bdi dir="ltr" lang="en">DCO</bdi>)'),
        ("ہاں (a, b.) ہے", '(<bdi dir="ltr" lang="en">a, b</bdi>.) ہے'),
        ("ہاں (f(x)) ہے", '(<bdi dir="ltr" lang="en">f(x)</bdi>) ہے'),
        ("ہاں [items[0]] ہے", '[<bdi dir="ltr" lang="en">items[0]</bdi>] ہے'),
    ],
)
def test_a_closing_bracket_of_the_urdu_sentence_stays_outside_the_isolate(text, isolated):
    """A closing bracket ends a Latin run only with its opening one inside it: one taken in
    alone is drawn twice by Chromium ("health))")."""
    assert isolated in render_markdown(text, target="anki", inline=True)


def test_isolation_is_a_text_rule_not_a_rewrite_of_html():
    """Link targets, code and math keep their text; only Markdown text nodes get <bdi>."""
    out = render_markdown(
        "دیکھیں [PyTorch docs](https://pytorch.org/docs) اور `torch.x` اور $a+b$",
        target="anki",
        inline=True,
    )
    assert (
        '<a href="https://pytorch.org/docs"><bdi dir="ltr" lang="en">PyTorch docs</bdi></a>' in out
    )
    assert '<code dir="ltr">torch.x</code>' in out
    assert '<bdi dir="ltr">\\(a+b\\)</bdi>' in out


def test_escaping_still_applies_inside_urdu():
    text = "یہ <script>alert(1)</script> ہے"
    out = render_markdown(text, target="anki", inline=True)
    assert {tag for tag, _ in tags(out)} == {"span", "bdi"}
    assert html.unescape(re.sub(r"<[^>]+>", "", out)) == text


# --- arithmatex output on site pages ----------------------------------------------------------


def _arithmatex_page(markdown_text: str) -> str:
    markdown = pytest.importorskip("markdown")
    md = markdown.Markdown(
        extensions=["pymdownx.arithmatex", "pymdownx.superfences"],
        extension_configs={"pymdownx.arithmatex": {"generic": True}},
    )
    return md.convert(markdown_text)


def test_mathml_in_html_converts_real_arithmatex_output():
    page = _arithmatex_page(
        "Inline $a < b \\& c_1$ and $x$.\n\n$$\n\\frac{1}{2} < y\n$$\n\n`$not math$`\n"
    )
    assert 'class="arithmatex"' in page and "&lt;" in page  # what arithmatex really emits
    out = mathml_in_html(page)
    maths = [attrs for tag, attrs in tags(out) if tag == "math"]
    assert [m.get("display") for m in maths] == [None, None, "block"]  # inline: the default
    assert all(m["dir"] == "ltr" for m in maths)
    assert "\\(" not in out and "\\[" not in out and "\\frac" not in out
    assert "<mfrac>" in out and "<code>$not math$</code>" in out
    # the TeX was unescaped before conversion: "<" is an operator, not the text "&lt;"
    assert "<mo>&lt;</mo>" in out


def test_mathml_in_html_leaves_pages_without_math_alone():
    page = "<p>No math, only $5 and a <code>\\(x\\)</code>.</p>"
    assert mathml_in_html(page) is page


def test_mathml_in_html_displays_double_dollar_in_a_paragraph():
    out = mathml_in_html('<p>See <span class="arithmatex">\\[a^2\\]</span>.</p>')
    assert [attrs["display"] for tag, attrs in tags(out) if tag == "math"] == ["block"]


# --- plain text skips the parser ---------------------------------------------------------------

PLAIN_OR_NOT = [
    "What does term 1.1 mean?",
    "Compute for memory: about one extra forward pass (30%).",
    "کیا PyTorch: checkpoint ہے؟",
    "گریڈینٹ چیک پوائنٹ (sqrt(N) layers) کیا ہے؟",
    "\"Quoted\" and 'single' # not a heading - not a list + 1 = 2 | x ^ y {a} @b %c",
    "1. a list item",
    "- a bullet",
    "# a heading",
    "> a quote",
    "    indented code",
    "trailing space ",
    "two  spaces  inside",
    "line\nbreak",
    "a *b* `c` [d](e.md) $x$ <b> &amp; \\* ~x~ !",
    "Tab\tinside",
    "zero\u200cwidth",
    "",
]


def course_texts() -> list[str]:
    from mkdocs_course.buildkit.buildinfo import ROOT
    from mkdocs_course.course.check import load_checked_course

    course = load_checked_course(ROOT, syntax=MKDOCS)
    texts = [t for card in course.cards for t in (card.front, card.back)]
    for question in course.questions:
        texts += [question.prompt, question.explanation, *(o.text for o in question.options)]
    return texts


@pytest.mark.parametrize("inline", [True, False])
@pytest.mark.parametrize("target", ["site", "anki"])
def test_text_rendered_without_the_parser_is_what_the_parser_renders(target, inline, monkeypatch):
    from mkdocs_course.render import markdown_html as render

    texts = PLAIN_OR_NOT + course_texts()
    assert sum(render._plain(t, inline=inline) for t in texts) >= 10  # the fast path runs
    fast = [render_markdown(t, target=target, inline=inline, page="lessons/a.md") for t in texts]
    monkeypatch.setattr(render, "_plain", lambda text, inline: False)
    full = [render_markdown(t, target=target, inline=inline, page="lessons/a.md") for t in texts]
    assert fast == full
