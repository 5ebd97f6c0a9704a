"""The benchmarks a course declares in its ``benchmarks`` setting, resolved to what the engine runs.

The engine knows no benchmark of its own. A course names each one in its ``mkdocs.yml``::

    benchmarks:
      NAME:
        views: snippets.NAME_VIEWS:VIEWS          # module:attr, a mapping of view name -> View
        code_hash: snippets.HASHING:code_hash     # module:function(entry, root) -> sha256, files
        files:                                    # one entry per kind of results file
          cpu: {code: snippets/NAME.py, schema: ..., regenerate: "..."}
        assets:                                   # page files of its views, if they need any
          - {file: snippets/NAME_VIEWS/chooser.js, drives: form.chooser}

A results file's kind is the device type its provenance names (``cpu``, ``cuda``, or what the
course makes up, such as ``traced``); the kinds' order is the order the views show the files in.
``code`` is the measuring code whose hash decides staleness, ``schema`` the JSON Schema the file
must meet, ``regenerate`` the command that makes the file again, and ``made`` the word a stale
notice uses for how it was made (``measured`` unless given). ``assets`` are the stylesheets and
scripts the views' HTML needs in the browser, each a file of the course and the CSS selector of
the element it drives: the site serves it at ``assets/`` plus its file name, on the pages holding
that element only (:mod:`tools.plugin.assets`).

:func:`declare` checks an entry's shape (``check`` and the plugin's settings call it, through
:func:`problem`); :func:`resolve` imports what it names when an embed needs it. A course's
modules are imported by name; a top-level package that is not importable is looked for in the
course's folder, so ``mkdocs build`` (whose path lacks that folder) finds it without any
``sys.path`` edit.
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import importlib.util
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import ModuleType
from typing import Any

from selectolax.lexbor import LexborHTMLParser, SelectolaxError

from .errors import BenchmarkError

SETTING = "plugins.course.benchmarks"  # how messages name the setting
_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
_TARGET = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*$")
_ENTRY_KEYS = {"views", "code_hash", "files", "results", "assets"}
_FILE_KEYS = {"code", "schema", "regenerate", "made"}
_ASSET_KEYS = {"file", "drives"}
_ASSET_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*\.(css|js)$")  # its site path: assets/NAME
# A selector of tags, classes, ids and attributes, combined; nothing a page's markup could hold.
_SELECTOR = re.compile(r"^[A-Za-z0-9_\-.#\[\]=:>+~*()'\" ,]+$")


@dataclass(frozen=True)
class FileKind:
    """One kind of results file of a benchmark: what makes it, and the format it must have."""

    kind: str
    code: Path  # relative to the course root: its hash decides whether a file is stale
    schema: Path  # relative to the course root
    regenerate: str  # the command that makes this kind of file again
    made: str = "measured"


@dataclass(frozen=True)
class PageAsset:
    """A stylesheet or script of a benchmark's views, and the element it drives (a selector)."""

    file: Path  # relative to the course root
    drives: str

    @property
    def site_path(self) -> str:
        return f"assets/{self.file.name}"


@dataclass(frozen=True)
class View:
    """One ``::: benchmark NAME VIEW``: the function that draws it from the files it shows.

    ``kinds`` are the kinds of file it is handed; ``needs`` a kind without whose file the embed
    is an error naming that kind's command; ``notices`` whether stale files get their notice
    above it (a view that shows no measured number has none to warn about)."""

    render: Callable[[list[Any]], str]
    kinds: tuple[str, ...]
    needs: str = ""
    notices: bool = True


@dataclass(frozen=True)
class Declared:
    """One entry of the setting, as the course wrote it, and the line of ``mkdocs.yml`` it is on."""

    name: str
    views: str  # "module:attr"
    code_hash: str  # "module:function"
    files: tuple[FileKind, ...]
    results: PurePosixPath  # the folder of its results files, relative to the course root
    file: str
    line: int
    assets: tuple[PageAsset, ...] = ()

    def kind(self, name: str) -> FileKind | None:
        return next((f for f in self.files if f.kind == name), None)


@dataclass(frozen=True)
class Benchmark:
    """A declared benchmark with its views and hash function imported."""

    declared: Declared
    views: Mapping[str, View]
    code_hash: Callable[[Path, Path], dict[str, Any]]


