"""A build does each piece of work once, and a rebuild with nothing changed skips what it can.

Counted, not timed: the figures are in tests/perf/bench_scale.py.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import subprocess
from concurrent.futures import Future
from pathlib import Path

import pytest
from conftest import copy_course
from mkdocs_course import benchmarks, cli
from mkdocs_course.anki import deck, deck_cache
from mkdocs_course.buildkit import workers as background
from mkdocs_course.buildkit.buildinfo import ROOT
from mkdocs_course.course import parser
from mkdocs_course.course.check import load_checked_course
from mkdocs_course.plugin import offline
from mkdocs_course.plugin import pages as site_pages
from mkdocs_course.plugin.syntax import MKDOCS

from snippets import benchmark_views


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, list]:
    """Record every page parse and every deck build of the code under test."""
    calls: dict[str, list] = {"parse": [], "deck": [], "page": [], "scan": []}
    real_parse, real_deck = parser.parse_page, deck.build_apkg
    real_page, real_scan = site_pages.render_page, offline.built_page_scan

    def render_page(page, *args, **kwargs):
        calls["page"].append(page.docs_path)
        return real_page(page, *args, **kwargs)

    def built_page_scan(html):
        calls["scan"].append(1)
        return real_scan(html)

    monkeypatch.setattr(site_pages, "render_page", render_page)
    monkeypatch.setattr(offline, "built_page_scan", built_page_scan)

    def parse_page(path, *args, **kwargs):
        calls["parse"].append(path)
        return real_parse(path, *args, **kwargs)

    def build_apkg(*args, **kwargs):
        calls["deck"].append(1)
        return real_deck(*args, **kwargs)

    monkeypatch.setattr(background, "_may_fork", lambda: False)  # counted here, not in a worker
    monkeypatch.setattr(parser, "parse_page", parse_page)
    monkeypatch.setattr(deck, "build_apkg", build_apkg)
    return calls


def test_a_build_parses_each_page_once_and_a_no_op_rebuild_redoes_none_of_the_hooks_work(
    tmp_path: Path, counted: dict[str, list]
):
    root = copy_course(tmp_path / "course")
    for cached in ("build", "deck"):  # start cold (copy_course keeps the notebook's cache)
        shutil.rmtree(root / ".cache" / cached, ignore_errors=True)
    pages = sorted(p.relative_to(root).as_posix() for p in (root / "docs").rglob("*.md"))
    cli.build_site(tmp_path / "site", root=root)
    assert sorted(counted["parse"]) == pages  # the CLI's check and MkDocs' hook share one parse
    assert counted["deck"] == [1]
    first = (tmp_path / "site" / "downloads").iterdir().__next__().read_bytes()

    assert counted["scan"] and counted["page"]
    for calls in counted.values():
        calls.clear()
    (root / ".cache" / "build" / "last-build.json").unlink()  # not the no-op shortcut: MkDocs runs
    cli.build_site(tmp_path / "site", root=root)
    # A build is one process: the next parses again, once (``mkdocs serve`` keeps its plugin and
    # the course it checked: tests/test_cli.py).
    assert sorted(counted["parse"]) == pages
    assert counted["deck"] == []  # the deck comes from .cache/deck
    assert counted["scan"] == []  # so do the checks of built pages (.cache/build)
    embeds = {
        page.docs_path for page in load_checked_course(root, syntax=MKDOCS).pages if page.embeds
    }
    assert set(counted["page"]) == embeds  # only pages showing results files render again
    assert next((tmp_path / "site" / "downloads").iterdir()).read_bytes() == first

    for calls in counted.values():
        calls.clear()
    lesson = root / "docs" / "lessons" / "01-finding-and-claiming-work.md"
    lesson.write_text(lesson.read_text("utf-8") + "\nA new question? ::: A new answer\n", "utf-8")
    cli.build_site(tmp_path / "site", root=root)
    assert sorted(counted["parse"]) == pages  # an edit: parsed again, once
    assert counted["deck"] == [1]  # and a new deck
    assert set(counted["page"]) == embeds | {"lessons/01-finding-and-claiming-work.md"}
    assert len(counted["scan"]) == 1  # the other pages came out as before


def test_the_plugin_keeps_a_course_checked_whole_while_its_sources_stay_the_same(
    tmp_path: Path, counted: dict[str, list], monkeypatch: pytest.MonkeyPatch
):
    """As under ``mkdocs serve``: one plugin object, several builds. The course it checked whole
    is built again without a parse; one whose build stopped before that is parsed again (the
    pool it was parsed in is gone)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    root = copy_course(tmp_path / "course")
    shutil.rmtree(root / ".cache" / "build")  # each page rendered, not taken from the memo
    pages = sorted(p.relative_to(root).as_posix() for p in (root / "docs").rglob("*.md"))
    _parts_on_demand(monkeypatch, [])  # the first page fails while the others have not parsed
    monkeypatch.chdir(root)
    config = load_config(str(root / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    config.plugins.on_startup(command="serve", dirty=False)
    real_page = site_pages.render_page

    def broken(page, *args, **kwargs):
        raise site_pages.SiteError(f"{page.path}:1: broken on purpose")

    monkeypatch.setattr(site_pages, "render_page", broken)
    with pytest.raises(Abort):
        build(config)
    assert "docs/index.md" in counted["parse"]  # the page it read first, and its part's
    assert len(counted["parse"]) < len(pages)
    monkeypatch.setattr(site_pages, "render_page", real_page)
    for parsed_again in (pages, []):
        counted["parse"].clear()
        build(config)
        assert sorted(counted["parse"]) == parsed_again
    assert (tmp_path / "site" / "index.html").is_file()


def _parts_on_demand(monkeypatch: pytest.MonkeyPatch, events: list) -> None:
    """Builds get a pool whose parse of each part runs here when the build first asks for it
    (recorded in ``events``), and whose other jobs run here at once."""

    class PartsOnDemand(background.Background):
        def submit(self, fn, /, *args, **kwargs):
            if fn is not parser.parse_files:
                return background._done(fn, *args, **kwargs)

            def parse():
                events.append(("parsed", tuple(args[2])))
                return fn(*args, **kwargs)

            events.append(("sent", tuple(args[2])))
            return _OnDemand(parse)

    @contextlib.contextmanager
    def pool():
        yield PartsOnDemand()

    monkeypatch.setattr(background, "build_pool", pool)


class _OnDemand(Future):
    """A job that runs when its result is first asked for: the order of the asking shows."""

    def __init__(self, run) -> None:
        super().__init__()
        self._run = run

    def result(self, timeout=None):
        if not self.done():
            self.set_result(self._run())
        return super().result(timeout)


def test_mkdocs_reads_each_page_once_its_part_has_parsed_not_once_all_have(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The parse of a part of the pages runs here when the build first needs it (its other
    jobs run at once): MkDocs reads the first page while the last part has not parsed, before
    the course is checked whole (once); each part parses once, in the order the parts were sent
    (the order MkDocs reads the pages in)."""
    root = copy_course(tmp_path / "course")
    shutil.rmtree(root / ".cache" / "build", ignore_errors=True)
    events: list[tuple[str, object]] = []
    _parts_on_demand(monkeypatch, events)
    real_page, real_assemble = site_pages.render_page, parser.assemble

    def render_page(page, *args, **kwargs):
        events.append(("read", page.docs_path))
        return real_page(page, *args, **kwargs)

    def assemble(*args, **kwargs):
        events.append(("checked whole", None))
        return real_assemble(*args, **kwargs)

    monkeypatch.setattr(site_pages, "render_page", render_page)
    monkeypatch.setattr(parser, "assemble", assemble)
    cli.build_site(tmp_path / "site", root=root)

    kinds = [kind for kind, _ in events]
    parts = [run for kind, run in events if kind == "parsed" and run]
    # MkDocs asks for the parts in the order they were sent: the order it reads the pages in
    assert parts == [run for kind, run in events if kind == "sent" and run]
    pages = sorted(p.relative_to(root).as_posix() for p in (root / "docs").rglob("*.md"))
    assert sorted(path for run in parts for path in run) == pages  # each part parsed once
    assert len(parts) > 2
    assert kinds.index("read") < max(
        i for i, (k, run) in enumerate(events) if k == "parsed" and run
    )
    assert kinds.count("checked whole") == 1
    assert kinds.index("read") < kinds.index("checked whole")
    assert (tmp_path / "site" / "index.html").is_file()


def test_pages_parse_in_the_order_mkdocs_reads_them(tmp_path: Path):
    """The parts go to the workers in MkDocs' reading order (``reading_order``): a folder's
    files, index or README first, before its subfolders; here and in this course."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files

    names = ["z.md", "a.md", "b/x.md", "B.md", "b/index.md", "a.b.md", "a-b/x.md"]
    names += ["b/c/README.md", "b/c/a.md", "index.md", "b/zz.md", "README.md", "indexes.md"]
    for name in names:
        (tmp_path / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "docs" / name).write_text("# x\n", "utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n", "utf-8")
    for root in (tmp_path, ROOT):
        config = load_config(str(root / "mkdocs.yml"))
        read = [f.src_uri for f in get_files(config).documentation_pages()]
        assert len(read) > 10
        assert sorted(read, key=MKDOCS.reading_order) == read


def test_checking_a_benchmark_embed_does_not_render_it(monkeypatch: pytest.MonkeyPatch):
    def refuse(*args, **kwargs):
        raise AssertionError("check rendered an embed")

    monkeypatch.setattr(benchmarks, "render_embed", refuse)
    for name, view in list(benchmark_views.VIEWS.items()):
        monkeypatch.setitem(benchmark_views.VIEWS, name, dataclasses.replace(view, render=refuse))
    course = load_checked_course(
        ROOT, strict_results=True, syntax=MKDOCS
    )  # strict: no cache from other tests
    assert course.errors == []
    assert any(page.embeds for page in course.pages)


def test_a_broken_embed_is_still_an_error_without_rendering(tmp_path: Path):
    root = copy_course(tmp_path / "course")
    lesson = root / "docs" / "lessons" / "02-part-3-measuring-and-choosing.md"
    text = lesson.read_text("utf-8")
    assert "::: benchmark checkpointing table" in text
    lesson.write_text(text.replace("checkpointing table", "checkpointing tabel", 1), "utf-8")
    errors = [str(e) for e in load_checked_course(root, syntax=MKDOCS).errors]
    assert len(errors) == 1 and "unknown benchmark view 'tabel'" in errors[0]
    assert errors[0].startswith("docs/lessons/02-part-3-measuring-and-choosing.md:")


def test_mkdocs_jupyter_is_told_to_leave_markdown_pages_alone():
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"))
    jupyter = config.plugins["mkdocs-jupyter"]
    from mkdocs.structure.files import File

    page = File("lessons/01-finding-and-claiming-work.md", str(ROOT / "docs"), "/tmp/x", False)
    lab = File("lab/checkpointing-lab.py", str(ROOT / "docs"), "/tmp/x", False)
    assert not jupyter.should_include(page)
    assert jupyter.should_include(lab)


def test_failed_background_work_fails_the_build_and_keeps_the_site(tmp_path, monkeypatch):
    root = copy_course(tmp_path / "course")
    site = tmp_path / "site"
    site.mkdir()
    (site / "kept.html").write_text("the old site", "utf-8")

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(background, "_may_fork", lambda: False)
    monkeypatch.setattr(deck_cache, "apkg", broken)
    with pytest.raises(SystemExit, match="mkdocs build failed"):
        cli.build_site(site, root=root)
    assert [p.name for p in site.iterdir()] == ["kept.html"]
    assert not list(tmp_path.glob(".site-*"))


def test_a_built_page_is_read_once_for_both_of_its_checks(monkeypatch: pytest.MonkeyPatch):
    readings: list[str] = []
    real = offline.LexborHTMLParser

    def parser_counted(html: str):
        readings.append(html)
        return real(html)

    page = (
        '<!doctype html><html><head><script src="https://cdn.example.org/x.js"></script>'
        '<link rel="stylesheet" href="https://fonts.example.org/a.css"></head>'
        '<body onload="steal()"><img src="//img.example.org/i.png"><p>text</p></body></html>'
    )
    monkeypatch.setattr(offline, "LexborHTMLParser", parser_counted)
    remote, script = offline.built_page_scan(page)
    assert readings == [page]
    assert len(remote) == 3 and any("onload" in found for found in script)
    assert remote == offline.remote_loads(page)  # what the separate scan of remote loads finds
    assert script == offline.built_page_active_content(page)


def test_a_check_parses_each_version_of_mkdocs_yml_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The settings, the docs folder, the theme's strings and the identity check all read
    mkdocs.yml: one parse of each version (this one, and the first published one from git)."""
    import yaml
    from mkdocs_course.course import config as course_config

    root = copy_course(tmp_path / "course")
    git = ["git", "-c", "user.name=T", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=0"]
    for args in (["init", "-q"], ["add", "mkdocs.yml"], ["commit", "-qm", "settings"]):
        subprocess.run([*git, *args], cwd=root, check=True)
    config_file = root / "mkdocs.yml"
    config_file.write_text(config_file.read_text("utf-8") + "# edited since\n", "utf-8")
    parsed: list[str] = []
    real = yaml.load

    def load(text, Loader):
        parsed.append(text)
        return real(text, Loader=Loader)

    course_config.parse_yaml.cache_clear()
    monkeypatch.setattr(yaml, "load", load)
    assert load_checked_course(root, syntax=MKDOCS).errors == []
    assert len(parsed) == len(set(parsed)) == 2
    # libyaml's values are the pure-Python parser's; a broken file gets the latter's message.
    text = (root / "mkdocs.yml").read_text("utf-8")
    assert real(text, Loader=course_config._FastLoader) == real(text, Loader=course_config._Loader)
    with pytest.raises(yaml.YAMLError, match="expected ',' or ']', but got '<stream end>'"):
        course_config.parse_yaml("nav: [a,\nb: 2\n")
