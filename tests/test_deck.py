"""The Anki deck (tools/anki/deck.py), checked by importing it with the official Anki library.

A small course is written to a temporary git repository (commits with fixed dates, so note times
come from history as in the real repo), built into an ``.apkg`` and imported into a fresh
collection, the way a learner's Anki would.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
from html_tags import active_markup, tags

pytestmark = pytest.mark.anki

pytest.importorskip("genanki", reason="the course engine's dependencies are not installed")
anki_collection = pytest.importorskip("anki.collection", reason="the anki package is not installed")

from conftest import with_course_settings  # noqa: E402
from mkdocs_course.anki import deck, note_dates  # noqa: E402
from mkdocs_course.buildkit.buildinfo import ROOT  # noqa: E402
from mkdocs_course.course import config as course_config  # noqa: E402
from mkdocs_course.course import notes  # noqa: E402
from mkdocs_course.course.parser import parse_course, parse_page  # noqa: E402
from mkdocs_course.plugin.syntax import MKDOCS  # noqa: E402

CONFIG = course_config.load(ROOT)
DECK_NAME = CONFIG.deck_name
NAMESPACE = CONFIG.guid_namespace

Collection = anki_collection.Collection
ImportAnkiPackageRequest = anki_collection.ImportAnkiPackageRequest
ImportAnkiPackageOptions = anki_collection.ImportAnkiPackageOptions

SITE = "https://example.org/course/"
T1 = 1_700_000_000
T2 = T1 + 86_400

LESSON = """\
# Finding work

Some text with `inline ::: code` that is not a card.

## Flashcards

What is *emphasis*? ::: It is `em`, see [the docs](https://example.org/em) {#card-em}
Memory kept at $k<4$? ::: 25% of $O(n)$
PyTorch میں چیک پوائنٹ کس ماڈیول میں ہے؟ ::: torch.utils.checkpoint میں
Script <script>alert(1)</script>? ::: <img src=x onerror=alert(1)>
"""

QUIZ_EN = """\
# Checkpointing quiz

::: quiz id=ckpt-en title="Checkpointing"
1. What does checkpointing trade?
   - [ ] Accuracy for speed
   - [x] Extra *compute* for less memory
   - [ ] Disk for bandwidth

   It recomputes activations in backward:

   ```python
   y = checkpoint(block, x, use_reentrant=False)
   ```

2. Which segments are never checkpointed?
   - [x] The last one
   - [ ] The first one

   `checkpoint_sequential` runs the last segment normally.
:::
"""

QUIZ_UR = """\
# کوئز

::: quiz id=ckpt-ur lang=ur title="چیک پوائنٹنگ کوئز"
1. PyTorch میں کون سی افادیت استعمال ہوتی ہے؟
   - [x] torch.utils.checkpoint
   - [ ] torch.optim.SGD

   `torch.utils.checkpoint` درست ہے۔

2. What happens during backward?
   - [ ] Gradients are skipped
   - [x] The forward is rerun

   Activations are recomputed.
:::
"""

FILES_LESSON = "lessons/01-finding-work.md"
FILES = {
    FILES_LESSON: LESSON,
    "quizzes/ckpt-en.md": QUIZ_EN,
    "quizzes/ckpt-ur.md": QUIZ_UR,
}


# --- helpers ----------------------------------------------------------------------------------


def git(root: Path, *args: str, when: int | None = None) -> None:
    env = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    if when is not None:
        env.update(GIT_AUTHOR_DATE=f"@{when} +0000", GIT_COMMITTER_DATE=f"@{when} +0000")
    subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.org", *args],
        cwd=root,
        env=env,
        check=True,
        capture_output=True,
    )


def make_course(root: Path, files: dict[str, str] = FILES, *, commit_at: int | None = T1) -> Path:
    with_course_settings(root)
    for name, text in files.items():
        path = root / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    if commit_at is not None:
        git(root, "init", "-q")
        git(root, "add", "docs", "mkdocs.yml")
        git(root, "commit", "-q", "-m", "course", when=commit_at)
    return root


def build(root: Path, out: Path, timestamp: int) -> Path:
    course = parse_course(root, syntax=MKDOCS)
    assert course.errors == [], [str(e) for e in course.errors]
    deck.write_deck(course, out, site_url=SITE, timestamp=timestamp, root=root)
    return out


def import_apkg(col: Any, apkg: Path) -> Any:
    request = ImportAnkiPackageRequest(
        package_path=str(apkg),
        options=ImportAnkiPackageOptions(with_scheduling=False, merge_notetypes=True),
    )
    return col.import_anki_package(request).log


def body(html: str) -> str:
    """Rendered card HTML without the note type's <style> block that Anki puts first."""
    return html.rsplit("</style>", 1)[-1].strip()


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory):
    """The fixture course, built once, imported into a fresh collection."""
    root = make_course(tmp_path_factory.mktemp("course"))
    apkg = build(root, root / "out" / "deck.apkg", T1)
    col = Collection(str(tmp_path_factory.mktemp("anki") / "collection.anki2"))
    log = import_apkg(col, apkg)
    yield {
        "root": root,
        "apkg": apkg,
        "col": col,
        "log": log,
        "course": parse_course(root, syntax=MKDOCS),
    }
    col.close()


