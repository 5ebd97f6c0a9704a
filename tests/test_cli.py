"""The command line: options of pytest and mkdocs pass through; ``check`` writes nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tools.buildinfo import ROOT


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tools.cli", *args], cwd=ROOT, capture_output=True, text=True
    )


def test_test_command_passes_pytest_options_through():
    result = cli("test", "--co", "-q", "-m", "not browser", "tests/test_bootstrap.py")
    assert result.returncode == 0, result.stderr
    assert "test_stamp_changes_when_an_input_changes" in result.stdout


def outputs() -> dict[Path, tuple[int, int]]:
    """Every file where the engine writes (sources, site, deck) with its size and mtime."""
    return {
        path: (path.stat().st_size, path.stat().st_mtime_ns)
        for folder in ("docs", "site", "build", "deck")
        for path in (ROOT / folder).rglob("*")
        if path.is_file()
    }


def test_check_reports_counts_and_writes_nothing():
    before = outputs()
    result = cli("check")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok: ") and "flashcards" in result.stdout
    assert outputs() == before


def test_the_readme_gives_the_address_serve_serves_at():
    """``mkdocs serve`` serves under the path of ``site_url``: the README must say where."""
    from urllib.parse import urlsplit

    import yaml

    site_url = yaml.safe_load((ROOT / "mkdocs.yml").read_text("utf-8"))["site_url"]
    address = f"http://127.0.0.1:8000{urlsplit(site_url).path or '/'}"
    readme = " ".join((ROOT / "README.md").read_text("utf-8").split())
    assert f"`python3 -m tools serve` and open <{address}>" in readme
    assert f"live preview at <{address}>" in readme
