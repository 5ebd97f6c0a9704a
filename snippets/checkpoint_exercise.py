"""Exercise 2.5 of Lesson 2: add gradient checkpointing to this model.

The model is a stack of MLP blocks. Its ``forward`` runs every block normally, so autograd keeps
every block's activations until backward. Change ``forward`` (only ``forward``) so that each
block's activations are recomputed during backward instead, then check your work:

    pytest snippets/checkpoint_exercise_test.py

The test passes when a training step's peak memory on the CPU is below the stated fraction of
the unchanged model's, and every gradient equals the unchanged model's.
"""

import torch
from torch import nn


# --8<-- [start:model]
class MLPStack(nn.Module):
    """``layers`` residual blocks x + Linear(GELU(Linear(x))), each four times wider inside."""

    def __init__(self, layers: int = 8, width: int = 128) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))
            for _ in range(layers)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            # TODO: checkpoint this block, so that backward recomputes what it needs from it.
            x = x + block(x)
        return x


# --8<-- [end:model]

if __name__ == "__main__":
    model = MLPStack()
    x = torch.randn(1024, 128)
    model(x).sum().backward()
    print(f"{len(model.blocks)} blocks, output {tuple(model(x).shape)}; now add checkpointing")