def find_card(col: Any, search: str) -> Any:
    (card_id,) = col.find_cards(search)
    return col.get_card(card_id)


# --- what arrives in Anki ---------------------------------------------------------------------


def test_counts_equal_the_parsed_course(imported):
    col, course = imported["col"], imported["course"]
    expected = len(course.cards) + len(course.questions)
    assert expected == 8
    assert len(imported["log"].new) == expected
    assert col.note_count() == expected and col.card_count() == expected


def test_decks_tags_and_note_types(imported):
    col = imported["col"]
    names = {d.name for d in col.decks.all_names_and_ids()}
    assert {
        DECK_NAME,
        f"{DECK_NAME}::01 Finding work",
        f"{DECK_NAME}::Quiz: Checkpointing",
        f"{DECK_NAME}::چیک پوائنٹنگ کوئز",  # the title says "quiz": no "Quiz: " before it
    } <= names
    assert len(col.find_notes("tag:kind::flashcard")) == 4
    assert len(col.find_notes("tag:kind::quiz")) == 4
    assert len(col.find_notes("tag:lesson::01-finding-work")) == 4
    assert len(col.find_notes("tag:lang::ur")) == 2  # one card, one question (by its own text)
    card = find_card(col, "tag:kind::flashcard tag:lang::ur")
    assert col.decks.name(card.did) == f"{DECK_NAME}::01 Finding work"


def test_deck_ids_in_the_package_are_fixed(imported):
    """Anki files new decks under its own ids, but the package's ids must not drift."""
    with zipfile.ZipFile(imported["apkg"]) as archive:
        database = archive.read("collection.anki2")
    conn = sqlite3.connect(":memory:")
    conn.deserialize(database)
    (decks_json,) = conn.execute("SELECT decks FROM col").fetchone()
    conn.close()
    ids = {d["name"]: d["id"] for d in json.loads(decks_json).values()}
    assert ids[DECK_NAME] == notes.deck_id("", NAMESPACE)
    assert ids[f"{DECK_NAME}::01 Finding work"] == notes.deck_id("page:" + FILES_LESSON, NAMESPACE)
    assert ids[f"{DECK_NAME}::Quiz: Checkpointing"] == notes.deck_id("quiz:ckpt-en", NAMESPACE)
    pinned = (notes.deck_id("", NAMESPACE), notes.deck_id("quiz:ckpt-en", NAMESPACE))
    assert pinned == (1_951_619_466, 1_922_781_832)


