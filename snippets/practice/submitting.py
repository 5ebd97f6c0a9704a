"""The Submit PR step: the pull request's body, scored factor by factor with the evidence found
for each (:mod:`.rubric`), and the command that edits it."""

from __future__ import annotations

from . import ci, rubric
from .progress import Facts, Step, failed
from .verdict import ci_problems
from .workspace import Workspace


def check_pr(ws: Workspace, facts: Facts, step: Step, act: bool, done: list[str]) -> None:
    pr = facts.task.get("pr")
    if pr is None:
        return failed(
            step,
            "no pull request yet",
            f"`git push -u origin {facts.branch}`; write the body in a file; "
            "`./practice.py pr open BODY.md`",
        )
    body = rubric.read_body(ws.own(".practice", "prs", f"{pr['number']}.md"))
    code_ok = facts.ci is not None and not ci_problems(facts.ci, facts.issue.kind)
    new = list(ci.new_tests(facts.ci or {}))
    factors = rubric.score(
        body,
        issue=facts.issue,
        code_ok=code_ok,
        code_why=ci_problems(facts.ci, facts.issue.kind) if facts.ci else ["CI has not run"],
        new_tests=new,
        bench=(facts.ci or {}).get("bench"),
    )
    product = " × ".join(f"{f.name} {f.value}" for f in factors)
    total = min(f.value for f in factors)
    step.lines.append(f"pull request #{pr['number']} from {facts.branch}: Q = {product} = {total}")
    for factor in factors:
        for line in factor.evidence:
            step.lines.append(f"  {factor.name}: found {line}")
        for line in factor.missing:
            step.lines.append(f"  {factor.name} = 0: {line}")
    body_file = pr.get("body_file") or "BODY.md"
    step.github = f"gh pr edit {pr['number']} --body-file {body_file}"
    if total:
        step.state = "passed"
    else:
        zero = ", ".join(f.name for f in factors if not f.value)
        step.state = "failed"
        step.hint = (
            f"{zero} is 0: edit your body file, then `./practice.py pr open {body_file}` again "
            "(it updates the pull request)"
        )
