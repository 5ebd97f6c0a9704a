"""What makes a course this course: the ``course`` plugin's settings in its ``mkdocs.yml``.

The engine in ``tools/`` serves any course laid out like this one (``mkdocs.yml`` beside its
``docs_dir``). Everything that names or identifies one course lives in its ``mkdocs.yml``, so a
second course reuses the engine unchanged::

    site_url: https://example.org/course/      # absolute links in the deck's notes
    plugins:
      - search
      - course:
          deck_name: My Course                   # Anki's top deck; note type names start with it
          deck_file: downloads/my-course.apkg    # where the site offers the deck
          guid_namespace: my-course              # NEVER change it: every note's identity
          note_type_ids: {basic: 1734861301, choice: 1734861302}  # NEVER change them either
          languages: [en, ur]                    # languages a quiz may be written in
          active_files: [assets/course.js]       # the only .js/.html/.svg/.xml files of docs/
          benchmarks: {...}                      # what ::: benchmark NAME VIEW may embed
          deck_templates: deck                   # the note templates' folder (the default)

The settings are declared once, in :data:`SETTINGS` (type, default, a help line and the check of
each value). :func:`load` validates them here for ``check`` and the parser, which import no
MkDocs; the plugin's MkDocs schema (:mod:`tools.plugin.settings`) is made from the same table,
so ``mkdocs build`` refuses an unknown or mistyped setting with MkDocs' own error.

``guid_namespace`` and ``note_type_ids`` are identities, not names: Anki matches a learner's notes
and note types by them on every import, so changing either orphans every learner's history.
They are required, never derived from the deck name, so that renaming a course keeps them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from ..benchmarks import registry as benchmark_registry
from ..buildkit import buildinfo
from . import sanitize, yaml_problems
from .model import LANGUAGES, CourseConfig, CourseError, Location

CONFIG_FILE = "mkdocs.yml"
PLUGIN = "course"  # the plugin's name in mkdocs.yml (its entry point in pyproject.toml)
WHERE = f"plugins.{PLUGIN}"  # how messages name a setting: plugins.course.deck_file
# The note types' fields, which their templates may name. Changing them (names, number or order)
# under the same note_type_ids makes every learner's note "conflicting" on import: new fields
# need new ids (tools/anki/deck.py says more; tests/test_deck.py pins the fields to the ids).
NOTE_FIELDS = {
    "basic": ("Front", "Back", "Source", "Extra"),
    "choice": ("Question", "Options", "Answer", "Explanation", "Source"),
}
NOTE_TYPES = tuple(NOTE_FIELDS)
# The files of the course's ``deck_templates`` folder: each note type's two card sides, and the
# cards' stylesheet. The course's, not the engine's: another course styles its cards its own way.
DECK_TEMPLATES = (
    "basic.front.html",
    "basic.back.html",
    "choice.front.html",
    "choice.back.html",
    "cards.css",
)
_NAMESPACE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


class _Loader(yaml.SafeLoader):
    """mkdocs.yml may hold MkDocs-specific tags (``!!python/name:``); their values do not matter
    here, and a safe loader must not build them."""


class _FastLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """:class:`_Loader` on libyaml's parser, where PyYAML was built with it: the same values."""


for _loader in (_Loader, _FastLoader):
    _loader.add_multi_constructor("", lambda loader, suffix, node: None)


@functools.lru_cache(maxsize=4)
def parse_yaml(text: str) -> Any:
    """One version of ``mkdocs.yml``, parsed once however many checks read it (the settings,
    the docs folder, the theme's strings, the deck's identity), keyed on the text itself, so
    an edit is parsed afresh. Callers only read the result. Text that is not YAML raises the
    pure-Python parser's ``yaml.YAMLError``: its wording and line are what messages show."""
    try:
        return yaml.load(text, Loader=_FastLoader)
    except yaml.YAMLError:
        return yaml.load(text, Loader=_Loader)


def yaml_nodes(text: str) -> yaml.Node | None:
    """``mkdocs.yml``'s text as PyYAML's nodes, which know their lines (its values do not)."""
    return yaml.compose(text, Loader=_FastLoader)


def _site_path(suffix: str) -> Callable[[Any], str | None]:
    def check(value: str) -> str | None:
        path = PurePosixPath(value)
        if path.is_absolute() or ".." in path.parts:
            return f"{value!r} must stay inside the site"
        return None if value.endswith(suffix) else f"{value!r} must end in {suffix}"

    return check


def _namespace(value: str) -> str | None:
    return None if _NAMESPACE.match(value) else f"{value!r}: use a-z, 0-9, . _ -"


def _note_type_ids(ids: dict) -> str | None:
    if set(ids) != set(NOTE_TYPES) or not all(
        isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in ids.values()
    ):
        return f"needs positive ids for {NOTE_TYPES}"
    return None if len(set(ids.values())) == len(ids) else "each note type needs its own id"


def _languages(languages: list) -> str | None:
    unknown = [lang for lang in languages if lang not in LANGUAGES]
    return f"{unknown} unknown (the engine has: {list(LANGUAGES)})" if unknown else None