def test_note_type_ids_and_fields_are_pinned(imported):
    """Changing a note type's fields needs a new id (see tools/anki/deck.py): this pins both."""
    col = imported["col"]
    pinned = {
        1_734_861_201: ["Front", "Back", "Source", "Extra"],
        1_734_861_202: ["Question", "Options", "Answer", "Explanation", "Source"],
    }
    for model_id, fields in pinned.items():
        notetype = col.models.get(model_id)
        assert notetype is not None, model_id
        assert [field["name"] for field in notetype["flds"]] == fields
    assert tuple(pinned) == (CONFIG.note_type_ids["basic"], CONFIG.note_type_ids["choice"])


def test_flashcard_question_and_answer_html(imported):
    card = find_card(imported["col"], "card-em")
    question, answer = body(card.question()), body(card.answer())
    assert '<div class="prompt"><p>What is <em>emphasis</em>?</p></div>' in question
    assert "hr" not in question and "the docs" not in question
    assert (
        '<div class="answer"><p>It is <code>em</code>, see '
        '<a href="https://example.org/em">the docs</a></p></div>'
    ) in answer
    assert '<hr id="answer">' in answer
    (source,) = [a for t, a in tags(answer) if t == "a" and "finding-work" in (a["href"] or "")]
    assert source["href"] == SITE + "lessons/01-finding-work.html#card-em"
    assert "dir=" not in question + answer  # English cards carry no direction markup


def test_math_uses_ankis_delimiters(imported):
    card = find_card(imported["col"], '"Memory kept*"')
    assert "Memory kept at \\(k&lt;4\\)?" in body(card.question())
    assert "25% of \\(O(n)\\)" in body(card.answer())


def test_multiple_choice_front_and_back(imported):
    card = find_card(imported["col"], '"What does checkpointing trade*"')
    front, back = body(card.question()), body(card.answer())
    front_items = re.findall(r"<li[^>]*>(.*?)</li>", front)
    assert front_items == [
        "Accuracy for speed",
        "Extra <em>compute</em> for less memory",
        "Disk for bandwidth",
    ]
    assert "correct" not in front and "recomputes" not in front
    (marked,) = re.findall(r'<li class="correct">(.*?)</li>', back)
    assert marked == '<span class="tick">✓</span>Extra <em>compute</em> for less memory'
    assert "It recomputes activations in backward" in back
    code = [a for t, a in tags(back) if t == "pre"]
    assert code and code[0]["dir"] == "ltr" and "background" in (code[0]["style"] or "")
    assert "<script" not in back and "<link" not in back


def test_urdu_flashcard_and_question_are_right_to_left(imported):
    col = imported["col"]
    card = find_card(col, "tag:kind::flashcard tag:lang::ur")
    question, answer = body(card.question()), body(card.answer())
    assert '<div dir="rtl" lang="ur"><p><bdi dir="ltr" lang="en">PyTorch</bdi> میں' in question
    assert '<bdi dir="ltr" lang="en">torch.utils.checkpoint</bdi> میں</p></div>' in answer

    quiz_card = find_card(col, "tag:kind::quiz tag:lang::ur")
    front, back = body(quiz_card.question()), body(quiz_card.answer())
    assert '<div dir="rtl" lang="ur"><p><bdi dir="ltr" lang="en">PyTorch</bdi>' in front
    lists = [a for t, a in tags(front) if t == "ol"]
    assert lists == [{"class": "options", "dir": "rtl", "lang": "ur"}]
    assert '<code dir="ltr">torch.utils.checkpoint</code> درست ہے۔' in back

    english = find_card(col, '"What happens during backward*"')
    assert "dir=" not in body(english.question())  # an English question in the Urdu quiz


