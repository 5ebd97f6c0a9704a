"""The lab notebook, executed away from the repository: the only code the site build runs.

A lab cell is a contributor's code. Run by mkdocs-jupyter inside the build, a cell printed
``.git/config`` into the page, wrote a page into the staging folder, and appended a script to the
Review page's ``store.js``. So the build executes the notebook itself, before MkDocs
renders it, and mkdocs-jupyter only renders the executed notebook (``execute`` is turned off
for it, :func:`take_over`):

- in a separate process (this module, run by ``python -m``), on a temporary copy of the notebook and
  of ``snippets/`` (all it imports), whose working directory is that copy;
- confined by the kernel (:func:`tools.buildkit.sandbox.confine`, Linux Landlock): the process and
  the notebook kernel it starts may read only the Python installation, the system's folders
  and the copy, write only the copy, and open no TCP connection. The repository (``.git``,
  ``docs/``), the staging folder and ``site/`` can be neither read nor written. Without
  Landlock the build says so, and :mod:`tools.plugin.outputs` still refuses any published file
  that differs from its source;
- with an environment holding nothing of the build's (no tokens): a path, a locale, a home and
  the kernel's settings inside the copy;
- bounded in time (:data:`TIMEOUT_S`), with the failing cell's message as a build error.

Its only output is the executed notebook, kept in ``.cache/lab/`` by a hash of the notebook,
the snippets and these settings; its HTML then goes through the pages' allow-list
(:func:`tools.course.sanitize.clean_notebook`) and the built-page scans like any page.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import site
import subprocess
import sys
import tempfile
from pathlib import Path

from ..buildkit import buildinfo
from ..buildkit.digest import Digest

TIMEOUT_S = (
    600  # the whole notebook; a cell that hangs fails the build instead of the build hanging
)
# What the kernel would otherwise write into the page: torch's profiler (the CPU peak meter)
# prints "USDT: ... profiler_start" at every start and stop, below any log level but one above
# all of kineto's (USDT, its highest, is 5). The kernel is reached over a local socket (IPC) in
# the copy, never over TCP, which the confinement refuses anyway.
KERNEL_ENV = {"KINETO_LOG_LEVEL": "6", "PYTHONDONTWRITEBYTECODE": "1"}
_KERNEL_CONFIG = {"KernelManager": {"transport": "ipc"}}


# mkdocs-jupyter, given an ``.ipynb``, appends ``<style>{resources["inlining"]["css"]}</style>``
# to the notebook's HTML: the Python list's repr of the stylesheets its template has already
# inlined one by one. Inside ``<article>`` that is invalid HTML and CSS that parses as nothing.
_STRAY_STYLE = re.compile(r"\s*<style>\s*\[.*?\]\s*</style>\s*\Z", re.DOTALL)


def without_stray_style(html: str) -> str:
    """The executed notebook's HTML without the list repr mkdocs-jupyter appends as a style."""
    return _STRAY_STYLE.sub("", html)


class LabError(Exception):
    """The notebook failed, hung or could not run; the message starts with its path."""


def settings_digest() -> str:
    """What, besides the notebook and the snippets, decides the executed notebook."""
    return Digest(json.dumps([KERNEL_ENV, _KERNEL_CONFIG, TIMEOUT_S])).hexdigest(8)


def executed(notebook: Path, root: Path) -> Path:
    """``notebook`` (under ``root/docs``) executed in a confined copy: the ``.ipynb`` file
    kept in ``.cache/lab/``, made when no kept one matches its inputs."""
    shown = notebook.relative_to(root).as_posix()
    digest = Digest(buildinfo.snippets_digest(root), settings_digest()).file(notebook, root)
    kept = root / ".cache" / "lab" / f"{notebook.stem}-{digest.hexdigest(16)}.ipynb"
    if kept.is_file():
        return kept
    with tempfile.TemporaryDirectory(prefix="course-lab-") as folder:
        work = Path(folder)
        if (root / "snippets").is_dir():
            shutil.copytree(
                root / "snippets", work / "snippets", ignore=shutil.ignore_patterns("__pycache__")
            )
        copy = work / "docs" / notebook.relative_to(root / "docs")
        copy.parent.mkdir(parents=True)
        shutil.copyfile(notebook, copy)
        out = work / "executed.ipynb"
        _run_confined(work, copy, out, shown)
        kept.parent.mkdir(parents=True, exist_ok=True)
        buildinfo.write_atomically(kept, out.read_bytes())
    return kept


def _run_confined(work: Path, copy: Path, out: Path, shown: str) -> None:
    home = work / "home"
    home.mkdir()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "HOME": str(home),
        "TMPDIR": str(home),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTER_DATA_DIR": str(home / "data"),
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "IPYTHONDIR": str(home / "ipython"),
        "MPLCONFIGDIR": str(home / "matplotlib"),
        **KERNEL_ENV,
    }
    # This module by the name it was imported under: the child imports the engine as installed.
    command = [sys.executable, "-m", __name__, str(work), str(copy), str(out)]
    # Its own process group, so that the kernel it starts ends with it.
    child = subprocess.Popen(
        command, cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, start_new_session=True,
    )  # fmt: skip
    try:
        _, errors = child.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise LabError(
            f"{shown}: the notebook ran past {TIMEOUT_S} s; nothing was published"
        ) from None
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    if child.returncode == _UNCONFINED:
        print(f"WARNING -  {shown}: {errors.strip()}", file=sys.stderr)
    elif child.returncode != 0:
        raise LabError(f"{shown}: the notebook failed:\n{errors.strip()[-4000:]}")
    if not out.is_file():
        raise LabError(f"{shown}: the notebook's run wrote no executed notebook")


_UNCONFINED = 3  # the run finished, without Landlock: say so


def _installation() -> list[str]:
    """The Python installation's folders, which the confined process and its kernel read: also
    package folders a ``.pth`` file adds (an environment that borrows another's packages)."""
    found = {sys.prefix, sys.base_prefix, sys.exec_prefix, *site.getsitepackages()}
    found.update(p for p in sys.path if Path(p).name == "site-packages")
    found.add(str(Path(sys.executable).parent))
    return sorted({os.path.realpath(p) for p in found if os.path.exists(p)})


def _main(work: Path, copy: Path, out: Path) -> int:
    """Run in the child process: confine it, then execute ``copy`` with its kernel."""
    import jupytext
    import nbformat
    from nbclient import NotebookClient
    from traitlets.config import Config

    from ..buildkit import sandbox

    confined = sandbox.confine(readable=_installation(), writable=[work])
    os.chdir(copy.parent)
    notebook = jupytext.read(copy)
    client = NotebookClient(
        notebook,
        timeout=TIMEOUT_S,
        allow_errors=False,
        resources={"metadata": {"path": str(copy.parent)}},
        config=Config(_KERNEL_CONFIG),
    )
    try:
        client.execute()
    except Exception as exc:  # nbclient's CellExecutionError and the kernel's failures
        print(str(exc)[-4000:], file=sys.stderr)
        return 1
    nbformat.write(notebook, out)
    if not confined:
        print(
            "executed without a file-system sandbox (this kernel has no Landlock): its cells "
            "could read and write outside their copy; every published file is still compared "
            "with its source",
            file=sys.stderr,
        )
        return _UNCONFINED
    return 0


if __name__ == "__main__":
    sys.exit(_main(*(Path(arg) for arg in sys.argv[1:4])))
