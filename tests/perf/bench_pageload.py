"""How fast pages load: Lighthouse (mobile) on this course's pages beside the same Markdown built by
plain Material, and beside the engine at another commit.

Run: ``.venv/bin/python tests/perf/bench_pageload.py [--runs R] [--old REF|none] [--page PATH ...]
[--keep DIR] [--raw]``. It is a benchmark that prints figures, not a test; it takes minutes.
``--keep`` copies Lighthouse's JSON reports into DIR, to read its diagnostics (the LCP element and
its phases, main-thread work, fonts) beside the figures.

Three sites are built into a temporary folder: ``ours`` (``python -m tools.cli build`` of this
checkout), ``plain`` (``mkdocs build`` of the same pages with the hook taken out of a copy of
``mkdocs.yml``, as in ``bench_scale.py``) and ``old`` (``--old REF``, by default where HEAD left
main, built in a worktree of its own, removed afterwards). Each is served from 127.0.0.1 by the
tests' local server (``tests/conftest.py``), in this process, with text gzip-encoded as GitHub Pages
sends it (``--raw``: uncompressed, so the page weight is the files' size). Lighthouse (npm
``lighthouse``, installed into ``.cache/lighthouse`` by npm on the first run; Debian's
``/usr/bin/chromium``, or ``CHROME_PATH``) audits each page R times, the sites alternating within a
round and their order reversed from one round to the next, so that they share the machine's load.
Printed per page, a column per site and run: the four category scores, FCP, LCP, Speed Index, TBT,
CLS, the bytes and requests the page loads, its render-blocking resources and elements, the HTML's
size and the search index's, and when the trace shows the first paint. Last, per page, each site's
median performance and LCP, over all runs and over those that painted promptly
(:data:`PROMPT_PAINT_MS`), and whether ours meets the bar against plain (:data:`BAR`).

Lighthouse simulates a slow phone from the trace of a fast load, so other work on the machine moves
every figure: the load average is printed with each round.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: its local server

from bench_scale import (
    PLAIN_CONFIG,
    ROOT,
    Engine,
    branch_point,
    git,
    load_average,
    loaded_engine,
    old_engine,
    run,
    write_plain_config,
)
from conftest import serve

LIGHTHOUSE = "lighthouse@12.8.2"
TOOLS = ROOT / ".cache" / "lighthouse"
PAGES = ("lessons/02-gradient-checkpointing.html", "review.html")
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
SEARCH_INDEX = "search/search_index.json"


def lighthouse() -> list[str]:
    """The Lighthouse command, installed into ``.cache/lighthouse`` with npm if it is not there."""
    cli = TOOLS / "node_modules" / "lighthouse" / "cli" / "index.js"
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        raise SystemExit("Lighthouse needs Node.js and npm: apt-get install nodejs npm")
    if not cli.is_file():
        TOOLS.mkdir(parents=True, exist_ok=True)
        print(f"installing {LIGHTHOUSE} into {TOOLS} with npm")
        install = [npm, "install", "--no-audit", "--no-fund", "--prefix", str(TOOLS), LIGHTHOUSE]
        subprocess.run(install, check=True, capture_output=True)
    return [node, str(cli)]


def chromium() -> str:
    path = os.environ.get("CHROME_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).is_file():
        raise SystemExit("Lighthouse needs Chromium: apt-get install chromium (or set CHROME_PATH)")
    return path


def build_sites(tmp: Path, old: str) -> dict[str, Path]:
    """Build each site once: plain Material, ours and (unless ``old`` is none) the old engine's."""
    sites = {"plain": tmp / "plain", "ours": tmp / "ours"}
    write_plain_config(ROOT)
    try:
        plain = [sys.executable, "-m", "mkdocs", "build", "-f", PLAIN_CONFIG, "-d"]
        run([*plain, str(sites["plain"]), "--no-strict"], cwd=ROOT)
    finally:
        (ROOT / PLAIN_CONFIG).unlink(missing_ok=True)
    ours = [sys.executable, "-m", "mkdocs_course.cli", "build", "--site-dir"]
    run([*ours, str(sites["ours"])], cwd=ROOT)
    if old != "none":
        ref = old or branch_point()
        engine = old_engine(ref, tmp)
        print(f"old engine: {ref} ({git(ROOT, 'rev-parse', '--short', ref).strip()})")
        try:
            sites["old"] = tmp / "old"
            # Its own engine, not this checkout's: the installed package is this checkout's.
            old = Engine("old", engine, engine)
            loaded_engine(old)
            run([*ours, str(sites["old"])], cwd=engine, env=old.env)
        finally:
            git(ROOT, "worktree", "remove", "--force", str(engine))
    return sites


