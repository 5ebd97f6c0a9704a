"""Hostile input, third pass (#41): one TeX check on the text that reaches site and deck.

TeX the allow-list refuses reached deck fields when its delimiters were written outside math
tokens: ``\\\\(``...``\\\\)`` (an escaped backslash), the character reference ``&#92;(``, or in a
quiz explanation. Deck fields then held ``\\(\\href{javascript:alert(1)}{x}\\)``, which Anki's
MathJax typesets at every review. Now the text of every paragraph, as the renderer will emit
it (references decoded, escapes resolved), goes through the same allow-list
(:func:`tools.course.model.unsafe_tex_in_text`), each case an error at its line; and every
field the renderer makes for the deck is checked by that same function.
"""

from __future__ import annotations

import html
import re

import pytest
from mkdocs_course.course.model import unsafe_tex_in_text
from mkdocs_course.render import markdown_html
from test_parser import PATH, messages, parse

COMMANDS = [
    "\\href{javascript:alert(1)}{x}",
    "\\style{background:url(https://e.org/x.png)}{x}",
    "\\unicode{x1F600}",
    "\\class{x}{y}",
    "\\cssId{x}{y}",
    "\\require{html}",
    "\\bbox[background:url(https://e.org/x.png)]{x}",
]
# Ways to write a MathJax formula in Markdown outside ``$...$`` (the text Anki gets is \( \)).
ROUTES = [
    ("\\\\(", "\\\\)"),  # escaped backslashes
    ("&#92;(", "&#92;)"),  # a decimal character reference
    ("&#x5C;[", "&#x5c;]"),  # a hexadecimal one, display math
    ("&bsol;(", "&bsol;)"),  # a named one
    ("\\\\begin{matrix}", "\\\\end{matrix}"),  # an environment MathJax finds without delimiters
]


def _card(tex: str, opening: str, closing: str) -> str:
    return f"# T\n\nWhat is {opening}{tex}{closing}? ::: nothing\n"


def _quiz(explanation: str) -> str:
    return (
        "# T\n\n::: quiz id=q\n1. Which?\n   - [x] a\n   - [ ] b\n\n"
        f"   Because {explanation}.\n:::\n"
    )


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("opening", "closing"), ROUTES)
def test_refused_tex_written_outside_math_tokens_is_an_error_at_its_line(command, opening, closing):
    found = messages(_card(command, opening, closing))
    assert len(found) == 1 and found[0].startswith(f"{PATH}:3: text that MathJax typesets"), found
    name = re.match(r"\\([A-Za-z]+)", command).group(1)
    assert f"holds \\{name}" in found[0], found


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    "explanation",
    ["\\\\({tex}\\\\)", "&#92;({tex}&#92;)", "${tex}$", "`\\({tex}\\)`"],
)
def test_a_quiz_explanation_gets_the_same_check(command, explanation):
    found = messages(_quiz(explanation.format(tex=command)))
    assert len(found) == 1 and found[0].startswith(f"{PATH}:8: "), found
    assert "not allowed" in found[0] or "text that MathJax typesets" in found[0], found


def test_a_delimiter_left_open_is_an_error_it_would_close_in_another_item():
    """A choice note holds the question and its options in one field: ``\\(`` in one and
    ``\\)`` in another would make one formula that neither check saw whole."""
    text = (
        "# T\n\n::: quiz id=q\n1. Which &#92;( one?\n   - [x] a &#92;)\n   - [ ] b\n\n   E.\n:::\n"
    )
    found = messages(text)
    assert len(found) == 1 and found[0].startswith(f"{PATH}:4: "), found
    assert "an opening delimiter without its closing one" in found[0]


def test_allowed_formulas_outside_math_tokens_pass():
    page, errors = parse(
        "# T\n\nIs \\\\(x^2\\\\) and &#92;[\\frac{a}{b}&#92;] fine? ::: yes\n\n"
        'Code `re.compile(r"\\(")` is code. ::: it is\n'
    )
    assert [str(e) for e in errors] == []
    assert len(page.cards) == 2


FIELDS = [
    "What is \\\\(x^2\\\\)? ::: \\\\[\\frac{a}{b}\\\\]",
    "Sum $\\sum_i x_i$ and &#92;(y&#92;)? ::: `\\(code\\)`",
]


