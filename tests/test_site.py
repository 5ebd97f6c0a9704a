"""The HTML that tools/plugin/pages.py puts on the pages, checked without a browser (fast).

Each test writes a small page into a temporary course root, parses it with the real parser,
renders it, and reads the result back with an HTML parser, so structure (not string layout) is
what is asserted. Python-Markdown itself checks that the raw HTML passes through untouched.
"""

from __future__ import annotations

import re
import sys
import types
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

import pytest

pytest.importorskip("markdown_it", reason="the course engine's dependencies are not installed")

from mkdocs_course.course.model import Embed, Location
from mkdocs_course.course.parser import parse_page
from mkdocs_course.plugin import pages as site
from mkdocs_course.plugin.assets import STATIC
from mkdocs_course.plugin.syntax import MKDOCS

LESSON = """\
# A lesson

Some text with `code` and a [link](other.md).

## Flashcards

What does *checkpointing* trade? ::: Compute for memory {#trade}
Which call checkpoints a module? ::: `torch.utils.checkpoint.checkpoint`

Between the groups.

A <script>alert(1)</script> question? ::: An answer with <b>tags</b> & "quotes"

```python
# Not a heading ::: not a card
```
"""

URDU_QUIZ = """\
# گریڈینٹ چیک پوائنٹنگ کوئز

Intro in English.

::: quiz id=demo-ur lang=ur title="ڈیمو کوئز"
1. گریڈینٹ چیک پوائنٹنگ کیا تجارت کرتی ہے؟
   - [ ] رفتار کے لیے درستگی
   - [x] میموری کے لیے کمپیوٹ

   وضاحت: دوبارہ گنتی سے میموری بچتی ہے۔

2. Which utility checkpoints a module?
   - [x] `torch.utils.checkpoint`
   - [ ] `torch.optim.SGD`
   - [ ] `torch.nn.Dropout`

   It reruns the forward pass of the region during backward.

   ```python
   y = checkpoint(block, x, use_reentrant=False)
   ```
:::

After the quiz.
"""


class Tree(HTMLParser):
    """A tiny DOM: elements with tag, attributes, children and text, enough for assertions."""

    VOID: ClassVar[set[str]] = {
        "br",
        "hr",
        "img",
        "input",
        "meta",
        "link",
        "col",
        "area",
        "source",
        "wbr",
    }

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#root", {})
        self.stack = [self.root]
        self.feed(html)
        self.close()
        assert len(self.stack) == 1, f"unclosed elements: {[e.tag for e in self.stack[1:]]}"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs}, self.stack[-1])
        self.stack[-1].children.append(element)
        if tag not in self.VOID:
            self.stack.append(element)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


class Element:
    def __init__(self, tag: str, attrs: dict[str, str], parent: Element | None = None) -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[Element | str] = []

    def iter(self):
        for child in self.children:
            if isinstance(child, Element):
                yield child
                yield from child.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None) -> list[Element]:
        return [
            e
            for e in self.iter()
            if (tag is None or e.tag == tag)
            and (cls is None or cls in e.attrs.get("class", "").split())
        ]

    def find(self, tag: str | None = None, cls: str | None = None) -> Element:
        found = self.find_all(tag, cls)
        assert found, f"no <{tag} class={cls}> in <{self.tag}>"
        return found[0]

    @property
    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text for c in self.children)


def render(tmp_path: Path, text: str, name: str = "docs/lessons/page.md", markdown=None) -> str:
    file = tmp_path / name
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text, "utf-8")
    page, errors = parse_page(name, name.removeprefix("docs/"), text, syntax=MKDOCS)
    assert not errors, errors
    out, blocks = site.render_page(
        page, text if markdown is None else markdown, root=tmp_path, strict_results=False
    )
    return fill_all(out, blocks)


def fill_all(html: str, blocks: list[site.PageBlock]) -> str:
    """Both of the hook's steps: embeds, then (after the search has read the page) the items."""
    return site.fill_blocks(site.fill_blocks(html, blocks, items=False), blocks, items=True)


def html_blocks(markdown: str) -> list[str]:
    """The raw HTML blocks of rendered Markdown (runs of lines between blank lines, from '<')."""
    return [b for b in re.split(r"\n\s*\n", markdown) if b.startswith("<")]


# --- page assembly ----------------------------------------------------------------------------