def audit(command: list[str], url: str, out: Path) -> dict[str, float]:
    """One Lighthouse run (mobile, its default simulated throttling): the figures printed."""
    flags = "--headless=new --no-sandbox --disable-gpu --no-first-run"
    cmd = [
        *command,
        url,
        "--output=json",
        f"--output-path={out}",
        f"--only-categories={','.join(CATEGORIES)}",
        f"--chrome-flags={flags}",
        "--quiet",
    ]
    env = {**os.environ, "CHROME_PATH": chromium()}
    result = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if result.returncode or not out.is_file():
        raise SystemExit(f"lighthouse failed on {url}:\n{result.stderr[-3000:]}")
    report = json.loads(out.read_text("utf-8"))
    if report.get("runtimeError"):
        raise SystemExit(f"lighthouse on {url}: {report['runtimeError']}")
    audits = report["audits"]

    def value(name: str) -> float:
        return float(audits[name].get("numericValue") or 0)

    def items(name: str) -> int:
        return len((audits.get(name, {}).get("details") or {}).get("items") or [])

    figures = {c: round(100 * (report["categories"][c]["score"] or 0)) for c in CATEGORIES}
    figures |= {
        "FCP s": value("first-contentful-paint") / 1000,
        "LCP s": value("largest-contentful-paint") / 1000,
        "Speed Index s": value("speed-index") / 1000,
        "TBT ms": value("total-blocking-time"),
        "CLS": value("cumulative-layout-shift"),
        "weight KiB": value("total-byte-weight") / 1024,
        "requests": items("network-requests"),
        "render-blocking": items("render-blocking-resources"),
        "DOM elements": value("dom-size"),
        # Not in the trace: NaN, which no summary counts as a prompt paint (0 would).
        "first paint ms": float(
            audits["metrics"]["details"]["items"][0].get("observedFirstContentfulPaint", "nan")
        ),
    }
    return figures


ROWS = (
    *CATEGORIES,
    "FCP s",
    "LCP s",
    "Speed Index s",
    "TBT ms",
    "CLS",
    "weight KiB",
    "requests",
    "render-blocking",
    "DOM elements",
    "HTML KiB",
    "index KiB",
    "first paint ms",
)

# Lighthouse simulates its figures from a trace of one unthrottled load. In some loads headless
# Chromium paints first about a second late, for plain Material's pages too; every request made
# before that paint then counts as needed for it, and the simulated LCP jumps by seconds. The
# summary gives the medians of all runs, and of the runs whose trace shows the first paint
# within this many milliseconds (those compare like with like).
PROMPT_PAINT_MS = 500
BAR = {"performance": -5, "LCP s": 0.5}  # ours against plain: at least -5, at most +0.5 s


def show(page: str, columns: dict[str, dict[str, float]]) -> None:
    print(f"\n{page}")
    print(f"  {'':16}" + "".join(f"{name:>12}" for name in columns))
    for row in ROWS:
        cells = []
        for figures in columns.values():
            number = figures[row]
            cells.append(f"{number:12.0f}" if float(number).is_integer() else f"{number:12.2f}")
        print(f"  {row:16}" + "".join(cells))


def site_of(column: str) -> str:
    """The site of a column named ``"SITE #RUN"`` (``main`` names them)."""
    return column.split(" #")[0]