class RegistryError(BenchmarkError):
    """An entry of the ``benchmarks`` setting cannot be used; it knows its ``mkdocs.yml`` line."""

    def __init__(self, declared: Declared, key: str, message: str) -> None:
        super().__init__(f"{SETTING}.{declared.name}.{key}: {message}")
        self.file, self.line = declared.file, declared.line


def problem(value: Any) -> str | None:
    """What is wrong with the shape of the whole setting (None: nothing)."""
    for name, entry in value.items():
        found = _entry_problem(name, entry)
        if found:
            return f"{name}: {found}"
    names = [PurePosixPath(a["file"]).name for e in value.values() for a in e.get("assets", [])]
    twice = sorted({name for name in names if names.count(name) > 1})
    return f"assets: two files named {twice[0]} would be one file of the site" if twice else None


def _entry_problem(name: Any, entry: Any) -> str | None:
    if not isinstance(name, str) or not _NAME.match(name):
        return "a benchmark's name uses a-z, 0-9, - and _, starting with a letter"
    if not isinstance(entry, dict):
        return "must be a mapping with views, code_hash and files"
    unknown = sorted(map(str, set(entry) - _ENTRY_KEYS))
    if unknown:
        return f"unknown keys {unknown} (an entry has {sorted(_ENTRY_KEYS)})"
    for key in ("views", "code_hash"):
        if not isinstance(entry.get(key), str) or not _TARGET.match(entry[key]):
            return f"{key} must be 'module:attribute'"
    files = entry.get("files")
    if not isinstance(files, dict) or not files:
        return "files must map each kind of results file (its device type) to its code"
    for kind, spec in files.items():
        if not isinstance(spec, dict) or {"code", "schema", "regenerate"} - set(spec):
            return f"files.{kind} needs code, schema and regenerate"
        if set(spec) - _FILE_KEYS or not all(isinstance(v, str) and v for v in spec.values()):
            return f"files.{kind}: only {sorted(_FILE_KEYS)}, each a non-empty string"
        for key in ("code", "schema"):
            if not _inside(spec[key]):
                return f"files.{kind}.{key}: {spec[key]!r} must be a path inside the course"
    if "results" in entry and not (isinstance(entry["results"], str) and _inside(entry["results"])):
        return "results must be a folder inside the course"
    return _assets_problem(entry.get("assets", []))


def _assets_problem(assets: Any) -> str | None:
    if not isinstance(assets, list):
        return "assets must be a list of {file, drives}"
    for number, asset in enumerate(assets):
        where = f"assets[{number}]"
        if not isinstance(asset, dict) or set(asset) != _ASSET_KEYS:
            return f"{where} needs file and drives, nothing else"
        file, drives = asset["file"], asset["drives"]
        if not isinstance(file, str) or not _inside(file):
            return f"{where}.file: {file!r} must be a path inside the course"
        if not _ASSET_NAME.match(PurePosixPath(file).name):
            return f"{where}.file: {file!r} must be a .css or .js file named with a-z, 0-9, - and _"
        if not isinstance(drives, str) or not _SELECTOR.match(drives) or not _parses(drives):
            return f"{where}.drives: {drives!r} must be a CSS selector (tags, classes, ids, ...)"
    return None


def _parses(selector: str) -> bool:
    """Whether the parser that picks each page's assets can use ``selector``."""
    try:
        LexborHTMLParser("<p></p>").css_first(selector)
    except SelectolaxError:
        return False
    return True


def missing_asset(value: dict, root: Path) -> tuple[str, str] | None:
    """The first benchmark of the setting (already checked by :func:`problem`) whose assets name
    a file the course lacks, with that file; None when every one is there."""
    for name, entry in value.items():
        for asset in entry.get("assets", []):
            if not (root / asset["file"]).is_file():
                return name, asset["file"]
    return None


def _inside(path: str) -> bool:
    pure = PurePosixPath(path)
    return bool(path) and not pure.is_absolute() and ".." not in pure.parts


def declare(name: str, entry: dict, *, results: str, file: str, line: int) -> Declared:
    """An entry already checked by :func:`problem`; ``results`` is the folder used when the
    entry names none (the course's ``docs_dir``/benchmarks)."""
    files = tuple(
        FileKind(str(kind), Path(spec["code"]), Path(spec["schema"]), spec["regenerate"],
                 spec.get("made", "measured"))
        for kind, spec in entry["files"].items()
    )  # fmt: skip
    folder = PurePosixPath(entry.get("results", results))
    assets = tuple(PageAsset(Path(a["file"]), a["drives"]) for a in entry.get("assets", []))
    return Declared(name, entry["views"], entry["code_hash"], files, folder, file, line, assets)


