"""MLPStack keeps its input's shape and trains every parameter."""

import torch
from simkit.model import MLPStack


def test_output_keeps_the_input_shape():
    model = MLPStack(layers=2, width=8)
    assert model(torch.randn(4, 8)).shape == (4, 8)


def test_backward_reaches_every_parameter():
    model = MLPStack(layers=2, width=8)
    model(torch.randn(4, 8)).sum().backward()
    assert all(p.grad is not None for p in model.parameters())