def test_only_block_lines_are_replaced_each_by_a_placeholder_alone_in_its_paragraph(tmp_path):
    (tmp_path / "docs" / "lessons").mkdir(parents=True)
    page, _ = parse_page("docs/lessons/page.md", "lessons/page.md", LESSON, syntax=MKDOCS)
    out, blocks = site.render_page(page, LESSON, root=tmp_path, strict_results=False)
    for kept in ("# A lesson", "Some text with `code`", "## Flashcards", "Between the groups."):
        assert kept in out
    assert "```python\n# Not a heading ::: not a card\n```" in out
    assert ":::" not in out.replace("# Not a heading ::: not a card", "")
    assert len(blocks) == len(page.blocks) == 2
    for number in range(len(blocks)):
        assert f'\n\n<div data-course-block="{number}"></div>\n\n' in out
    assert 'class="flashcard"' not in out and all(b.html.startswith("<") for b in blocks)


def test_a_lost_or_repeated_placeholder_is_an_error(tmp_path):
    (tmp_path / "docs" / "lessons").mkdir(parents=True)
    page, _ = parse_page("docs/lessons/page.md", "lessons/page.md", LESSON, syntax=MKDOCS)
    out, blocks = site.render_page(page, LESSON, root=tmp_path, strict_results=False)
    lost = out.replace('<div data-course-block="1"></div>', "")
    with pytest.raises(site.SiteError, match=r"2 course block\(s\) rendered but placeholders"):
        site.fill_blocks(lost, blocks, items=False)
    with pytest.raises(site.SiteError):
        site.fill_blocks(out + '<div data-course-block="0"></div>', blocks, items=False)
    with pytest.raises(site.SiteError):  # the second step checks again
        site.fill_blocks(site.fill_blocks(out, blocks, items=False), [], items=True)
    assert fill_all(out, blocks).count('class="flashcard"') == 3


def test_front_matter_stripped_by_the_generator_is_accounted_for(tmp_path):
    text = "---\ntitle: x\n---\n" + LESSON
    out = render(tmp_path, text, markdown=LESSON)
    assert len(Tree(out.split("## Flashcards", 1)[1]).root.find_all("details", "flashcard")) == 3


def test_markdown_that_does_not_match_the_file_is_a_clear_error(tmp_path):
    changed = LESSON.replace("What does *checkpointing* trade?", "Something else entirely?")
    with pytest.raises(site.SiteError, match=r"^docs/lessons/page\.md:7: .*does not match"):
        render(tmp_path, LESSON, markdown=changed)


def test_python_markdown_passes_the_html_through_untouched(tmp_path):
    markdown = pytest.importorskip("markdown")
    (tmp_path / "docs" / "quizzes").mkdir(parents=True)
    page, _ = parse_page("docs/quizzes/q.md", "quizzes/q.md", URDU_QUIZ, syntax=MKDOCS)
    out, blocks = site.render_page(page, URDU_QUIZ, root=tmp_path, strict_results=False)
    html = markdown.markdown(
        out, extensions=["md_in_html", "attr_list", "toc", "pymdownx.superfences", "admonition"]
    )
    html = fill_all(html, blocks)  # the placeholders came through untouched
    tree = Tree(html).root
    quiz = tree.find("section", "quiz")
    assert len(quiz.find_all("fieldset", "quiz-question")) == 2
    code = quiz.find("pre").text
    assert "y = checkpoint(block, x, use_reentrant=False)" in code
    # The Urdu page title got its direction and language from its script.
    h1 = tree.find("h1")
    assert (h1.attrs.get("lang"), h1.attrs.get("dir")) == ("ur", "rtl")
    assert h1.attrs["id"] == "گریڈینٹ-چیک-پوائنٹنگ-کوئز"  # a readable anchor, not "_1"
    assert tree.find("p").text == "Intro in English."


def test_urdu_headings_get_direction_and_unique_readable_anchors_and_others_are_kept():
    lines = [
        "# اردو سرخی",
        "## اردو سرخی",
        "## سوال {#q1}",
        "## English {#en}",
        "```",
        "# اردو in code",
        "```",
        "## سوال {: #q2 lang=en }",
    ]
    page, _ = parse_page("docs/h.md", "h.md", "\n".join(lines) + "\n", syntax=MKDOCS)
    out = site._headings_with_direction(lines, page.headings, 0)
    assert out[0] == '# اردو سرخی { #اردو-سرخی lang="ur" dir="rtl" }'
    assert out[1] == '## اردو سرخی { #اردو-سرخی-1 lang="ur" dir="rtl" }'
    assert out[2] == '## سوال {#q1 lang="ur" dir="rtl" }'
    assert out[3:] == lines[3:]


