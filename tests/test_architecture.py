"""The engine's layers, read from its imports: no import cycle, and no import that points from a
lower layer to a higher one or into a library that belongs to another layer.

Layers, lowest first: ``buildkit`` (knows no course), ``course`` and ``benchmarks`` (the course as
data), ``render`` (safe HTML for both targets), then the deck ``anki``, then ``plugin`` (the
MkDocs plugin: the site), which starts the deck's job in its workers, and the CLI on top. (The
practice workspace is the course's own exercise, in ``snippets/practice/``: the engine only
calls the functions the course names.) Only ``plugin`` imports a site generator; only ``anki``
imports genanki. Every import counts, also one inside a function or under ``TYPE_CHECKING``: each
is a dependency a reader must follow. ``bootstrap`` and what it imports run before the virtual
environment exists, so they import the standard library only. Modules are named as installed
(``mkdocs_course.X`` for ``tools/X.py``), and import each other relatively: an absolute import of
the engine by either name is refused (CONTRIBUTING.md, "The import name").
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

MAY_IMPORT = {  # layer -> the layers of the engine it may import
    "buildkit": {"buildkit"},
    "benchmarks": {"benchmarks"},
    "course": {"buildkit", "course", "benchmarks"},
    "render": {"buildkit", "course", "render"},
    "anki": {"buildkit", "course", "render", "anki"},
    # The worker jobs it starts are functions it imports (the deck), so that edge is seen here
    # like any other.
    "plugin": {"buildkit", "course", "benchmarks", "render", "anki", "plugin"},
    "": {"", "buildkit", "course", "benchmarks", "render", "anki", "plugin"},  # cli
}
LIBRARIES = {  # library -> the only layers that may import it
    "mkdocs": {"plugin"},
    "material": {"plugin"},
    "markdown": {"plugin"},
    "pymdownx": {"plugin"},
    "genanki": {"anki"},
}
SOURCE = "tools"  # the engine's folder in the checkout
PACKAGE = "mkdocs_course"  # its import name once installed (pyproject.toml's package-dir)
BARE_PYTHON = (PACKAGE, f"{PACKAGE}.bootstrap")  # imported before .venv exists (python3 -m tools)


def modules(root: Path) -> dict[str, Path]:
    """Module name (as installed) -> file, for every module of the engine under ``root``."""
    found = {}
    for path in sorted((root / SOURCE).rglob("*.py")):
        parts = (PACKAGE, *path.relative_to(root / SOURCE).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Every module ``name`` imports: engine modules by name, libraries by their top name."""
    out: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            for alias in node.names:  # ``from .X import Y``: Y may be a module
                out.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return {
        _engine_module(m, known) if m.split(".")[0] == PACKAGE else m.split(".")[0] for m in out
    }


def absolute_imports(root: Path) -> list[str]:
    """Each import of the engine by an absolute name (``tools.X`` from the checkout's folder or
    ``mkdocs_course.X``) in an engine module, as ``module:line``: inside the package every import
    is relative, so the engine runs under whatever name it is installed as, and once only."""
    bad = []
    for name, path in sorted(modules(root).items()):
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            named = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and not node.level:
                named = [node.module or ""]
            if any(n.split(".")[0] in (SOURCE, PACKAGE) for n in named):
                bad.append(f"{name}:{node.lineno}")
    return bad


def _engine_module(name: str, known: dict[str, Path]) -> str:
    while name not in known and "." in name:
        name = name.rpartition(".")[0]
    return name