def _course_folder(value: str) -> str | None:
    path = PurePosixPath(value)
    if path.is_absolute() or ".." in path.parts:
        return f"{value!r} must be a folder of the course (a relative path inside it)"
    return None


def _paths(files: list) -> str | None:
    return None if all(isinstance(f, str) for f in files) else "must be a list of paths"


@dataclass(frozen=True)
class Setting:
    """One setting of the course plugin: its YAML type, whether a course must give it (else
    ``default``), a help line, and the check of a value of the right type (a problem, or None)."""

    name: str
    kind: type
    help: str
    required: bool = False
    default: Any = None
    check: Callable[[Any], str | None] | None = None

    def problem(self, value: Any) -> str | None:
        """What is wrong with ``value`` for this setting (None: nothing). ``bool`` is no int."""
        if not isinstance(value, self.kind) or isinstance(value, bool) or not value:
            if value in (None, "", [], {}) and not self.required:
                return None
            return f"missing, or not a {self.kind.__name__}"
        return self.check(value) if self.check else None


SETTINGS = (
    Setting("deck_name", str, "Anki's top deck; the note types' names start with it", True),
    Setting("deck_file", str, "where the site offers the deck (.apkg)", True,
            check=_site_path(".apkg")),
    Setting("guid_namespace", str, "every note's identity: never change it once published", True,
            check=_namespace),
    Setting("note_type_ids", dict, "Anki's ids of the basic and choice note types: never change",
            True, check=_note_type_ids),
    Setting("languages", list, "the languages a quiz may be written in", default=["en"],
            check=_languages),
    Setting("practice_download", str, "where the site offers the practice workspace (.zip)",
            default="", check=_site_path(".zip")),
    Setting("practice_bundle", str, "the course's function (module:function) that makes the "
            "practice zip's bytes; needed with practice_download", default="",
            check=benchmark_registry.target_problem),
    Setting("practice_cli", str, "the course's function (module:function) that "
            "`python3 -m tools practice ARGS` calls with ARGS", default="",
            check=benchmark_registry.target_problem),
    Setting("active_files", list, "the only docs/ files that run in a browser (reviewed)",
            default=[], check=_paths),
    Setting("identity_migration", dict, "from: the identities being left; reason: why "
            "(tools/course/identity.py)", default={}),
    Setting("benchmarks", dict, "name -> views (module:attr), code_hash (module:function), "
            "files per kind: code, schema, regenerate, and the views' page assets: a list of "
            "file (.css or .js of the course) and drives (a CSS selector) "
            "(tools/benchmarks/registry.py)", default={}, check=benchmark_registry.problem),
    Setting("deck_templates", str, "the course's folder of note templates for the deck: "
            f"{', '.join(DECK_TEMPLATES)}", default="deck", check=_course_folder),
)  # fmt: skip


def plugin_settings(config: Any) -> dict | None:
    """The course plugin's settings in a parsed ``mkdocs.yml`` (``{}`` when it is listed without
    any); None when the plugin is not listed."""
    plugins = config.get("plugins") if isinstance(config, dict) else None
    entries = plugins.items() if isinstance(plugins, dict) else None
    if isinstance(plugins, list):
        entries = [
            next(iter(entry.items()))
            if isinstance(entry, dict) and len(entry) == 1
            else (entry, {})
            for entry in plugins
        ]
    for name, settings in entries or ():
        if name == PLUGIN:
            return settings if isinstance(settings, dict) else {}
    return None


