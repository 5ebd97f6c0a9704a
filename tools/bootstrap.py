"""Create and refresh the project's virtual environment using only the standard library.

``python3 -m tools ...`` runs this first, on any Python 3.11+, so that the README's Quick start
needs nothing but Python: it makes ``.venv``, installs the dependencies declared in
``pyproject.toml`` at the exact versions of ``constraints.txt``, and re-runs the command inside
the environment. A stamp (a hash of both files) makes a no-change run skip pip entirely.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

from tools.build.buildinfo import ROOT  # standard library only, like this module

VENV = ROOT / ".venv"
STAMP = VENV / ".installed"
INPUTS = (ROOT / "pyproject.toml", ROOT / "constraints.txt")


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def inside_venv() -> bool:
    return Path(sys.prefix).resolve() == VENV.resolve()


def requirements() -> list[str]:
    """Every runtime and test dependency, read from pyproject.toml (the one place they live)."""
    project = tomllib.loads(INPUTS[0].read_text(encoding="utf-8"))["project"]
    extras = project.get("optional-dependencies", {})
    return [*project["dependencies"], *(req for group in extras.values() for req in group)]


def wanted_stamp() -> str:
    digest = hashlib.sha256()
    for path in INPUTS:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def ensure_venv() -> None:
    """Create .venv and install into it unless the stamp says it is already current."""
    stamp = wanted_stamp()
    if STAMP.exists() and STAMP.read_text() == stamp and venv_python().exists():
        return
    if not venv_python().exists():
        print(f"creating {VENV.relative_to(ROOT)} ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    pip = [str(venv_python()), "-m", "pip", "--disable-pip-version-check"]
    print("installing dependencies (first run only; takes a minute) ...", flush=True)
    subprocess.run([*pip, "install", "-q", "-c", str(INPUTS[1]), *requirements()], check=True)
    STAMP.write_text(stamp)


def reexec_in_venv(argv: list[str]) -> None:
    """Replace this process by the same ``-m tools`` command run by the venv's Python."""
    ensure_venv()
    python = str(venv_python())
    os.execv(python, [python, "-m", "tools", *argv])
