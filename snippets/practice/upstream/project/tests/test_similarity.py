"""How callers use cosine_similarity today: batches of rows, and 3-D stacks of them."""

import torch
from simkit.similarity import cosine_similarity


def test_one_value_per_row_of_a_2d_batch():
    a = torch.tensor([[1.0, 0.0], [1.0, 1.0]])
    b = torch.tensor([[2.0, 0.0], [-1.0, -1.0]])
    result = cosine_similarity(a, b)
    assert result.shape == (2,), f"2-D input: expected one value per row, got shape {result.shape}"
    assert torch.allclose(result, torch.tensor([1.0, -1.0])), f"2-D input: got {result}"


def test_3d_input_reduces_the_features_axis():
    torch.manual_seed(0)
    a, b = torch.randn(2, 3, 4), torch.randn(2, 3, 4)
    result = cosine_similarity(a, b)
    expected = torch.nn.functional.cosine_similarity(a, b, dim=1)
    assert result.shape == (2, 4), f"3-D input: expected axis 1 reduced, got shape {result.shape}"
    assert torch.allclose(result, expected, atol=1e-6), "3-D input: values changed"
