"""The memo of page work between builds (tools/buildkit/memo.py): reused only for the same inputs
and the same engine, dropped when unreadable, and never grown past one build's entries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mkdocs_course.buildkit import memo as build_memo
from mkdocs_course.buildkit.memo import BuildMemo


def never() -> str:
    raise AssertionError("computed although the memo had it")


def test_a_value_is_computed_once_and_read_back_by_the_next_build(tmp_path: Path):
    path = tmp_path / "memo.json"
    first = BuildMemo(path)
    assert first.get("page", ("a.md", "# A"), lambda: ["<h1>A</h1>", []]) == ["<h1>A</h1>", []]
    assert first.get("page", ("a.md", "# A"), never) == ["<h1>A</h1>", []]  # same build
    first.save()
    second = BuildMemo(path)
    assert second.get("page", ("a.md", "# A"), never) == ["<h1>A</h1>", []]
    assert second.get("page", ("a.md", "# A!"), lambda: "new") == "new"  # other inputs
    assert second.get("other", ("a.md", "# A"), lambda: "kind") == "kind"  # other kind


def test_inputs_are_told_apart_by_their_boundaries(tmp_path: Path):
    memo = BuildMemo(tmp_path / "memo.json")
    assert memo.get("k", ("ab", "c"), lambda: 1) == 1
    assert memo.get("k", ("a", "bc"), lambda: 2) == 2


def test_a_new_engine_drops_the_memo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "memo.json"
    memo = BuildMemo(path)
    memo.get("page", ("x",), lambda: "old engine's")
    memo.save()
    monkeypatch.setattr(build_memo.buildinfo, "engine_digest", lambda: "another engine")
    assert BuildMemo(path).get("page", ("x",), lambda: "recomputed") == "recomputed"


def test_a_new_package_drops_the_memo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "memo.json"
    memo = BuildMemo(path)
    memo.get("page", ("x",), lambda: "made with latex2mathml 3.77")
    memo.save()
    packages = ["latex2mathml-3.78.0.dist-info"]
    monkeypatch.setattr(build_memo.buildinfo, "installed_distributions", lambda: packages)
    assert BuildMemo(path).get("page", ("x",), lambda: "recomputed") == "recomputed"


@pytest.mark.parametrize("text", ["", "{", "[]", '{"engine": 1}', '{"entries": []}', "\xff"])
def test_an_unreadable_memo_is_an_empty_one(tmp_path: Path, text: str):
    path = tmp_path / "memo.json"
    path.write_text(text, "utf-8")
    assert BuildMemo(path).get("page", ("x",), lambda: "fresh") == "fresh"


def test_only_the_entries_a_build_used_are_kept(tmp_path: Path):
    path = tmp_path / "memo.json"
    memo = BuildMemo(path)
    memo.get("page", ("kept",), lambda: 1)
    memo.get("page", ("dropped",), lambda: 2)
    memo.save()
    memo = BuildMemo(path)
    memo.get("page", ("kept",), never)
    memo.save()
    assert len(json.loads(path.read_text("utf-8"))["entries"]) == 1


def test_a_build_that_changed_nothing_does_not_rewrite_the_memo(tmp_path: Path):
    path = tmp_path / "memo.json"
    memo = BuildMemo(path)
    memo.get("page", ("x",), lambda: 1)
    memo.save()
    path.write_text(path.read_text("utf-8") + " ", "utf-8")  # a mark a rewrite would remove
    again = BuildMemo(path)
    again.get("page", ("x",), never)
    again.save()
    assert path.read_text("utf-8").endswith(" ")


def test_a_memo_that_cannot_be_written_costs_only_time(tmp_path: Path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", "utf-8")
    memo = BuildMemo(blocked / "memo.json")
    assert memo.get("page", ("x",), lambda: 1) == 1
    memo.save()  # no exception: the next build computes again


def test_cache_keys_keep_their_parts_apart_and_carry_the_cache_format(monkeypatch):
    from mkdocs_course.buildkit import digest
    from mkdocs_course.buildkit.digest import Digest

    assert Digest("ab", "c").hexdigest() != Digest("a", "bc").hexdigest()
    assert Digest().data(b"a").data(b"b").hexdigest() != Digest().data(b"ab").hexdigest()
    before = Digest("x").hexdigest()
    monkeypatch.setattr(digest, "CACHE_FORMAT", digest.CACHE_FORMAT + 1)
    assert Digest("x").hexdigest() != before  # a new format drops every cache