# --- flashcards -------------------------------------------------------------------------------


def test_each_card_is_a_details_with_its_anchor_question_and_answer(tmp_path):
    tree = Tree("\n".join(html_blocks(render(tmp_path, LESSON)))).root
    cards = tree.find_all("details", "flashcard")
    assert cards[0].attrs["id"] == "trade"
    assert all(re.fullmatch(r"[A-Za-z][\w-]*", c.attrs["id"]) for c in cards)
    first = cards[0]
    assert first.find("summary").text == "What does checkpointing trade?"
    assert first.find("summary").find("em").text == "checkpointing"
    assert first.find("div", "flashcard-answer").text == "Compute for memory"
    assert cards[1].find("div", "flashcard-answer").find("code").text == (
        "torch.utils.checkpoint.checkpoint"
    )


def test_one_show_all_control_per_page_hidden_until_the_script_runs(tmp_path):
    tree = Tree("\n".join(html_blocks(render(tmp_path, LESSON)))).root
    assert len(tree.find_all("div", "flashcards")) == 2
    toggles = tree.find_all("button", "flashcards-toggle")
    assert len(toggles) == 1
    toggle = toggles[0]
    assert toggle.attrs["aria-expanded"] == "false"
    assert "hidden" in toggle.attrs
    assert toggle.attrs["type"] == "button"
    assert toggle.attrs["data-show"] == site.SHOW_ALL
    assert toggle.attrs["data-hide"] == site.HIDE_ALL


def test_card_text_is_escaped_never_markup(tmp_path):
    out = render(tmp_path, LESSON)
    assert "<script>" not in out
    assert "<b>" not in out
    tree = Tree("\n".join(html_blocks(out))).root
    card = tree.find_all("details", "flashcard")[2]
    assert "<script>alert(1)</script>" in card.find("summary").text
    assert card.find("div", "flashcard-answer").text == 'An answer with <b>tags</b> & "quotes"'
    assert not tree.find_all("script")


# --- quizzes ----------------------------------------------------------------------------------


def quiz_tree(tmp_path: Path) -> Element:
    return Tree("\n".join(html_blocks(render(tmp_path, URDU_QUIZ, "docs/quizzes/q.md")))).root


def test_quiz_container_is_rtl_urdu_with_id_and_interface_strings(tmp_path):
    quiz = quiz_tree(tmp_path).find("section", "quiz")
    assert quiz.attrs["data-quiz-id"] == "demo-ur"
    assert (quiz.attrs["lang"], quiz.attrs["dir"]) == ("ur", "rtl")
    ui = site.UI_TEXT["ur"]
    assert quiz.attrs["data-text-correct"] == ui["correct"]
    assert quiz.attrs["data-text-incorrect"] == ui["incorrect"]
    footer = quiz.find("div", "quiz-footer")
    assert "hidden" in footer.attrs
    assert footer.find("p", "quiz-score").attrs["aria-live"] == "polite"
    assert footer.find("p", "quiz-score").text.startswith(ui["score"])
    assert footer.find("span", "quiz-score-value").text == "0 / 2"
    assert footer.find("button", "quiz-retry").text == ui["retry"]
    summaries = [d.find("summary").text for d in quiz.find_all("details", "quiz-explanation")]
    assert summaries == [ui["show_answer"], site.UI_TEXT["en"]["show_answer"]]  # per question
    labelled = quiz.attrs["aria-labelledby"]
    assert next(e for e in quiz.iter() if e.attrs.get("id") == labelled).text == "ڈیمو کوئز"


def test_every_urdu_string_is_arabic_script_and_english_ones_are_not():
    from mkdocs_course.course.model import script_lang

    assert set(site.UI_TEXT["ur"]) == set(site.UI_TEXT["en"])
    assert all(script_lang(text) == "ur" for text in site.UI_TEXT["ur"].values())
    assert all(script_lang(text) == "en" for text in site.UI_TEXT["en"].values())


