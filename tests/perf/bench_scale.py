"""How the build scales: our build against plain MkDocs, on this course and a large generated one.

Run: ``.venv/bin/python tests/perf/bench_scale.py [--lessons N] [--commits M] [--pairs K]
[--runs R] [--skip-real] [--old REF|none] [--skip-details]``. It is a benchmark that prints
figures, not a test; it takes minutes.

Printed, after the machine (cores, load, versions):

1. This course: K pairs of builds, each a plain ``mkdocs build`` of the same pages with the
   course plugin taken out of a temporary copy of ``mkdocs.yml`` (``mkdocs.plain.yml``, removed
   afterwards), then a rebuild with nothing changed by ``python -m tools.cli build`` (which
   finds the site up to date and skips MkDocs), and the same rebuild made to run MkDocs anyway
   (its record of the last build removed: the plugin's work comes from its caches); each pair
   and the median ratios ours/plain. Both kinds run once first, untimed, so caches are warm.
2. A generated course (N lessons of 25 flashcards and a 5-question quiz each, M commits that edit
   one to three lines each), the same for the same arguments down to its commit ids, for two
   engines side by side in one run: ``new`` (this checkout) and ``old`` (``--old REF``, by
   default where HEAD left main, checked out in a worktree of its own and removed afterwards);
   each engine's course names its own assets and loads its own engine: ``plugins: - course``
   (for an engine installed under another name than this one's, such as ``tools`` before the
   engine was installed as ``mkdocs_course``, with ``PYTHONPATH`` at that checkout and at a
   stand-in distribution whose ``course`` entry point names that engine's module), or, for a
   ref from before the plugin (no ``tools/plugin/plugin.py``), ``hooks:`` with its hook
   (``hook.py`` of its ``site`` folder) and ``extra.course``; each engine's commands run under
   its own module name (``python -m tools.cli`` or ``python -m mkdocs_course.cli``);
   the file MkDocs loads is printed once per engine. R rounds, the engines alternating
   (old, new, then new, old ...), each of: plain MkDocs, a clean build (no site, no ``.cache``),
   a rebuild with nothing changed (and that rebuild made to run MkDocs anyway) and a clean
   ``tools.cli deck``; each engine's medians and median ratios beside the targets (clean build
   <= 1.0x plain, deck <= 0.25x plain, no-op <= 0.1x clean), and whether its builds wrote the
   same deck bytes, and the same as the other engine's. Each command is timed in wall seconds
   and in CPU seconds (its own and its workers', git's: what it waited for). Then, for the new
   engine, where a profiled clean build and a profiled deck spend their time (each on one core,
   so the background jobs run in the profiled process), and the deck's parts timed in this
   process (parsing, dating notes from git history, building the ``.apkg``) cold, warm and after
   one more commit that edits one answer.
3. Last, one table: each target, each engine's median ratio (wall, and CPU in brackets, with the
   floor that CPU time sets on this machine's cores) and whether the wall ratio meets it.

Each engine's bytecode is written first (``compileall``), as an installed or once-run checkout
has it. Other work on the machine skews every figure, wall times most: the load average is
printed before and after, and with each round.

Plain builds run with ``--strict`` when they pass that way; where the engine is needed for that
(the deck download link has no file without it) they run with ``--no-strict``, and it says so.
"""

from __future__ import annotations

import argparse
import os
import pstats
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
DISTRIBUTION = "contributing-to-open-source-ml"  # the engine's distribution (pyproject.toml)

from mkdocs_course.anki import deck, deck_cache, note_dates  # noqa: E402
from mkdocs_course.buildkit import buildinfo, git_history  # noqa: E402
from mkdocs_course.course import check as course_check  # noqa: E402
from mkdocs_course.course import notes  # noqa: E402
from mkdocs_course.plugin import review  # noqa: E402
from mkdocs_course.plugin.syntax import MKDOCS  # noqa: E402

PLUGIN = Path("tools", "plugin", "plugin.py")  # an engine with it is the MkDocs plugin "course"
OLD_HOOK = Path("tools", "site", "hook.py")  # before the plugin: a hook, settings in extra.course
PLAIN_CONFIG = "mkdocs.plain.yml"
CARDS, QUESTIONS = 25, 5
EPOCH = 1_700_000_000  # the generated history's first commit; each later one is 10 min after
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench Author",
    "GIT_AUTHOR_EMAIL": "author@example.org",
    "GIT_COMMITTER_NAME": "Bench Author",
    "GIT_COMMITTER_EMAIL": "author@example.org",
}
WORDS = ("gradient", "memory", "tensor", "layer", "batch", "kernel", "shard", "token", "cache")


class BuildFailed(Exception):
    pass


# --- running and timing ---------------------------------------------------------------------


