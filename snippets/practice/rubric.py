"""The pull-request body, scored as Lesson 4.2 scores it: correct × clear × tested × justified.

Each factor is 0 or 1 and comes with the evidence found (or missed), so the learner sees which
factor sinks the product. ``correct`` is CI's verdict on the code; the other three are read from
the body's structure, as GitHub shows it (no HTML comments or tags; a Problem or Fix of
placeholders says nothing): its four sections (Problem, Fix, Justification, Tests, headed in English
or in Urdu), its ``Fixes #N`` lines, the tests CI ran, and the benchmark table with its unit.
A Justification counts when one of its sentences names an alternative design (in code, or one
the checker knows for the issue) and ties a reason to it in that same sentence.
"""

from __future__ import annotations

import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from .gitio import PracticeError
from .wrongfixes import ALTERNATIVES

SECTIONS = ("problem", "fix", "justification", "tests")
HEADINGS = {  # the first word of a heading, lower-cased, in English and in Urdu
    "problem": "problem",
    "مسئلہ": "problem",
    "fix": "fix",
    "حل": "fix",
    "اصلاح": "fix",
    "درستی": "fix",
    "justification": "justification",
    "why": "justification",
    "جواز": "justification",
    "tests": "tests",
    "test": "tests",
    "testing": "tests",
    "ٹیسٹ": "tests",
    "جانچ": "tests",
}
CLOSING = re.compile(r"\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)\s+#(\d+)\b", re.IGNORECASE)
# A reason in a sentence: a cause or a consequence, in English or in Urdu.
REASON = re.compile(
    r"\b(because|since|so that|so|would|could|breaks?|keeps?|loses?|costs?|changes?|fails?|"
    r"avoids?|needs?|saves?|wrong|which|unlike|instead|rather)\b"
    r"|کیونکہ|چونکہ|اس لیے|اس لئے|جس سے|ورنہ|بجائے|توڑ|بدل|غلط|ضرورت",
    re.IGNORECASE,
)
SENTENCE = re.compile(r"(?<=[.!?؟۔])\s+|\n+")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^ {0,3}\1[ \t]*$|\Z)", re.M | re.S)
# What GitHub does not show of a body, outside code: HTML comments (one never closed hides the
# rest) and raw HTML tags, which its sanitizer drops: a template's `<describe the problem>`.
COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>`]*)?/?>")
# Marks that hold a section's place and say nothing.
PLACEHOLDER = re.compile(
    r"\b(?:todo|tbd|fixme|xxx|wip|lorem|ipsum|dolor|amet|placeholder)\b|\.\.\.|…", re.I
)
TABLE_TOLERANCE = 0.10  # a body's figure may differ from CI's measurement by 10% of it
MAX_BODY = 65536  # GitHub's limit on a pull request's body, in characters
TOO_LONG = f"Body is too long (maximum is {MAX_BODY} characters)"  # GitHub's message
UNITS = {
    "b": 1 / 2**20,
    "kb": 1e3 / 2**20,
    "kib": 1 / 2**10,
    "mb": 1e6 / 2**20,
    "mib": 1.0,
    "gb": 1e9 / 2**20,
    "gib": 2.0**10,
}  # one of each, in MiB


@dataclass
class Factor:
    name: str
    evidence: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def value(self) -> int:
        return 0 if self.missing else 1


def read_body(path: Path) -> str:
    """A body file's text, refused (by its size first, so a huge file is never read whole) when
    it is over GitHub's limit, not UTF-8, or empty."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise PracticeError(
            f"{path}: no such file: write the pull-request body there first"
        ) from None
    if not stat.S_ISREG(info.st_mode):  # a folder, a device: nothing a body is read from
        raise PracticeError(f"{path}: not a file: write the pull-request body in a file")
    size = info.st_size
    if size > 4 * MAX_BODY:  # more bytes than the most characters could take in UTF-8
        raise PracticeError(f"{path}: {TOO_LONG}; this one is {size:,} bytes")
    data = path.read_bytes()
    try:
        body = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise PracticeError(f"{path}:{line}: not UTF-8 text") from None
    if len(body) > MAX_BODY:
        raise PracticeError(f"{path}: {TOO_LONG}; this one has {len(body):,}")
    if not body.strip():
        raise PracticeError(f"{path}:1: the body is empty")
    return body


def shown(body: str) -> str:
    """``body`` as GitHub shows it: what :data:`COMMENT` and :data:`TAG` match is taken out of
    its prose; fenced code and code spans show as they are."""
    out, last = [], 0
    for fence in FENCE.finditer(body):
        out += [_prose_shown(body[last : fence.start()]), fence.group()]
        last = fence.end()
    return "".join([*out, _prose_shown(body[last:])])


def _prose_shown(text: str) -> str:
    pieces = re.split(r"(`[^`\n]+`)", COMMENT.sub("", text))
    return "".join(piece if i % 2 else TAG.sub("", piece) for i, piece in enumerate(pieces))