def test_raw_html_in_cards_arrives_escaped(imported):
    col = imported["col"]
    card = find_card(col, '"Script*"')
    question, answer = body(card.question()), body(card.answer())
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in question
    assert "&lt;img src=x onerror=alert(1)&gt;" in answer
    for card_id in col.find_cards(""):
        card = col.get_card(card_id)
        for html in (body(card.question()), body(card.answer())):
            for tag, attrs in tags(html):
                assert tag not in {"script", "img", "iframe", "object", "embed", "style"}, html
                assert not [name for name in attrs if name.startswith("on")], html
                href = attrs.get("href") or ""
                assert not href.lower().startswith(("javascript:", "data:")), html


def deck_fields(apkg: Path) -> str:
    """Every field of every note in an ``.apkg``, joined (what Anki will render as HTML)."""
    with zipfile.ZipFile(apkg) as archive:
        data = archive.read("collection.anki2")
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(data)
        return "\n".join(row[0] for row in conn.execute("SELECT flds FROM notes"))
    finally:
        conn.close()


HOSTILE = """\
# Hostile

Hostile script <script>alert(1)</script>? ::: <img src=x onerror=alert(2)>
Math $\\text{</math><script>alert(3)</script>}$? ::: [a link](javascript:alert(4))
Image ![x](../assets/x.png)? ::: [<b onmouseover=alert(5)>](#hostile)

::: quiz id=hostile
1. Which <iframe src="javascript:alert(6)">?
   - [x] $\\text{<svg onload=alert(7)>}$
   - [ ] <a href="javascript:alert(8)">b</a>

   [Back](01-finding-work.md#card-em) <style>*{}</style>
:::
"""


def test_the_deck_holds_no_script_handler_or_javascript_url(tmp_path):
    files = {**FILES, "lessons/02-hostile.md": HOSTILE, "assets/x.png": "png"}
    apkg = build(make_course(tmp_path / "course", files), tmp_path / "deck.apkg", T1)
    fields = deck_fields(apkg)
    assert "&lt;script&gt;alert(1)" in fields and f'href="{SITE}assets/x.png"' in fields
    assert fields.count("<p") > 5  # the fields are HTML that the count below reads as such
    assert f'href="{SITE}lessons/01-finding-work.html#card-em"' in fields
    assert active_markup(fields) == {"script": 0, "handlers": 0, "javascript": 0}


def test_links_and_images_in_notes_are_absolute_on_the_site(imported):
    card = find_card(imported["col"], '"What is*"')
    hrefs = [attrs["href"] for tag, attrs in tags(body(card.answer())) if tag == "a"]
    assert hrefs[0] == "https://example.org/em"
    source = [attrs["href"] for tag, attrs in tags(body(card.answer())) if tag == "a"][-1]
    assert source.startswith(f"{SITE}lessons/01-finding-work.html#")


def test_renaming_a_lesson_keeps_every_note_and_its_review_history(tmp_path, monkeypatch):
    root = make_course(tmp_path / "course")
    monkeypatch.setattr(deck, "RENDERER_FILES", unchanged_renderer(root))
    col = Collection(str(tmp_path / "collection.anki2"))
    try:
        import_apkg(col, build(root, tmp_path / "1.apkg", T1))
        for card_id in col.find_cards(""):
            card = col.get_card(card_id)
            card.start_timer()
            col.sched.answerCard(card, 4)
        history = {cid: col.get_card(cid).ivl for cid in col.find_cards("")}
        decks = {cid: col.decks.name(col.get_card(cid).did) for cid in history}
        reviews = col.db.scalar("SELECT count() FROM revlog")
        assert reviews == len(history) and all(ivl > 0 for ivl in history.values())

        (root / "docs" / "lessons" / "moved").mkdir()
        git(root, "mv", f"docs/{FILES_LESSON}", "docs/lessons/moved/07-renamed.md")
        git(root, "mv", "docs/quizzes/ckpt-en.md", "docs/en-quiz.md")
        git(root, "commit", "-q", "-m", "rename", when=T2)
        log = import_apkg(col, build(root, tmp_path / "2.apkg", T2))

        assert (len(log.new), len(log.conflicting)) == (0, 0)
        assert col.note_count() == len(history)
        assert {cid: col.get_card(cid).ivl for cid in col.find_cards("")} == history
        assert col.db.scalar("SELECT count() FROM revlog") == reviews
        # The lesson's subdeck is now "07 ...", but Anki leaves cards a learner has where they
        # are (what docs/flashcards.md tells them): nothing moves, nothing is duplicated.
        assert {cid: col.decks.name(col.get_card(cid).did) for cid in history} == decks
        assert any("::01 " in name for name in decks.values())
        # Every note of a moved page shows its new address, so Anki must take each as updated.
        fields = {nid: "\x1f".join(col.get_note(nid).fields) for nid in col.find_notes("")}
        moved = {nid for nid, text in fields.items() if "ckpt-ur.html" not in text}
        assert len(log.updated) == len(moved) > 0
        for nid in moved:
            assert f"{SITE}lessons/moved/07-renamed.html" in fields[nid] or (
                f"{SITE}en-quiz.html" in fields[nid]
            ), fields[nid]
        assert not any(f"{SITE}lessons/01-finding-work.html" in text for text in fields.values())
    finally:
        col.close()


