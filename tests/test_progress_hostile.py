"""Hostile input to the progress tools: each case gets its refusal or its bound, a message that
names the file, and nothing written (tools/anki/progress*.py, ``python3 -m tools progress``).

Limits are lowered with monkeypatch where the real ones would take a large file to reach; the
code that enforces them is the same.
"""

from __future__ import annotations

import argparse
import io
import json
import sqlite3
import sys
import time
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("genanki", reason="the course engine's dependencies are not installed")

from mkdocs_course import cli
from mkdocs_course.anki import progress, progress_read
from mkdocs_course.anki.progress_apkg import schedule_rows
from mkdocs_course.anki.progress_read import from_anki
from mkdocs_course.buildkit.buildinfo import ROOT

DAY = progress.DAY_MS
NOW = 1_796_000_000_000


def legacy_export(tmp_path: Path, apkg: bytes, *statements: str, name="export.apkg") -> Path:
    """The course deck as a legacy export, its collection changed by SQL ``statements``."""
    with zipfile.ZipFile(io.BytesIO(apkg)) as archive:
        database = archive.read("collection.anki2")
    conn = sqlite3.connect(":memory:")
    conn.deserialize(database)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("collection.anki2", conn.serialize())
        archive.writestr("media", "{}")
    conn.close()
    return path


def reviewed(cid_sql: str = "(SELECT min(id) FROM cards)", **values) -> list[str]:
    """SQL that makes the first card a review card with one review, its columns ``values``."""
    columns = {"type": 2, "queue": 2, "due": 3, "ivl": 3, "data": '\'{"s":3.0,"d":5.0}\''}
    columns |= values
    sets = ", ".join(f"{name} = {value}" for name, value in columns.items())
    return [
        f"UPDATE cards SET {sets} WHERE id = {cid_sql}",
        f"INSERT INTO revlog VALUES ({NOW - DAY}, {cid_sql}, -1, 3, 3, 0, 0, 1000, 1)",
    ]


def refused(path: Path, guids, match: str) -> None:
    with pytest.raises(progress.ProgressError, match=match) as caught:
        from_anki(path, set(guids), NOW)
    assert str(path) in str(caught.value) and "nothing was written" in str(caught.value)


# --- from-anki: bytes ---------------------------------------------------------------------


def test_a_zip_bomb_is_refused_from_its_stated_size(tmp_path, monkeypatch):
    monkeypatch.setattr(progress_read, "MAX_COLLECTION_BYTES", 1 << 20)
    path = tmp_path / "bomb.apkg"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("collection.anki2", bytes(8 << 20))  # 8 MB of zeros, 8 KB zipped
    assert path.stat().st_size < 64 << 10
    refused(path, [], r"more than 1 MB once unzipped.*zip bomb")


def test_a_zip_bomb_that_lies_about_its_size_is_stopped_at_the_bytes_read(tmp_path, monkeypatch):
    monkeypatch.setattr(progress_read, "MAX_COLLECTION_BYTES", 1 << 20)
    path = tmp_path / "liar.apkg"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("collection.anki2", bytes(8 << 20))
    data = bytearray(path.read_bytes())
    stated = (8 << 20).to_bytes(4, "little")
    small = (1000).to_bytes(4, "little")
    assert data.count(stated) == 2  # the local header's size and the central directory's
    path.write_bytes(bytes(data).replace(stated, small))
    refused(path, [], "the zip file is damaged|once unzipped")


def test_a_compressed_bomb_is_bounded_in_what_the_library_writes(
    course_deck, tmp_path, monkeypatch
):
    anki_collection = pytest.importorskip("anki.collection")
    guids, apkg = course_deck
    col = anki_collection.Collection(str(tmp_path / "c.anki2"))
    (tmp_path / "deck.apkg").write_bytes(apkg)
    options = anki_collection.ImportAnkiPackageOptions(merge_notetypes=True)
    col.import_anki_package(
        anki_collection.ImportAnkiPackageRequest(
            package_path=str(tmp_path / "deck.apkg"), options=options
        )
    )
    export = tmp_path / "current.colpkg"
    col.export_collection_package(str(export), include_media=False, legacy=False)
    col.close()
    monkeypatch.setattr(progress_read, "MAX_COLLECTION_BYTES", 64 << 10)  # the deck is larger
    refused(export, guids, r"more than 0 MB once decompressed")


def test_a_truncated_export_is_refused(course_deck, tmp_path):
    path = legacy_export(tmp_path, course_deck[1])
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    refused(path, course_deck[0], "the zip file is cut short")


