"""Lint and formatting are part of the suite, so a red ruff fails CI like a red test."""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import skip_or_fail
from mkdocs_course.buildkit.buildinfo import ROOT


def _ruff() -> list[str]:
    found = shutil.which("ruff", path=str(Path(sys.executable).parent))
    if found is None:
        skip_or_fail("ruff is not installed in this environment")
    return [found]


@pytest.mark.parametrize("args", [["check", "."], ["format", "--check", "."]])
def test_ruff_is_clean(args):
    result = subprocess.run([*_ruff(), *args], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def _rebound_names(tree: ast.Module) -> list[tuple[str, int]]:
    """Module-level names assigned more than once (a later one silently replaces the first)."""
    seen: set[str] = set()
    rebound = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Name):
                if target.id in seen:
                    rebound.append((target.id, node.lineno))
                seen.add(target.id)
    return rebound


def test_no_module_binds_a_top_level_name_twice():
    """Three ``_ADMONITION`` patterns in one module left only the last in force, and links in
    admonition bodies went unchecked; ruff does not flag a rebound constant."""
    found = [
        f"{path.relative_to(ROOT)}:{line}: {name} is assigned again"
        for path in sorted((ROOT / "tools").rglob("*.py"))
        for name, line in _rebound_names(ast.parse(path.read_text("utf-8")))
    ]
    assert not found, "\n".join(found)


def test_a_rebound_name_is_found():
    assert _rebound_names(ast.parse("A = 1\nB: int = 2\nA = 3\n")) == [("A", 3)]
