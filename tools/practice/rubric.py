"""The pull-request body, scored as Lesson 4.2 scores it: correct × clear × tested × justified.

Each factor is 0 or 1 and comes with the evidence found (or missed), so the learner sees which
factor sinks the product. ``correct`` is CI's verdict on the code; the other three are read from
the body's four sections (Problem, Fix, Justification, Tests) and its ``Fixes #N`` line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SECTIONS = ("problem", "fix", "justification", "tests")
CLOSING = re.compile(r"\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)\s+#(\d+)\b", re.IGNORECASE)
REASONING = re.compile(r"\b(instead|rather than|unlike|alternative|than|because|keeps?)\b", re.I)
TABLE_TOLERANCE = 0.10  # a body's figure may differ from CI's measurement by 10% of it


@dataclass
class Factor:
    name: str
    evidence: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def value(self) -> int:
        return 0 if self.missing else 1


def sections(body: str) -> dict[str, str]:
    """The text under each of the four headings (any level), by lower-case name."""
    found: dict[str, str] = {}
    current = None
    for line in body.splitlines():
        heading = re.match(r"#{1,6}\s+(\w+)", line)
        if heading:
            name = heading.group(1).lower()
            current = {"test": "tests"}.get(name, name) if name in (*SECTIONS, "test") else None
            if current:
                found.setdefault(current, "")
            continue
        if current:
            found[current] += line + "\n"
    return {name: text.strip() for name, text in found.items()}


def table_figures(body: str) -> dict[str, float]:
    """The body's benchmark rows ``| off | 41.3 |`` and ``| on | 13.1 |``, in MiB."""
    rows = re.findall(r"^\|\s*`?(off|on)`?\s*\|\s*([0-9]+(?:\.[0-9]+)?)", body, re.I | re.M)
    return {setting.lower(): float(value) for setting, value in rows}


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
        if parts.get(name):
            clear.evidence.append(f"a {name.title()} section ({len(parts[name].split())} words)")
        else:
            clear.missing.append(
                f"no ## {name.title()} section: say "
                + ("what is broken" if name == "problem" else "what you changed and kept")
            )
    links = {int(n) for n in CLOSING.findall(body)}
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

    why = parts.get("justification", "")
    if not why:
        justified.missing.append(
            "no ## Justification section: say why this design rather than the alternatives"
        )
    elif not REASONING.search(why):
        justified.missing.append(
            "the Justification names no alternative and no reason (instead of …, rather than …, "
            "because …)"
        )
    else:
        justified.evidence.append(
            f"a Justification that weighs the design: “{why.splitlines()[0][:70]}”"
        )
    return [correct, clear, tested, justified]


def _check_table(body: str, bench: dict, tested: Factor) -> None:
    figures = table_figures(body)
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
        if abs(figures[setting] - measured) > TABLE_TOLERANCE * measured:
            tested.missing.append(
                f"the table says {figures[setting]:.1f} MiB with checkpointing {setting}, but CI "
                f"measured {measured:.1f} MiB on your branch (allowed: ±{TABLE_TOLERANCE:.0%}): "
                "paste the table your branch's `python benchmarks/bench.py` prints"
            )
    if tested.value:
        tested.evidence.append("the benchmark table agrees with CI's measurement")
