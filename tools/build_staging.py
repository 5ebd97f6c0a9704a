"""The build's staging folder: made beside ``site/``, swapped in whole, removed after a build
that failed, was interrupted or was killed.

``python -m tools build`` (:func:`tools.cli.build_site`) writes the site into a staging folder
and swaps it in only when the build succeeded, so a failed build never leaves ``site/`` half
written.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path


def remove_abandoned_staging(folder: Path) -> None:
    """Remove staging folders of builds that were killed (SIGKILL, power loss) mid-way.

    A staging folder is named ``.site-<pid>-...`` after the build that made it; one whose process
    is gone is abandoned. Folders of a running build, or without a pid, are left alone.
    """
    for path in folder.glob(".site-*"):
        pid = path.name.split("-")[1]
        if pid.isdigit() and not _running(int(pid)):
            remove_tree(path)


def remove_tree(path: Path) -> None:
    """``rm -rf``: folders a user made read-only (an old ``site/``) are made writable first, so
    no ``.site-*-old`` folder is left behind."""
    if not path.exists() and not path.is_symlink():
        return

    def writable(folder: Path) -> None:
        with contextlib.suppress(OSError):
            folder.chmod(0o700)
        with contextlib.suppress(OSError):
            for child in folder.iterdir():
                if child.is_dir() and not child.is_symlink():
                    writable(child)

    if path.is_dir() and not path.is_symlink():
        writable(path)
    shutil.rmtree(path, ignore_errors=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


SIGNALS = (signal.SIGINT, signal.SIGTERM)  # the ones that end a build (Ctrl-C, kill)


@contextlib.contextmanager
def staging_folder(site_dir: Path, interrupts: Interrupts) -> Iterator[tuple[Path, Path]]:
    """A fresh staging folder beside ``site_dir``, and the name the old site takes while the new
    one is swapped in; both are removed on the way out, however the build ends. The folder is
    made with the build's signals held (``interrupts``), so none can come between its making and
    the ``finally`` that removes it."""
    interrupts.hold()
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".site-{os.getpid()}-", dir=site_dir.parent))
    except BaseException:
        interrupts.release()
        raise
    old = staging.with_name(staging.name + "-old")
    try:
        interrupts.release()
        umask = os.umask(0)
        os.umask(umask)
        staging.chmod(0o777 & ~umask)  # mkdtemp makes it 0700; site/ is served and shared
        yield staging, old
    finally:
        remove_tree(staging)
        remove_tree(old)


def swap_in(staging: Path, site_dir: Path, old: Path, interrupts: Interrupts) -> None:
    """Replace ``site_dir`` by ``staging`` with no moment, even on a signal, without either;
    not after a signal (``interrupts``), even one whose exception was lost."""
    interrupts.check()
    interrupts.hold()
    try:
        if site_dir.exists():
            site_dir.rename(old)
        try:
            staging.rename(site_dir)
        except OSError:
            if old.exists():
                old.rename(site_dir)
            raise
        interrupts.swapped_in = True
    finally:
        interrupts.release()


class Interrupts:
    """The signals that came while a build ran (:func:`signals_end_the_build`). Each raises its
    exception when it comes (SIGINT KeyboardInterrupt, SIGTERM SystemExit), so ``finally``
    blocks clean up after it, or, while they are held (:meth:`hold`), when :meth:`release` ends
    the hold. Each is also remembered, since an exception raised while a finaliser runs is
    dropped (Python prints it and goes on) and the build would go on to its end:
    :func:`swap_in` asks here first.

    They are held by the handler, not by a thread's signal mask: the kernel hands a process's
    signal to any thread that does not block it, and a build has threads besides the main one
    (its worker pool's)."""

    def __init__(self) -> None:
        self.came: list[int] = []
        self.swapped_in = False  # set by swap_in once the new site is in place
        self._held = False

    def stop(self, signum: int, frame: object) -> None:
        self.came.append(signum)
        if not self._held:
            raise self.exception(signum)

    def hold(self) -> None:
        """Until :meth:`release`, remember the signals that come and raise nothing."""
        self._held = True

    def release(self) -> None:
        """End the hold, and raise the signal that came, if one did."""
        self._held = False
        self.check()

    def check(self) -> None:
        """Raise the first signal's exception again, if one came."""
        if self.came:
            raise self.exception(self.came[0])

    def exception(self, signum: int) -> BaseException:
        if signum == signal.SIGINT:
            return KeyboardInterrupt()
        if self.swapped_in:  # it came during the swap, which was finished first
            return SystemExit(f"interrupted by signal {signum}; the new site/ is in place")
        return SystemExit(f"interrupted by signal {signum}; site/ was left as it was")


@contextlib.contextmanager
def signals_end_the_build() -> Iterator[Interrupts]:
    """SIGINT and SIGTERM end the build while it runs (:class:`Interrupts`); in a thread other
    than the main one, which cannot set handlers, nothing is installed and none is seen."""
    interrupts = Interrupts()
    if threading.current_thread() is not threading.main_thread():
        yield interrupts
        return
    previous = {signum: signal.signal(signum, interrupts.stop) for signum in SIGNALS}
    try:
        yield interrupts
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