def closes(body: str) -> set[int]:
    """The issues a merge of ``body``'s pull request closes: each ``Fixes #N`` (or close,
    resolve) where GitHub acts on it, in prose it shows; not in an HTML comment, code (a span or
    a fenced block) or a block quote."""
    text = CODE_SPAN.sub(" ", FENCE.sub("\n", shown(body)))
    prose = (line for line in text.splitlines() if not line.lstrip().startswith(">"))
    return {int(n) for n in CLOSING.findall("\n".join(prose))}


def words(text: str) -> list[str]:
    """The words of ``text`` that are not placeholders (:data:`PLACEHOLDER`)."""
    return PLACEHOLDER.sub(" ", text).split()


def says_something(text: str) -> bool:
    """Whether ``text`` holds a word beyond placeholders and ``Fixes #N`` lines."""
    return bool(re.search(r"\w", CLOSING.sub(" ", PLACEHOLDER.sub(" ", text))))


def sections(body: str) -> dict[str, str]:
    """The text under each of the four headings (any level, English or Urdu), by name, as
    GitHub shows it (:func:`shown`): a heading's line inside fenced code is code."""
    body = shown(body)
    code = [fence.span() for fence in FENCE.finditer(body)]
    found: dict[str, str] = {}
    current = None
    start = 0
    for line in body.splitlines(keepends=True):
        in_code = any(begin <= start < end for begin, end in code)
        start += len(line)
        heading = not in_code and re.match(r" {0,3}#{1,6}\s+(\S+)", line)
        if heading:
            current = HEADINGS.get(heading.group(1).lower().rstrip(":"))
            if current:
                found.setdefault(current, "")
            continue
        if current:
            found[current] += line
    return {name: text.strip() for name, text in found.items()}


def table_figures(body: str) -> tuple[dict[str, float], dict[str, str]]:
    """The body's benchmark rows ``| off | 41.3 |`` and ``| on | 13.1 MiB |``: the figures as
    written, and each one's unit (from its cell, else from the table's header), lower-cased."""
    figures: dict[str, float] = {}
    units: dict[str, str] = {}
    header_unit = None
    for line in body.splitlines():
        if line.lstrip().startswith("|") and not re.match(
            r"^\s*\|\s*`?(off|on)`?\s*\|", line, re.I
        ):
            named = re.search(r"\b(b|kb|kib|mb|mib|gb|gib)\b", line, re.I)
            header_unit = named.group(1).lower() if named else header_unit
            continue
        row = re.match(
            r"^\s*\|\s*`?(off|on)`?\s*\|\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z]+)?", line, re.I
        )
        if row:
            setting = row.group(1).lower()
            figures[setting] = float(row.group(2))
            unit = (row.group(3) or header_unit or "").lower()
            units[setting] = unit
    return figures, units


