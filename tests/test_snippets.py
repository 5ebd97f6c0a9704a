"""The snippets the lessons include: they run, they say what the lessons claim, and the pages
show their real output.

Every ``snippets/*.py`` is run once as a reader would (``python snippets/NAME.py``, all of them
concurrently, each a fork of one interpreter that imported torch once, to save time); the tests
then check the claims, and every ``console`` fence in
``docs/`` that starts with ``$ python snippets/NAME.py`` must equal that command's real stdout.
"""

from __future__ import annotations

import ast
import re
import shlex
import sys
from pathlib import Path

import checkpointing
import cosine_buggy
import cosine_fixed
import pytest
import regression_test  # a module: importing its test function by name would collect it here
import torch
from mkdocs_course.buildkit.buildinfo import ROOT
from mkdocs_course.course.parser import parse_course
from mkdocs_course.plugin.syntax import MKDOCS
from snippet_forks import Finished, run_forked

SNIPPETS = ROOT / "snippets"
EXPECTED_COSINE = 32 / (14**0.5 * 77**0.5)
REAL_1D_ERROR = "IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)"
SECTION = re.compile(r"^# --8<-- \[(start|end):([\w-]+)\]\s*$")
INCLUDE = re.compile(r'--8<--\s+"(snippets/[\w./-]+?)(?::([\w-]+))?"')


# Long enough for every snippet started at once on a loaded 2-core machine (their CPU time
# adds up: all of them share the cores), short enough that a hung one still fails the run.
TIMEOUT_S = 600

_RUNS: dict[tuple[str, ...], Finished] = {}


def run_all(commands: list[list[str]]) -> None:
    """Run every command not yet run, all at once, as forks of one interpreter that imported
    torch once (:mod:`snippet_forks`): each still starts from a fresh ``__main__``."""
    todo = list({tuple(args): args for args in commands if tuple(args) not in _RUNS}.values())
    if todo:
        for finished in run_forked(todo, ROOT, TIMEOUT_S):
            _RUNS[tuple(finished.args)] = finished


def run(*args: str) -> Finished:
    run_all([list(args)])
    return _RUNS[args]


# Two scripts for the runner's own test: one raises, one writes to both streams and exits with 3.
RUNNER_SCRIPTS = {
    "raises.py": 'print("before")\n1 / 0\n',
    "exits.py": "import os, sys\n"
    "print(__name__, sys.argv, sys.path[0], os.getcwd())\n"
    'print("to stderr", file=sys.stderr)\n'
    "sys.exit(3)\n",
}
# The regression test as a learner runs it: pytest in a fresh process.
REGRESSION_PYTEST = (
    "python",
    "-m",
    "pytest",
    "-q",
    "-p",
    "no:cacheprovider",
    "snippets/regression_test.py",
)


@pytest.fixture(scope="module")
def runner_scripts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("runner")
    for name, text in RUNNER_SCRIPTS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def runner_commands(folder: Path) -> list[list[str]]:
    return [
        ["python", str(folder / "raises.py")],
        ["python", str(folder / "exits.py"), "an argument"],
    ]


@pytest.fixture(scope="module", autouse=True)
def _run_every_snippet(runner_scripts: Path) -> None:
    """Every snippet, and the other commands the tests below run, in one batch: one helper
    process, one import of torch, for all of them."""
    snippets = [["python", f"snippets/{p.name}"] for p in sorted(SNIPPETS.glob("*.py"))]
    run_all([*snippets, *runner_commands(runner_scripts), list(REGRESSION_PYTEST)])


def sections(path: Path) -> dict[str, str]:
    """Named sections of a snippet file; raises on unbalanced or nested markers."""
    found: dict[str, str] = {}
    open_name, body = None, []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = SECTION.match(line)
        if not match:
            if open_name:
                body.append(line)
            continue
        kind, name = match.groups()
        where = f"{path.relative_to(ROOT)}:{number}"
        if kind == "start":
            assert open_name is None, f"{where}: section {name!r} starts inside {open_name!r}"
            assert name not in found, f"{where}: section {name!r} defined twice"
            open_name, body = name, []
        else:
            assert open_name == name, f"{where}: end of {name!r} but {open_name!r} is open"
            found[name], open_name = "\n".join(body), None
    assert open_name is None, f"{path.relative_to(ROOT)}: section {open_name!r} never ends"
    return found


