"""TeX by allow-list: formulas, and any text that Anki's MathJax would read as math, hold only
the TeX commands :func:`tools.course.model.unsafe_tex` allows."""

from __future__ import annotations

from ..model import unsafe_tex, unsafe_tex_in_text
from .source import PageState
from .tokens import inline_children


def rule(state: PageState) -> None:
    """Refuse TeX commands that carry links, styles, classes, HTML or Unicode escapes anywhere:
    in ``$...$`` math, and in any text Anki's MathJax would read as math once it is HTML
    (``\\\\(`` and ``&#92;(`` become ``\\(``; :func:`tools.course.model.unsafe_tex_in_text`),
    in every paragraph of prose, cards and quizzes, their explanations included, and in code."""
    formulas: list[tuple[str, int]] = []
    texts: list[tuple[str, int, bool]] = []  # (text, line, code: only closed formulas count)
    for token in state.tokens:
        if token.type.startswith("math_block") and token.map:
            formulas.append((token.content, token.map[0]))
        elif token.type in ("fence", "code_block") and token.map:
            texts.append((token.content, token.map[0], True))
        elif token.type == "inline" and token.map:
            text, start = "", token.map[0]
            for child, line0 in inline_children(token):
                if child.type.startswith("math_inline"):
                    formulas.append((child.content, line0))
                elif child.type == "code_inline":
                    texts.append((child.content, line0, True))
                else:
                    text += "\n" if child.type in ("softbreak", "hardbreak") else child.content
            texts.append((text, start, False))
    for tex, line0 in formulas:
        command = unsafe_tex(tex)
        if command:
            state.src.error(line0, f"TeX command \\{command} is not allowed in course math")
    for text, line0, code in texts:
        problem = unsafe_tex_in_text(text, unclosed=not code)
        if problem:
            state.src.error(
                line0,
                f"text that MathJax typesets as math (\\( \\), \\[ \\], \\begin{{}}) holds "
                f"{problem}: write math as $...$, within the allowed TeX commands",
            )
