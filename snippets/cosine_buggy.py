"""The bug from the course's running example: cosine similarity that only works on batches.

``cosine_similarity`` hard-codes ``.sum(dim=1)``: it assumes a ``[batch, features]`` layout, so
a plain 1-D vector (which has only axis 0) makes PyTorch raise. Run it to see the real message:

    python snippets/cosine_buggy.py
"""

import torch


# --8<-- [start:buggy]
def cosine_similarity(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Cosine similarity of each row of ``a`` with the same row of ``b``."""
    dot = (a * b).sum(dim=1)  # dim=1 = the features axis of a [batch, features] input
    norm_a = torch.sqrt((a * a).sum(dim=1))
    norm_b = torch.sqrt((b * b).sum(dim=1))
    return dot / (norm_a * norm_b)


# --8<-- [end:buggy]

if __name__ == "__main__":
    a = torch.tensor([1.0, 2.0, 3.0])
    b = torch.tensor([4.0, 5.0, 6.0])
    try:
        cosine_similarity(a, b)  # 1-D input: there is no dim 1
    except (IndexError, RuntimeError) as error:
        print(f"{type(error).__name__}: {error}")
    # The same numbers as a batch of one row work, which is why the bug hid for so long.
    print(cosine_similarity(a.unsqueeze(0), b.unsqueeze(0)))