def run(cmd: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None) -> tuple[float, str]:
    """Seconds a command took, and its stderr; :class:`BuildFailed` when it fails."""
    elapsed, _, stderr = run_measured(cmd, cwd, env)
    return elapsed, stderr


def run_measured(
    cmd: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None
) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user + system of the command and of every process it waited
    for: the build's workers, git) and its stderr. On a shared machine the CPU time moves less
    with the others' load than the wall time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode:
        raise BuildFailed(f"{' '.join(cmd)} failed:\n{result.stdout}{result.stderr}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return elapsed, cpu, result.stderr


def timed(call: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    value = call()
    return time.perf_counter() - started, value


def medians(rows: list[tuple[float, ...]]) -> list[float]:
    """The median of each column."""
    return [statistics.median(column) for column in zip(*rows, strict=True)]


def warnings_in(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("WARNING")]


def show_warnings(label: str, stderr: str) -> None:
    found = warnings_in(stderr)
    for line in found[:5]:
        print(f"  {label} warning: {line}")
    if len(found) > 5:
        print(f"  {label}: {len(found) - 5} more warning(s)")


def module_name(root: Path) -> str:
    """The name the engine of the checkout at ``root`` runs under: its installed name
    (pyproject.toml's ``package-dir`` for ``tools``), or ``tools`` for an engine from before."""
    project = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))
    folders = project.get("tool", {}).get("setuptools", {}).get("package-dir", {})
    return next((name for name, folder in folders.items() if folder == "tools"), "tools")


NEW = module_name(ROOT)


def ours_command(course: Path, site: Path, module: str = NEW) -> list[str]:
    cmd = [sys.executable, "-m", f"{module}.cli", "build", "--site-dir", str(site)]
    return cmd if course == ROOT else [*cmd, "--course", str(course)]


def plain_command(course: Path, site: Path) -> list[str]:
    """The plain build's command, strict when the pages pass that way without the engine."""
    config = str(course / PLAIN_CONFIG)
    cmd = [sys.executable, "-m", "mkdocs", "build", "-f", config, "-d", str(site)]
    try:
        _, stderr = run([*cmd, "--strict"], cwd=course)
    except BuildFailed as exc:
        reasons = warnings_in(str(exc)) or str(exc).splitlines()[-3:]
        print(f"  plain build fails with --strict without the engine ({len(reasons)} warning(s)):")
        for line in reasons[:5]:
            print(f"    {line}")
        print("  so plain builds run with --no-strict")
        run([*cmd, "--no-strict"], cwd=course)
        return [*cmd, "--no-strict"]
    show_warnings("plain", stderr)
    return [*cmd, "--strict"]


def write_plain_config(course: Path) -> None:
    """``mkdocs.plain.yml`` beside ``mkdocs.yml``: the same settings without the engine (the
    ``course`` plugin, or an older engine's ``hooks:``)."""
    path = course / "mkdocs.yml"
    config = yaml.safe_load(path.read_text("utf-8"))
    plugins = config.get("plugins", [])
    kept = [entry for entry in plugins if not is_course_plugin(entry)]
    if config.pop("hooks", None) is None and len(kept) == len(plugins):
        raise SystemExit(f"{path}: neither the course plugin nor a hooks: block to remove")
    config["plugins"] = kept
    (course / PLAIN_CONFIG).write_text(yaml.safe_dump(config, sort_keys=False), "utf-8")


def is_course_plugin(entry: str | dict) -> bool:
    """A ``plugins:`` entry that is the course plugin: ``- course`` or ``- course: {...}``."""
    return entry == "course" or (isinstance(entry, dict) and "course" in entry)


def course_settings(config: dict) -> dict:
    """The course's settings in a ``mkdocs.yml`` of either engine: the plugin's, or ``extra.course``
    for an engine from before the plugin."""
    for entry in config.get("plugins", []):
        if isinstance(entry, dict) and "course" in entry:
            return entry["course"]
    return config["extra"]["course"]


# --- 1. this course ---------------------------------------------------------------------------


