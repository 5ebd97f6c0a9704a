"""Lint and formatting are part of the suite, so a red ruff fails CI like a red test."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import skip_or_fail

from tools.build.buildinfo import ROOT


def _ruff() -> list[str]:
    found = shutil.which("ruff", path=str(Path(sys.executable).parent))
    if found is None:
        skip_or_fail("ruff is not installed in this environment")
    return [found]


@pytest.mark.parametrize("args", [["check", "."], ["format", "--check", "."]])
def test_ruff_is_clean(args):
    result = subprocess.run([*_ruff(), *args], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
