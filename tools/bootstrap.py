"""Create and refresh the project's virtual environment using only the standard library.

``python3 -m tools ...`` runs this first, on any Python 3.11+, so that the README's Quick start
needs nothing but Python: it makes ``.venv``, installs the dependencies declared in
``pyproject.toml`` at the exact versions of ``constraints.txt`` and this checkout itself, editable
(its ``mkdocs.plugins`` entry point is how MkDocs finds the course plugin), and re-runs the command
inside the environment. A stamp (a hash of both files) makes a no-change run skip installing
entirely.

Run from the checkout, the engine is the package ``tools`` (its folder); installed, it is
:data:`PACKAGE` (pyproject.toml's ``package-dir``; CONTRIBUTING.md says why). The CLI runs only
under the installed name, so that no module is loaded twice under two names: ``python3 -m tools``
re-runs itself as ``python -m mkdocs_course`` with the venv's Python.

The installer is uv (from PyPI, at the version ``constraints.txt`` pins) when it can be had: it
resolves and installs the wheels in parallel, several times faster than pip. It is used from
``PATH`` or installed once into ``.cache/uv/`` (outside ``.venv``, which then holds no installer
at all). Where uv cannot be had or fails, pip installs instead, as it always could.

uv is told to compile the bytecode as it installs, as pip does by default. Without it, where
``PYTHONDONTWRITEBYTECODE=1`` keeps Python from writing ``__pycache__``, every process compiles
each module it imports from source again: the test suite's dozens of processes that import torch
would each pay for it, in all far more than compiling once at install.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tomllib
import venv
from collections.abc import Iterable
from pathlib import Path

from .buildkit.buildinfo import ROOT  # standard library only, like this module

PACKAGE = "mkdocs_course"  # the engine's import name once installed
VENV = ROOT / ".venv"
STAMP = VENV / ".installed"
EXTRAS_STAMP = VENV / ".installed-extras"
UV_DIR = ROOT / ".cache" / "uv"
INPUTS = (ROOT / "pyproject.toml", ROOT / "constraints.txt")


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def inside_venv() -> bool:
    return Path(sys.prefix).resolve() == VENV.resolve()


def requirements(extras: Iterable[str] | None = None) -> list[str]:
    """The runtime dependencies and those of the optional groups ``extras`` (None: all of them),
    read from pyproject.toml (the one place they live)."""
    project = tomllib.loads(INPUTS[0].read_text(encoding="utf-8"))["project"]
    groups = project.get("optional-dependencies", {})
    chosen = groups if extras is None else {name: groups[name] for name in extras}
    return [*project["dependencies"], *(req for group in chosen.values() for req in group)]


def wanted_stamp() -> str:
    digest = hashlib.sha256()
    for path in INPUTS:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def extras_for(argv: list[str]) -> tuple[str, ...]:
    """The optional groups a command needs: the test suite needs them all (pytest, Anki,
    Playwright, the validator); moving progress from or into Anki needs Anki's library;
    building, checking and serving need none, so a first build installs less and sooner."""
    if argv[:2] in (["progress", "from-anki"], ["progress", "into-anki"]):
        return ("anki",)
    if argv[:1] != ["test"]:
        return ()
    project = tomllib.loads(INPUTS[0].read_text(encoding="utf-8"))["project"]
    return tuple(project.get("optional-dependencies", {}))


def ensure_venv(extras: Iterable[str] = ()) -> None:
    """Create .venv and install into it unless the stamps say it already holds what is asked.

    ``.installed`` is the hash of the inputs; ``.installed-extras`` names the optional groups
    installed with them (an environment without it was given every group).
    """
    stamp = wanted_stamp()
    current = STAMP.exists() and STAMP.read_text() == stamp and venv_python().exists()
    have = _installed_extras() if current else set()
    if current and (have is None or set(extras) <= have):
        return
    groups = sorted(set(extras) | (have or set()))
    if not venv_python().exists():
        print(f"creating {VENV.name} ...", flush=True)
        venv.EnvBuilder(with_pip=False).create(VENV)
    print("installing dependencies (first run only) ...", flush=True)
    uv = find_uv()
    wanted = [*requirements(groups), "-e", str(ROOT)]
    if uv is None or not _install_with_uv(uv, wanted):
        _install_with_pip(wanted)
    STAMP.write_text(stamp)
    EXTRAS_STAMP.write_text(" ".join(groups))


def _installed_extras() -> set[str] | None:
    if not EXTRAS_STAMP.exists():
        return None
    return set(EXTRAS_STAMP.read_text().split())


def pinned(name: str) -> str | None:
    """The version ``constraints.txt`` pins for ``name``, if it pins one."""
    for line in INPUTS[1].read_text(encoding="utf-8").splitlines():
        package, sep, version = line.partition("==")
        if sep and package.strip().lower() == name:
            return version.strip()
    return None


def find_uv() -> Path | None:
    """uv at the pinned version: on ``PATH``, in ``.cache/uv/``, or installed there now from
    PyPI by this Python's pip. None when none of these works (no pin, no pip, no network)."""
    version = pinned("uv")
    if version is None:
        return None
    local = UV_DIR / "bin" / ("uv.exe" if os.name == "nt" else "uv")
    for candidate in (shutil.which("uv"), local):
        if candidate and _uv_version(Path(candidate)) == version:
            return Path(candidate)
    shutil.rmtree(UV_DIR, ignore_errors=True)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "install", "-qq"]
    pip += ["--root-user-action=ignore"]
    if subprocess.run([*pip, "--target", str(UV_DIR), f"uv=={version}"]).returncode != 0:
        return None
    return local if _uv_version(local) == version else None


def _uv_version(uv: Path) -> str | None:
    try:
        out = subprocess.run([str(uv), "--version"], capture_output=True, text=True).stdout
    except OSError:
        return None
    return out.split()[1] if out.startswith("uv ") and len(out.split()) > 1 else None


# pip's settings that say where packages come from, as uv's options: uv reads no pip settings,
# and a machine that keeps wheels on disk (or a mirror) names them in these.
_PIP_SOURCES = {
    "PIP_INDEX_URL": "--index-url",
    "PIP_EXTRA_INDEX_URL": "--extra-index-url",
    "PIP_FIND_LINKS": "--find-links",
}


def _install_with_uv(uv: Path, requirements: list[str]) -> bool:
    sources = [
        arg
        for variable, option in _PIP_SOURCES.items()
        for value in os.environ.get(variable, "").split()
        for arg in (option, value)
    ]
    command = [str(uv), "pip", "install", "--quiet", "--python", str(venv_python()), *sources]
    command += ["--compile-bytecode", "-c", str(INPUTS[1]), *requirements]
    if subprocess.run(command).returncode == 0:
        return True
    print("uv could not install the dependencies; trying pip ...", flush=True)
    return False


def _install_with_pip(requirements: list[str]) -> None:
    subprocess.run([str(venv_python()), "-m", "ensurepip", "--upgrade"], check=True)
    pip = [str(venv_python()), "-m", "pip", "--disable-pip-version-check"]
    subprocess.run([*pip, "install", "-q", "-c", str(INPUTS[1]), *requirements], check=True)


def reexec_in_venv(argv: list[str]) -> None:
    """Replace this process by the same command run as ``-m mkdocs_course`` by the venv's Python,
    once the venv holds what the command needs (checked only from outside it, as before)."""
    if not inside_venv():
        ensure_venv(extras_for(argv))
    python = str(venv_python())
    os.execv(python, [python, "-m", PACKAGE, *argv])