# --- from-anki: rows and time -------------------------------------------------------------


def test_a_recursive_view_in_place_of_revlog_is_refused_before_it_runs(course_deck, tmp_path):
    path = legacy_export(
        tmp_path,
        course_deck[1],
        "DROP TABLE revlog",
        "CREATE VIEW revlog AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
        "SELECT n AS id, n AS cid, 3 AS ease, 0 AS time, 1 AS type FROM r",
    )
    started = time.monotonic()
    refused(path, course_deck[0], r"no revlog table \(view in its place\)")
    assert time.monotonic() - started < 30  # a bound, not a timing: the view never ends


def test_reading_is_stopped_at_its_time_limit(course_deck, tmp_path, monkeypatch):
    cid = "(SELECT min(id) FROM cards)"
    rows = ", ".join(f"({NOW - n}, {cid}, -1, 3, 1, 0, 0, 0, 1)" for n in range(2, 5000))
    path = legacy_export(tmp_path, course_deck[1], *reviewed(), f"INSERT INTO revlog VALUES {rows}")
    monkeypatch.setattr(progress_read, "READ_SECONDS", -1.0)  # the deadline has passed
    refused(path, course_deck[0], "reading it took more than -1 s")


def test_more_reviews_than_the_page_keeps_are_refused(course_deck, tmp_path, monkeypatch):
    statements = reviewed()
    cid = "(SELECT min(id) FROM cards)"
    statements += [
        f"INSERT INTO revlog VALUES ({NOW - DAY + n}, {cid}, -1, 3, 3, 0, 0, 0, 1)"
        for n in range(1, 5)
    ]
    path = legacy_export(tmp_path, course_deck[1], *statements)
    monkeypatch.setattr(progress_read, "MAX_REVIEWS", 3)
    refused(path, course_deck[0], "more than 3 reviews")


def test_the_library_is_stopped_at_its_time_limit(course_deck, tmp_path, monkeypatch):
    pytest.importorskip("anki.collection")
    path = tmp_path / "current.apkg"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("collection.anki21b", b"not zstd at all")
    monkeypatch.setattr(progress_read, "LIBRARY_SECONDS", 0.01)
    refused(path, course_deck[0], "took more than 0.01 s to read it and was stopped")


# --- from-anki: what it writes ------------------------------------------------------------


@pytest.mark.parametrize(
    "values",
    [
        {"data": '\'{"s":1e308,"d":5}\''},  # finite in Python, absurd as a stability
        {"ivl": 9_000_000_000_000_000_000},  # an interval past any date
        {"reps": "'many'"},  # text in a number column
        {"due": -9_000_000_000_000_000_000},
    ],
)
def test_values_the_page_cannot_read_are_left_out_and_counted(course_deck, tmp_path, values):
    path = legacy_export(tmp_path, course_deck[1], *reviewed(**values))
    cards, counts = from_anki(path, set(course_deck[0]), NOW)
    assert counts["damaged"] == 1 and cards == {}


def test_an_infinite_stability_becomes_an_estimate_and_the_file_is_strict_json(
    course_deck, tmp_path
):
    path = legacy_export(tmp_path, course_deck[1], *reviewed(data='\'{"s":1e999,"d":5}\''))
    cards, counts = from_anki(path, set(course_deck[0]), NOW)
    assert counts["estimated"] == 1 and counts["known"] == 1
    text = progress.encode_progress(progress.progress_document(cards, NOW, 20)).decode()
    json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))


def test_json_the_page_cannot_read_is_never_written():
    with pytest.raises(progress.ProgressError, match="a number JSON cannot carry"):
        progress.encode_progress({"x": float("inf")})


def test_progress_over_the_pages_import_limit_is_refused(monkeypatch):
    monkeypatch.setattr(progress, "MAX_PROGRESS_BYTES", 100)
    with pytest.raises(progress.ProgressError, match="more than the Review page imports"):
        progress.encode_progress({"cards": "x" * 200})


def test_a_collection_newer_than_this_tool_reads_is_refused(course_deck, tmp_path):
    path = legacy_export(tmp_path, course_deck[1], "UPDATE col SET ver = 99")
    refused(path, course_deck[0], "schema version 99, newer than this tool reads")


def test_a_package_newer_than_the_library_reads_is_refused(course_deck, tmp_path):
    pytest.importorskip("anki.collection")
    path = tmp_path / "newer.apkg"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("collection.anki21b", b"\x28\xb5\x2f\xfd" + bytes(20))
        archive.writestr("meta", b"\x08\x63")  # PackageMetadata.version = 99
    refused(
        path, course_deck[0], r"Anki could not read it \(This collection requires a newer version"
    )


