"""The engine's stylesheets as the site serves them: without their comments and spare whitespace.

A page's stylesheets block its first paint, and ``course.css``, which every page loads, is
in large part comments (why each rule is there) and indentation. The sources keep both; the build
publishes the same rules in fewer bytes, as Material publishes its own stylesheets minified.

Read with tinycss2 (CSS Syntax's tokenizer), so strings, URLs and escapes stay as they are.
Each run of whitespace becomes one space, and goes where CSS never needs it: at the start and
end of a block, beside ``;``, ``,`` and a ``{}`` block, and after ``:`` (no selector has a
space there; before one, it is a descendant combinator). A space between two other tokens
stays: it may be a descendant combinator (``a b``) or separate two values (``0 auto``).
"""

from __future__ import annotations

from collections.abc import Iterable

import tinycss2
from tinycss2.ast import Node
from tinycss2.serializer import serialize_identifier


class StylesheetError(ValueError):
    """An engine stylesheet that CSS Syntax reads with an error: it is published as it is not."""


def minified(css: str, name: str) -> str:
    """``css`` (the stylesheet ``name``, for the error) in fewer bytes, with the same rules."""
    return _joined(tinycss2.parse_component_value_list(css, skip_comments=True), name)


def _joined(nodes: Iterable[Node], name: str) -> str:
    parts: list[str | None] = []  # None: a run of whitespace
    for node in nodes:
        if node.type == "error":
            raise StylesheetError(f"{name}:{node.source_line}: {node.message}")
        if node.type == "whitespace":
            if parts and parts[-1] is not None:
                parts.append(None)
            continue
        parts.append(_text(node, name))
    kept = []
    for i, part in enumerate(parts):
        if part is not None:
            kept.append(part)
        elif 0 < i < len(parts) - 1 and not (
            _tight(parts[i - 1]) or parts[i - 1] == ":" or _tight(parts[i + 1])
        ):
            kept.append(" ")
    return "".join(kept)


def _tight(part: str | None) -> bool:
    """Whether no whitespace is needed beside this token: ``;``, ``,`` or a ``{}`` block."""
    return part in (";", ",") or (part is not None and part.startswith("{"))


def _text(node: Node, name: str) -> str:
    if node.type == "{} block":
        return "{" + _joined(node.content, name) + "}"
    if node.type == "() block":
        return "(" + _joined(node.content, name) + ")"
    if node.type == "[] block":
        return "[" + _joined(node.content, name) + "]"
    if node.type == "function":
        return serialize_identifier(node.name) + "(" + _joined(node.arguments, name) + ")"
    return tinycss2.serialize([node])
