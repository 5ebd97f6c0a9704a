"""A solution to Exercise 2.5: the same model, each block checkpointed.

``checkpoint`` keeps only each block's input; during backward it re-runs the block's forward to
rebuild the rest. The residual addition stays outside the checkpoint: it saves nothing for
backward. ``use_reentrant=False`` is the recommended implementation.

    python snippets/checkpoint_exercise_test.py    # checks the exercise and this solution
"""

import torch
from checkpoint_exercise import MLPStack
from torch.utils.checkpoint import checkpoint


# --8<-- [start:solution]
class CheckpointedMLPStack(MLPStack):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = x + checkpoint(block, x, use_reentrant=False)
        return x


# --8<-- [end:solution]

if __name__ == "__main__":
    model = CheckpointedMLPStack()
    model(torch.randn(1024, 128)).sum().backward()
    print(f"{len(model.blocks)} checkpointed blocks, gradients computed")