def test_a_new_site_url_updates_every_note(tmp_path, monkeypatch):
    root = make_course(tmp_path / "course")
    monkeypatch.setattr(deck, "RENDERER_FILES", unchanged_renderer(root))
    col = Collection(str(tmp_path / "collection.anki2"))
    try:
        import_apkg(col, build(root, tmp_path / "1.apkg", T1))
        settings = root / "mkdocs.yml"
        text = re.sub(
            r"(?m)^site_url: .*$", "site_url: https://example.net/c/", settings.read_text()
        )
        settings.write_text(text)
        git(root, "commit", "-q", "-am", "move the site", when=T2)
        course = parse_course(root, syntax=MKDOCS)
        out = tmp_path / "2.apkg"
        deck.write_deck(course, out, site_url="https://example.net/c/", timestamp=T2, root=root)
        log = import_apkg(col, out)
        assert len(log.updated) == col.note_count()
    finally:
        col.close()


def test_a_file_name_with_spaces_becomes_a_valid_tag(tmp_path):
    root = make_course(tmp_path, {"lessons/02 with  space.md": "# Spaces\n\nQ? ::: A\n"})
    apkg = build(root, tmp_path / "deck.apkg", T1)
    col = Collection(str(tmp_path / "collection.anki2"))
    try:
        assert len(import_apkg(col, apkg).new) == 1
        (note_id,) = col.find_notes("")
        assert "lesson::02_with_space" in col.get_note(note_id).tags
    finally:
        col.close()


def test_database_check_finds_nothing_to_fix(imported):
    col = imported["col"]
    before = col.note_count()
    _, ok = col.fix_integrity()
    assert ok and col.note_count() == before


# --- identity across builds -------------------------------------------------------------------


def test_importing_the_same_build_again_adds_nothing(imported):
    log = import_apkg(imported["col"], imported["apkg"])
    assert len(log.new) == 0 and len(log.updated) == 0 and len(log.conflicting) == 0
    assert len(log.duplicate) == imported["col"].note_count()


def unchanged_renderer(root: Path) -> tuple[Path, ...]:
    """A renderer last committed with the course (the engine's own commits are newer than the
    fake times of these courses, and would re-date every note)."""
    return (root / "mkdocs.yml",)


def test_renderer_files_are_the_modules_that_render_notes():
    from mkdocs_course.course import field_syntax, links, model
    from mkdocs_course.render import markdown_html, mathml

    files = set(deck.RENDERER_FILES)
    assert all(path.is_file() for path in files), files
    modules = (markdown_html, field_syntax, mathml, links, deck, model, notes)
    assert {Path(module.__file__) for module in modules} <= files


