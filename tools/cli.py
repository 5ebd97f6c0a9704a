"""``python -m tools build|deck|check|serve|test``: the maintainer's and author's entry points.

Each command is a small function; ``main`` only dispatches. ``build`` never measures: it renders
the committed benchmark results (see ``tests/test_benchmarks*.py`` for how they are made).
"""

from __future__ import annotations

import argparse
import contextlib
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

from tools import buildinfo, course_check, deck

ROOT = buildinfo.ROOT


def _checked(strict_results: bool = False):
    course = course_check.load_checked_course(ROOT, strict_results=strict_results)
    if course.errors:
        print(course_check.report(course), file=sys.stderr)
        print(f"{len(course.errors)} problem(s); nothing was written.", file=sys.stderr)
        return None
    return course


def cmd_check(args: argparse.Namespace) -> int:
    course = _checked(args.strict_results)
    if course is None:
        return 1
    quizzes = sum(len(page.quizzes) for page in course.pages)
    print(
        f"ok: {len(course.pages)} pages, {len(course.cards)} flashcards, "
        f"{quizzes} quizzes with {len(course.questions)} questions"
    )
    return 0


def cmd_deck(args: argparse.Namespace) -> int:
    course = _checked()
    if course is None:
        return 1
    out = Path(args.output)
    deck.write_deck(
        course,
        out,
        site_url=_site_url(),
        timestamp=buildinfo.source_date_epoch(),
    )
    print(f"wrote {out}")
    return 0


def build_site(site_dir: Path, *, strict_results: bool = False) -> None:
    """Build site and deck into a fresh folder, then swap it in: a failed build loses nothing.

    An interrupted build (Ctrl-C, SIGTERM) loses nothing either: the staging folder is removed
    and ``site/`` is swapped whole, with both signals held back for the two renames.
    """
    if _checked(strict_results) is None:
        raise SystemExit(1)
    site_dir = site_dir.resolve()
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    if strict_results:
        env[buildinfo.STRICT_RESULTS_ENV] = "1"
    started = time.perf_counter()
    with _terminate_as_exit():
        staging = Path(tempfile.mkdtemp(prefix=".site-", dir=site_dir.parent))
        old = staging.with_name(staging.name + "-old")
        try:
            result = subprocess.run(
                [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(staging)],
                cwd=ROOT,
                env=env,
            )
            if result.returncode != 0:
                raise SystemExit(f"mkdocs build failed; {site_dir} was left as it was")
            _swap_in(staging, site_dir, old)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
            shutil.rmtree(old, ignore_errors=True)
    print(
        f"built {site_dir} (deck: {site_dir / buildinfo.DECK_FILE}) "
        f"in {time.perf_counter() - started:.1f} s"
    )


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
    build_site(Path(args.site_dir), strict_results=args.strict_results)
    return 0


def cmd_vendor(args: argparse.Namespace) -> int:
    from tools import vendor

    try:
        record = vendor.refresh(args.version)
    except vendor.VendorError as exc:
        print(f"vendor: {exc}", file=sys.stderr)
        return 1
    print(f"vendored {record['package']}@{record['version']} ({record['integrity']})")
    return 0


def cmd_serve(rest: list[str]) -> int:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    return subprocess.call([sys.executable, "-m", "mkdocs", "serve", *rest], cwd=ROOT, env=env)


def cmd_test(rest: list[str]) -> int:
    return subprocess.call([sys.executable, "-m", "pytest", *rest], cwd=ROOT)


# Commands whose arguments belong to another program (mkdocs serve, pytest): passed through
# untouched, since argparse would take their options (``-m "not browser"``) for its own.
PASSTHROUGH = {"serve": cmd_serve, "test": cmd_test}


def _site_url() -> str:
    import yaml

    class _Loader(yaml.SafeLoader):
        """mkdocs.yml may hold MkDocs-specific tags; their values do not matter here."""

    _Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    config = yaml.load((ROOT / "mkdocs.yml").read_text("utf-8"), Loader=_Loader)
    return config.get("site_url") or ""


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m tools", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("build", help="build the site and the deck into site/")
    p.add_argument("--site-dir", default=str(ROOT / "site"))
    p.add_argument(
        "--strict-results",
        action="store_true",
        help="fail on benchmark results older than the code that made them",
    )
    p.set_defaults(func=cmd_build)
    p = sub.add_parser("check", help="validate all course sources; writes nothing")
    p.add_argument("--strict-results", action="store_true")
    p.set_defaults(func=cmd_check)
    p = sub.add_parser("deck", help="write only the Anki deck")
    p.add_argument("-o", "--output", default=str(ROOT / "build" / Path(buildinfo.DECK_FILE).name))
    p.set_defaults(func=cmd_deck)
    p = sub.add_parser(
        "vendor", help="refresh the vendored ts-fsrs from npm and check its integrity"
    )
    p.add_argument("--version", help="move the pin to this version (default: the recorded one)")
    p.set_defaults(func=cmd_vendor)
    sub.add_parser("serve", help="live-reloading preview (arguments go to mkdocs serve)")
    sub.add_parser("test", help="run the test suite (arguments go to pytest)")
    return ap


def main(argv: list[str]) -> int:
    if argv and argv[0] in PASSTHROUGH:
        return PASSTHROUGH[argv[0]](argv[1:])
    args = parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # ``python -m tools.cli``: the CLI without the venv bootstrap
    sys.exit(main(sys.argv[1:]))
