"""The course's commands, for its maintainers, authors and learners: build, check, deck, vendor,
progress, serve, test and practice.

``python -m tools COMMAND``: each command is a small function; ``main`` only dispatches. ``build``
never measures: it renders the committed benchmark results (see ``tests/test_benchmarks*.py`` for
how they are made), and it runs MkDocs in this process (:mod:`tools.plugin.mkdocs_build`).
``vendor`` refreshes the site's vendored browser code (:mod:`tools.plugin.vendor`). ``progress``
moves a learner's reviews between the Review page and Anki, with their schedule
(:mod:`tools.anki.progress` and its routes). ``--course DIR`` points ``check``, ``deck`` and
``build`` at another course (a folder with its own ``mkdocs.yml`` and ``docs/``); the default is the
course in the current folder.
"""

from __future__ import annotations

import argparse
import gc
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NoReturn

from . import build_staging
from .buildkit import buildinfo, workers
from .buildkit import stamp as build_stamp
from .course import check as course_check
from .course import config as course_config
from .course import notes
from .plugin import mkdocs_build
from .plugin.syntax import MKDOCS
from .progress_command import direction as _progress_direction

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
    root = args.course
    with ThreadPoolExecutor(1) as side:
        with workers.build_pool() as pool:
            checked = course_check.start_checking(root, syntax=MKDOCS, workers=pool)
            # The history the notes are dated from needs only the pages' paths: git replays it
            # here while the workers parse the pages.
            history = side.submit(_page_history, root)
            # Imported where used (a build makes the deck in a worker), and once the workers
            # parse: they need none of it, and this process has the time while they work.
            from .anki import deck, note_dates

            config = checked.config  # None when its settings have errors: the check says so
            timestamp = course_config.timestamp(root, config) if config else 0
            items: list[notes.NoteItem] = []
            written, failed = _notes_as_pages_parse(checked, items, timestamp)
            course = _without_problems(checked())
        if course is None:
            return 1
        if failed is not None:  # the course has no problem, yet its notes make no deck
            raise failed
        out = Path(args.output or root / "build" / Path(course.config.deck_file).name)
        gc.freeze()  # the checked course lives until the command ends: no collection walks it
        times = note_dates.note_times(
            items,
            root=root,
            timestamp=timestamp,
            renderer=deck.RENDERER_FILES,
            replayed=history.result(),
        )
    buildinfo.write_atomically(out, written.apkg(times), durable=True)
    print(f"wrote {out}")
    return 0


def _notes_as_pages_parse(
    checked: course_check.Checking, items: list[notes.NoteItem], timestamp: int
) -> tuple[Any, ValueError | None]:
    """The deck's notes written (:func:`tools.anki.deck.write_notes`) page by page as the
    workers hand the pages back, each note appended to ``items``; and the error that stopped
    it, if one did, to raise once the course is known to have no problems (which say more)."""
    from .anki import deck

    config = checked.config
    if config is None:
        return None, None

    def pages_notes():
        for page in checked.pages():
            # The pages and their notes live until the command ends: out of the collector's
            # sight as they come, the collections that writing the notes triggers skip them.
            gc.freeze()
            page_items = notes.page_notes(page, config)
            items.extend(page_items)
            yield from page_items

    try:
        written = deck.write_notes(config, pages_notes(), timestamp=timestamp, root=checked.root)
    except ValueError as exc:
        return None, exc
    return written, None


def _page_history(root: Path):
    """:func:`tools.anki.note_dates.history` of every Markdown page under the docs folder."""
    from .anki import note_dates

    docs = root / course_config.docs_dir(root)
    return note_dates.history(root, (p.relative_to(root).as_posix() for p in docs.rglob("*.md")))


def build_site(site_dir: Path, *, root: Path = ROOT, strict_results: bool = False) -> None:
    """Build site and deck into a fresh folder, then swap it in: a failed build loses nothing.

    An interrupted build (Ctrl-C, SIGTERM) loses nothing either: the staging folder is removed
    and ``site/`` is swapped whole, with both signals held back for the two renames. MkDocs runs
    in this process, and the course plugin builds the course checked here instead of parsing it
    again.
    A site folder that is already what this build would write is left alone
    (:mod:`tools.buildkit.stamp`).
    """
    site_dir = site_dir.resolve()
    started = time.perf_counter()
    inputs = build_stamp.inputs_digest(root, site_dir, strict_results=strict_results)
    if build_stamp.up_to_date(root, site_dir, inputs):
        print(f"{site_dir} is up to date: nothing it is built from changed since it was built")
        return
    # The plugin's background jobs run these modules: imported before the pool's workers fork,
    # they start with them (this process imports them anyway, when MkDocs loads the plugin).
    from .plugin import offline, pages, review  # noqa: F401

    # The build's one worker pool; a signal ends the build, and the staging folder goes.
    with build_staging.signals_end_the_build() as interrupts, workers.build_pool() as pool:
        checking = course_check.start_checking(
            root, syntax=MKDOCS, strict_results=strict_results, workers=pool
        )
        build_staging.remove_abandoned_staging(site_dir.parent)
        with build_staging.staging_folder(site_dir, interrupts) as (staging, old):
            course = mkdocs_build.build(
                root / "mkdocs.yml",
                staging,
                checking,
                lambda: _without_problems(checking()),
                strict_results=strict_results,
                pool=pool,
            )
            build_staging.swap_in(staging, site_dir, old, interrupts)
            build_stamp.record(root, site_dir, inputs)
    print(
        f"built {site_dir} (deck: {site_dir / course.config.deck_file}) "
        f"in {time.perf_counter() - started:.1f} s"
    )


