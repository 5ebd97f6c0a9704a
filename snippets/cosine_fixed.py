"""Two fixes for the 1-D crash of ``cosine_buggy.cosine_similarity``.

``fixed``: give a 1-D input a batch axis (``[N] -> [1, N]``) so the existing ``dim=1`` code runs
unchanged; 2-D and higher-rank callers see exactly the old behaviour.
``fixed_dim0``: sum over ``dim=0`` instead. Correct for a single vector, but on a batch it sums
over the wrong axis, which is why the pull request in the course prefers ``unsqueeze``.

    python snippets/cosine_fixed.py
"""

import torch


# --8<-- [start:fixed]
def cosine_similarity(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Cosine similarity of each row of ``a`` with the same row of ``b``; 1-D means one row."""
    if a.dim() == 1:
        a = a.unsqueeze(0)  # [N] -> [1, N]: a batch holding one vector
    if b.dim() == 1:
        b = b.unsqueeze(0)
    # From here on this is the original code: higher ranks are untouched.
    dot = (a * b).sum(dim=1)
    norm_a = torch.sqrt((a * a).sum(dim=1))
    norm_b = torch.sqrt((b * b).sum(dim=1))
    return dot / (norm_a * norm_b)


# --8<-- [end:fixed]


# --8<-- [start:fixed_dim0]
def cosine_similarity_dim0(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Cosine similarity of two 1-D vectors: their only axis is dim 0."""
    dot = (a * b).sum(dim=0)
    norm_a = torch.sqrt((a * a).sum(dim=0))
    norm_b = torch.sqrt((b * b).sum(dim=0))
    return dot / (norm_a * norm_b)


# --8<-- [end:fixed_dim0]

if __name__ == "__main__":
    a = torch.tensor([1.0, 2.0, 3.0])
    b = torch.tensor([4.0, 5.0, 6.0])
    print("unsqueeze fix, 1-D:", cosine_similarity(a, b))
    print("dim=0 fix, 1-D:   ", cosine_similarity_dim0(a, b))
    batch_a = torch.stack([a, a])
    batch_b = torch.stack([b, -b])
    print("unsqueeze fix, [2, 3] batch:", cosine_similarity(batch_a, batch_b))
    # dim=0 on a batch sums down the columns: one number per feature, not per row.
    print("dim=0 fix, [2, 3] batch:    ", cosine_similarity_dim0(batch_a, batch_b))
