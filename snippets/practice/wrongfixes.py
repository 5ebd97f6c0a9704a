"""Wrong fixes the checker holds for #1234, to judge the learner's test as maintainers do.

A regression test proves a fix only if it fails on the plausible wrong ones too: CI runs the
learner's new tests against each of these versions of ``simkit/similarity.py`` (mutation
testing), and the report names the ones the tests catch and those they miss. Each is a fix a
first pull request might send: right for the reported 1-D case, or wrong in a way only a test
that looks at a value would see. The review asks for an input that tells each missed one apart.
"""

from __future__ import annotations

from dataclasses import dataclass

HEAD = '"""Similarity measures for batches of embeddings."""\n\nimport torch\n\n\n'
NORMS = """    norm_a = torch.sqrt((a * a).sum(dim={d}))
    norm_b = torch.sqrt((b * b).sum(dim={d}))
"""


@dataclass(frozen=True)
class WrongFix:
    key: str
    what: str  # what it does wrong
    catch: str  # the input that tells it apart from the right fix
    code: str  # the whole of simkit/similarity.py


def _module(body: str) -> str:
    return (
        HEAD + "def cosine_similarity(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:\n" + body
    )


UNSQUEEZE = """    if a.dim() == 1:
        a = a.unsqueeze(0)
    if b.dim() == 1:
        b = b.unsqueeze(0)
"""

WRONG_FIXES = (
    WrongFix(
        "dim=0",
        "sums over dim=0: right for one vector, but a batch gets one value per feature",
        "a [2, 3] batch, whose result must be one value per row",
        _module(
            "    dot = (a * b).sum(dim=0)\n"
            + NORMS.format(d=0)
            + "    return dot / (norm_a * norm_b)\n"
        ),
    ),
    WrongFix(
        "squeeze without a dim",
        "squeezes the result with no dim: a batch of one row loses its axis",
        "a [1, 3] batch, whose result must keep its shape (1,)",
        _module(
            UNSQUEEZE
            + "    dot = (a * b).sum(dim=1)\n"
            + NORMS.format(d=1)
            + "    return (dot / (norm_a * norm_b)).squeeze()\n"
        ),
    ),
    WrongFix(
        "wrong value for 1-D",
        "returns the dot product for 1-D input, without dividing by the norms",
        "a 1-D pair whose similarity you worked out by hand, compared with torch.allclose",
        _module(
            "    if a.dim() == 1 and b.dim() == 1:\n"
            "        return (a * b).sum(dim=0, keepdim=True)\n"
            "    dot = (a * b).sum(dim=1)\n"
            + NORMS.format(d=1)
            + "    return dot / (norm_a * norm_b)\n"
        ),
    ),
    WrongFix(
        "breaks batched input",
        "reshapes every input to one row: a [2, 3] batch becomes a single vector of 6",
        "a [2, 3] batch, whose result must be one value per row",
        _module(
            "    a, b = a.reshape(1, -1), b.reshape(1, -1)\n"
            "    dot = (a * b).sum(dim=1)\n"
            + NORMS.format(d=1)
            + "    return dot / (norm_a * norm_b)\n"
        ),
    ),
)

# Designs a Justification may name as the alternative it weighed, by issue (besides code spans).
ALTERNATIVES = {
    1234: (
        "dim=0",
        "dim=-1",
        "squeeze",
        "reshape",
        "view",
        "flatten",
        "atleast_2d",
        "torch.nn.functional",
        "F.cosine_similarity",
        "keepdim",
        "a new function",
    ),
    1235: (
        "checkpoint_sequential",
        "segment",
        "reentrant",
        "use_reentrant=True",
        "preserve_rng_state",
        "every other",
        "whole stack",
        "offload",
        "smaller batch",
        "selective",
        "mixed precision",
    ),
}