def layer(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 2 or f"{name}" in _PACKAGES else ""


_PACKAGES = {f"{PACKAGE}.{layer}" for layer in MAY_IMPORT if layer}


def graph(root: Path) -> dict[str, set[str]]:
    known = modules(root)
    return {name: imports(name, path, known) for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The engine's import cycles: strongly connected groups of two or more modules, or one
    module that imports itself (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in edges:
                continue  # a library
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in edges[node]:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def forbidden(edges: dict[str, set[str]]) -> list[str]:
    """Each import that breaks the layers, as ``importer -> imported``."""
    bad = []
    for name, targets in sorted(edges.items()):
        for target in sorted(targets):
            if target in edges:
                if layer(target) not in MAY_IMPORT[layer(name)]:
                    bad.append(f"{name} -> {target}")
            elif target in LIBRARIES and layer(name) not in LIBRARIES[target]:
                bad.append(f"{name} -> {target}")
    return bad


def not_bare(edges: dict[str, set[str]], start: tuple[str, ...]) -> list[str]:
    """Imports outside the standard library reached from ``start`` through engine modules."""
    seen, todo, bad = set(), list(start), []
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for target in sorted(edges[name]):
            if target in edges:
                todo.append(target)
            elif target not in sys.stdlib_module_names and target != "__future__":
                bad.append(f"{name} -> {target}")
    return bad


def test_the_engine_has_no_import_cycle():
    assert cycles(graph(ROOT)) == []


def test_no_import_points_up_or_into_another_layers_library():
    assert forbidden(graph(ROOT)) == []


def test_the_bootstrap_needs_only_the_standard_library():
    assert not_bare(graph(ROOT), BARE_PYTHON) == []


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in {"tools/__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    return root


def test_the_checks_find_a_planted_cycle_and_planted_forbidden_imports(tmp_path):
    root = _tree(
        tmp_path,
        {
            "tools/course/__init__.py": "",
            "tools/course/a.py": "from . import b\n",
            "tools/course/b.py": "def f():\n    from .a import x\n",
            "tools/course/c.py": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from ..plugin.page import P\nimport markdown.extensions\n",
            "tools/plugin/__init__.py": "",
            "tools/plugin/page.py": "from . import page\nimport genanki\n",
            "tools/bootstrap.py": "import os\nfrom .buildkit import facts\n",
            "tools/buildkit/__init__.py": "",
            "tools/buildkit/facts.py": "import yaml\n",
        },
    )
    edges = graph(root)
    assert cycles(edges) == [
        ["mkdocs_course.course.a", "mkdocs_course.course.b"],
        ["mkdocs_course.plugin.page"],
    ]
    assert forbidden(edges) == [
        "mkdocs_course.course.c -> markdown",
        "mkdocs_course.course.c -> mkdocs_course.plugin.page",
        "mkdocs_course.plugin.page -> genanki",
    ]
    assert not_bare(edges, BARE_PYTHON) == ["mkdocs_course.buildkit.facts -> yaml"]


def test_the_checks_pass_a_tree_that_keeps_the_layers(tmp_path):
    root = _tree(
        tmp_path,
        {
            "tools/course/__init__.py": "",
            "tools/course/a.py": "import re\nfrom ..buildkit import facts\n",
            "tools/plugin/__init__.py": "",
            "tools/plugin/page.py": "import markdown\nfrom ..course.a import x\n",
            "tools/buildkit/__init__.py": "",
            "tools/buildkit/facts.py": "import os\n",
            "tools/cli.py": "from .plugin import page\n",
            "tools/bootstrap.py": "import os\n",
        },
    )
    edges = graph(root)
    assert (cycles(edges), forbidden(edges), not_bare(edges, BARE_PYTHON)) == ([], [], [])
    assert absolute_imports(root) == []


def test_the_engine_imports_itself_only_relatively():
    assert absolute_imports(ROOT) == []


def test_the_check_finds_absolute_imports_of_the_engine_by_either_name(tmp_path):
    root = _tree(
        tmp_path,
        {
            "tools/course/__init__.py": "",
            "tools/course/a.py": "import os\nfrom . import b\n",
            "tools/course/b.py": f"def f():\n    from {PACKAGE}.course import a\n",
            "tools/cli.py": f"import json\nimport {SOURCE}.course.a\n",  # the checkout's name
        },
    )
    assert absolute_imports(root) == ["mkdocs_course.cli:2", "mkdocs_course.course.b:2"]


# --- the engine knows no course ----------------------------------------------------------------

# Folders of a course (beside its mkdocs.yml) that the engine reads only through the course root it
# is handed (a setting, ``docs_dir`` or a ``root`` argument), never from its own checkout: the
# engine installed elsewhere has no such folders, and this checkout's would be the wrong course's.
COURSE_FOLDERS = ("docs", "snippets", "deck", "mkdocs.yml")  # deck: this course's note templates
# Reads of the engine's own checkout for files a course folder holds, while other changes move
# them into the package (the deck's fonts, the vendored browser libraries). The list only shrinks:
# an entry that no longer reads one fails the test below until it is taken off.
READS_THE_CHECKOUT_FOR_NOW: set[str] = set()


def course_modules(root: Path) -> set[str]:
    """Top-level names a course's Python may be imported by: every folder (or module) of the
    checkout beside ``tools/`` that holds Python git tracks (all of them, outside a checkout),
    except the standard library's names (the build's own ``site/`` is no course module)."""
    import subprocess

    listed = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=root, capture_output=True, text=True, check=False
    )
    if (root / ".git").exists() and listed.returncode == 0:
        files = [Path(name) for name in listed.stdout.split()]
    else:
        files = [path.relative_to(root) for path in root.rglob("*.py")]
    tops = {f.parts[0] if len(f.parts) > 1 else f.stem for f in files}
    return tops - {"tools"} - set(sys.stdlib_module_names)


def course_imports(root: Path) -> list[str]:
    """Each engine module that imports a course module, by ``import``/``from`` or by a literal
    module name handed to ``importlib.import_module``, as ``module -> course module``."""
    known, course = modules(root), course_modules(root)
    bad = []
    for name, path in sorted(known.items()):
        found = {m.split(".")[0] for m in imports(name, path, known)}
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            if isinstance(node, ast.Call) and _names_import(node.func) and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    found.add(first.value.split(".")[0].split(":")[0])
        bad += [f"{name} -> {target}" for target in sorted(found & course)]
    return bad


def _names_import(func: ast.expr) -> bool:
    named = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return named in ("import_module", "__import__")


def checkout_reads(root: Path) -> set[str]:
    """Each engine module that reads a course folder of its own checkout: ``ROOT / "docs"`` (or
    ``buildinfo.ROOT / ...``), or ``ROOT`` as the default of a function's ``root``."""
    found = set()
    for path in modules(root).values():
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text("utf-8"), rel)):
            if (
                isinstance(node, ast.BinOp)
                and isinstance(node.op, ast.Div)
                and _is_root(node.left)
                and isinstance(node.right, ast.Constant)
                and str(node.right.value).split("/")[0] in COURSE_FOLDERS
            ):
                found.add(rel)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                arguments = node.args.posonlyargs + node.args.args
                defaults = zip(reversed(arguments), reversed(node.args.defaults), strict=False)
                pairs = [*defaults, *zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True)]
                if any(a.arg == "root" and d is not None and _is_root(d) for a, d in pairs):
                    found.add(rel)
    return found - {"tools/cli.py"}  # the command line's default course is the folder it runs in