def test_a_commit_to_a_renderer_file_re_dates_every_note(tmp_path):
    root = make_course(tmp_path)
    renderer = root / "renderer.py"
    renderer.write_text("# renders\n")
    git(root, "add", "renderer.py")
    git(root, "commit", "-q", "-m", "renderer", when=T2)
    items = notes.note_items(parse_course(root, syntax=MKDOCS))
    times = note_dates.note_times(items, root=root, renderer=(renderer,), timestamp=T2 + 50)
    assert set(times.values()) == {T2}


def test_a_later_commit_editing_one_answer_updates_exactly_that_note(tmp_path, monkeypatch):
    root = make_course(tmp_path / "course")
    monkeypatch.setattr(deck, "RENDERER_FILES", unchanged_renderer(root))
    col = Collection(str(tmp_path / "collection.anki2"))
    try:
        first = build(root, tmp_path / "v1.apkg", T1)
        assert len(import_apkg(col, first).new) == 8
        card = find_card(col, "card-em")
        card.start_timer()
        col.sched.answerCard(card, 3)  # a review the learner must keep
        lesson = root / "docs" / FILES_LESSON
        lesson.write_text(lesson.read_text("utf-8").replace("It is `em`", "It is `<em>`"))
        git(root, "commit", "-q", "-am", "edit one answer", when=T2)

        log = import_apkg(col, build(root, tmp_path / "v2.apkg", T2))
        assert len(log.new) == 0 and len(log.conflicting) == 0
        assert [note.fields[0] for note in log.updated] == ["What is emphasis?"]
        assert len(log.duplicate) == 7
        note = col.get_note(col.find_notes("card-em")[0])
        assert "<code>&lt;em&gt;</code>" in note["Back"] and note.mod == T2
        assert col.note_count() == 8
        assert col.get_card(card.id).reps == 1  # same card, review history kept
    finally:
        col.close()


def test_note_times_come_from_the_last_commit_that_changed_them(tmp_path):
    root = make_course(tmp_path)
    lesson = root / "docs" / FILES_LESSON
    lesson.write_text(lesson.read_text("utf-8").replace("25% of", "a quarter of"))
    git(root, "commit", "-q", "-am", "edit", when=T2)
    items = notes.note_items(parse_course(root, syntax=MKDOCS))
    times = note_dates.note_times(
        items, root=root, renderer=unchanged_renderer(root), timestamp=T2 + 50
    )
    edited = [i.guid for i in items if getattr(i.item, "back", "").startswith("a quarter")]
    assert [times[guid] for guid in edited] == [T2]
    assert sorted(set(times.values())) == [T1, T2]
    # capped at the build time
    assert set(
        note_dates.note_times(
            items, root=root, renderer=unchanged_renderer(root), timestamp=T1 - 5
        ).values()
    ) == {T1 - 5}
    # an uncommitted edit is dated when the build runs, so Anki takes it (HEAD's time would not)
    lesson.write_text(lesson.read_text("utf-8").replace("a quarter of", "one fourth of"))
    before = int(time.time())
    items = notes.note_items(parse_course(root, syntax=MKDOCS))
    dirty = note_dates.note_times(
        items, root=root, renderer=unchanged_renderer(root), timestamp=T2 + 50
    )
    assert sorted(dirty.values())[:-1] == sorted(times.values())[:-1]
    assert max(dirty.values()) >= before > T2 + 50


def test_a_new_title_or_path_re_dates_exactly_that_pages_notes(tmp_path):
    """The title is a note's deck and the path its "Open in the course" link: changing either
    dates every note of that page, and only those, at that commit."""
    root = make_course(tmp_path)
    lesson = root / "docs" / FILES_LESSON

    def times() -> dict[str, int]:
        items = notes.note_items(parse_course(root, syntax=MKDOCS))
        found = note_dates.note_times(
            items, root=root, renderer=unchanged_renderer(root), timestamp=T2 + 50
        )
        return {i.page.path: found[i.guid] for i in items} | {"all": sorted(set(found.values()))}

    lesson.write_text(lesson.read_text("utf-8").replace("# Finding work", "# Finding the work"))
    git(root, "commit", "-q", "-am", "retitle", when=T2)
    retitled = times()
    assert retitled[f"docs/{FILES_LESSON}"] == T2 and retitled["all"] == [T1, T2]
    git(root, "mv", "docs/quizzes/ckpt-ur.md", "docs/ckpt-ur.md")
    git(root, "commit", "-q", "-m", "move", when=T2 + 10)
    moved = times()
    assert moved["docs/ckpt-ur.md"] == T2 + 10 and moved["all"] == [T1, T2, T2 + 10]