# --- the snippets run and print what they claim -----------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in SNIPPETS.glob("*.py")))
def test_snippet_runs(name: str) -> None:
    result = run("python", f"snippets/{name}")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip(), f"{name} prints nothing a lesson could show"


def test_the_runner_reports_what_a_fresh_python_would(runner_scripts: Path) -> None:
    """A failing snippet must fail its test: the runner keeps exit codes, tracebacks, argv."""
    failed, stopped = (run(*command) for command in runner_commands(runner_scripts))
    raises, exits = runner_scripts / "raises.py", runner_scripts / "exits.py"
    assert failed.returncode == 1
    assert failed.stdout == "before\n"
    traceback = failed.stderr.splitlines()  # the script's frame only, as `python raises.py`
    assert traceback[:3] == [
        "Traceback (most recent call last):",
        f'  File "{raises}", line 2, in <module>',
        "    1 / 0",
    ]
    assert traceback[-1] == "ZeroDivisionError: division by zero"
    assert "snippet_forks" not in failed.stderr
    assert stopped.returncode == 3
    expected = f"__main__ {[str(exits), 'an argument']} {runner_scripts} {ROOT}\n"
    assert (stopped.stdout, stopped.stderr) == (expected, "to stderr\n")


def test_buggy_prints_the_real_pytorch_error() -> None:
    try:
        cosine_buggy.cosine_similarity(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0, 5.0, 6.0]))
    except IndexError as error:
        in_process = f"{type(error).__name__}: {error}"
    else:
        pytest.fail("the buggy function accepted 1-D input")
    first_line = run("python", "snippets/cosine_buggy.py").stdout.splitlines()[0]
    assert first_line == in_process == REAL_1D_ERROR  # not the seed's "RuntimeError: expected 2D"


def test_fixes_give_the_hand_computed_value_and_keep_batches() -> None:
    a, b = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0, 5.0, 6.0])
    for fix in (cosine_fixed.cosine_similarity, cosine_fixed.cosine_similarity_dim0):
        assert torch.allclose(fix(a, b), torch.tensor(EXPECTED_COSINE))
    assert cosine_fixed.cosine_similarity(a, b).shape == (1,)  # [N] became [1, N]
    torch.manual_seed(0)
    for shape in ((5, 7), (3, 4, 6)):  # higher ranks: exactly the old behaviour
        x, y = torch.randn(shape), torch.randn(shape)
        assert torch.equal(
            cosine_fixed.cosine_similarity(x, y), cosine_buggy.cosine_similarity(x, y)
        )
    # The dim=0 route is wrong for batches: it sums over the examples.
    batch_a, batch_b = torch.stack([a, a]), torch.stack([b, -b])
    assert cosine_fixed.cosine_similarity_dim0(batch_a, batch_b).shape == (3,)


def test_float_equality_claims_hold_in_float32() -> None:
    out = run("python", "snippets/float_equality.py").stdout
    assert "result == expected: False" in out
    assert "torch.allclose(result, expected): True" in out
    # The same claim, checked here rather than trusted from the printout.
    a, b = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0, 5.0, 6.0])
    result = torch.nn.functional.cosine_similarity(a, b, dim=0)
    expected = torch.tensor(EXPECTED_COSINE)
    assert result.dtype == expected.dtype == torch.float32
    assert not torch.equal(result, expected) and torch.allclose(result, expected)


def test_regression_test_fails_on_buggy_and_passes_on_fixes() -> None:
    with pytest.raises(IndexError):
        regression_test.test_cosine_similarity_1d(cosine_buggy.cosine_similarity)
    regression_test.test_cosine_similarity_1d(cosine_fixed.cosine_similarity)
    regression_test.test_cosine_similarity_1d(cosine_fixed.cosine_similarity_dim0)
    lines = run("python", "snippets/regression_test.py").stdout.splitlines()
    assert lines[0].startswith("buggy (sum over dim=1): FAILED (IndexError")
    assert lines[1:] == ["fixed (unsqueeze): PASSED", "fixed (dim=0): PASSED"]