@pytest.mark.parametrize("line", FIELDS)
def test_every_deck_field_of_an_accepted_item_passes_the_same_check(line):
    """What the parser accepts, the renderer turns into fields that pass the check itself: the
    text of the field, tags removed and references decoded, as MathJax reads it."""
    page, errors = parse(f"# T\n\n{line}\n")
    assert not errors, [str(e) for e in errors]
    for card in page.cards:
        for side in (card.front, card.back):
            field = markdown_html.render_markdown(side, target="anki")
            text = html.unescape(re.sub(r"<[^>]*>", "", field))
            assert "\\(" in text or "\\[" in text
            assert unsafe_tex_in_text(text) is None, text


def test_the_check_reads_what_the_renderer_emits():
    """The routes of #41 as the renderer emits them: the text MathJax sees holds the formula,
    which the check refuses."""
    for opening, closing in ROUTES[:2]:
        field = markdown_html.render_markdown(
            f"Q {opening}\\href{{javascript:x}}{{y}}{closing}", target="anki"
        )
        text = html.unescape(re.sub(r"<[^>]*>", "", field))
        assert unsafe_tex_in_text(text) == "\\href", text


# Raw HTML in a field is text in the deck: the renderer escapes it and decodes the character
# references in it, so a formula written inside a tag's attribute, a comment, ``<?...?>`` or
# CDATA reaches Anki's MathJax like any other text (#41's routes, hidden from the page's tokens,
# where that is HTML); so does one percent-encoded in an autolink.
HIDDEN = "&#92;(\\href{javascript:alert(document.domain)}{Click to reveal}&#92;)"
WRAPPERS = ['<x title="{}">', "<!-- {} -->", "<?x {} ?>", "<![CDATA[ {} ]]>"]
# An autolink's text is shown percent-decoded: %5C is a backslash in the field, none in the source.
AUTOLINKED = "<http://a.example/%5C(%5Chref{javascript:alert(1)}{click}%5C)>"
WRITTEN = [*(wrapper.format(HIDDEN) for wrapper in WRAPPERS), AUTOLINKED]
FIELDS_OF_ITEMS = {  # where the wrapped formula is written, and that line
    "card front": ("# T\n\nIs {} a tag? ::: yes\n", 3),
    "card back": ("# T\n\nWhich tag opens a draft note? ::: {}\n", 3),
    "question": (_quiz("E").replace("Which?", "Which {}?"), 4),
    "option": (_quiz("E").replace("[x] a", "[x] a {}"), 5),
    "explanation": (_quiz("{}"), 8),
    "explanation block": (_quiz("E").replace("   Because E.", "   {}"), 8),  # an HTML block
}


@pytest.mark.parametrize("written", WRITTEN)
@pytest.mark.parametrize("field", FIELDS_OF_ITEMS)
def test_tex_hidden_from_the_pages_tokens_in_a_card_or_quiz_is_an_error_at_its_line(written, field):
    field_html = markdown_html.render_markdown(written, target="anki")
    text = html.unescape(re.sub(r"<[^>]*>", "", field_html))
    assert unsafe_tex_in_text(text) == "\\href", text  # what the deck would hold
    page, line = FIELDS_OF_ITEMS[field]
    assert messages(page.replace("{}", written)) == [
        f"{PATH}:{line}: text that MathJax typesets as math (\\( \\), \\[ \\], \\begin{{}}) holds "
        "\\href: write math as $...$, within the allowed TeX commands"
    ]


@pytest.mark.parametrize(
    ("text", "line"),
    [
        # prose: the line where the formula opens, not the paragraph's first
        ("# T\n\nOne line,\ntwo lines,\nthen &#92;(\\href{javascript:x}{y}&#92;) here.\n", 5),
        ("# T\n\nOne line,\nthen &#92;(x +\n\\href{javascript:x}{y}&#92;) here.\n", 4),
        # code: a fence's first line of text is the one below the fence
        ("# T\n\n```text\nplain\n\\(\\href{javascript:x}{y}\\)\n```\n", 5),
        ("# T\n\n    plain\n    \\(\\href{javascript:x}{y}\\)\n", 4),
    ],
)
def test_a_problem_in_a_long_paragraph_or_code_block_is_reported_at_its_own_line(text, line):
    found = messages(text)
    assert len(found) == 1 and found[0].startswith(f"{PATH}:{line}: text that MathJax"), found
