"""The publishing path is one story, and CI cannot be turned against the project.

- The workflows pin every action by commit SHA, leave no credentials in a checkout, and never
  run the repository's code in a job that can write Pages or mint an OIDC token.
- Only publish.yml, on main, behind the "gpu" environment, can reach the self-hosted GPU runner.
- The publish build measures the CPU results again (``--regenerate``) and marks the files it
  measured; the README says the GPU results are published from the workflow's artifact, and
  states the GPU memory that ``.ci/gpu_memory.py`` works out, which the GPU script checks first.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from conftest import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def workflow(name: str) -> dict:
    return yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())


def steps(job: dict) -> list[dict]:
    return job.get("steps", [])


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_action_is_pinned_by_commit_sha(path):
    uses = re.findall(r"uses:\s*(\S+)", path.read_text())
    assert uses
    for action in uses:
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", action), action


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_checkouts_keep_no_credentials(path):
    for job in yaml.safe_load(path.read_text())["jobs"].values():
        for step in steps(job):
            if "actions/checkout@" in step.get("uses", ""):
                assert step.get("with", {}).get("persist-credentials") is False, step


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_no_job_runs_repository_code_with_pages_or_token_write(path):
    data = yaml.safe_load(path.read_text())
    assert data.get("permissions") in ({}, {"contents": "read"}), "workflow default: read only"
    for name, job in data["jobs"].items():
        writes = {k for k, v in (job.get("permissions") or {}).items() if v == "write"}
        runs_code = any("run" in step for step in steps(job)) or any(
            "actions/checkout@" in step.get("uses", "") for step in steps(job)
        )
        if writes & {"pages", "id-token", "contents", "attestations"}:
            assert not runs_code, f"{path.name}:{name} runs repository code with {writes}"


def test_only_publish_on_main_reaches_the_gpu_runner():
    for path in WORKFLOWS:
        for name, job in yaml.safe_load(path.read_text())["jobs"].items():
            runner = job.get("runs-on")
            labels = runner if isinstance(runner, list) else [runner]
            if "self-hosted" in labels:
                assert path.name == "publish.yml", (path.name, name)
                assert job.get("if") == "github.ref == 'refs/heads/main'"
                assert job.get("environment") == "gpu"
                assert set(job["permissions"]) == {"contents"}


def test_the_publish_build_regenerates_cpu_results_and_marks_what_it_measured():
    build = workflow("publish.yml")["jobs"]["build"]
    commands = "\n".join(step.get("run", "") for step in steps(build))
    assert "tests/test_benchmarks.py --regenerate" in commands
    assert "COURSE_MEASURED_HERE" in commands and "--strict-results" in commands
    deploy = workflow("publish.yml")["jobs"]["deploy"]
    assert [step.get("uses", "").split("@")[0] for step in steps(deploy)] == [
        "actions/deploy-pages"
    ]


def _gpu_memory():
    spec = importlib.util.spec_from_file_location("gpu_memory", ROOT / ".ci" / "gpu_memory.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_states_the_gpu_memory_the_script_works_out():
    needed = _gpu_memory().needed_bytes() / 2**30
    readme = (ROOT / "README.md").read_text()
    stated = re.search(r"about (\d+) GiB of GPU memory", readme)
    assert stated, "README.md must say how much GPU memory the GPU job needs"
    assert int(stated.group(1)) == round(needed)
    assert "artifact" in readme and "attest" in readme


@pytest.mark.parametrize(("free_gib", "rc"), [(8, 1), (80, 0)])
def test_the_gpu_script_checks_free_memory_first_and_says_so(monkeypatch, capsys, free_gib, rc):
    module = _gpu_memory()
    fake = SimpleNamespace(
        is_available=lambda: True,
        mem_get_info=lambda index: (free_gib * 2**30, 141 * 2**30),
        get_device_name=lambda index: "Fake GPU",
    )
    monkeypatch.setattr(module.torch, "cuda", fake)
    assert module.main(["--check"]) == rc
    err = capsys.readouterr().err
    if rc:
        assert f"Fake GPU has {free_gib:.1f} GiB free" in err and "Nothing was measured" in err
    else:
        assert err == ""


def test_the_gpu_script_runs_the_memory_check_before_pytest():
    script = (ROOT / ".ci" / "gpu-benchmarks.sh").read_text()
    assert script.index("gpu_memory.py --check") < script.index("-m pytest")


def test_codeowners_guard_the_settings_results_ci_and_the_code_the_build_runs():
    """Hostile (#41): a copyright partial in overrides/ ran script on every page, and module-level
    code in a snippet ran on the GPU runner; tests/ runs in CI. All need a maintainer's review."""
    owners = (ROOT / ".github" / "CODEOWNERS").read_text()
    paths = {line.split()[0] for line in owners.splitlines() if line and not line.startswith("#")}
    assert {"/mkdocs.yml", "/docs/benchmarks/", "/.github/", "/.ci/"} <= paths
    assert {"/overrides/", "/snippets/", "/tests/"} <= paths


def test_readme_and_workflow_tell_one_story_about_gpu_results():
    readme = (ROOT / "README.md").read_text()
    assert (
        "Commit the\nresults" not in readme
        and "commit it unedited" not in (ROOT / "CONTRIBUTING.md").read_text()
    )
    assert (
        Path(ROOT / ".github" / "workflows" / "publish.yml").read_text().count("upload-artifact")
        == 1
    )
