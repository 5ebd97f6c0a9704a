"""``python -m tools build|check|deck|progress|serve|test|vendor``: the maintainer's, author's
and learner's entry points.

Each command is a small function; ``main`` only dispatches. ``build`` never measures: it renders
the committed benchmark results (see ``tests/test_benchmarks*.py`` for how they are made), and it
runs MkDocs in this process (:mod:`tools.site.mkdocs_build`). ``vendor`` refreshes the site's
vendored browser code (:mod:`tools.site.vendor`). ``progress`` moves a learner's reviews between
the Review page and Anki, with their schedule (:mod:`tools.anki.progress` and its routes).
``--course DIR`` points ``check``, ``deck`` and ``build`` at another course (a folder with its
own ``mkdocs.yml`` and ``docs/``); the default is this repository's course.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

from tools.build import buildinfo, workers
from tools.build import stamp as build_stamp
from tools.course import check as course_check
from tools.site import mkdocs_build
from tools.site.syntax import MKDOCS

ROOT = buildinfo.ROOT


def _checked(root: Path, strict_results: bool = False, *, authoring: bool = True):
    with workers.build_pool() as pool:
        course = course_check.load_checked_course(
            root, syntax=MKDOCS, strict_results=strict_results, workers=pool
        )
    return _without_problems(course, authoring=authoring)


def _without_problems(course, *, authoring: bool = True):
    """The course, or None after printing its problems, every one with its ``path:line``.

    Authoring cues (:func:`tools.course.check.cue_warnings`) are printed too when ``authoring``, but
    fail nothing. A learner moving progress (``progress``) can fix neither: they are left out."""
    for warning in course_check.cue_warnings(course) if authoring else ():
        print(warning, file=sys.stderr)
    if not course.errors:
        return course
    print(course_check.report(course), file=sys.stderr)
    print(f"{len(course.errors)} problem(s); nothing was written.", file=sys.stderr)
    return None


def cmd_check(args: argparse.Namespace) -> int:
    course = _checked(args.course, args.strict_results)
    if course is None:
        return 1
    quizzes = sum(len(page.quizzes) for page in course.pages)
    print(
        f"ok: {len(course.pages)} pages, {len(course.cards)} flashcards, "
        f"{quizzes} quizzes with {len(course.questions)} questions"
    )
    return 0


def cmd_deck(args: argparse.Namespace) -> int:
    from tools.anki import deck  # imported where used: a build makes the deck in a worker

    course = _checked(args.course)
    if course is None:
        return 1
    out = Path(args.output or args.course / "build" / Path(course.config.deck_file).name)
    deck.write_deck(
        course, out, timestamp=buildinfo.source_date_epoch(args.course), root=args.course
    )
    print(f"wrote {out}")
    return 0


def build_site(site_dir: Path, *, root: Path = ROOT, strict_results: bool = False) -> None:
    """Build site and deck into a fresh folder, then swap it in: a failed build loses nothing.

    An interrupted build (Ctrl-C, SIGTERM) loses nothing either: the staging folder is removed
    and ``site/`` is swapped whole, with both signals held back for the two renames. MkDocs runs
    in this process, so its hook reuses the course checked here instead of parsing it again.
    A site folder that is already what this build would write is left alone
    (:mod:`tools.build.stamp`).
    """
    site_dir = site_dir.resolve()
    started = time.perf_counter()
    inputs = build_stamp.inputs_digest(root, site_dir, strict_results=strict_results)
    if build_stamp.up_to_date(root, site_dir, inputs):
        print(f"{site_dir} is up to date: nothing it is built from changed since it was built")
        return
    # The hook's background jobs run these modules: imported before the pool's workers fork,
    # they start with them (this process imports them anyway, when MkDocs loads the hook).
    from tools.site import offline, pages, review  # noqa: F401

    with _terminate_as_exit(), workers.build_pool() as pool:  # the build's one worker pool
        checked = course_check.start_checking(
            root, syntax=MKDOCS, strict_results=strict_results, workers=pool
        )
        _remove_abandoned_staging(site_dir.parent)
        staging = Path(tempfile.mkdtemp(prefix=f".site-{os.getpid()}-", dir=site_dir.parent))
        umask = os.umask(0)
        os.umask(umask)
        staging.chmod(0o777 & ~umask)  # mkdtemp makes it 0700; site/ is served and shared
        old = staging.with_name(staging.name + "-old")
        try:
            course = mkdocs_build.build(
                root / "mkdocs.yml",
                staging,
                lambda: _without_problems(checked()),
                strict_results=strict_results,
            )
            _swap_in(staging, site_dir, old)
            build_stamp.record(root, site_dir, inputs)
        finally:
            _remove_tree(staging)
            _remove_tree(old)
    print(
        f"built {site_dir} (deck: {site_dir / course.config.deck_file}) "
        f"in {time.perf_counter() - started:.1f} s"
    )


def _remove_abandoned_staging(folder: Path) -> None:
    """Remove staging folders of builds that were killed (SIGKILL, power loss) mid-way.

    A staging folder is named ``.site-<pid>-...`` after the build that made it; one whose process
    is gone is abandoned. Folders of a running build, or without a pid, are left alone.
    """
    for path in folder.glob(".site-*"):
        pid = path.name.split("-")[1]
        if pid.isdigit() and not _running(int(pid)):
            _remove_tree(path)


def _remove_tree(path: Path) -> None:
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


def _swap_in(staging: Path, site_dir: Path, old: Path) -> None:
    """Replace ``site_dir`` by ``staging`` with no moment, even on a signal, without either."""
    held = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        if site_dir.exists():
            site_dir.rename(old)
        try:
            staging.rename(site_dir)
        except OSError:
            if old.exists():
                old.rename(site_dir)
            raise
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, held)


@contextlib.contextmanager
def _terminate_as_exit() -> Iterator[None]:
    """Turn SIGTERM into SystemExit while building, so ``finally`` blocks clean up after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(f"interrupted by signal {signum}; site/ was left as it was")

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def cmd_build(args: argparse.Namespace) -> int:
    site_dir = Path(args.site_dir) if args.site_dir else args.course / "site"
    build_site(site_dir, root=args.course, strict_results=args.strict_results)
    return 0


