"""The Quick start's bootstrap: dependencies come from pyproject.toml, versions from constraints."""

import re

from tools import bootstrap


def _name(requirement: str) -> str:
    """The package a requirement or constraint line is about, spelled one way."""
    return re.split(r"[=<>!~\[ ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_every_requirement_is_pinned_in_constraints():
    pinned = {
        _name(line)
        for line in bootstrap.INPUTS[1].read_text().splitlines()
        if line and not line.startswith("#")
    }
    names = {_name(req) for req in bootstrap.requirements()}
    assert names, "pyproject.toml declares no dependencies"
    assert names <= pinned, f"not pinned in constraints.txt: {sorted(names - pinned)}"


def test_stamp_changes_when_an_input_changes(tmp_path, monkeypatch):
    files = [tmp_path / "pyproject.toml", tmp_path / "constraints.txt"]
    for path in files:
        path.write_text("a")
    monkeypatch.setattr(bootstrap, "INPUTS", tuple(files))
    before = bootstrap.wanted_stamp()
    files[1].write_text("b")
    assert bootstrap.wanted_stamp() != before