def summary(page: str, columns: dict[str, dict[str, float]], names: list[str]) -> None:
    """Each site's median performance and LCP over all runs and over the runs that painted
    promptly, and whether ours meets the bar against plain on each."""
    print(f"\n{page}: medians (runs)")
    prompt = {c: f for c, f in columns.items() if f["first paint ms"] <= PROMPT_PAINT_MS}
    label = f"first paint <= {PROMPT_PAINT_MS} ms"
    for kind, chosen in (("all runs", columns), (label, prompt)):
        by_site: dict[str, list[dict[str, float]]] = {}
        for column, figures in chosen.items():
            by_site.setdefault(site_of(column), []).append(figures)
        sites = {
            site: {row: statistics.median(f[row] for f in by_site[site]) for row in BAR}
            for site in names
            if site in by_site
        }
        cells = [
            f"{site} {m['performance']:.0f}, LCP {m['LCP s']:.2f} s ({len(by_site[site])})"
            for site, m in sites.items()
        ]
        verdict = ""
        if "ours" in sites and "plain" in sites:
            ours, plain = sites["ours"], sites["plain"]
            met = (
                ours["performance"] >= plain["performance"] + BAR["performance"]
                and ours["LCP s"] <= plain["LCP s"] + BAR["LCP s"]
            )
            verdict = f"   bar: {'met' if met else 'NOT met'}"
        print(f"  {kind:24}" + "   ".join(cells) + verdict)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2, help="Lighthouse runs per page and site")
    ap.add_argument("--old", help="the engine to compare with (default: where HEAD left main)")
    ap.add_argument("--page", action="append", help=f"site path to audit (default: {PAGES})")
    ap.add_argument("--keep", type=Path, help="folder to copy Lighthouse's JSON reports into")
    ap.add_argument(
        "--raw",
        action="store_true",
        help="serve text uncompressed (by default gzip-encoded, as GitHub Pages serves the site)",
    )
    args = ap.parse_args()
    os.environ["NO_MKDOCS_2_WARNING"] = "1"
    command = lighthouse()
    version = subprocess.run([*command, "--version"], capture_output=True, text=True).stdout
    browser = subprocess.run([chromium(), "--version"], capture_output=True, text=True).stdout
    print(f"lighthouse {version.strip()}, {browser.strip()}, load average: {load_average()}")
    print(f"text served {'uncompressed' if args.raw else 'gzip-encoded'}")
    pages = args.page or list(PAGES)
    with tempfile.TemporaryDirectory(prefix="bench-pageload-") as folder:
        tmp = Path(folder)
        sites = build_sites(tmp, args.old)
        print(f"sites built; load average: {load_average()}")
        results: dict[str, dict[str, dict[str, float]]] = {page: {} for page in pages}
        with contextlib.ExitStack() as stack:
            urls = {n: stack.enter_context(serve(s, not args.raw)) for n, s in sites.items()}
            for number in range(1, args.runs + 1):
                order = list(sites) if number % 2 else list(sites)[::-1]
                for page in pages:
                    for name in order:
                        out = tmp / f"{name}-{number}-{page.replace('/', '_')}.json"
                        figures = audit(command, urls[name] + page, out)
                        if args.keep:
                            args.keep.mkdir(parents=True, exist_ok=True)
                            shutil.copy(out, args.keep / out.name)
                        figures["HTML KiB"] = (sites[name] / page).stat().st_size / 1024
                        index = sites[name] / SEARCH_INDEX
                        figures["index KiB"] = index.stat().st_size / 1024 if index.is_file() else 0
                        results[page][f"{name} #{number}"] = figures
                print(f"round {number} ({', '.join(order)}) done; load average: {load_average()}")
                for page, columns in results.items():  # so far: a later failure loses nothing
                    ordered = sorted(
                        columns.items(), key=lambda c: list(sites).index(site_of(c[0]))
                    )
                    show(page, dict(ordered))
        for page, columns in results.items():
            summary(page, columns, list(sites))


if __name__ == "__main__":
    main()
