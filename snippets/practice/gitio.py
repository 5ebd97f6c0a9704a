"""Running git for the practice, with its failures as messages instead of tracebacks."""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
from pathlib import Path


class PracticeError(Exception):
    """A wrong move or a damaged workspace: the message says what happened and what to do."""


def git(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    """``git args`` in ``cwd``; its stdout, stripped. A failure raises :class:`PracticeError`."""
    full_env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", **(env or {})}
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, env=full_env, capture_output=True, text=True, check=False
        )
    except FileNotFoundError:
        raise PracticeError("git is not installed: the practice needs git on PATH") from None
    if done.returncode:
        raise PracticeError(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def maybe(*args: str, cwd: Path | None = None) -> str | None:
    """``git args``, or None when git fails (a ref or a path that does not exist)."""
    try:
        return git(*args, cwd=cwd)
    except PracticeError:
        return None


def export(repo: Path, commit: str, dest: Path) -> Path:
    """Write the tree of ``commit`` in ``repo`` into ``dest`` (no .git): what CI checks out.
    A tree holding a symbolic link is refused: CI then copies files into the checkout, and a
    link could lead those writes out of it."""
    tree = git("ls-tree", "-r", "-z", commit, cwd=repo)
    links = [e.split("\t", 1)[1] for e in tree.split("\0") if e.startswith("120000 ")]
    if links:
        raise PracticeError(
            f"commit {commit[:12]} holds a symbolic link, {links[0]}: the project takes plain "
            "files only; replace it by the file itself (git rm --cached, commit -s, push)"
        )
    data = subprocess.run(
        ["git", "archive", "--format=tar", commit], cwd=repo, capture_output=True, check=True
    ).stdout
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # Python 3.11.4+
        tar.extractall(dest, **safe)
    return dest


def show(repo: Path, commit: str, path: str) -> str | None:
    """The text of ``path`` at ``commit``, or None when it does not exist there."""
    return maybe("show", f"{commit}:{path}", cwd=repo)
