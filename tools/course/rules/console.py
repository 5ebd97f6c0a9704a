"""Console examples: a top-level ```` ```console ```` fence whose first line is ``$ command``."""

from __future__ import annotations

from markdown_it.token import Token

from ..model import ConsoleExample
from .source import PageState, Source


def block(state: PageState, index: int) -> None:
    token = state.tokens[index]
    if token.info.strip() != "console":
        return
    example = _console_example(state.src, token)
    if example:
        state.page.examples.append(example)


def _console_example(src: Source, fence: Token) -> ConsoleExample | None:
    assert fence.map is not None
    command, _, output = fence.content.partition("\n")
    if not command.startswith("$ "):
        return None
    return ConsoleExample(command[2:].strip(), output.rstrip("\n"), src.at(fence.map[0] + 1))
