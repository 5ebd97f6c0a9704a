"""What every rule reads and writes: the page's source lines, its tokens, the page being built,
and the problems found so far (collected, not raised, so one run reports them all)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from markdown_it.token import Token

from ..model import CourseError, Location, Page, SiteSyntax


class Source:
    """One file's lines plus helpers to name a place in it."""

    def __init__(self, path: str, lines: list[str], languages: Iterable[str]) -> None:
        self.path = path
        self.lines = lines
        self.languages = tuple(languages)  # those a quiz of this course may be written in
        self.errors: list[CourseError] = []

    def at(self, line0: int) -> Location:
        return Location(self.path, line0 + 1)

    def error(self, line0: int, message: str) -> None:
        self.errors.append(CourseError(self.at(line0), message))


@dataclass
class PageState:
    """One page while the rules run over it."""

    src: Source
    tokens: list[Token]
    page: Page
    syntax: SiteSyntax
