"""The Quick start's bootstrap: dependencies come from pyproject.toml, versions from constraints."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from mkdocs_course import bootstrap


def _name(requirement: str) -> str:
    """The package a requirement or constraint line is about, spelled one way."""
    return re.split(r"[=<>!~\[ ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_every_requirement_is_pinned_in_constraints():
    pinned = {
        _name(line)
        for line in bootstrap.INPUTS[1].read_text().splitlines()
        if line and not line.startswith("#")
    }
    names = {_name(req) for req in bootstrap.requirements()}
    assert names, "pyproject.toml declares no dependencies"
    assert names <= pinned, f"not pinned in constraints.txt: {sorted(names - pinned)}"


def test_stamp_changes_when_an_input_changes(tmp_path, monkeypatch):
    files = [tmp_path / "pyproject.toml", tmp_path / "constraints.txt"]
    for path in files:
        path.write_text("a")
    monkeypatch.setattr(bootstrap, "INPUTS", tuple(files))
    before = bootstrap.wanted_stamp()
    files[1].write_text("b")
    assert bootstrap.wanted_stamp() != before


FAKE_UV = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "uv {version}"; exit 0; fi
echo "$@" > "{log}"
exit {status}
"""


@pytest.fixture
def fresh_env(tmp_path, monkeypatch):
    """An empty checkout for the bootstrap: its own .venv, stamp, uv folder and a fake uv."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndependencies = ["genanki>=0.13"]\n'
        '[project.optional-dependencies]\ntest = ["pytest>=8"]\n'
    )
    (tmp_path / "constraints.txt").write_text("genanki==0.13.1\npytest==9.2.0\nuv==0.13.9\n")
    monkeypatch.setattr(
        bootstrap, "INPUTS", (tmp_path / "pyproject.toml", tmp_path / "constraints.txt")
    )
    monkeypatch.setattr(bootstrap, "VENV", tmp_path / ".venv")
    monkeypatch.setattr(bootstrap, "STAMP", tmp_path / ".venv" / ".installed")
    monkeypatch.setattr(bootstrap, "EXTRAS_STAMP", tmp_path / ".venv" / ".installed-extras")
    monkeypatch.setattr(bootstrap, "UV_DIR", tmp_path / ".cache" / "uv")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PIP_FIND_LINKS", "/somewhere/wheels")
    pip_runs: list[bool] = []
    monkeypatch.setattr(bootstrap, "_install_with_pip", lambda reqs: pip_runs.append(reqs))

    def fake_uv(status: int) -> Path:
        (tmp_path / "bin").mkdir(exist_ok=True)
        uv = tmp_path / "bin" / "uv"
        log = tmp_path / "uv-args.txt"
        uv.write_text(FAKE_UV.format(version="0.13.9", log=log, status=status))
        uv.chmod(0o755)
        return log

    return tmp_path, fake_uv, pip_runs


def test_uv_installs_with_pips_sources_into_a_venv_without_pip(fresh_env):
    root, fake_uv, pip_runs = fresh_env
    log = fake_uv(0)
    bootstrap.ensure_venv()
    args = log.read_text().split()
    assert args[:2] == ["pip", "install"]
    assert args[args.index("--python") + 1] == str(bootstrap.venv_python())
    assert args[args.index("--find-links") + 1] == "/somewhere/wheels"  # pip's wheels on disk
    assert args[args.index("-c") + 1] == str(root / "constraints.txt")
    assert "--compile-bytecode" in args  # as pip does: no process compiles the packages again
    assert "genanki>=0.13" in args
    assert pip_runs == []
    assert not list((root / ".venv").rglob("pip")), "the environment holds no installer"
    assert (root / ".venv" / ".installed").read_text() == bootstrap.wanted_stamp()


def test_pip_installs_when_uv_fails(fresh_env):
    _, fake_uv, pip_runs = fresh_env
    fake_uv(1)
    bootstrap.ensure_venv()
    assert pip_runs == [["genanki>=0.13", "-e", str(bootstrap.ROOT)]]  # the engine, for its plugin
    assert bootstrap.STAMP.read_text() == bootstrap.wanted_stamp()


def test_the_installer_is_pinned():
    assert bootstrap.pinned("uv"), "constraints.txt pins the uv that installs the environment"


def test_a_build_installs_no_test_tools_and_the_test_command_adds_them(fresh_env):
    _, fake_uv, _ = fresh_env
    log = fake_uv(0)
    bootstrap.ensure_venv(bootstrap.extras_for(["build"]))
    assert "pytest>=8" not in log.read_text().split()
    log.unlink()
    bootstrap.ensure_venv(bootstrap.extras_for(["build"]))
    assert not log.exists(), "nothing changed: nothing is installed"
    bootstrap.ensure_venv(bootstrap.extras_for(["test", "-q"]))
    assert "pytest>=8" in log.read_text().split()
    log.unlink()
    bootstrap.ensure_venv(bootstrap.extras_for(["build"]))
    assert not log.exists(), "the test tools stay installed for the next test run"


# --- one name per process: the checkout's ``tools``, then the installed ``mkdocs_course`` ------

HEADER = "import time: self [us] | cumulative | imported package"
CHECKOUT = "tools"  # the engine's folder: its name when run from the checkout (python3 -m tools)


def engine_modules_by_process(stderr: str) -> list[set[str]]:
    """The engine's modules each process imported, in the order the processes ran, from
    ``PYTHONPROFILEIMPORTTIME``'s report (each process starts its own with the header line)."""
    processes: list[set[str]] = []
    for line in stderr.splitlines():
        if line.strip() == HEADER:
            processes.append(set())
        elif line.startswith("import time:") and processes:
            name = line.rsplit("|", 1)[1].strip()
            if name.split(".")[0] in (CHECKOUT, bootstrap.PACKAGE):
                processes[-1].add(name)
    return processes