@pytest.mark.slow  # a pytest run in a subprocess
def test_regression_test_is_a_real_pytest_test() -> None:
    result = run(*REGRESSION_PYTEST)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout


def test_checkpointing_main_prints_a_deterministic_table() -> None:
    lines = run("python", "snippets/checkpointing.py").stdout.splitlines()
    body = [line.split()[0] for line in lines[3:]]
    assert body == [s.name for s in checkpointing.CONFIGS["cpu"].strategies()]
    assert not any("DIFFER" in line for line in lines)
    assert not re.search(r"\bk\b", "\n".join(lines))  # parameters are always named


# --- what lessons may include -------------------------------------------------------------------


REQUIRED_SECTIONS = {
    "cosine_buggy.py": {"buggy"},
    "cosine_fixed.py": {"fixed", "fixed_dim0"},
    "float_equality.py": {"pitfall", "allclose"},
    "regression_test.py": {"test"},
    "checkpointing.py": {"block", "strategies", "saved_bytes", "measure"},
    "checkpoint_exercise.py": {"model"},
    "checkpoint_exercise_solution.py": {"solution"},
    "checkpoint_exercise_test.py": {"test"},
    "cpu_peak.py": {"meter"},
    "lab_solutions.py": {"segments", "groups", "policy"},
    "memory_model.py": {"predict"},
}


@pytest.mark.parametrize("name", sorted(REQUIRED_SECTIONS))
def test_named_sections_exist_and_are_short(name: str) -> None:
    found = sections(SNIPPETS / name)
    assert REQUIRED_SECTIONS[name] <= set(found)
    for section, body in found.items():
        assert body.strip(), f"{name}:{section} is empty"
        shown = body.strip("\n").splitlines()  # a code block drops blank lines at its ends
        assert len(shown) <= 120, f"{name}:{section} is too long to show on a page"


def test_benchmark_code_imports_only_torch_and_the_standard_library() -> None:
    """The GPU runner has torch and pytest only."""
    local = {p.stem for p in SNIPPETS.glob("*.py")}
    for name in (
        "checkpointing.py",
        "cpu_peak.py",
        "memory_model.py",
        "provenance.py",
        "codehash.py",
    ):
        tree = ast.parse((SNIPPETS / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                assert top in sys.stdlib_module_names or top in local or top == "torch", (
                    f"snippets/{name}:{node.lineno}: imports {module}"
                )


def _docs() -> list[Path]:
    return sorted((ROOT / "docs").rglob("*.md"))


def test_includes_in_docs_name_existing_sections() -> None:
    docs = _docs()
    if not docs:
        pytest.skip("no docs yet")
    for page in docs:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for path, name in INCLUDE.findall(line):
                where = f"{page.relative_to(ROOT)}:{number}"
                assert (ROOT / path).is_file(), f"{where}: {path} does not exist"
                if name:
                    assert name in sections(ROOT / path), f"{where}: no section {name!r} in {path}"


def test_console_fences_show_real_output() -> None:
    """Every ``$ python snippets/...`` fence the parser finds shows that command's real stdout."""
    course = parse_course(ROOT, syntax=MKDOCS)
    examples = [
        (example, shlex.split(example.command))
        for page in course.pages
        for example in page.examples
        if example.command.startswith("python snippets/")
    ]
    if list((ROOT / "docs" / "lessons").glob("*.md")):
        assert examples, "lessons exist but none shows a snippet's output in a console fence"
    run_all([command for _, command in examples])
    problems = []
    for example, command in examples:
        result = run(*command)
        actual = [text.rstrip() for text in result.stdout.splitlines()]
        expected = [text.rstrip() for text in example.output.splitlines()]
        if result.returncode != 0 or actual != expected:
            problems.append(
                f"{example.location}: `{example.command}` prints\n"
                + "\n".join(actual)
                + f"\n(exit {result.returncode}) but the page shows\n"
                + example.output
            )
    assert not problems, "\n\n".join(problems)