def bench_real(pairs: int, tmp: Path) -> None:
    print(f"\n== 1. this course ({ROOT}): plain mkdocs vs our no-op rebuild, {pairs} pairs ==")
    write_plain_config(ROOT)
    try:
        plain = plain_command(ROOT, tmp / "real-plain")
        _, stderr = run(ours_command(ROOT, tmp / "real-ours"))  # warms .cache
        show_warnings("ours", stderr)
        ratios, full = [], []
        for number in range(1, pairs + 1):
            plain_s, _ = run(plain)
            ours_s, _ = run(ours_command(ROOT, tmp / "real-ours"))
            forget_last_build(ROOT)
            full_s, _ = run(ours_command(ROOT, tmp / "real-ours"))
            ratios.append(ours_s / plain_s)
            full.append(full_s / plain_s)
            print(
                f"  pair {number}: plain {plain_s:6.2f} s   ours {ours_s:6.2f} s   "
                f"ours/plain {ratios[-1]:.2f}   (MkDocs run anyway: {full_s:.2f} s, "
                f"{full[-1]:.2f})"
            )
    finally:
        (ROOT / PLAIN_CONFIG).unlink(missing_ok=True)
    print(f"  median ours/plain: {statistics.median(ratios):.2f}")
    anyway = statistics.median(full)
    print(f"  median ours/plain with MkDocs run anyway (plugin work from the memo): {anyway:.2f}")
    print(f"  load average now: {load_average()}")


# --- 2. the generated course ------------------------------------------------------------------


def sentence(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(words))
    return text[0].upper() + text[1:] + "."


def lesson_lines(number: int, rng: random.Random) -> tuple[list[str], list[int]]:
    """A lesson's lines, and which of them a later commit may edit (answers and prose)."""
    lines = [f"# Lesson {number} · Topic {number}", "", "## Overview {#overview}", ""]
    editable = []
    for _ in range(3):
        editable.append(len(lines))
        lines.append(sentence(rng, 12))
    lines += [f"It computes `step_{number}(x)`, which is $x^2 + {number}$ per element.", ""]
    lines += ["## Flashcards {#flashcards}", ""]
    for card in range(1, CARDS + 1):
        editable.append(len(lines))
        lines.append(f"What does term {number}.{card} mean? ::: {sentence(rng, 8)}")
    lines += ["", "## Worked example {#example}", "", "```python"]
    lines += [f"def step_{number}(x):", f"    return x**2 + {number}", "```", ""]
    editable.append(len(lines))
    lines += [sentence(rng, 14), "", "## Quiz {#quiz}", ""]
    lines.append(f'::: quiz id=lesson-{number:03d}-quiz title="Lesson {number} quiz"')
    for question in range(1, QUESTIONS + 1):
        right = rng.randrange(3)
        lines.append(f"{question}. Which {rng.choice(WORDS)} fits case {question}?")
        options: list[str] = []
        while len(options) < 3:  # distinct: check refuses two options with one text
            option = sentence(rng, 3)
            if option.casefold() not in {o.casefold() for o in options}:
                options.append(option)
        lines += [f"   - [{'x' if o == right else ' '}] {text}" for o, text in enumerate(options)]
        lines += ["", f"   {sentence(rng, 10)}", ""]
    lines.append(":::")
    return lines, editable


def edit_line(line: str, rng: random.Random) -> str:
    """A new answer for a card line, a new sentence for prose."""
    if " ::: " in line:
        return line.split(" ::: ")[0] + " ::: " + sentence(rng, 8)
    return sentence(rng, 12)


def course_config(names: list[str], engine: Path) -> str:
    """The ``mkdocs.yml`` of the engine's checkout for the generated lessons: its course plugin
    (or an older engine's hook, by its absolute path), no notebook plugin, no benchmarks, only
    the assets that are copied, its own deck and GUID namespace."""
    config = yaml.safe_load((engine / "mkdocs.yml").read_text("utf-8"))
    settings = course_settings(config)
    config["site_name"] = settings["deck_name"] = "Synthetic Scale Course"
    settings.update(
        deck_file="downloads/synthetic-scale-course.apkg",
        guid_namespace="synthetic-scale-course",
        note_type_ids={"basic": 1999000001, "choice": 1999000002},
        languages=["en"],
    )
    settings.pop("benchmarks", None)  # no lesson shows one; their files are not copied
    if not (engine / PLUGIN).is_file():
        config["hooks"] = [(engine / OLD_HOOK).as_posix()]
    config["theme"]["custom_dir"] = (engine / config["theme"]["custom_dir"]).as_posix()
    config["plugins"] = [p for p in config["plugins"] if isinstance(p, str) or is_course_plugin(p)]
    config.pop("watch", None)  # folders of this repository
    lessons = [{f"{n} · Topic {n}": f"lessons/{name}"} for n, name in enumerate(names, 1)]
    config["nav"] = [{"Home": "index.md"}, {"Lessons": lessons}]
    config["nav"] += [{"Flashcards": "flashcards.md"}, {"Review": "review.md"}]
    for key in ("extra_css", "extra_javascript"):
        config[key] = [path for path in config.get(key, []) if kept_asset(path, engine)]
    return yaml.safe_dump(config, sort_keys=False, allow_unicode=True)


def kept_asset(entry: str | dict, engine: Path) -> bool:
    """An asset of the real config the generated course keeps: copied, or made by the engine
    (an entry is a path, or MkDocs' ``path:`` with attributes)."""
    path = entry if isinstance(entry, str) else entry["path"]
    return path == review.INDEX_FILE or (engine / "docs" / path).is_file()