def cmd_progress(args: argparse.Namespace) -> int:
    """Progress from the Review page into Anki (a package, or the learner's own collection), or
    from an Anki export back. Every failure, an interruption included, is a message."""
    from tools.anki import progress  # SQLite and the standard library only

    try:
        course = _checked(args.course, authoring=False)
        if course is None:
            return 1
        return _progress_direction(args, course, int(time.time() * 1000))
    except progress.ProgressError as exc:
        print(f"progress: {exc}", file=sys.stderr)
    except KeyboardInterrupt:
        print("progress: interrupted; nothing was written", file=sys.stderr)
        return 130
    except MemoryError:
        print("progress: out of memory; nothing was written", file=sys.stderr)
    except Exception as exc:  # a bug, said in one line: outputs are written whole or not at all
        print(
            f"progress: {type(exc).__name__}: {exc} (a bug in this tool: please report it); "
            "nothing was written",
            file=sys.stderr,
        )
    return 1


FSRS_NOTE = (
    " Anki goes on with the FSRS memory state each card carries once FSRS is on: Deck options >"
    " Advanced > FSRS (one switch for the whole collection)."
)


def _progress_direction(args: argparse.Namespace, course, now: int) -> int:
    from tools.anki import deck, progress
    from tools.course import notes

    source = Path(args.file)
    guids = {item.guid for item in notes.note_items(course)}
    if args.direction == "from-anki":
        from tools.anki.progress_read import from_anki

        out = Path(args.output or source.with_suffix(".json"))
        progress.check_output(out, [source], args.force)
        cards, counts = from_anki(source, guids, now)
        data = progress.encode_progress(
            progress.progress_document(cards, now, progress.DEFAULT_NEW_PER_DAY)
        )
        progress.write_output(out, data)
        print(
            f"wrote {out}: {counts['known']} reviewed cards; {counts['new']} never reviewed; "
            f"{counts['unknown']} cards the course does not know ignored"
            + (
                f"; {counts['damaged']} with values the page cannot read left out"
                if counts["damaged"]
                else ""
            )
            + (
                f"; {counts['estimated']} without an FSRS memory state (estimated)"
                if counts["estimated"]
                else ""
            )
            + ". On the Review page: Progress and settings > Import progress."
        )
        return 0
    document = progress.read_progress(source)
    package = deck.build_apkg(
        course, timestamp=buildinfo.source_date_epoch(args.course), root=args.course
    )
    if args.direction == "into-anki":
        from tools.anki.progress_merge import into_anki

        if not args.collection:
            raise progress.ProgressError(
                "into-anki needs the collection: Anki's collection.anki2 in your profile's folder"
            )
        counts = into_anki(Path(args.collection), document["cards"], package, guids, now)
        if not counts["notes_added"] + counts["scheduled"] + counts["reviews_added"]:
            print(
                f"{args.collection}: nothing moved: Anki already has every review in {source}"
                f" ({counts['kept']} cards reviewed there as late or later keep Anki's schedule)."
                f" Anki's backup from before: {counts['backup']}."
            )
            return 0
        print(
            f"{args.collection}: {counts['notes_added']} course notes added; "
            f"{counts['scheduled']} cards given the site's schedule; {counts['kept']} kept as "
            f"Anki had them (reviewed there later); {counts['reviews_added']} reviews added"
            + (
                f"; {counts['unknown']} items not in this course left out"
                if counts["unknown"]
                else ""
            )
            + f". Anki's backup from before: {counts['backup']}."
            + ("" if counts["fsrs"] else FSRS_NOTE)
        )
        return 0
    from tools.anki.progress_apkg import to_apkg

    out = Path(args.output or source.with_suffix(".apkg"))
    progress.check_output(out, [source], args.force)
    made, scheduled = to_apkg(package, document["cards"], now)
    progress.write_output(out, made)
    left = len(document["cards"]) - scheduled
    print(
        f"wrote {out}: {scheduled} cards with their schedule"
        + (f"; {left} not in this version of the course left out" if left else "")
        + ". In Anki: File > Import, with 'Import any learning progress' ticked. That brings the"
        " schedule only into a collection without the course's deck: Anki leaves the cards it"
        " already has as they are. If yours has the deck, close Anki and run python3 -m tools"
        " progress into-anki " + str(source) + " COLLECTION instead." + FSRS_NOTE
    )
    return 0


