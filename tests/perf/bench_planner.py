"""The memory planner's cost: time per keystroke in Chromium and the weight it adds to a page.

    .venv/bin/python tests/perf/bench_planner.py [repeats]

Prints figures, asserts nothing. Uses ``site/`` when it has been built (``python3 -m tools
build``), else builds into a temporary folder. Budgets (issues 14 and 24): re-planning on a
keystroke ≤ 16 ms median in Chromium (one frame); the planner's script, style sheet and form HTML
≤ 15 KB gzipped.

A keystroke is timed inside the page, from dispatching the ``input`` event to the end of the
layout it forces (the handler re-plans and rewrites the table synchronously), for the default
sizes and for the largest layer count the form accepts, where the search over group sizes and
segment counts is longest.
"""

from __future__ import annotations

import gzip
import re
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from conftest import CHROMIUM_ARGS, chromium_path  # noqa: E402

LESSON = "lessons/02-part-3-measuring-and-choosing.html"  # Lesson 2's quiz and planner
TIME_KEYSTROKES = """([repeats, field, values]) => {
  const form = document.querySelector("form.planner");
  const input = form.querySelector("input[name=" + field + "]");
  const times = [];
  for (let i = 0; i < repeats; i++) {
    input.value = values[i % values.length];
    const start = performance.now();
    input.dispatchEvent(new Event("input", { bubbles: true }));
    void form.offsetHeight;  // include the style and layout work the update causes
    times.push(performance.now() - start);
  }
  return { times, rows: form.querySelectorAll("tbody tr").length };
}"""


def site_folder() -> Path:
    built = ROOT / "site"
    if (built / LESSON).is_file():
        return built
    from mkdocs_course.cli import build_site

    folder = Path(tempfile.mkdtemp()) / "site"
    build_site(folder)
    return folder


def gz(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=9))


def weight(site: Path) -> None:
    html = (site / LESSON).read_text(encoding="utf-8")
    form = re.search(r'<form class="planner".*?</form>', html, re.S)
    parts = {
        "assets/planner.js": (site / "assets" / "planner.js").read_bytes(),
        "assets/planner.css": (site / "assets" / "planner.css").read_bytes(),
        "form HTML in the lesson": form.group(0).encode() if form else b"",
    }
    total = 0
    for name, data in parts.items():
        total += gz(data)
        print(f"  {name:<26} {len(data):>7} bytes, {gz(data):>6} gzipped")
    print(f"added weight: {total} bytes gzipped ({total / 1024:.1f} KiB; budget 15 KB)")


def timing(site: Path, repeats: int) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.goto((site / LESSON).as_uri())
        print(f"Chromium {browser.version}, {repeats} keystrokes per case")
        page.evaluate("localStorage.clear()")
        page.reload()
        for label, field, values in (
            ("default sizes, layers 23..26", "layers", ["23", "24", "25", "26"]),
            ("largest accepted, layers 9997..10000", "layers", ["9997", "9998", "9999", "10000"]),
            ("nothing fits, device memory 1..4 GB", "memory", ["1", "2", "3", "4"]),
        ):
            page.evaluate(TIME_KEYSTROKES, [20, field, values])  # warm up the JIT
            result = page.evaluate(TIME_KEYSTROKES, [repeats, field, values])
            times = sorted(result["times"])
            p95 = times[int(0.95 * (len(times) - 1))]
            print(
                f"  {label:<38} median {statistics.median(times):.3f} ms, p95 {p95:.3f} ms, "
                f"max {times[-1]:.3f} ms ({result['rows']} rows; budget 16 ms median)"
            )
            page.fill("input[name=layers]", "24")
            page.fill("input[name=memory]", "80")
        model_only = page.evaluate(
            """repeats => {
              const model = JSON.parse(document.querySelector("form.planner").dataset.model);
              const inputs = {block: "transformer", attention: "explicit", layers: 10000,
                hidden: 4096, heads: 32, tokens: 4096, batch: 1, precision: "bfloat16",
                optimizer: "adam", ranks: 1, deviceBytes: 8e10};
              const times = [];
              for (let i = 0; i < repeats; i++) {
                const start = performance.now();
                window.coursePlanner.planStep(inputs, model);
                times.push(performance.now() - start);
              }
              return times;
            }""",
            repeats,
        )
        print(
            f"  {'planStep() alone, 10000 layers, no DOM':<38} median "
            f"{statistics.median(model_only):.3f} ms, max {max(model_only):.3f} ms"
        )
        browser.close()


def main(repeats: int = 200) -> None:
    site = site_folder()
    print(f"site: {site}")
    weight(site)
    timing(site, repeats)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
