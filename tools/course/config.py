"""What makes a course this course: read from ``extra.course`` in the course's ``mkdocs.yml``.

The engine in ``tools/`` serves any course laid out like this one (``mkdocs.yml`` beside
``docs/``). Everything that names or identifies one course lives in its ``mkdocs.yml``, so a
second course reuses the engine unchanged::

    site_url: https://example.org/course/      # absolute links in the deck's notes
    extra:
      course:
        deck_name: My Course                   # Anki's top deck; note type names start with it
        deck_file: downloads/my-course.apkg    # where the site offers the deck
        guid_namespace: my-course              # NEVER change it: every note's identity
        note_type_ids: {basic: 1734861301, choice: 1734861302}  # NEVER change them either
        languages: [en, ur]                    # languages a quiz may be written in
        active_files: [assets/course.js]       # the only .js/.html/.svg/.xml files of docs/

``guid_namespace`` and ``note_type_ids`` are identities, not names: Anki matches a learner's notes
and note types by them on every import, so changing either orphans every learner's history.
They are required, never derived from the deck name, so that renaming a course keeps them.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

import yaml

from tools.course.model import LANGUAGES, CourseConfig, CourseError, Location

CONFIG_FILE = "mkdocs.yml"
NOTE_TYPES = ("basic", "choice")
_NAMESPACE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


class _Loader(yaml.SafeLoader):
    """mkdocs.yml may hold MkDocs-specific tags (``!!python/name:``); their values do not matter
    here, and a safe loader must not build them."""


_Loader.add_multi_constructor("", lambda loader, suffix, node: None)


def load(root: Path) -> CourseConfig:
    """The course's settings from ``root/mkdocs.yml``; a :class:`CourseError` naming the file,
    line and key when one is missing or malformed."""
    path = root / CONFIG_FILE
    where = Location(CONFIG_FILE, 1)
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise CourseError(where, f"cannot read the course settings: {exc.strerror}") from exc
    try:
        config = yaml.load(text, Loader=_Loader) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = Location(CONFIG_FILE, mark.line + 1) if mark else where
        raise CourseError(at, f"not valid YAML: {getattr(exc, 'problem', exc)}") from exc
    course = (config.get("extra") or {}).get("course")
    if not isinstance(course, dict):
        raise CourseError(where, "no 'extra: course:' settings (deck name, GUID namespace, ...)")
    start = _line_of(text, "course:", 1)

    def at(key: str) -> Location:
        """Where ``key`` is set (its first line after ``course:``), else the ``course:`` line."""
        return Location(CONFIG_FILE, _line_of(text, f"{key}:", start))

    def required(key: str, kind: type) -> object:
        value = course.get(key)
        if not isinstance(value, kind) or not value:
            raise CourseError(at(key), f"extra.course.{key} is missing or not a {kind.__name__}")
        return value

    deck_name = str(required("deck_name", str)).strip()
    deck_file = str(required("deck_file", str))
    if PurePosixPath(deck_file).is_absolute() or ".." in PurePosixPath(deck_file).parts:
        raise CourseError(
            at("deck_file"), f"extra.course.deck_file {deck_file!r} must stay inside the site"
        )
    if not deck_file.endswith(".apkg"):
        raise CourseError(
            at("deck_file"), f"extra.course.deck_file {deck_file!r} must end in .apkg"
        )
    namespace = str(required("guid_namespace", str))
    if not _NAMESPACE.match(namespace):
        raise CourseError(
            at("guid_namespace"), f"extra.course.guid_namespace {namespace!r}: use a-z, 0-9, . _ -"
        )
    ids = required("note_type_ids", dict)
    assert isinstance(ids, dict)
    if set(ids) != set(NOTE_TYPES) or not all(isinstance(v, int) and v > 0 for v in ids.values()):
        raise CourseError(
            at("note_type_ids"), f"extra.course.note_type_ids needs positive ids for {NOTE_TYPES}"
        )
    if len(set(ids.values())) != len(ids):
        raise CourseError(
            at("note_type_ids"), "extra.course.note_type_ids: each note type needs its own id"
        )
    languages = tuple(course.get("languages") or ("en",))
    unknown = [lang for lang in languages if lang not in LANGUAGES]
    if unknown:
        raise CourseError(
            at("languages"),
            f"extra.course.languages: {unknown} unknown (the engine has: {list(LANGUAGES)})",
        )
    practice = course.get("practice_download") or ""
    if not isinstance(practice, str) or (
        practice
        and (PurePosixPath(practice).is_absolute() or ".." in PurePosixPath(practice).parts)
    ):
        raise CourseError(
            at("practice_download"),
            f"extra.course.practice_download {practice!r} must be a path inside the site",
        )
    active = course.get("active_files") or []
    if not isinstance(active, list) or not all(isinstance(f, str) for f in active):
        raise CourseError(at("active_files"), "extra.course.active_files must be a list of paths")
    return CourseConfig(
        active_files=tuple(active),
        deck_name=deck_name,
        deck_file=deck_file,
        practice_download=practice,
        guid_namespace=namespace,
        note_type_ids={key: int(ids[key]) for key in NOTE_TYPES},
        languages=languages,
        site_url=str(config.get("site_url") or ""),
    )


def _line_of(text: str, needle: str, start: int) -> int:
    """The first line from line ``start`` on that begins with ``needle``; else ``start``."""
    for number, line in enumerate(text.splitlines()[start - 1 :], start):
        if line.strip().startswith(needle):
            return number
    return start
