"""The course adds as few elements to a page as its formulas need (tools/render/mathml_trim.py):
an ``<mrow>`` that is all of a ``<math>`` or ``<msqrt>`` is left out, nothing else."""

from __future__ import annotations

import re

import pytest
from mkdocs_course.render.mathml import tex_to_mathml
from mkdocs_course.render.mathml_trim import without_inferred_rows


@pytest.mark.parametrize(
    ("mathml", "expected"),
    [
        (
            "<math><mrow><mi>x</mi><mo>+</mo><mn>1</mn></mrow></math>",
            "<math><mi>x</mi><mo>+</mo><mn>1</mn></math>",
        ),
        (
            '<math d="1"><mrow><msqrt><mrow><mi>L</mi><mo>/</mo><mi>c</mi></mrow></msqrt>'
            "</mrow></math>",
            '<math d="1"><msqrt><mi>L</mi><mo>/</mo><mi>c</mi></msqrt></math>',
        ),
        # two rows, a row beside text, rows that a fraction or a script needs: all kept
        ("<math><mrow><mi>a</mi></mrow><mrow><mi>b</mi></mrow></math>", None),
        ("<math>x<mrow><mi>a</mi></mrow></math>", None),
        ("<mfrac><mrow><mi>a</mi><mi>b</mi></mrow><mrow><mn>2</mn></mrow></mfrac>", None),
        ("<msup><mrow><mi>a</mi><mi>b</mi></mrow><mn>2</mn></msup>", None),
        (
            "<math><mrow><mspace width='1em'/><mi>x</mi></mrow></math>",
            "<math><mspace width='1em'/><mi>x</mi></math>",
        ),
    ],
)
def test_only_rows_that_are_all_of_a_math_or_a_root_go(mathml, expected):
    assert without_inferred_rows(mathml) == (mathml if expected is None else expected)


def test_a_formula_keeps_its_text_and_loses_its_outer_row():
    mathml = tex_to_mathml(r"\sqrt{L / c} + \frac{a}{b}")
    assert re.search(r"<math[^>]*><msqrt><mi>L</mi>", mathml), mathml  # no row around either
    assert re.sub(r"<[^>]+>", "", mathml) == "L/c+ab"
    assert mathml.count("<mrow>") == mathml.count("</mrow>") == 2  # the fraction's, kept


def test_a_formula_carries_no_attribute_that_html_gives_it_anyway():
    """No xmlns (the HTML parser puts <math> in MathML's namespace) and no display="inline"
    (the default); a displayed formula still says so."""
    inline, block = tex_to_mathml("x^2"), tex_to_mathml("x^2", display=True)
    assert inline.startswith('<math dir="ltr"><msup>'), inline
    assert block.startswith('<math dir="ltr" display="block"><msup>'), block
    labelled = tex_to_mathml("a", labelled=True)
    assert labelled == (
        '<span role="math" aria-label="a"><math dir="ltr" alttext="a"><mi>a</mi></math></span>'
    )