def cmd_vendor(args: argparse.Namespace) -> int:
    from tools.site import vendor

    if args.version and not args.package:
        print("vendor: --version needs the package it pins", file=sys.stderr)
        return 2
    names = [args.package] if args.package else list(vendor.PACKAGES)
    for name in names:
        try:
            record = vendor.refresh(args.version, vendor.PACKAGES[name])
        except vendor.VendorError as exc:
            print(f"vendor: {exc}", file=sys.stderr)
            return 1
        print(f"vendored {record['package']}@{record['version']} ({record['integrity']})")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """The live preview, checked as ``build`` checks (its warnings on every rebuild), in this
    process; a build that fails shows its error in the browser (:func:`mkdocs_build.serve`)."""

    def problems() -> str | None:
        with workers.build_pool() as pool:
            course = course_check.load_checked_course(args.course, syntax=MKDOCS, workers=pool)
        return None if _without_problems(course) else course_check.report(course)

    mkdocs_build.serve(args.course / "mkdocs.yml", problems, dev_addr=args.dev_addr)
    return 0


# The suite runs in one process per core (pytest-xdist), each test file kept in one process so its
# module fixtures (a built course, a browser) are made once; ``-n 0`` runs it in this process.
# Files are handed out in the order tests/conftest.py gives them (slow ones first), not by count.
PARALLEL = ["-n", "auto", "--dist", "loadfile", "--no-loadscope-reorder"]


def cmd_test(rest: list[str]) -> int:
    chosen = any(arg == "-n" or arg.startswith(("-n", "--numprocesses")) for arg in rest)
    options = [] if chosen else PARALLEL
    return subprocess.call([sys.executable, "-m", "pytest", *options, *rest], cwd=ROOT)


