"""Docs stay true: every ``tools/...`` or ``snippets/...`` path, and every ``tools.X.Y`` or
``snippets.X`` module, that the README, CONTRIBUTING, a comment, a docstring or a message names
exists; and CONTRIBUTING's map of ``tools/`` names every folder and module in it.

Both read the tree when they run, so a rename or a move fails here until every mention follows it.
What is read: the two Markdown files whole; in the engine and the snippets, every comment and
every string (docstrings and messages are strings); in the tests, comments and docstrings only,
because a test's other strings plant files that do not exist on purpose; the deck's templates,
the site's scripts and stylesheets, ``mkdocs.yml`` and the CI files whole. A path segment in
capitals (``snippets/NAME.py``) is a placeholder, and a path followed by ``*``, ``<`` or ``{``
is a pattern: only the folder before it has to exist.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PATH = re.compile(r"(?<![\w./~$-])(?:tools|snippets)/(?:[\w./-]*[\w/])?")
MODULE = re.compile(r"(?<![\w./-])(?:tools|mkdocs_course|snippets)(?:\.[A-Za-z_]\w*)+")
INSTALLED = {"mkdocs_course": "tools"}  # the engine's import name -> its folder
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_-]*(?:\.\w+)?$")
WHOLE = (".md", ".yml", ".yaml", ".js", ".css", ".html", ".sh", ".txt", ".toml")
MAP_HEADING = "### Where things live in `tools/`"
# An f-string's text is one token of its own from Python 3.12 on.
STRINGS = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}


def tracked(root: Path) -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True)
    return [name for name in out.stdout.decode().split("\0") if name and (root / name).is_file()]


def sources(files: list[str]) -> list[str]:
    """The tracked files whose text names paths a reader may follow."""
    return [name for name in files if _read(name)]


def _read(name: str) -> bool:
    top = name.split("/", 1)[0]
    return (
        name in ("README.md", "CONTRIBUTING.md", "mkdocs.yml")
        or (name.endswith(".py") and top in ("tools", "snippets", "tests"))
        or (top in ("deck", ".ci", ".github") and not name.endswith((".json", ".woff2")))
        or (name.startswith("tools/plugin/static/") and name.endswith((".js", ".css")))
    )


def python_texts(text: str, *, docstrings_only: bool) -> list[tuple[int, str]]:
    """(line, text) of each comment and each string of a module, or of each comment and
    docstring."""
    docstrings: set[int] = set()
    if docstrings_only:
        for node in ast.walk(ast.parse(text)):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
                value = body[0].value
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    docstrings.add(value.lineno)
    out = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        string = token.type in STRINGS and (not docstrings_only or token.start[0] in docstrings)
        if token.type == tokenize.COMMENT or string:
            out.append((token.start[0], token.string))
    return out


def texts(root: Path, name: str) -> list[tuple[int, str]]:
    text = (root / name).read_text("utf-8")
    if name.endswith(".py"):
        return python_texts(text, docstrings_only=name.startswith("tests/"))
    return [(1, text)]


def top_level_names(path: Path) -> set[str]:
    """What a module defines or imports at its top level (an attribute a reader may name)."""
    names: set[str] = set()
    for node in ast.parse(path.read_text("utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def path_exists(root: Path, path: str) -> bool:
    parts = path.rstrip("/").split("/")
    for depth, part in enumerate(parts):
        if PLACEHOLDER.match(part):  # ``snippets/NAME.py``: the folder must exist
            return (root / "/".join(parts[:depth])).is_dir()
    return (root / path).exists()


def module_exists(root: Path, dotted: str) -> bool:
    """``tools.A.B`` (or ``mkdocs_course.A.B``, the engine as installed) names a package, a
    module, or a module's top-level name."""
    parts = dotted.split(".")
    here = root / INSTALLED.get(parts[0], parts[0])
    for depth, part in enumerate(parts[1:], start=1):
        if PLACEHOLDER.match(part):  # ``tools.X``: a placeholder inside a package that exists
            return here.is_dir()
        if (here / part).is_dir():
            here = here / part
        elif (here / f"{part}.py").is_file():
            here = here / f"{part}.py"
            return depth + 1 == len(parts) or parts[depth + 1] in top_level_names(here)
        else:
            init = here / "__init__.py"
            return init.is_file() and part in top_level_names(init)
    return here.is_dir()


def missing(root: Path) -> list[str]:
    """``file:line: name`` for each path or module named in the sources that does not exist."""
    found = []
    for name in sources(tracked(root)):
        for line, text in texts(root, name):
            stale = [m for m in PATH.finditer(text) if not _path_named(root, text, m)]
            stale += [m for m in MODULE.finditer(text) if not module_exists(root, m.group())]
            for match in sorted(stale, key=lambda m: m.start()):
                at = line + text.count("\n", 0, match.start())
                found.append(f"{name}:{at}: {match.group()}")
    return found