def first_files(names: list[str], lessons: list[list[str]], engine: Path) -> dict[str, bytes]:
    files = {"mkdocs.yml": course_config(names, engine).encode()}
    index = ["# Synthetic scale course", ""]
    index += [f"- [Lesson {n}](lessons/{name})" for n, name in enumerate(names, 1)]
    files["docs/index.md"] = ("\n".join(index) + "\n").encode()
    files["docs/review.md"] = (engine / "docs" / "review.md").read_bytes()
    for path in sorted((engine / "deck").glob("*")):  # the note templates its settings name
        files[path.relative_to(engine).as_posix()] = path.read_bytes()
    deck_file = course_settings(yaml.safe_load(files["mkdocs.yml"]))["deck_file"]
    flashcards = f"# Flashcards and Anki deck\n\n[Download the deck]({deck_file})\n"
    files["docs/flashcards.md"] = flashcards.encode()  # review.md links to it
    # An engine from before its assets moved into the package (tools/plugin/static/) has them
    # in the course, under docs/assets/; a newer one has no such folder.
    for path in sorted((engine / "docs" / "assets").rglob("*")):
        if path.is_file():
            files[path.relative_to(engine).as_posix()] = path.read_bytes()
    for name, lines in zip(names, lessons, strict=True):
        files[f"docs/lessons/{name}"] = ("\n".join(lines) + "\n").encode()
    return files


def fast_import_commit(number: int, files: dict[str, bytes]) -> bytes:
    who = f"{GIT_ENV['GIT_AUTHOR_NAME']} <{GIT_ENV['GIT_AUTHOR_EMAIL']}> {EPOCH + 600 * number}"
    message = f"commit {number}\n".encode()
    out = [f"commit refs/heads/main\nauthor {who} +0000\ncommitter {who} +0000\n".encode()]
    out.append(b"data %d\n%s" % (len(message), message))
    for path, data in files.items():
        out.append(b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data))
    return b"".join(out) + b"\n"


def generate_course(course: Path, lessons: int, commits: int, seed: int, engine: Path) -> None:
    """The course and its history: everything in a first commit, then ``commits - 1`` commits
    that each edit 1 to 3 lines of random lessons; the working tree checked out at the last.
    Only its ``mkdocs.yml`` and assets depend on the engine (those of its checkout)."""
    rng = random.Random(seed)
    names = [f"l{n:03d}.md" for n in range(1, lessons + 1)]
    made = [lesson_lines(n, rng) for n in range(1, lessons + 1)]
    texts = [lines for lines, _ in made]
    stream = [fast_import_commit(0, first_files(names, texts, engine))]
    for number in range(1, commits):
        changed = {}
        for _ in range(rng.randint(1, 3)):
            which = rng.randrange(lessons)
            line = rng.choice(made[which][1])
            texts[which][line] = edit_line(texts[which][line], rng)
            changed[f"docs/lessons/{names[which]}"] = ("\n".join(texts[which]) + "\n").encode()
        stream.append(fast_import_commit(number, changed))
    course.mkdir(parents=True)
    git(course, "init", "-q", "-b", "main")
    subprocess.run(
        ["git", "fast-import", "--quiet"], cwd=course, input=b"".join(stream), check=True
    )
    git(course, "reset", "-q", "--hard")