def score(
    body: str,
    *,
    issue,
    code_ok: bool,
    code_why: list[str],
    new_tests: list[str],
    bench: dict | None,
) -> list[Factor]:
    parts = sections(body)
    correct, clear, tested, justified = (
        Factor(n) for n in ("correct", "clear", "tested", "justified")
    )
    if code_ok:
        correct.evidence.append("CI is green: the tests, the regression test and the sign-offs")
    else:
        correct.missing.append("CI is not green (see Code + Tests): " + "; ".join(code_why[:2]))

    for name in ("problem", "fix"):
        if parts.get(name) and says_something(parts[name]):
            clear.evidence.append(f"a {name.title()} section ({len(parts[name].split())} words)")
        elif name in parts:
            clear.missing.append(
                f"the ## {name.title()} section says nothing GitHub would show (placeholders "
                "such as TODO or …, HTML comments and tags are hidden or say nothing): say "
                + ("what is broken" if name == "problem" else "what you changed and kept")
            )
        else:
            clear.missing.append(
                f"no ## {name.title()} section: say "
                + ("what is broken" if name == "problem" else "what you changed and kept")
            )
    links = closes(body)
    if issue.number in links:
        clear.evidence.append(f"`Fixes #{issue.number}` links and will close the issue")
    elif links:
        clear.missing.append(
            f"it links {', '.join(f'#{n}' for n in sorted(links))}, but your issue is "
            f"#{issue.number}: write `Fixes #{issue.number}`"
        )
    else:
        clear.missing.append(
            f"no `Fixes #{issue.number}` line: the issue would not be linked or closed by the merge"
            " (GitHub acts on none in an HTML comment, in code or in a quote)"
        )
    if issue.quoted_error:
        if issue.quoted_error in parts.get("problem", ""):
            clear.evidence.append("the Problem quotes the real error message")
        else:
            clear.missing.append(
                "the Problem does not quote the real error, copied from a run: "
                f"{issue.quoted_error}"
            )

    tests_text = parts.get("tests", "")
    if not tests_text:
        tested.missing.append(
            "no ## Tests section: name the test you added and what it compares against"
        )
    else:
        named = [t for t in new_tests if t.rsplit("::", 1)[-1] in tests_text]
        if named:
            tested.evidence.append(
                "the Tests section names " + ", ".join(n.rsplit("::", 1)[-1] for n in named)
            )
        else:
            tested.missing.append(
                "the Tests section names none of the tests you added: "
                + (", ".join(t.rsplit("::", 1)[-1] for t in new_tests) or "(none added)")
            )
    if issue.kind == "feature":
        _check_table(body, bench or {}, tested)

    _justify(parts, issue.number, justified)
    return [correct, clear, tested, justified]


def weighed(text: str, fix: str, number: int) -> tuple[str, str] | None:
    """(sentence, alternative) for the first sentence of ``text`` that names an alternative and
    ties a reason to it, or None. An alternative is a design in a code span that the Fix
    section does not use, or one the checker knows for the issue."""
    own = set(CODE_SPAN.findall(fix))
    for sentence in SENTENCE.split(text):
        named = [c for c in CODE_SPAN.findall(sentence) if c not in own]
        named += [a for a in ALTERNATIVES.get(number, ()) if a.lower() in sentence.lower()]
        reason = REASON.search(CODE_SPAN.sub(" ", sentence))
        if named and reason and len(sentence.split()) >= 5:
            return sentence.strip(), named[0]
    return None


def _justify(parts: dict[str, str], number: int, justified: Factor) -> None:
    why = parts.get("justification", "")
    if not why:
        justified.missing.append(
            "no ## Justification section: say why this design rather than the alternatives"
        )
        return
    found = weighed(why, parts.get("fix", ""), number)
    if found is None:
        justified.missing.append(
            "the Justification names no alternative with a reason tied to it: in one sentence, "
            "name another design (for example in `code`) and say what it would do wrong or cost"
        )
    else:
        justified.evidence.append(f"the alternative {found[1]}, weighed: “{found[0][:90]}”")


def _check_table(body: str, bench: dict, tested: Factor) -> None:
    figures, units = table_figures(body)
    if set(figures) != {"off", "on"}:
        tested.missing.append(
            "no benchmark table with rows `| off | … |` and `| on | … |`: paste what `python "
            "benchmarks/bench.py` prints on your branch"
        )
        return
    for setting in ("off", "on"):
        measured = bench.get(f"peak_{setting}_mib")
        if measured is None:
            tested.missing.append(
                "CI could not measure your branch, so the table cannot be compared"
            )
            return
        unit = units[setting]
        if unit not in UNITS:
            tested.missing.append(
                f"the table's {setting} row has no unit CI can read ({unit or 'none given'}): "
                "name one, MiB as bench.py prints it, or KiB, MB, GB"
            )
            return
        mib = figures[setting] * UNITS[unit]
        if abs(mib - measured) > TABLE_TOLERANCE * measured:
            written = f"{figures[setting]:g} {_unit_name(unit)}"
            as_mib = "" if unit == "mib" else f" ({mib:.1f} MiB)"
            tested.missing.append(
                f"the table says {written}{as_mib} with checkpointing {setting}, but CI "
                f"measured {measured:.1f} MiB on your branch (allowed: ±{TABLE_TOLERANCE:.0%}): "
                "paste the table your branch's `python benchmarks/bench.py` prints"
            )
    if tested.value:
        read = ", ".join(sorted({_unit_name(units[s]) for s in ("off", "on")}))
        tested.evidence.append(f"the benchmark table agrees with CI's measurement (read in {read})")


def _unit_name(unit: str) -> str:
    return {"b": "B", "kb": "kB", "kib": "KiB", "mb": "MB", "mib": "MiB", "gb": "GB", "gib": "GiB"}[
        unit
    ]