# --- to-anki ------------------------------------------------------------------------------


def card(log: list) -> dict:
    return {
        "due": progress._iso(NOW + DAY),
        "stability": 3.0,
        "difficulty": 5.0,
        "elapsed_days": 1,
        "scheduled_days": 1,
        "learning_steps": 0,
        "reps": len(log),
        "lapses": 0,
        "state": 2,
        "last_review": log[-1][0],
        "log": log,
    }


def test_reviews_sharing_a_millisecond_get_unique_ids_in_order():
    """The case that was quadratic: every review at one moment (the speed is measured by
    tests/perf/bench_progress.py)."""
    moment = progress._iso(NOW)
    cards = {f"g{n}": card([[moment, 3], [moment, 4]]) for n in range(2000)}
    _, _, revlog = schedule_rows(cards, NOW)
    ids = [row[0] for row in revlog]
    assert ids == list(range(NOW, NOW + 4000))
    for guid in ("g0", "g1999"):  # each card's own reviews stay in their order
        assert [row[2] for row in revlog if row[1] == guid] == [3, 4]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ('{"format": "%s", "version": 1, "cards": {"x": NaN}}', "NaN is not a number"),
        (
            json.dumps(
                progress.progress_document({"x": card([["2026-12-01T09:00:00.000Z", 3]])}, NOW, 20)
            ).replace('"stability": 3.0', '"stability": 1e999'),
            'the item "x" has an invalid stability',
        ),
        ("[" * 100_000, "not a JSON file"),
    ],
)
def test_a_progress_file_with_numbers_json_forbids_is_refused(tmp_path, text, match):
    path = tmp_path / "p.json"
    path.write_text(text.replace("%s", progress.FORMAT), "utf-8")
    with pytest.raises(progress.ProgressError, match=match):
        progress.read_progress(path, NOW)


def test_numbers_too_large_for_a_date_are_refused(tmp_path):
    bad = card([[progress._iso(NOW), 3]]) | {"scheduled_days": 1e300}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(progress.progress_document({"x": bad}, NOW, 20)), "utf-8")
    with pytest.raises(progress.ProgressError, match="invalid scheduled_days"):
        progress.read_progress(path, NOW)


FUTURE = "2099-01-01T00:00:00.000Z"


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"log": [[1e20, 3]]}, "has an invalid review log entry"),
        ({"due": "0001-01-01T00:00:00Z"}, "has no valid due date"),
        ({"due": "9999-12-31T23:59:59Z"}, "has no valid due date"),
        ({"learning_steps": 1.5}, r"has a learning_steps of 1\.5 \(it must be a whole number\)"),
        (
            {"log": [[FUTURE, 3]], "last_review": FUTURE},
            rf"was reviewed in the future \({FUTURE}\)",
        ),
        ({"last_review": FUTURE}, rf"was reviewed in the future \({FUTURE}\)"),
    ],
)
def test_a_card_the_page_would_refuse_is_refused_naming_the_file_and_the_card(
    tmp_path, changes, match
):
    """What to-anki and into-anki read first: the page's own refusals (reviews after now
    included, as the page refuses them on import), never an error of this tool's own."""
    bad = card([[progress._iso(NOW - DAY), 3]]) | changes
    path = tmp_path / "p.json"
    path.write_text(json.dumps(progress.progress_document({"x": bad}, NOW, 20)), "utf-8")
    with pytest.raises(progress.ProgressError, match=rf'p\.json: the item "x" {match}'):
        progress.read_progress(path, NOW)


# --- outputs and messages -----------------------------------------------------------------


def test_an_output_is_never_the_input_and_never_replaced_without_force(tmp_path):
    source, other = tmp_path / "in.apkg", tmp_path / "out.json"
    source.write_bytes(b"x")
    other.write_text("kept", "utf-8")
    for force in (False, True):
        with pytest.raises(progress.ProgressError, match="that is the input file"):
            progress.check_output(source, [source], force)
    with pytest.raises(progress.ProgressError, match="the file exists; add --force"):
        progress.check_output(other, [source], False)
    progress.check_output(other, [source], True)
    progress.check_output(tmp_path / "new.json", [source], False)
    assert other.read_text("utf-8") == "kept"


def progress_args(tmp_path: Path, direction: str = "from-anki") -> argparse.Namespace:
    return argparse.Namespace(
        course=ROOT,
        direction=direction,
        file=str(tmp_path / "x.apkg"),
        collection=None,
        output=None,
        force=False,
    )