def loaded_twice(modules: set[str]) -> set[str]:
    """The engine modules among ``modules`` loaded under both names (``""``: the package)."""
    names: dict[str, set[str]] = {}
    for module in modules:
        top, _, rest = module.partition(".")
        names.setdefault(rest, set()).add(top)
    return {rest for rest, tops in names.items() if len(tops) > 1}


def test_the_import_report_shows_a_module_loaded_under_both_names():
    report = "\n".join(
        [
            HEADER,
            f"import time:       10 |         10 |   {CHECKOUT}",
            f"import time:       10 |         10 |     {CHECKOUT}.bootstrap",
            HEADER,
            f"import time:       10 |         10 | {bootstrap.PACKAGE}",
            f"import time:       10 |         10 |   {bootstrap.PACKAGE}.cli",
            "import time:       10 |         10 |     json",
            f"import time:       10 |         10 |     {CHECKOUT}.cli",
        ]
    )
    first, second = engine_modules_by_process(report)
    assert first == {CHECKOUT, f"{CHECKOUT}.bootstrap"} and loaded_twice(first) == set()
    assert loaded_twice(second) == {"cli"}


def test_the_cli_runs_as_the_installed_package_with_each_module_loaded_once():
    """``python3 -m tools`` (the README's command, run from the checkout) re-runs itself as
    ``python -m mkdocs_course``: the process that runs the CLI loads no engine module under the
    checkout's folder name too, which would make two copies of its state."""
    if not bootstrap.inside_venv():
        pytest.skip("runs the command with this checkout's .venv, which this Python is not")
    done = subprocess.run(
        [sys.executable, "-m", CHECKOUT, "--help"],
        cwd=bootstrap.ROOT,
        env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "usage: python -m tools" in done.stdout
    first, cli = engine_modules_by_process(done.stderr)  # the bootstrap's process, the CLI's
    assert {CHECKOUT, f"{CHECKOUT}.bootstrap"} <= first and f"{bootstrap.PACKAGE}.cli" not in first
    assert f"{bootstrap.PACKAGE}.cli" in cli
    assert [m for m in cli if m.split(".")[0] == CHECKOUT] == []
    assert loaded_twice(first) == loaded_twice(cli) == set()
