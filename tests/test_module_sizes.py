"""Small modules: no module of the checked folders over 450 lines, no function over 80.

A module that outgrows that holds more than its name says; a function that does is several steps
that want names of their own. The folders listed are the ones kept to it so far; a folder joins
the list once it is split to fit.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("tools/anki", "tools/render", "tools/buildkit")
MODULE_LINES = 450
FUNCTION_LINES = 80


def oversized(root: Path, folders: tuple[str, ...]) -> list[str]:
    """``path: N lines`` for each module and ``path:line name: N lines`` for each function over
    the limit."""
    found = []
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            name = path.relative_to(root).as_posix()
            text = path.read_text("utf-8")
            if len(text.splitlines()) > MODULE_LINES:
                found.append(f"{name}: {len(text.splitlines())} lines")
            for node in ast.walk(ast.parse(text, name)):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    length = (node.end_lineno or node.lineno) - node.lineno + 1
                    if length > FUNCTION_LINES:
                        found.append(f"{name}:{node.lineno} {node.name}: {length} lines")
    return found


def test_modules_and_functions_stay_small():
    assert oversized(ROOT, FOLDERS) == []


def test_the_check_finds_a_long_module_and_a_long_method(tmp_path):
    folder = tmp_path / "tools" / "x"
    folder.mkdir(parents=True)
    (folder / "long.py").write_text("x = 1\n" * (MODULE_LINES + 1))
    body = "".join("        y = 1\n" for _ in range(FUNCTION_LINES))
    (folder / "method.py").write_text(f"class A:\n    def f(self):\n{body}\n    def g(self): ...\n")
    assert oversized(tmp_path, ("tools/x",)) == [
        f"tools/x/long.py: {MODULE_LINES + 1} lines",
        f"tools/x/method.py:2 f: {FUNCTION_LINES + 1} lines",
    ]