@pytest.mark.parametrize(
    ("error", "code", "message"),
    [
        (KeyboardInterrupt(), 130, "progress: interrupted; nothing was written"),
        (MemoryError(), 1, "progress: out of memory; nothing was written"),
        (
            ZeroDivisionError("division by zero"),
            1,
            "progress: ZeroDivisionError: division by zero (a bug in this tool: please report "
            "it); nothing was written",
        ),
        (progress.ProgressError("x.apkg: why"), 1, "progress: x.apkg: why"),
    ],
)
def test_an_interruption_or_exhaustion_is_a_message(
    tmp_path, monkeypatch, capsys, error, code, message
):
    def fail(*_args):
        raise error

    monkeypatch.setattr(cli, "_checked", lambda root, **_: object())
    monkeypatch.setattr(cli, "_progress_direction", fail)
    assert cli.cmd_progress(progress_args(tmp_path)) == code
    err = capsys.readouterr().err
    assert err.strip() == message and "Traceback" not in err


def test_a_ctrl_c_while_the_course_is_checked_is_a_message(tmp_path, monkeypatch, capsys):
    def interrupted(_root, **_):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_checked", interrupted)
    assert cli.cmd_progress(progress_args(tmp_path)) == 130
    assert "interrupted" in capsys.readouterr().err


def test_the_command_refuses_to_write_over_its_input(course_deck, tmp_path):
    import subprocess

    path = legacy_export(tmp_path, course_deck[1], name="same.json")
    before = path.read_bytes()
    run = [sys.executable, "-m", "tools", "progress", "from-anki", str(path), "-o", str(path)]
    done = subprocess.run([*run, "--force"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 1 and "that is the input file" in done.stderr
    assert "Traceback" not in done.stderr and path.read_bytes() == before


# --- into-anki: the learner's collection --------------------------------------------------


def site_progress(guids: list[str]) -> dict[str, dict]:
    return {guid: card([[progress._iso(NOW - DAY), 3], [progress._iso(NOW), 3]]) for guid in guids}


@pytest.mark.parametrize(
    ("content", "match"),
    [(None, "no such collection file"), (b"not a database at all" * 50, "could not open it")],
)
def test_into_anki_refuses_a_file_that_is_not_a_collection(course_deck, tmp_path, content, match):
    pytest.importorskip("anki.collection")
    from mkdocs_course.anki.progress_merge import into_anki

    path = tmp_path / "collection.anki2"
    if content is not None:
        path.write_bytes(content)
    guids, apkg = course_deck
    with pytest.raises(progress.ProgressError, match=match):
        into_anki(path, site_progress(guids[:2]), apkg, set(guids), NOW)
    if content is None:
        assert not path.exists()  # never a new, empty collection in its place
    else:
        assert path.read_bytes() == content


def test_into_anki_refuses_a_collection_anki_has_open(course_deck, tmp_path):
    anki_collection = pytest.importorskip("anki.collection")
    from mkdocs_course.anki.progress_merge import into_anki

    path = tmp_path / "collection.anki2"
    held = anki_collection.Collection(str(path))
    try:
        with pytest.raises(progress.ProgressError, match="Anki has it open; close Anki"):
            into_anki(path, site_progress(course_deck[0][:2]), course_deck[1], set(), NOW)
    finally:
        held.close()


def test_an_interrupted_merge_writes_no_schedule(course_deck, tmp_path, monkeypatch):
    """Ctrl-C between the schedule and the log: the transaction is rolled back as a whole."""
    anki_collection = pytest.importorskip("anki.collection")
    from mkdocs_course.anki import progress_merge

    guids, apkg = course_deck
    path = tmp_path / "collection.anki2"
    anki_collection.Collection(str(path)).close()

    def interrupted(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(progress_merge, "_add_reviews", interrupted)
    with pytest.raises(progress.ProgressError, match="interrupted; no schedule or review"):
        progress_merge.into_anki(path, site_progress(guids[:2]), apkg, set(guids), NOW)
    col = anki_collection.Collection(str(path))
    try:
        assert col.db.scalar("SELECT count() FROM notes") == len(guids)  # the deck's own import
        assert col.db.scalar("SELECT count() FROM cards WHERE type != 0") == 0
        assert col.db.scalar("SELECT count() FROM revlog") == 0
    finally:
        col.close()
    assert list((tmp_path / "backups").glob("*.colpkg"))