def resolve(declared: Declared, root: Path) -> Benchmark:
    """The entry's views and hash function, imported; a :class:`RegistryError` naming the setting
    when either does not import or is not what the engine calls."""
    views = _load(declared, "views", root)
    if not isinstance(views, Mapping) or not all(isinstance(v, View) for v in views.values()):
        raise RegistryError(declared, "views", f"{declared.views} is not a mapping of View")
    kinds = {f.kind for f in declared.files}
    for view_name, view in views.items():
        unknown = sorted((set(view.kinds) | ({view.needs} - {""})) - kinds)
        if unknown:
            raise RegistryError(
                declared, "views", f"view {view_name!r} shows kinds {unknown} that files lacks"
            )
    code_hash = _load(declared, "code_hash", root)
    if not callable(code_hash):
        raise RegistryError(declared, "code_hash", f"{declared.code_hash} is not a function")
    return Benchmark(declared, views, code_hash)


def _load(declared: Declared, key: str, root: Path) -> Any:
    try:
        return import_target(getattr(declared, key), root)
    except ImportError as exc:
        raise RegistryError(declared, key, str(exc)) from exc


def target_problem(value: str) -> str | None:
    """What is wrong with a ``module:function`` setting's value (None: nothing)."""
    return None if _TARGET.match(value) else "must be 'module:function'"


def function_problem(target: str, root: Path) -> str | None:
    """Why ``module:function`` of the course at ``root`` would not give a function (None: it
    would), read from the module's source without running it: a setting checked on every load
    of the settings costs no import of the course's code, which runs only where it is used."""
    module_name, attr = target.split(":")
    top = module_name.split(".")[0]
    try:
        if (root / top).is_dir():
            _import(top, root)  # the course's package, found as import_target finds it
        spec = importlib.util.find_spec(module_name)
    except Exception as exc:  # any error of the course's packages: name it
        return f"cannot import {module_name!r} ({type(exc).__name__}: {exc})"
    if spec is None or not spec.origin or not Path(spec.origin).is_file():
        return f"cannot import {module_name!r} (no such module)"
    try:
        tree = ast.parse(Path(spec.origin).read_text("utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError) as exc:
        return f"cannot import {module_name!r} ({type(exc).__name__}: {exc})"
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == attr:
            return None
        if isinstance(node, ast.ImportFrom) and attr in {a.asname or a.name for a in node.names}:
            return None  # a function of another module, perhaps: its use will tell
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.ClassDef) and attr in _bound(node):
            return f"{target} is not a function"
    return f"{module_name!r} has no {attr!r}"


def _bound(node: ast.Assign | ast.AnnAssign | ast.ClassDef) -> set[str]:
    """The top-level names an assignment or a class statement binds."""
    if isinstance(node, ast.ClassDef):
        return {node.name}
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return {t.id for t in targets if isinstance(t, ast.Name)}


def import_target(target: str, root: Path) -> Any:
    """``module:attr`` of the course at ``root`` (see :func:`_import`); an ImportError that says
    what failed, for the caller to put beside the setting that named it."""
    module_name, attr = target.split(":")
    try:
        module = _import(module_name, root)
    except Exception as exc:  # any error of the course's module: name it
        raise ImportError(f"cannot import {module_name!r} ({type(exc).__name__}: {exc})") from exc
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ImportError(f"{module_name!r} has no {attr!r}") from None


def _import(module_name: str, root: Path) -> ModuleType:
    """``module_name``; its top-level package from the course's folder when not importable."""
    top = module_name.split(".")[0]
    folder = (root / top).resolve()
    if top not in sys.modules and importlib.util.find_spec(top) is None and folder.is_dir():
        init = folder / "__init__.py"
        if init.is_file():
            spec = importlib.util.spec_from_file_location(
                top, init, submodule_search_locations=[str(folder)]
            )
        else:  # a namespace package, as Python makes one for a folder without __init__.py
            spec = importlib.machinery.ModuleSpec(top, None, is_package=True)
            spec.submodule_search_locations = [str(folder)]
        package = importlib.util.module_from_spec(spec)
        sys.modules[top] = package
        try:
            if init.is_file():
                spec.loader.exec_module(package)
        except BaseException:
            del sys.modules[top]
            raise
    return importlib.import_module(module_name)
