"""CI's verdict on a branch: the project's tests at the commits that matter, the wrong fixes
the new tests catch, and the checkpointing benchmark, each failure as [why, what to do]."""

from __future__ import annotations

from . import ci
from .wrongfixes import WRONG_FIXES

GRADIENT_TOLERANCE = 1e-5  # relative to each gradient's largest entry: recomputation is exact


def wrong_fixes(result: dict) -> tuple[list[str], list[str]]:
    """The wrong fixes CI ran the new tests on: (those a new test fails on, those it passes)."""
    caught, missed = [], []
    for wrong in WRONG_FIXES:
        outcomes = ci.new_tests(result, f"wrong:{wrong.key}")
        if outcomes:
            (caught if any(m is not None for m in outcomes.values()) else missed).append(wrong.key)
    return caught, missed


def _first_failure(run: dict) -> tuple[str, str] | None:
    """(test, first line of its message) of a run's first failure; a run in which pytest itself
    failed (a file that does not import) gives its last line of output."""
    for test, message in run["tests"].items():
        if message:
            return test, message.splitlines()[0]
    if run["returncode"] or not run["tests"]:
        return "pytest", (run["output"].strip().splitlines() or ["no output"])[-1]
    return None


def ci_problems(result: dict, kind: str) -> list[str]:
    """CI's verdict: [] when green, else [why, what to do]."""
    if not result["mine"]:
        return [
            "no test added or changed under tests/: a change needs a test that proves it "
            "(CONTRIBUTING.md §4)",
            "add a test file tests/test_….py (or a test in one), commit with -s",
        ]
    wrong = next(
        (
            (test, message.splitlines()[0])
            for test, message in result["existing"]["tests"].items()
            if message and test.startswith(ci.MAINTAINERS)
        ),
        None,
    )
    if wrong:
        return [
            f"a maintainer's own test of two 1-D vectors the issue does not show fails on your "
            f"branch ({wrong[0]}, compared with torch.nn.functional.cosine_similarity): "
            f"{wrong[1]}; a fix must hold for every input, not only the issue's example",
            "fix the cause for every 1-D input, and test more than one pair (Lesson 3.6)",
        ]
    broken = _first_failure(result["existing"])
    if broken:
        return [
            f"the project's existing test {broken[0]} fails on your branch (run as upstream "
            f"runs it, without your conftest.py): {broken[1]}; "
            "callers rely on that behaviour (CONTRIBUTING.md §4)",
            "change your code so the existing tests pass unchanged",
        ]
    failing = _first_failure(result["branch"])
    if failing:
        return [f"tests fail on your branch: {failing[0]}: {failing[1]}", "run pytest in work/"]
    new = ci.new_tests(result)
    if not new:
        return ["your test files add no new test", "add a test function that reproduces the issue"]
    if all(m is None for m in new.values()):
        return [
            f"your new test(s) {', '.join(new)} pass on upstream main, where the bug is: "
            "they do not prove the fix (a regression test fails without it, Lesson 3.6)",
            "make the test reproduce the issue: it must fail on main and pass on your branch",
        ]
    silent = [t for t, asserts in result.get("asserts", {}).items() if not asserts]
    if silent:
        return [
            f"your new test {silent[0]} asserts nothing: it fails on main only because the code "
            "raises there, and passes on any fix that does not raise, right or wrong",
            "assert on the value: `assert torch.allclose(result, expected)` against a value "
            "worked out by hand (Lesson 3.6)",
        ]
    caught, missed = wrong_fixes(result)
    if missed and not caught:
        return [
            "your new tests pass on every wrong fix CI tried ("
            + "; ".join(f"{w.key}: {w.what}" for w in WRONG_FIXES)
            + "): they cannot tell a right fix from a wrong one",
            "test the values a right fix gives: "
            + "; ".join(sorted({w.catch for w in WRONG_FIXES})),
        ]
    if kind == "feature":
        return bench_problems(result.get("bench", {}))
    return []


def bench_problems(bench: dict) -> list[str]:
    """The benchmark's verdict on a checkpointing branch: [] when it holds, else [why, do]."""
    if "use_reentrant_warning" in bench:
        return [
            "your branch calls `checkpoint` without `use_reentrant`: torch then selects the "
            "reentrant implementation (use_reentrant=True), which gives no gradient through a "
            "block whose input does not require one, and warns that the argument must be "
            f"passed (torch said: {bench['use_reentrant_warning'][:120]}…)",
            "write `checkpoint(block, x, use_reentrant=False)`, the recommended implementation",
        ]
    if "error" in bench:
        if bench["error"].startswith("MLPStack(...) takes no"):
            return [
                bench["error"],
                "issue #1235 asks for MLPStack(..., checkpointing=False), off by default",
            ]
        return [
            f"benchmarks/bench.py failed on your branch: {bench['error']}",
            "run `python benchmarks/bench.py` in work/ and fix what it reports",
        ]
    if bench["parameters_without_gradient"]:
        return [
            f"with checkpointing, {bench['parameters_without_gradient']} parameter(s) get no "
            "gradient",
            "checkpoint with `use_reentrant=False`",
        ]
    worst = bench["max_relative_gradient_difference"]
    if worst > GRADIENT_TOLERANCE:
        in_eval = bench.get("max_relative_gradient_difference_in_eval", worst)
        if in_eval <= GRADIENT_TOLERANCE:
            return [
                f"gradients with checkpointing differ from those without by {worst:.2g} of a "
                "tensor's largest entry, but agree in eval mode, where dropout is off: an RNG "
                "problem. Recomputation drew new random numbers, so the recomputed dropout masks "
                "differ from the forward's",
                "let checkpoint restore the RNG state: leave `preserve_rng_state` at its default "
                "(True), do not pass `preserve_rng_state=False`",
            ]
        return [
            f"gradients with checkpointing differ from those without by {worst:.2g} of a "
            f"tensor's largest entry (allowed: {GRADIENT_TOLERANCE:g})",
            "checkpointing must not change the results",
        ]
    if bench["peak_on_mib"] >= bench["peak_off_mib"]:
        return [
            f"peak memory is not lower with checkpointing ({bench['peak_on_mib']:.1f} MiB on, "
            f"{bench['peak_off_mib']:.1f} MiB off)",
            "checkpoint each block in forward when checkpointing=True",
        ]
    return []