def cmd_build(args: argparse.Namespace) -> int:
    site_dir = Path(args.site_dir) if args.site_dir else args.course / "site"
    build_site(site_dir, root=args.course, strict_results=args.strict_results)
    return 0


def cmd_progress(args: argparse.Namespace) -> int:
    """Progress from the Review page into Anki (a package, or the learner's own collection), or
    from an Anki export back. Every failure, an interruption included, is a message."""
    from .anki import progress  # SQLite and the standard library only

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


def cmd_vendor(args: argparse.Namespace) -> int:
    from .plugin import vendor

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

    last: list = []  # the course problems() checked, which the plugin then builds

    def problems() -> str | None:
        with workers.build_pool() as pool:
            checking = course_check.start_checking(args.course, syntax=MKDOCS, workers=pool)
            course = checking()
        last[:] = [checking]
        return None if _without_problems(course) else course_check.report(course)

    mkdocs_build.serve(
        args.course / "mkdocs.yml", problems, lambda: last[0], dev_addr=args.dev_addr
    )
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
    """The course's own practice command (its ``practice_cli`` setting), given ``rest`` as it
    came: the engine knows no exercise, so the course in the current folder says what runs."""
    from .benchmarks.registry import import_target
    from .course.model import CourseError

    root = Path.cwd()
    try:
        course_config.load(root)  # a setting with a problem is reported, not run
    except CourseError as exc:
        print(f"practice: {exc}", file=sys.stderr)
        return 2
    target = course_config.course_function(root, "practice_cli")
    if not target:
        print(
            f"practice: {root / course_config.CONFIG_FILE}: this course declares no practice_cli",
            file=sys.stderr,
        )
        return 2
    try:
        practice = import_target(target, root)
    except ImportError as exc:  # its source read right, but running it failed
        print(f"practice: {course_config.CONFIG_FILE}: practice_cli: {exc}", file=sys.stderr)
        return 2
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
    from .plugin import vendor  # standard library only: cheap to import for the help text

    summary = " ".join(__doc__.split("\n\n")[0].split())  # the docstring's first paragraph
    ap = argparse.ArgumentParser(prog="python -m tools", description=summary)
    course = argparse.ArgumentParser(add_help=False)
    course.add_argument(
        "--course",
        type=_course_dir,
        default=".",  # a string default goes through ``type`` too
        metavar="DIR",
        help="the course's folder (its mkdocs.yml and docs/); default: the current folder",
    )
    results = argparse.ArgumentParser(add_help=False)
    results.add_argument(
        "--strict-results",
        action="store_true",
        help="fail on benchmark results older than the code that made them",
    )
    sub = ap.add_subparsers(dest="command", required=True)

    def command(
        name: str, about: str, *parents: argparse.ArgumentParser
    ) -> argparse.ArgumentParser:
        """A subcommand whose own --help opens with what it does, as the list above says it."""
        return sub.add_parser(name, parents=list(parents), help=about, description=about)

    p = command("build", "build the site and the deck into site/", course, results)
    p.add_argument("--site-dir", help="default: site/ in the course's folder")
    p.set_defaults(func=cmd_build)
    p = command("check", "validate all course sources; writes nothing", course, results)
    p.set_defaults(func=cmd_check)
    p = command("deck", "write only the Anki deck", course)
    p.add_argument("-o", "--output", help="default: build/<deck file name> in the course's folder")
    p.set_defaults(func=cmd_deck)
    p = command(
        "vendor", "refresh the vendored browser packages from npm and check their integrity"
    )
    p.add_argument("package", nargs="?", choices=sorted(vendor.PACKAGES), help="default: all")
    p.add_argument("--version", help="move the pin to this version (default: the recorded one)")
    p.set_defaults(func=cmd_vendor)
    p = command(
        "progress",
        "move reviews and their schedule between the Review page and Anki: to-anki, a package "
        "for a collection without the course; into-anki, into your own collection; from-anki, "
        "an Anki export to a progress file the Review page imports",
        course,
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
    p = command(
        "serve",
        "live-reloading preview with the build's checks and warnings; a failed build answers "
        "the browser with its error",
        course,
    )
    p.add_argument("-a", "--dev-addr", metavar="IP:PORT", help="default: mkdocs.yml's dev_addr")
    p.set_defaults(func=cmd_serve)
    command("test", "run the test suite (arguments go to pytest)")
    command("practice", "the practice workspace: start DIR, status, claim N, check")
    return ap


def exit_with(code: int) -> NoReturn:
    """End the process after a command without collecting its garbage first: the build leaves
    cycles (MkDocs' pages and navigation, parsed trees) whose collection at exit is work for
    memory the system takes back anyway."""
    gc.freeze()
    sys.exit(code)


# Objects a command may make before the collector looks at the young ones (Python's default is
# 700). Parsing, rendering and the deck make many small objects that live as long as a page or a
# note and are no garbage: with the default, each is examined many times for nothing.
_YOUNG_OBJECTS = 5000


def main(argv: list[str]) -> int:
    _, *older = gc.get_threshold()
    gc.set_threshold(_YOUNG_OBJECTS, *older)  # worker processes fork with it
    if argv and argv[0] in PASSTHROUGH:
        return PASSTHROUGH[argv[0]](argv[1:])
    args = argument_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # ``python -m mkdocs_course.cli``: the CLI without the venv bootstrap
    exit_with(main(sys.argv[1:]))
