"""The engine's stylesheets are served minified (tools/plugin/css_minify.py): the same rules in
fewer bytes, the sources keeping their comments."""

from __future__ import annotations

import pytest
import tinycss2
from mkdocs_course.plugin import assets
from mkdocs_course.plugin.css_minify import StylesheetError, minified

STYLESHEETS = sorted(assets.STATIC.rglob("*.css"))


def _tokens(nodes) -> list:
    """The stylesheet as nested tokens, each run of whitespace one ``" "``, without the ones
    CSS never needs (block edges, beside ``;``, ``,``, a ``{}`` block, after ``:``): what the
    minifier must keep, read from tinycss2's tree rather than from the minifier's text."""
    out: list = []
    for node in nodes:
        if node.type == "comment":
            continue
        if node.type == "whitespace":
            if out and out[-1] != " ":
                out.append(" ")
            continue
        if node.type in ("{} block", "() block", "[] block"):
            out.append((node.type, _tokens(node.content)))
        elif node.type == "function":
            out.append(("function", node.lower_name, _tokens(node.arguments)))
        else:
            out.append((node.type, tinycss2.serialize([node])))
    tight = [("literal", ";"), ("literal", ",")]

    def needed(i: int) -> bool:
        before, after = out[i - 1] if i else None, out[i + 1] if i + 1 < len(out) else None
        if before is None or after is None or before in tight or after in tight:
            return False
        return before != ("literal", ":") and "{} block" not in (before[0], after[0])

    return [token for i, token in enumerate(out) if token != " " or needed(i)]


@pytest.mark.parametrize("path", STYLESHEETS, ids=lambda path: path.name)
def test_each_engine_stylesheet_keeps_its_rules_in_fewer_bytes(path):
    source = path.read_text("utf-8")
    small = minified(source, path.name)
    assert len(small) < 0.9 * len(source)
    assert "/*" not in small
    read = tinycss2.parse_component_value_list
    assert _tokens(read(small)) == _tokens(read(source))
    assert minified(small, path.name) == small


@pytest.mark.parametrize(
    ("css", "expected"),
    [
        ("a :hover { color: red ; }", "a :hover{color:red;}"),  # a descendant's pseudo-class
        ("p { margin: 0  auto; width: calc(1em - 2px) }", "p{margin:0 auto;width:calc(1em - 2px)}"),
        ('q::before { content: "a ; b /* c */"; }', 'q::before{content:"a ; b /* c */";}'),
        ("@media screen and (max-width: 44em) {\n  a , b > c { x: url(a.png) }\n}", None),
        ("/* gone */ .\\31 0 { --gap: 0.4rem }", ".\\31 0{--gap:0.4rem}"),
    ],
)
def test_spaces_stay_where_css_reads_them(css, expected):
    small = minified(css, "x.css")
    if expected is None:
        expected = "@media screen and (max-width:44em){a,b > c{x:url(a.png)}}"
    assert small == expected


def test_a_stylesheet_css_reads_with_an_error_is_refused_with_its_line():
    with pytest.raises(StylesheetError, match=r"^broken\.css:3: "):
        minified("a {\n  b: c;\n  d: e) }\n", "broken.css")
