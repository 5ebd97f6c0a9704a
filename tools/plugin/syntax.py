"""What the site's toolchain decides about the Markdown the course parser checks: the id a
heading gets, and which lines include a file.

The parser (:mod:`tools.course.parser`) checks every link and include with file and line before
the site is built, so it must read them as the site will; it imports no site generator, and is
handed :data:`MKDOCS` instead by whoever runs it (the CLI, the hook, the tests).

- Headings: Python-Markdown's toc gives each heading an ASCII slug, made unique on its page.
  An Urdu ``#`` heading gets the slug pymdownx.slugs gives (Unicode words kept, NFC, lower
  case), which the site writes into the heading, since the toc's ASCII slug of Urdu is empty;
  the site's toc keeps its default slugify for every other heading, whose anchors learners have.
- Includes: pymdownx.snippets' own line patterns and its own split of a target into file,
  lines and section, so the check and the site read the same includes of the same files.
- Page metadata: MkDocs' own front matter patterns; the theme prints some of it into the page.
"""

from __future__ import annotations

from markdown.extensions.toc import slugify, unique
from mkdocs.utils import meta
from pymdownx import slugs
from pymdownx.snippets import SnippetPreprocessor

from ..course.model import SiteSyntax

_urdu_slug = slugs.slugify(case="lower", normalize="NFC")


def heading_id(text: str, used: set[str]) -> str:
    """The toc's id of a heading whose plain text is ``text``, unique among ``used``."""
    return unique(slugify(text, "-"), used)


def urdu_heading_id(text: str) -> str:
    return _urdu_slug(text, "-")


def includes(lines: list[str]) -> list[tuple[int, str]]:
    """``(0-based line, include target)`` for every include in ``lines``, as pymdownx reads them."""
    out: list[tuple[int, str]] = []
    block = False
    for line0, line in enumerate(lines):
        match = SnippetPreprocessor.RE_ALL_SNIPPETS.match(line)
        if match and match.group("escape"):
            continue
        if match and match.group("block_marker"):
            block = not block
            continue
        if match and match.group("inline_marker") and not block:
            out.append((line0, match.group("snippet")[1:-1].strip()))
        elif block and line.strip() and not line.strip().startswith(";"):
            out.append((line0, line.strip()))
    return [(line0, target) for line0, target in out if not target.startswith(";")]


def include_target(spec: str) -> tuple[str, str | None] | None:
    """``(file, section)`` of an include's target as pymdownx.snippets splits it (a line range
    dropped, section None when it names none), or None when it names no file. Its own split, not
    a copy: ``path:2,`` is no line range of ``path`` to it but the file ``path:2,``, which a check
    that read it the other way would never look at."""
    # split_path reads only the class's patterns, so the class stands in for an instance.
    parts = SnippetPreprocessor.split_path(SnippetPreprocessor, spec)  # type: ignore[arg-type]
    file = "" if parts is None else parts[0].strip()
    if not file:
        return None
    return file, parts[2][1:] if parts[2] else None


def has_section(lines: list[str], name: str) -> bool:
    """Whether ``lines`` mark section ``name`` with both a start and an end line."""
    marks = {"start": False, "end": False}
    for line in lines:
        match = SnippetPreprocessor.RE_SNIPPET_SECTION.match(line) if "8<-" in line else None
        if match and not match.group("escape") and match.group("name") == name:
            marks[match.group("type").lower()] = True
    return marks["start"] and marks["end"]


def metadata(text: str) -> tuple[int, str | None]:
    """How many lines at the top of ``text`` MkDocs reads as the page's metadata, not Markdown,
    and their YAML: front matter from a first line ``---`` to a line ``---`` or ``...``, else
    MultiMarkdown-style ``Key: value`` lines up to a blank line (no YAML: None). MkDocs reads
    the file with newlines translated, as here."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if match := meta.YAML_RE.match(text):
        return text[: match.end()].count("\n"), match.group(1)
    body, data = meta.get_data(text)
    taken = text[: len(text) - len(body)]
    return (taken.count("\n") + (not taken.endswith("\n")) if data else 0), None


def reading_order(docs_path: str) -> tuple[tuple[int, tuple[bool, str] | str], ...]:
    """The key of a page (its path in the docs folder) in the order MkDocs reads the pages: the
    order ``mkdocs.structure.files.get_files`` walks the docs folder in, top-down, each folder's
    files (``index`` or ``README`` first, then by name) before its subfolders (by name)."""
    *folders, name = docs_path.split("/")
    stem = name.rsplit(".", 1)[0]
    return (*((1, folder) for folder in folders), (0, (stem not in ("index", "README"), name)))


MKDOCS = SiteSyntax(
    heading_id=heading_id,
    urdu_heading_id=urdu_heading_id,
    includes=includes,
    include_target=include_target,
    has_section=has_section,
    metadata=metadata,
    reading_order=reading_order,
)