def _is_root(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "ROOT") or (
        isinstance(node, ast.Attribute) and node.attr == "ROOT"
    )


def test_no_engine_module_imports_the_course():
    """The course's Python (its views, its memory model, its hash function) reaches the engine
    only by the names its settings declare (``plugins.course.benchmarks``)."""
    assert course_imports(ROOT) == []


def test_no_engine_module_reads_its_own_checkout_for_course_files():
    found = checkout_reads(ROOT)
    assert found - READS_THE_CHECKOUT_FOR_NOW == set(), "read them from the course root"
    assert READS_THE_CHECKOUT_FOR_NOW - found == set(), "reads no course folder now: take it off"


def test_the_course_checks_find_planted_imports_and_reads(tmp_path):
    root = _tree(
        tmp_path,
        {
            "snippets/model.py": "",
            "docs/lab/lab.py": "",
            "tools/benchmarks/__init__.py": "",
            "tools/benchmarks/a.py": "from snippets import model\n",
            "tools/benchmarks/b.py": "def f():\n    import docs.lab.lab\n",
            "tools/benchmarks/c.py": "import importlib\nimportlib.import_module('snippets.x')\n",
            "tools/benchmarks/d.py": "from . import a\nimport json\n",
            "tools/anki/__init__.py": "",
            "tools/anki/e.py": "from ..buildkit.buildinfo import ROOT\nF = ROOT / 'docs/x'\n",
            "tools/anki/f.py": "from ..buildkit import buildinfo\n"
            "def g(root=buildinfo.ROOT):\n    return root / 'docs'\n",
            "tools/anki/g.py": "def h(root):\n    return root / 'docs'\n",
        },
    )
    assert course_imports(root) == [
        "mkdocs_course.benchmarks.a -> snippets",
        "mkdocs_course.benchmarks.b -> docs",
        "mkdocs_course.benchmarks.c -> snippets",
    ]
    assert checkout_reads(root) == {"tools/anki/e.py", "tools/anki/f.py"}