def _path_named(root: Path, text: str, match: re.Match[str]) -> bool:
    if text[match.end() : match.end() + 1] in ("*", "<", "{"):  # a pattern: its folder exists
        return (root / match.group().rpartition("/")[0]).is_dir()
    return path_exists(root, match.group())


def test_every_path_and_module_the_docs_name_exists():
    if not (ROOT / ".git").exists():
        pytest.skip("needs the git checkout to list tracked files")
    assert missing(ROOT) == []


def test_the_check_finds_a_planted_stale_path(tmp_path):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "tools" / "course").mkdir(parents=True)
    (tmp_path / "snippets").mkdir()
    (tmp_path / "tools" / "__init__.py").write_text("")
    (tmp_path / "tools" / "course" / "__init__.py").write_text("")
    (tmp_path / "tools" / "course" / "model.py").write_text('"""Model."""\nclass Card: ...\n')
    (tmp_path / "tools" / "course" / "check.py").write_text(
        '"""Uses mkdocs_course.course.model.Card and mkdocs_course.course.model.Gone."""\n'
        "# see tools/course/model.py and tools/identity.py\n"
        'raise SystemExit("see tools/course/nothing.py")\n'
        'PLANTED = "tools/fake.py"  # engine strings count\n'
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(
        '"""Tests tools.course_check."""\nFILES = {"tools/planted.py": ""}\n'
    )
    (tmp_path / "README.md").write_text(
        "Run `python snippets/NAME.py`; `tools/course/*.py`; `tools/course/`; tools/model.py.\n"
    )
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
    assert missing(tmp_path) == [
        "README.md:1: tools/model.py",
        "tests/test_x.py:1: tools.course_check",
        "tools/course/check.py:1: mkdocs_course.course.model.Gone",
        "tools/course/check.py:2: tools/identity.py",
        "tools/course/check.py:3: tools/course/nothing.py",
        "tools/course/check.py:4: tools/fake.py",
    ]


# --- CONTRIBUTING's map of tools/ -------------------------------------------------------------


def map_rows(contributing: str) -> dict[str, str]:
    """First cell -> the whole row, for the table under the map's heading."""
    section = contributing.split(MAP_HEADING, 1)[1].split("\n#", 1)[0]
    rows = {}
    for line in section.splitlines():
        if line.startswith("| `tools/"):
            cell = line.split("|")[1]
            for name in re.findall(r"`([^`]+)`", cell):
                rows[name] = line
    return rows


def unmapped(root: Path) -> list[str]:
    """What the map leaves out: each module directly in ``tools/`` without a row, each folder of
    ``tools/`` without a row, and, in a folder's row, each module and each subfolder in it (its
    contents are the subfolder's to describe)."""
    rows = map_rows((root / "CONTRIBUTING.md").read_text("utf-8"))
    tools = root / "tools"
    gaps = [
        f"tools/{p.name}"
        for p in sorted(tools.glob("*.py"))
        if p.name != "__init__.py" and f"tools/{p.name}" not in rows
    ]
    for folder in sorted(p for p in tools.iterdir() if p.is_dir() and p.name != "__pycache__"):
        key = f"tools/{folder.name}/"
        row = rows.get(key)
        if row is None:
            gaps.append(key)
            continue
        inside = sorted(p for p in folder.iterdir() if p.name != "__pycache__")
        gaps += [
            f"{key}{p.name}{'/' if p.is_dir() else ''}"
            for p in inside
            if (p.is_dir() or (p.suffix == ".py" and p.name != "__init__.py"))
            and f"`{p.name}{'/' if p.is_dir() else ''}`" not in row
        ]
    return gaps


def test_contributings_map_names_every_folder_and_module_of_tools():
    assert unmapped(ROOT) == []


def test_the_map_check_finds_a_folder_and_a_module_left_out(tmp_path):
    for name in ("tools/a/__init__.py", "tools/a/one.py", "tools/a/two.py", "tools/b/__init__.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / "tools" / "a" / "data").mkdir()
    (tmp_path / "tools" / "cli.py").write_text("")
    (tmp_path / "CONTRIBUTING.md").write_text(
        f"{MAP_HEADING}\n\n| folder | what |\n| --- | --- |\n| `tools/a/` | `one.py` |\n\n## Next\n"
    )
    assert unmapped(tmp_path) == ["tools/cli.py", "tools/a/data/", "tools/a/two.py", "tools/b/"]


def test_the_readmes_tools_row_names_each_folder_of_tools():
    """The README's "Where things live" names the engine's folders (``tools/X/``) as ``X/``: a
    rename there is no ``tools/...`` path for the test above, so it is held here."""
    readme = (ROOT / "README.md").read_text("utf-8").splitlines()
    row = next(line for line in readme if line.startswith("| `tools/` |"))
    named = set(re.findall(r"`(\w+)/`", row.split("|")[2]))
    folders = {p.name for p in (ROOT / "tools").iterdir() if (p / "__init__.py").is_file()}
    assert named == folders