def test_without_git_every_note_has_the_build_time(tmp_path):
    root = make_course(tmp_path, commit_at=None)
    items = notes.note_items(parse_course(root, syntax=MKDOCS))
    assert set(
        note_dates.note_times(
            items, root=root, renderer=unchanged_renderer(root), timestamp=T2
        ).values()
    ) == {T2}


def test_the_package_is_the_database_genanki_itself_writes(tmp_path, monkeypatch):
    """The deck writes genanki's statements itself (once per entry, not once per subdeck): the
    bytes must be those of ``genanki.Package.write_to_db``, subdecks and both note types."""
    import genanki

    root = make_course(tmp_path)
    course = parse_course(root, syntax=MKDOCS)
    ours = deck.build_apkg(course, timestamp=T1, root=root)

    def genankis(cursor, decks, timestamp, id_gen):
        genanki.Package(list(decks)).write_to_db(cursor, timestamp, id_gen)

    monkeypatch.setattr(deck, "_write_package", genankis)
    assert deck.build_apkg(course, timestamp=T1, root=root) == ours
    models = deck.note_models(course.config, deck.templates(root, course.config))
    assert len(list(deck._decks(notes.note_items(course), course.config, models, SITE))) == 4


def test_same_commit_gives_a_byte_identical_deck(tmp_path):
    root = make_course(tmp_path / "course")
    first = build(root, tmp_path / "a" / "deck.apkg", T1).read_bytes()
    second = build(root, tmp_path / "b" / "deck.apkg", T1).read_bytes()
    assert first == second
    later = build(root, tmp_path / "c" / "deck.apkg", T2).read_bytes()
    assert later != first


def test_a_course_with_errors_writes_nothing_and_keeps_the_old_deck(tmp_path):
    root = make_course(tmp_path / "course", commit_at=None)
    out = build(root, tmp_path / "site" / "deck.apkg", T1)
    before = out.read_bytes()
    (root / "docs" / "lessons" / "02-broken.md").write_text("# Broken\n\nNo answer? :::\n")
    course = parse_course(root, syntax=MKDOCS)
    assert [str(e) for e in course.errors] == [
        "docs/lessons/02-broken.md:3: flashcard has an empty answer"
    ]
    with pytest.raises(ValueError, match="error"):
        deck.write_deck(course, out, site_url=SITE, timestamp=T2, root=root)
    assert out.read_bytes() == before
    assert sorted(p.name for p in out.parent.iterdir()) == ["deck.apkg"]  # no temp file left
    missing = tmp_path / "nowhere" / "deck.apkg"
    with pytest.raises(ValueError):
        deck.write_deck(course, missing, site_url=SITE, timestamp=T2, root=root)
    assert not missing.parent.exists()


def test_writing_replaces_the_file_whole(tmp_path):
    root = make_course(tmp_path / "course", commit_at=None)
    out = tmp_path / "deep" / "er" / "deck.apkg"
    build(root, out, T1)
    build(root, out, T2)
    assert sorted(p.name for p in out.parent.iterdir()) == ["deck.apkg"]
    assert oct(out.stat().st_mode & 0o777) == oct(0o644)


# --- the real course and the styling ----------------------------------------------------------