def docs_dir(root: Path) -> str:
    """The course's ``docs_dir`` (MkDocs' default ``docs`` when unset or unreadable)."""
    try:
        config = parse_yaml((root / CONFIG_FILE).read_text("utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return "docs"
    value = config.get("docs_dir") if isinstance(config, dict) else None
    return value if isinstance(value, str) and value else "docs"


def _read(root: Path) -> tuple[str, dict, dict, int]:
    """``root/mkdocs.yml``: its text, the parsed file, the plugin's settings and the line of
    ``course:``; a :class:`CourseError` naming the file and line when it cannot be had."""
    path = root / CONFIG_FILE
    where = Location(CONFIG_FILE, 1)
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise CourseError(where, f"cannot read the course settings: {exc.strerror}") from exc
    try:
        config = parse_yaml(text) or {}
    except yaml.YAMLError as exc:
        line, problem = yaml_problems.located(exc)
        at = Location(CONFIG_FILE, line) if line else where
        raise CourseError(at, f"not valid YAML: {problem}") from exc
    course = plugin_settings(config)
    if course is None:
        moved = isinstance(config.get("extra"), dict) and "course" in config["extra"]
        raise CourseError(
            Location(CONFIG_FILE, _line_of(text, "course:", 1)) if moved else where,
            f"no '{PLUGIN}' plugin settings (deck name, GUID namespace, ...) under plugins:"
            + (": extra.course moved there" if moved else ""),
        )
    return text, config, course, _line_of(text, f"{PLUGIN}:", _line_of(text, "plugins:", 1))


def load(root: Path) -> CourseConfig:
    """The course's settings from ``root/mkdocs.yml``; a :class:`CourseError` naming the file,
    line and key when one is missing, unknown or malformed."""
    text, config, course, start = _read(root)

    def at(key: str) -> Location:
        """Where ``key`` is set (its first line after ``course:``), else the ``course:`` line."""
        return Location(CONFIG_FILE, _line_of(text, f"{key}:", start))

    known = {setting.name for setting in SETTINGS}
    for key in course:
        if key not in known:
            raise CourseError(
                at(str(key)), f"{WHERE}.{key}: unknown setting (the plugin has: {sorted(known)})"
            )
    values = {}
    for setting in SETTINGS:
        value = course.get(setting.name)
        problem = setting.problem(value)
        if problem:
            raise CourseError(at(setting.name), f"{WHERE}.{setting.name}: {problem}")
        values[setting.name] = value or setting.default
    missing = benchmark_registry.missing_asset(values["benchmarks"], root)
    if missing:
        name, file = missing
        where = Location(CONFIG_FILE, _line_of(text, "assets:", at(name).line))
        raise CourseError(
            where, f"{WHERE}.benchmarks.{name}.assets: {file!r}: no such file of the course"
        )
    _check_templates(root, values["deck_templates"], at("deck_templates"))
    docs = root / docs_dir(root)
    for key in ("deck_file", "practice_download"):
        if values[key] and (docs / values[key]).exists():
            raise CourseError(
                at(key),
                f"{WHERE}.{key}: {values[key]!r} names a file of {docs.name}/ that the build "
                "would replace with the download: choose another path",
            )
    if values["practice_download"] and not values["practice_bundle"]:
        raise CourseError(
            at("practice_download"),
            f"{WHERE}.practice_download: needs practice_bundle, the course's function "
            "(module:function) that makes the zip",
        )
    for key in ("practice_bundle", "practice_cli"):
        problem = values[key] and benchmark_registry.function_problem(values[key], root)
        if problem:
            raise CourseError(at(key), f"{WHERE}.{key}: {problem}")
    return CourseConfig(
        active_files=tuple(values["active_files"]),
        deck_name=values["deck_name"].strip(),
        deck_file=values["deck_file"],
        practice_download=values["practice_download"],
        guid_namespace=values["guid_namespace"],
        note_type_ids={key: int(values["note_type_ids"][key]) for key in NOTE_TYPES},
        languages=tuple(values["languages"]),
        site_url=str(config.get("site_url") or ""),
        deck_templates=values["deck_templates"],
    )


def _check_templates(root: Path, folder: str, where: Location) -> None:
    """A :class:`CourseError` at ``where`` unless ``root/folder`` holds every deck template."""
    name = f"{WHERE}.deck_templates"
    if not (root / folder).is_dir():
        raise CourseError(where, f"{name}: {folder!r}: no such folder of the course")
    for file in DECK_TEMPLATES:
        if not (root / folder / file).is_file():
            raise CourseError(
                where, f"{name}: {folder}/{file}: no such file (the deck's note templates)"
            )


def timestamp(root: Path, config: CourseConfig) -> int:
    """The time that stands for this version of the course (:func:`buildinfo.source_date_epoch`):
    outside git, its newest source of those its pages and notes are made of (its settings, its
    docs folder and its note templates)."""
    return buildinfo.source_date_epoch(root, (CONFIG_FILE, docs_dir(root), config.deck_templates))


def course_function(root: Path, key: str) -> str:
    """The ``module:function`` that the course at ``root`` names in setting ``key``
    (``practice_bundle``, ``practice_cli``); "" when it names none or its settings have a problem
    (:func:`load` reports it). Apart from :class:`CourseConfig`, which the deck's notes are
    dated by: the course's functions make no note."""
    try:
        value = _read(root)[2].get(key)
    except CourseError:
        return ""
    return value if isinstance(value, str) else ""


def benchmarks(root: Path) -> dict[str, benchmark_registry.Declared]:
    """The ``benchmarks`` setting of the course at ``root``: each entry with the line it starts
    on ({} when the settings have a problem: :func:`load` reports it). Apart from the rest of
    :class:`CourseConfig`, which the deck's notes are dated by: a benchmark is no note."""
    try:
        text, _, course, start = _read(root)
    except CourseError:
        return {}
    declared = course.get("benchmarks") or {}
    if not isinstance(declared, dict) or benchmark_registry.problem(declared):
        return {}
    line = _line_of(text, "benchmarks:", start)
    return {
        name: benchmark_registry.declare(
            name, entry, results=f"{docs_dir(root)}/benchmarks", file=CONFIG_FILE,
            line=_line_of(text, f"{name}:", line),
        )
        for name, entry in declared.items()
    }  # fmt: skip


# Settings the theme prints into every page. Material writes most of them into HTML unescaped
# (a site_description of '">' leaves its <meta>), so they are content, held to these rules:
# the copyright and the cookie notice's description may hold the prose allow-list's HTML;
# these are addresses a click follows (http(s), mailto or on the site); every other string
# under theme, extra and these top-level keys is plain text.
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
        config = parse_yaml(text) or {}
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
        if path[:2] in {("extra", k) for k in _REFUSED_EXTRA}:
            continue  # refused above
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