def git(course: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    result = subprocess.run(
        ["git", "-c", "commit.gpgsign=false", *args],
        cwd=course,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout


def commit_one_answer(course: Path, commits: int) -> None:
    """One more commit, dated after the others, that changes the first card's answer."""
    path = course / "docs" / "lessons" / "l001.md"
    lines = path.read_text("utf-8").splitlines()
    card = next(n for n, line in enumerate(lines) if " ::: " in line)
    lines[card] = lines[card].split(" ::: ")[0] + " ::: An answer edited by the benchmark."
    path.write_text("\n".join(lines) + "\n", "utf-8")
    date = f"@{EPOCH + 600 * commits} +0000"
    os.environ.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    try:
        git(course, "commit", "-q", "-am", "edit one answer")
    finally:
        del os.environ["GIT_AUTHOR_DATE"], os.environ["GIT_COMMITTER_DATE"]


def forget_last_build(course: Path) -> None:
    """Drop the record that lets a no-op rebuild skip MkDocs: the rebuild then runs MkDocs, with
    the engine's page work and the deck taken from the caches."""
    (course / ".cache" / "build" / "last-build.json").unlink(missing_ok=True)


def deck_bytes(course: Path, site: Path) -> bytes:
    config = yaml.safe_load((course / "mkdocs.yml").read_text("utf-8"))
    return (site / course_settings(config)["deck_file"]).read_bytes()


def clean_build(engine: Engine, site: Path) -> tuple[float, float, bytes]:
    """Wall and CPU seconds of a build with no site and no ``.cache``, and its deck."""
    shutil.rmtree(site, ignore_errors=True)
    shutil.rmtree(engine.course / ".cache", ignore_errors=True)
    cmd = ours_command(engine.course, site, engine.module)
    elapsed, cpu, _ = run_measured(cmd, cwd=engine.root, env=engine.env)
    return elapsed, cpu, deck_bytes(engine.course, site)


def clean_deck(engine: Engine, out: Path) -> tuple[float, float, bytes]:
    """``python -m ENGINE.cli deck`` with nothing cached: parse, date every note, write it."""
    shutil.rmtree(engine.course / ".cache", ignore_errors=True)
    out.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", f"{engine.module}.cli", "deck", "--course", str(engine.course)]
    elapsed, cpu, _ = run_measured([*cmd, "-o", str(out)], cwd=engine.root, env=engine.env)
    return elapsed, cpu, out.read_bytes()


@dataclass
class Engine:
    """One checkout of the engine (``new``: this one; ``old``: the branch point), and the
    generated course that loads it; its rounds of figures."""

    name: str
    root: Path
    course: Path
    plain: list[str] = field(default_factory=list)
    rounds: list[tuple[float, float, float, float]] = field(default_factory=list)  # wall s
    cpu: list[tuple[float, float, float, float]] = field(default_factory=list)  # the same, CPU s
    decks: set[bytes] = field(default_factory=set)

    @property
    def module(self) -> str:
        return module_name(self.root)

    @property
    def env(self) -> dict[str, str]:
        """This checkout first on the import path. The installed package's ``course`` entry
        point names this checkout's plugin when the engine's name is the installed one (an
        editable install of this checkout); for an engine under another name, a stand-in
        distribution of the same name (found first, so it shadows the installed one) names
        that engine's plugin module, which then resolves to this checkout's copy."""
        if self.module == NEW and self.root.resolve() == ROOT.resolve():
            return {**os.environ, "PYTHONPATH": str(self.root)}
        if self.module == NEW:  # another checkout of an engine under this one's name
            names = self.course.parent / f"{self.name}-import-name"
            redirect(names / NEW, self.root / "tools")
            # Found on the path before the editable install's finder, which Python asks last.
            return {**os.environ, "PYTHONPATH": os.pathsep.join([str(names), str(self.root)])}
        stand_in = self.course.parent / f"{self.name}-entry-point"
        info = stand_in / f"{DISTRIBUTION.replace('-', '_')}-0.dist-info"
        info.mkdir(parents=True, exist_ok=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {DISTRIBUTION}\nVersion: 0\n")
        plugin = f"{self.module}.plugin.plugin:CoursePlugin"
        (info / "entry_points.txt").write_text(f"[mkdocs.plugins]\ncourse = {plugin}\n")
        return {**os.environ, "PYTHONPATH": os.pathsep.join([str(self.root), str(stand_in)])}


def redirect(package: Path, source: Path) -> None:
    """A package ``package.name`` whose modules are those of the folder ``source``, by their
    own paths (not a link's): the deck dates its notes by the git history of its renderer
    modules' files, which a symbolic link outside the checkout would hide."""
    package.mkdir(parents=True, exist_ok=True)
    init = source / "__init__.py"
    (package / "__init__.py").write_text(
        f"__path__ = [{str(source)!r}]\n__file__ = {str(init)!r}\n"
        "exec(compile(open(__file__, encoding='utf-8').read(), __file__, 'exec'))\n",
        "utf-8",
    )


def loaded_engine(engine: Engine) -> str:
    """The file MkDocs runs as the engine for this engine's course: the plugin module that the
    ``course`` entry point loads with this engine's import path, or the older engine's hook. A
    plugin from another checkout is an error: the figures would be that checkout's."""
    if not (engine.root / PLUGIN).is_file():
        return (engine.root / OLD_HOOK).as_posix()
    code = (
        "import sys; from mkdocs.plugins import get_plugins; "
        "print(sys.modules[get_plugins()['course'].load().__module__].__file__)"
    )
    found = subprocess.run(
        [sys.executable, "-c", code],
        cwd=engine.root,
        env=engine.env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if Path(found).resolve() != (engine.root / PLUGIN).resolve():
        raise SystemExit(f"{engine.name} engine: MkDocs loads {found}, not {engine.root / PLUGIN}")
    return found


def bench_round(engine: Engine, tmp: Path, number: int) -> None:
    """A plain build, a clean build, a no-op rebuild (and one made to run MkDocs anyway) and a
    clean deck, one after the other, so that they share the machine's load."""
    site = tmp / f"{engine.name}-site"
    plain_s, plain_cpu, _ = run_measured(engine.plain, cwd=engine.course)
    clean_s, clean_cpu, data = clean_build(engine, site)
    ours = ours_command(engine.course, site, engine.module)
    noop_s, noop_cpu, stderr = run_measured(ours, cwd=engine.root, env=engine.env)
    if number == 1:
        show_warnings(f"{engine.name}", stderr)
    forget_last_build(engine.course)
    full_s, _ = run(ours, cwd=engine.root, env=engine.env)
    deck_s, deck_cpu, deck_data = clean_deck(engine, tmp / f"{engine.name}-deck.apkg")
    engine.rounds.append((plain_s, clean_s, noop_s, deck_s))
    engine.cpu.append((plain_cpu, clean_cpu, noop_cpu, deck_cpu))
    engine.decks |= {data, deck_data}
    print(
        f"  round {number} {engine.name}: plain {plain_s:6.2f} s   clean {clean_s:6.2f} s   "
        f"no-op rebuild {noop_s:5.2f} s   (MkDocs run anyway: {full_s:.2f} s)   "
        f"deck {deck_s:6.2f} s   [load {load_average()}]\n"
        f"  {'':8}CPU s: plain {plain_cpu:6.2f}     clean {clean_cpu:6.2f}     "
        f"no-op rebuild {noop_cpu:5.2f}{'':31}deck {deck_cpu:6.2f}"
    )


# The targets (tests/perf and CONTRIBUTING): clean build, deck, no-op rebuild.
TARGETS = {"clean/plain": 1.0, "deck/plain": 0.25, "no-op/clean": 0.1}


def bench_builds(engines: list[Engine], tmp: Path, runs: int) -> None:
    """Rounds that alternate the engines (old, new, old, new ...), then each engine's medians and
    the medians of its rounds' ratios, side by side with the targets."""
    for engine in engines:
        engine.plain = plain_command(engine.course, tmp / f"{engine.name}-plain")
    for number in range(1, runs + 1):
        for engine in engines if number % 2 else engines[::-1]:
            bench_round(engine, tmp, number)
    print(f"  {'median':16}" + "".join(f"{e.name:>10}" for e in engines) + "    target")
    for kind in ("wall", "CPU"):
        columns = {e.name: medians(e.rounds if kind == "wall" else e.cpu) for e in engines}
        for at, label in enumerate(("plain s", "clean s", "no-op s", "deck s")):
            label = label if kind == "wall" else f"{label} CPU"
            print(f"  {label:16}" + "".join(f"{columns[e.name][at]:10.2f}" for e in engines))
    for kind in ("wall", "CPU"):
        for at, label in enumerate((*TARGETS, "no-op/plain")):
            target = f"    <= {TARGETS[label]:.2f}" if label in TARGETS else ""
            shown = label if kind == "wall" else f"{label} CPU"
            row = "".join(f"{ratios(e, kind)[at]:10.2f}" for e in engines)
            print(f"  {shown:16}" + row + target)
    for engine in engines:
        size = ", ".join(str(len(d)) for d in engine.decks)
        same = len(engine.decks) == 1
        print(f"  {engine.name}: one deck over its clean builds and decks: {same} ({size} bytes)")
    if len(engines) == 2:
        same = engines[0].decks == engines[1].decks
        print(f"  old and new engines wrote the same deck bytes: {same}")
    print(f"  load average now: {load_average()}")


def ratios(engine: Engine, kind: str = "wall") -> list[float]:
    """The medians of the engine's rounds' clean/plain, deck/plain, no-op/clean and no-op/plain,
    in wall or CPU seconds."""
    rounds = engine.rounds if kind == "wall" else engine.cpu
    return medians([(c / p, d / p, n / c, n / p) for p, c, n, d in rounds])


def floors(engine: Engine, cores: int) -> list[float]:
    """The medians of the engine's rounds' least wall ratios its CPU time allows on ``cores``
    (clean/plain, deck/plain, no-op/clean): the command's CPU seconds spread over every core,
    over the other command's wall seconds."""
    return medians(
        [
            (cc / cores / p, dc / cores / p, nc / cores / c)
            for (p, c, _, _), (_, cc, nc, dc) in zip(engine.rounds, engine.cpu, strict=True)
        ]
    )


def summary(engines: list[Engine]) -> None:
    """The last table: each target, each engine's median ratio (wall, as the targets are set,
    and CPU beside it), the floor its CPU time sets (:func:`floors`: the wall ratio the command
    would reach were every usable core busy from its start to its end, so a floor above the
    target says the work itself must shrink, not only be spread better) and whether the wall
    ratio meets the target."""
    cores = len(os.sched_getaffinity(0))
    print(f"\n== targets (issue #37): median ratios, wall (CPU; its floor on {cores} cores) ==")
    print(f"  {'target':22}" + "".join(f"{e.name:>32}" for e in engines))
    for at, (label, limit) in enumerate(TARGETS.items()):
        cells = []
        for engine in engines:
            wall, cpu = ratios(engine)[at], ratios(engine, "CPU")[at]
            floor = floors(engine, cores)[at]
            verdict = "met" if wall <= limit else "NOT met"
            cells.append(f"{wall:6.2f} ({cpu:4.2f}; {floor:4.2f}) {verdict:>8}")
        print(f"  {label + f' <= {limit:.2f}':22}" + "".join(f"{c:>32}" for c in cells))
    print(f"  load average now: {load_average()}")


def profile_build(course: Path, tmp: Path) -> None:
    """A clean build and a clean deck under cProfile, each on one core: the engine then runs its
    background jobs (parsing, deck, scans) in its own process (:mod:`tools.buildkit.workers`), so
    the profile holds all of its work, not only what the first core does while it waits for the
    second. Where the time goes, by cumulative time."""
    site, apkg = tmp / "profiled-site", tmp / "profiled-deck.apkg"
    deck_cmd = [
        sys.executable,
        "-m",
        "mkdocs_course.cli",
        "deck",
        "--course",
        str(course),
        "-o",
        str(apkg),
    ]
    for label, command in (("clean build", ours_command(course, site)), ("deck", deck_cmd)):
        out = tmp / "profile.prof"
        shutil.rmtree(course / ".cache", ignore_errors=True)
        cmd = [sys.executable, "-m", "cProfile", "-o", str(out), *command[1:]]
        started = time.perf_counter()
        subprocess.run(
            cmd,
            cwd=ROOT,
            capture_output=True,
            check=True,
            preexec_fn=on_one_core,
        )
        elapsed = time.perf_counter() - started
        stats = pstats.Stats(str(out)).stats
        print(f"  profiled {label}, one core: {elapsed:.2f} s (profiling slows it); cumulative s:")
        rows = [
            (ct, nc, where(file, line, name))
            for (file, line, name), (_, nc, _, ct, _) in stats.items()
            if interesting(file)
        ]
        for ct, calls, name in sorted(rows, reverse=True)[:22]:
            print(f"    {ct:7.2f} s  {calls:7d} calls  {name}")


def on_one_core() -> None:
    """In a child before it runs: keep it, and all it starts, to one core."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def interesting(file: str) -> bool:
    """Engine code (not the CLI's wrappers around MkDocs) and MkDocs' build and page rendering."""
    if file == str(ROOT / "tools" / "cli.py"):
        return False
    return file.startswith(str(ROOT / "tools")) or any(
        part in file for part in ("mkdocs/commands/build.py", "mkdocs/structure/pages.py")
    )


def where(file: str, line: int, name: str) -> str:
    short = file.split("site-packages/")[-1].removeprefix(str(ROOT) + "/")
    return f"{short}:{line} {name}"


def bench_deck(course: Path, commits: int) -> None:
    """The deck's parts in this process: parse, history, note dates, .apkg; cold and warm."""
    cache = course / ".cache"
    parse_s, checked = timed(lambda: course_check.load_checked_course(course, syntax=MKDOCS))
    items = notes.note_items(checked)
    paths = sorted({entry.page.path for entry in items})
    stamp = buildinfo.source_date_epoch(course, ())  # a git checkout: its last commit
    print(f"  deck parts, in this process: {len(items)} notes on {len(paths)} pages")
    print(f"  parse (load_checked_course): {parse_s:.2f} s")
    cold = {}
    for name, call in (
        ("git_history.line_times", lambda: git_history.line_times(course, paths)),
        (
            "note_dates.note_times",
            lambda: note_dates.note_times(
                items, root=course, timestamp=stamp, renderer=deck.RENDERER_FILES
            ),
        ),
        ("deck_cache.apkg", lambda: deck_cache.apkg(checked, items, root=course, timestamp=stamp)),
    ):
        shutil.rmtree(cache, ignore_errors=True)
        cold[name], _ = timed(call)
        warm, _ = timed(call)
        print(f"  {name + ':':24} cold {cold[name]:6.2f} s   warm {warm:6.2f} s")
    times = note_dates.note_times(items, root=course, timestamp=stamp, renderer=deck.RENDERER_FILES)
    build_s, _ = timed(
        lambda: deck.build_apkg(checked, timestamp=stamp, root=course, items=items, times=times)
    )
    print(f"  deck.build_apkg alone (dates given): {build_s:.2f} s")
    bench_after_commit(course, commits)


def bench_after_commit(course: Path, commits: int) -> None:
    """One more commit that edits one answer: parse again, replay one commit, rebuild the deck."""
    lines_json = course / git_history.CACHE
    before = lines_json.read_bytes()
    commit_one_answer(course, commits)
    parse_s, checked = timed(lambda: course_check.load_checked_course(course, syntax=MKDOCS))
    items = notes.note_items(checked)
    paths = sorted({entry.page.path for entry in items})
    history_s, _ = timed(lambda: git_history.line_times(course, paths))
    lines_json.write_bytes(before)  # the deck below replays the commit itself
    stamp = buildinfo.source_date_epoch(course, ())  # a git checkout: its last commit
    deck_s, _ = timed(lambda: deck_cache.apkg(checked, items, root=course, timestamp=stamp))
    print(
        f"  after 1 commit editing one answer: parse {parse_s:.2f} s, git_history.line_times "
        f"(incremental) {history_s:.2f} s, deck_cache.apkg {deck_s:.2f} s"
    )


def old_engine(ref: str, tmp: Path) -> Path:
    """The engine at ``ref`` in a worktree of its own (removed at the end of the run)."""
    where = tmp / "old-engine"
    git(ROOT, "worktree", "add", "-q", "--detach", str(where), ref)
    return where


def branch_point() -> str:
    """Where this branch left main: the old engine's default."""
    return git(ROOT, "merge-base", "HEAD", "main").strip()


def compile_engine(root: Path) -> None:
    """The engine's bytecode written beside its modules, as an installed or once-run checkout has
    it: with ``PYTHONDONTWRITEBYTECODE`` set (as on some shared machines) every build would
    compile the engine again, a cost plain MkDocs, compiled in site-packages, never pays."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", "tools"], cwd=root, check=True)


def bench_synthetic(args: argparse.Namespace, tmp: Path) -> list[Engine]:
    print(
        f"\n== 2. generated course: {args.lessons} lessons x ({CARDS} cards + {QUESTIONS}-question"
        f" quiz), {args.commits} commits, seed {args.seed} =="
    )
    roots = {"new": ROOT}
    if args.old != "none":
        ref = args.old or branch_point()
        roots = {"old": old_engine(ref, tmp), **roots}
        print(f"  old engine: {ref} ({git(ROOT, 'rev-parse', '--short', ref).strip()})")
    engines = []
    try:
        for name, root in roots.items():
            compile_engine(root)
            course = tmp / f"synthetic-course-{name}"
            started = time.perf_counter()
            generate_course(course, args.lessons, args.commits, args.seed, root)
            made_s = time.perf_counter() - started
            head = git(course, "rev-parse", "HEAD").strip()
            print(f"  {name} engine {root}: course generated in {made_s:.2f} s, HEAD {head}")
            write_plain_config(course)
            engines.append(Engine(name, root, course))
            print(f"  {name} engine: MkDocs loads {loaded_engine(engines[-1])}")
        bench_builds(engines, tmp, args.runs)
    finally:
        if "old" in roots:
            git(ROOT, "worktree", "remove", "--force", str(roots["old"]))
    if not args.skip_details:
        profile_build(engines[-1].course, tmp)
        bench_deck(engines[-1].course, args.commits)
    return engines


def machine() -> None:
    usable = len(os.sched_getaffinity(0))
    print(f"cores: {os.cpu_count()} (usable: {usable}), load average: {load_average()}")
    tools = ", ".join(f"{name} {metadata.version(name)}" for name in ("mkdocs", "mkdocs-material"))
    print(f"python {sys.version.split()[0]}, {tools}, {subprocess_line(['git', '--version'])}")


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def subprocess_line(cmd: list[str]) -> str:
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lessons", type=int, default=160)
    ap.add_argument("--commits", type=int, default=1000)
    ap.add_argument("--pairs", type=int, default=5, help="plain/ours pairs on this course")
    ap.add_argument("--runs", type=int, default=3, help="runs per build figure (median)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-real", action="store_true", help="skip part 1 (this course)")
    ap.add_argument(
        "--old",
        help="the engine to compare with, a git ref (default: where HEAD left main); none: skip",
    )
    ap.add_argument(
        "--skip-details", action="store_true", help="skip the profile and the deck's parts"
    )
    args = ap.parse_args()
    os.environ["NO_MKDOCS_2_WARNING"] = "1"
    os.environ.pop("SOURCE_DATE_EPOCH", None)  # builds date from the last commit
    machine()
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as folder:
        tmp = Path(folder)
        if not args.skip_real:
            compile_engine(ROOT)
            bench_real(args.pairs, tmp)
        summary(bench_synthetic(args, tmp))


if __name__ == "__main__":
    main()