def test_no_engine_file_is_ignored_by_git():
    """``.gitignore`` names the build's outputs (``site/``, ``build/``) by folder name: a source
    folder of that name would be hidden, and a new module there never committed."""
    import shutil
    import subprocess

    if shutil.which("git") is None or not (ROOT / ".git").exists():
        return
    files = [str(path.relative_to(ROOT)) for path in modules(ROOT).values()]
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", *files], cwd=ROOT, capture_output=True, text=True
    )
    assert ignored.stdout.split() == []


MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 80
# Modules and functions outside the limits while other changes split them (tools/course/config.py
# is being replaced by the plugin's settings). The list only shrinks: an entry that is back
# within the limits fails the test below until it is taken off.
TOO_LONG_FOR_NOW: set[str] = set()


def functions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, int]]:
    """``(qualified name, lines from its ``def`` to its last line)`` of every function in
    ``tree``, methods and nested functions included."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = f"{prefix}{node.name}"
            if not isinstance(node, ast.ClassDef):
                yield name, node.end_lineno - node.lineno + 1  # type: ignore[operator]
            yield from functions(node, f"{name}.")
        else:
            yield from functions(node, prefix)


def too_long(root: Path) -> set[str]:
    """Each module of ``tools/`` over :data:`MAX_MODULE_LINES` lines (``path``), and each
    function over :data:`MAX_FUNCTION_LINES` (``path:name``)."""
    found = set()
    for path in modules(root).values():
        rel = path.relative_to(root).as_posix()
        text = path.read_text("utf-8")
        if len(text.splitlines()) > MAX_MODULE_LINES:
            found.add(rel)
        found |= {
            f"{rel}:{name}"
            for name, size in functions(ast.parse(text, rel))
            if size > MAX_FUNCTION_LINES
        }
    return found


def test_no_module_or_function_of_the_engine_is_too_long():
    """Small modules whose names say what they hold, and functions a reader takes in at once."""
    found = too_long(ROOT)
    assert found - TOO_LONG_FOR_NOW == set(), "split these"
    assert TOO_LONG_FOR_NOW - found == set(), "within the limits now: take them off the list"


def test_the_size_check_finds_a_long_module_and_a_long_nested_function(tmp_path):
    def lines(n: int, indent: str) -> str:
        return "".join(f"{indent}x{i} = {i}\n" for i in range(n))

    limit = MAX_FUNCTION_LINES
    root = _tree(
        tmp_path,
        {
            "tools/course/__init__.py": "",
            "tools/course/long.py": lines(MAX_MODULE_LINES + 1, ""),
            "tools/course/short.py": lines(MAX_MODULE_LINES, ""),
            # inner: its def and `limit` lines; m one more line than inner
            "tools/course/f.py": "class C:\n    def m(self):\n        def inner():\n"
            + lines(limit, " " * 12),
            "tools/course/g.py": "def fits():\n" + lines(limit - 1, "    "),
        },
    )
    assert too_long(root) == {
        "tools/course/long.py",
        "tools/course/f.py:C.m",
        "tools/course/f.py:C.m.inner",
    }