def test_questions_are_groups_with_anchor_options_and_correct_index(tmp_path):
    quiz = quiz_tree(tmp_path).find("section", "quiz")
    first, second = quiz.find_all("fieldset", "quiz-question")
    assert first.attrs["id"].startswith("q-") and first.attrs["id"] != second.attrs["id"]
    assert (first.attrs["data-answer"], second.attrs["data-answer"]) == ("1", "0")
    options = first.find_all("button", "quiz-option")
    assert [o.attrs["data-index"] for o in options] == ["0", "1"]
    assert all(o.attrs["type"] == "button" for o in options)
    assert first.find("legend").find("span", "quiz-prompt-text").text.startswith("گریڈینٹ")
    # Without the script, "Show answer" still reveals the right option and the explanation.
    details = first.find("details", "quiz-explanation")
    assert "میموری کے لیے کمپیوٹ" in details.find("p", "quiz-answer").text
    assert "دوبارہ گنتی" in details.find("div", "quiz-explanation-text").text
    assert second.find("p", "quiz-feedback").attrs["aria-live"] == "polite"


def test_direction_follows_each_lines_own_script_and_code_is_ltr(tmp_path):
    quiz = quiz_tree(tmp_path).find("section", "quiz")
    first, second = quiz.find_all("fieldset", "quiz-question")

    def lang_dir(element: Element) -> tuple[str, str]:
        return element.attrs["lang"], element.attrs["dir"]

    assert lang_dir(first.find("span", "quiz-prompt-text")) == ("ur", "rtl")
    assert lang_dir(second.find("span", "quiz-prompt-text")) == ("en", "ltr")
    assert lang_dir(first) == ("ur", "rtl") and lang_dir(second) == ("en", "ltr")
    assert {lang_dir(o) for o in first.find_all("span", "quiz-option-text")} == {("ur", "rtl")}
    assert {lang_dir(o) for o in second.find_all("span", "quiz-option-text")} == {("en", "ltr")}
    # Interface strings are in each question's language: English inside an English question.
    assert lang_dir(first.find("summary").find("span")) == ("ur", "rtl")
    assert lang_dir(second.find("summary").find("span")) == ("en", "ltr")
    assert second.attrs["data-text-correct"] == site.UI_TEXT["en"]["correct"]
    assert first.attrs["data-text-correct"] == site.UI_TEXT["ur"]["correct"]
    assert lang_dir(first.find("div", "quiz-explanation-text")) == ("ur", "rtl")
    assert lang_dir(second.find("div", "quiz-explanation-text")) == ("en", "ltr")
    codes = quiz.find_all("code") + quiz.find_all("pre")
    assert codes and all(c.attrs.get("dir") == "ltr" for c in codes)


def test_english_quiz_uses_english_interface(tmp_path):
    text = URDU_QUIZ.replace("lang=ur", "lang=en").replace("id=demo-ur", "id=demo-en")
    quiz = Tree("\n".join(html_blocks(render(tmp_path, text)))).root.find("section", "quiz")
    assert (quiz.attrs["lang"], quiz.attrs["dir"]) == ("en", "ltr")
    assert quiz.attrs["data-text-correct"] == "Correct"
    assert quiz.find("button", "quiz-retry").text == "Try again"


def test_quiz_attributes_are_escaped(tmp_path):
    text = URDU_QUIZ.replace('title="ڈیمو کوئز"', "title='A \"quoted\" <b>title</b>'")
    out = render(tmp_path, text)
    assert "<b>title" not in out
    quiz = Tree("\n".join(html_blocks(out))).root.find("section", "quiz")
    assert quiz.find("p", "quiz-title").text == 'A "quoted" <b>title</b>'


def test_formula_only_options_still_have_an_accessible_name(tmp_path):
    text = URDU_QUIZ.replace("`torch.utils.checkpoint`", r"$\sqrt{c \cdot L}$").replace(
        "`torch.optim.SGD`", r"$\frac{L}{s}$ layers"
    )
    quiz = Tree("\n".join(html_blocks(render(tmp_path, text)))).root.find("section", "quiz")
    options = quiz.find_all("fieldset")[1].find_all("button", "quiz-option")
    labels = [
        m.attrs.get("aria-label")
        for o in options[:2]
        for m in o.find_all("span")
        if m.attrs.get("role") == "math"
    ]
    assert labels == ["√(c · L)", "(L)/(s)"]


# --- embeds -----------------------------------------------------------------------------------