def test_the_real_course_imports_with_matching_counts(tmp_path):
    course = parse_course(ROOT, syntax=MKDOCS)
    assert not course.errors, [str(error) for error in course.errors]
    assert course.cards and course.questions
    apkg = tmp_path / "real.apkg"
    deck.write_deck(course, apkg, site_url=SITE, timestamp=T2, root=ROOT)
    col = Collection(str(tmp_path / "collection.anki2"))
    try:
        log = import_apkg(col, apkg)
        expected = len(course.cards) + len(course.questions)
        assert len(log.new) == expected and col.card_count() == expected
        # The refuted seed cards carry their reality check into Anki, not only onto the page.
        for search in ('"Memory kept at k=4*"', '"Largest-*rule for choosing checkpoints*"'):
            card = find_card(col, search)
            assert "Reality check:" in body(card.answer()), search
        assert len(import_apkg(col, apkg).new) == 0
    finally:
        col.close()


def test_night_mode_redefines_every_colour():
    css = (ROOT / "deck" / "cards.css").read_text("utf-8")
    day = re.search(r"\n\.card \{(.*?)\}", css, re.DOTALL)
    night = re.search(r"\.nightMode \.card,\s*\.night_mode \.card \{(.*?)\}", css, re.DOTALL)
    assert day and night
    day_vars = set(re.findall(r"(--[\w-]+):", day.group(1)))
    assert day_vars and day_vars == set(re.findall(r"(--[\w-]+):", night.group(1)))
    assert ".card.nightMode" in css and ".card.night_mode" in css
    assert "@import" not in css and "http" not in css  # nothing fetched from the network


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Finding work", "01 Finding work"),
        ("Lesson 1 · Finding work", "Lesson 1 · Finding work"),
        ("1. Finding work", "1. Finding work"),
        ("Use `a::b` *here*", "01 Use a:b here"),
    ],
)
def test_lesson_deck_names(title, expected):
    from mkdocs_course.course.model import Page

    page = Page(path="docs/lessons/01-x.md", docs_path="lessons/01-x.md", title=title)
    assert notes.lesson_deck_name(page, DECK_NAME) == f"{DECK_NAME}::{expected}"


def test_note_guids_are_written_as_genanki_writes_them():
    import genanki

    course = parse_course(ROOT, syntax=MKDOCS)
    for entry in notes.note_items(course):
        quiz_id = entry.quiz.quiz_id if entry.quiz else None
        key = entry.item.explicit_id or entry.item.key
        parts = [CONFIG.guid_namespace, key] if entry.item.explicit_id else None
        if parts is None:
            kind = ["quiz", quiz_id] if quiz_id else ["card"]
            parts = [CONFIG.guid_namespace, *kind, key]
        assert entry.guid == genanki.guid_for(*parts)
    for parts in (["a"], ["ns", "card", "x y"], ["ns", "quiz", "q", "اردو سوال"], ["", ""]):
        assert notes.guid(*parts) == genanki.guid_for(*parts)


@pytest.mark.parametrize(
    "title, subdeck",
    [
        ("Lesson 1 quiz: finding and claiming work", "Lesson 1 quiz: finding and claiming work"),
        ("Gradient checkpointing quiz", "Gradient checkpointing quiz"),
        ("گریڈینٹ چیک پوائنٹنگ کوئز", "گریڈینٹ چیک پوائنٹنگ کوئز"),
        ("Checkpointing", "Quiz: Checkpointing"),
        ("Quizzical shapes", "Quiz: Quizzical shapes"),
    ],
)
def test_a_quiz_subdeck_says_quiz_once(title, subdeck):
    page, errors = parse_page(
        "docs/q.md",
        "q.md",
        f'::: quiz id=q title="{title}"\n1. Q?\n   - [x] a\n   - [ ] b\n\n   E.\n:::\n',
        syntax=MKDOCS,
    )
    assert errors == []
    assert notes.quiz_deck_name(page.quizzes[0], "Top") == f"Top::{subdeck}"