def cmd_practice(rest: list[str]) -> int:
    from tools.practice.cli import main as practice  # its own parser: arguments go through

    return practice(rest)


# Commands whose arguments belong to another program (pytest, the practice CLI): passed through
# untouched, since argparse would take their options (``-m "not browser"``) for its own.
PASSTHROUGH = {"test": cmd_test, "practice": cmd_practice}


def _course_dir(value: str) -> Path:
    root = Path(value).resolve()
    if not (root / "mkdocs.yml").is_file():
        raise argparse.ArgumentTypeError(f"{value}: no mkdocs.yml there, so no course")
    return root


def argument_parser() -> argparse.ArgumentParser:
    from tools.site import vendor  # standard library only: cheap to import for the help text

    ap = argparse.ArgumentParser(prog="python -m tools", description=__doc__.splitlines()[0])
    course = argparse.ArgumentParser(add_help=False)
    course.add_argument(
        "--course",
        type=_course_dir,
        default=ROOT,
        metavar="DIR",
        help="the course's folder (its mkdocs.yml and docs/); default: this repository",
    )
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("build", parents=[course], help="build the site and the deck into site/")
    p.add_argument("--site-dir", help="default: site/ in the course's folder")
    p.add_argument(
        "--strict-results",
        action="store_true",
        help="fail on benchmark results older than the code that made them",
    )
    p.set_defaults(func=cmd_build)
    p = sub.add_parser(
        "check", parents=[course], help="validate all course sources; writes nothing"
    )
    p.add_argument("--strict-results", action="store_true")
    p.set_defaults(func=cmd_check)
    p = sub.add_parser("deck", parents=[course], help="write only the Anki deck")
    p.add_argument("-o", "--output", help="default: build/<deck file name> in the course's folder")
    p.set_defaults(func=cmd_deck)
    p = sub.add_parser(
        "vendor", help="refresh the vendored browser packages from npm and check their integrity"
    )
    p.add_argument("package", nargs="?", choices=sorted(vendor.PACKAGES), help="default: all")
    p.add_argument("--version", help="move the pin to this version (default: the recorded one)")
    p.set_defaults(func=cmd_vendor)
    p = sub.add_parser(
        "progress",
        parents=[course],
        help="Review page progress to an Anki package with its schedule (to-anki), or an Anki "
        "export to a progress file the Review page imports (from-anki)",
    )
    p.add_argument("direction", choices=["to-anki", "into-anki", "from-anki"])
    p.add_argument(
        "file", help="to-anki, into-anki: the page's exported .json; from-anki: .apkg or .colpkg"
    )
    p.add_argument(
        "collection",
        nargs="?",
        help="into-anki: Anki's collection.anki2 (Anki closed; a backup is made first)",
    )
    p.add_argument("-o", "--output", help="default: the input's name with .apkg or .json")
    p.add_argument("--force", action="store_true", help="replace an existing output file")
    p.set_defaults(func=cmd_progress)
    p = sub.add_parser(
        "serve",
        parents=[course],
        help="live-reloading preview with the build's checks and warnings; a failed build "
        "answers the browser with its error",
    )
    p.add_argument("-a", "--dev-addr", metavar="IP:PORT", help="default: mkdocs.yml's dev_addr")
    p.set_defaults(func=cmd_serve)
    sub.add_parser("test", help="run the test suite (arguments go to pytest)")
    sub.add_parser("practice", help="the practice workspace: start DIR, status, claim N, check")
    return ap


def exit_with(code: int) -> NoReturn:
    """End the process after a command without collecting its garbage first: the build leaves
    cycles (MkDocs' pages and navigation, parsed trees) whose collection at exit is work for
    memory the system takes back anyway."""
    gc.freeze()
    sys.exit(code)


def main(argv: list[str]) -> int:
    if argv and argv[0] in PASSTHROUGH:
        return PASSTHROUGH[argv[0]](argv[1:])
    args = argument_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # ``python -m tools.cli``: the CLI without the venv bootstrap
    exit_with(main(sys.argv[1:]))