def test_benchmark_embed_is_rendered_by_the_benchmarks_module(tmp_path, monkeypatch):
    calls = []

    def fake_render_embed(args, root, registry, *, strict):
        calls.append((args, root, strict))
        return '<div class="benchmark">table</div>'

    fake = types.ModuleType("mkdocs_course.benchmarks")
    fake.render_embed = fake_render_embed  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "mkdocs_course.benchmarks", fake)
    import mkdocs_course as engine

    monkeypatch.setattr(engine, "benchmarks", fake, raising=False)
    text = "# Results\n\n::: benchmark checkpointing table\n:::\n\nAfter.\n"
    file = tmp_path / "docs" / "r.md"
    file.parent.mkdir(parents=True)
    file.write_text(text, "utf-8")
    page, errors = parse_page("docs/r.md", "r.md", text, syntax=MKDOCS)
    assert not errors
    out, blocks = site.render_page(page, text, root=tmp_path, strict_results=True)
    assert calls == [(["checkpointing", "table"], tmp_path, True)]
    assert blocks == [site.PageBlock(item=False, html='<div class="benchmark">table</div>')]
    out = site.fill_blocks(out, blocks, items=False)  # embeds go in before the search reads
    assert '\n\n<div class="benchmark">table</div>\n\n' in out
    assert ":::" not in out and out.endswith("After.\n")


def test_unknown_embed_names_its_file_and_line(tmp_path):
    embed = Embed("chart", ("a",), Location("docs/x.md", 3))
    with pytest.raises(site.SiteError, match=r"^docs/x\.md:3: unknown embed"):
        site.render_embed(embed, root=tmp_path, strict_results=False)


# --- the test fixtures' own rule ----------------------------------------------------------------


def test_a_missing_browser_skips_locally_and_fails_under_ci(monkeypatch):
    from conftest import skip_or_fail

    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception):
        skip_or_fail("no browser")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true"):
        skip_or_fail("no browser")


# --- the script -------------------------------------------------------------------------------


def test_script_never_turns_text_into_markup_or_code():
    script = (STATIC / "course.js").read_text("utf-8")
    for forbidden in (
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "document.write",
        "eval(",
        "Function(",
        'setTimeout("',
    ):
        assert forbidden not in script, forbidden
    assert "CourseStartup.onEachPage(" in script  # re-initialised after instant navigation
    startup = (STATIC / "startup.js").read_text("utf-8")
    assert "document$" in startup  # Material's announcement of each new page


def test_font_and_license_are_served_from_the_site():
    fonts = STATIC / "fonts"
    css = (STATIC / "course.css").read_text("utf-8")
    for url in re.findall(r"url\(\"?([^\")]+)\"?\)", css):
        assert not re.match(r"(https?:)?//", url), url
        assert (STATIC / url).is_file(), url
    assert "SIL Open Font License" in (fonts / "OFL.txt").read_text("utf-8")
    assert "font-display: swap" in css


def test_a_unicode_line_separator_does_not_shift_blocks(tmp_path):
    """Only CR/LF end lines, for the parser and the site alike (U+2028 is text inside a line)."""
    text = "# P\n\nSee\u2028this.\n\nQ ::: A\n"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "p.md").write_text(text, "utf-8")
    page, errors = parse_page("docs/p.md", "p.md", text, syntax=MKDOCS)
    assert not errors
    out = fill_all(*site.render_page(page, text, root=tmp_path, strict_results=False))
    assert "See\u2028this." in out and 'class="flashcard"' in out


def test_next_buttons_follow_the_home_pages_learning_path(built_site):
    """The footer's Next link of each page of the home page's learning path (its table under
    "Learning path") leads to the page after it there, so the two orders cannot disagree."""
    from urllib.parse import urljoin

    from selectolax.lexbor import LexborHTMLParser

    def page(path: str) -> LexborHTMLParser:
        return LexborHTMLParser((built_site / path).read_text("utf-8"))

    home = page("index.html")
    heading = home.css_first("h2#learning-path")
    assert heading is not None, "the home page has a learning path"
    table = heading.next
    while table is not None and table.tag != "table":
        table = table.next
    assert table is not None
    # Each step's pages in the order the row names them (a quiz and its Urdu version).
    path = [link.attributes["href"] for link in table.css("tbody td a")]
    assert len(path) >= 4
    followed = [path[0]]
    while len(followed) < len(path):
        link = page(followed[-1]).css_first("a.md-footer__link--next")
        assert link is not None, f"{followed[-1]} has no Next button"
        followed.append(urljoin(followed[-1], link.attributes["href"]))
    assert followed == path


def test_the_lab_page_shows_no_profiler_or_kernel_log_lines(built_site):
    """The lab's outputs are what its cells print, not torch's profiler_start/stop lines."""
    from test_build import KERNEL_NOISE

    page = (built_site / "lab" / "checkpointing-lab.html").read_text("utf-8")
    assert "Measure every strategy" in page
    assert [noise for noise in KERNEL_NOISE if noise in page] == []
