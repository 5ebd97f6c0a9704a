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

from tools.course import sanitize
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
    if practice and not practice.endswith(".zip"):
        raise CourseError(
            at("practice_download"),
            f"extra.course.practice_download {practice!r} must end in .zip",
        )
    docs = root / str(config.get("docs_dir") or "docs")
    for key, download in (("deck_file", deck_file), ("practice_download", practice)):
        if download and (docs / download).exists():
            raise CourseError(
                at(key),
                f"extra.course.{key} {download!r} names a file of {docs.name}/ that the build "
                "would replace with the download: choose another path",
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


# Settings the theme prints into every page. Material writes most of them into HTML unescaped
# (a site_description of '">' leaves its <meta>), so they are content, held to these rules:
# the copyright and the cookie notice's description may hold the prose allow-list's HTML;
# these are addresses a click follows (http(s), mailto or on the site); every other string
# under theme, extra (except extra.course) and these top-level keys is plain text.
_HTML_SETTINGS = {("copyright",), ("extra", "consent", "description")}
_ADDRESS_KEYS = {"homepage", "link", "repo_url", "edit_uri", "site_url", "logo", "favicon"}
_TEXT_SETTINGS = ("site_name", "site_description", "site_author", "repo_name", "copyright",
                  "repo_url", "edit_uri", "site_url", "theme", "extra")  # fmt: skip
_MARKUP = re.compile(r"[<>\"`\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Off-site requests on every page, whatever their settings: the site loads nothing from elsewhere.
_REFUSED_EXTRA = {
    "analytics": "extra.analytics makes every page load an off-site tag manager and report to it",
}


def theme_problems(root: Path) -> list[CourseError]:
    """Every theme or ``extra`` setting of ``root/mkdocs.yml`` that could put markup, a script
    address or an off-site request into the site's pages, each at its line (none when the file
    cannot be read: :func:`load` reports that)."""
    try:
        text = (root / CONFIG_FILE).read_text("utf-8")
        config = yaml.load(text, Loader=_Loader) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return []
    if not isinstance(config, dict):
        return []
    found = []
    extra = config.get("extra") or {}
    for key, why in _REFUSED_EXTRA.items():
        if isinstance(extra, dict) and extra.get(key) is not None:
            found.append(
                CourseError(_where(text, key), f"{why}: remove it (the site stays offline)")
            )
    stack = [((key,), config.get(key)) for key in reversed(_TEXT_SETTINGS)]
    while stack:
        path, value = stack.pop()
        if path[:2] == ("extra", "course") or path[:2] in {("extra", k) for k in _REFUSED_EXTRA}:
            continue  # the engine's own settings, checked by load(); refused above
        if isinstance(value, dict):
            stack += reversed([((*path, str(k)), v) for k, v in value.items()])
        elif isinstance(value, list):
            stack += reversed([((*path, str(i)), v) for i, v in enumerate(value)])
        elif isinstance(value, str):
            problem = _setting_problem(path, value)
            if problem:
                named = [p for p in path if not p.isdigit()]
                at = Location(CONFIG_FILE, _line_of_path(text, named))
                found.append(CourseError(at, f"{'.'.join(named)} {value[:60]!r}: {problem}"))
    return found


def _setting_problem(path: tuple[str, ...], value: str) -> str | None:
    if tuple(p for p in path if not p.isdigit()) in _HTML_SETTINGS:
        found = sanitize.problems(value)
        return f"{found[0]} (it is printed as HTML on every page)" if found else None
    if path[-1] in _ADDRESS_KEYS:
        if _MARKUP.search(value) or not sanitize.url_allowed("href", value):
            return "an address must be http(s), mailto or a path on the site"
        if path[-1] in ("logo", "favicon") and sanitize.off_site(value):
            return "the page loads it: it must be a file of the site"
        return None
    if _MARKUP.search(value):
        return 'the theme prints it into HTML unescaped: write it without <, >, " or `'
    return None


def _where(text: str, key: str) -> Location:
    return Location(CONFIG_FILE, _line_of(text, f"{key}:", 1))


def _line_of_path(text: str, keys: list[str]) -> int:
    """The line of the last of ``keys``, each looked for from the line of the one before."""
    line = 1
    for key in keys:
        line = _line_of(text, f"{key}:", line)
    return line


def _line_of(text: str, needle: str, start: int) -> int:
    """The first line from line ``start`` on that begins with ``needle``; else ``start``."""
    for number, line in enumerate(text.splitlines()[start - 1 :], start):
        if line.strip().removeprefix("- ").startswith(needle):
            return number
    return start
