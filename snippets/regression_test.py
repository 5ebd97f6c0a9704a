"""The minimal regression test from the course, runnable against any implementation.

The test takes the implementation as a parameter, so the same assertion can be pointed at the
buggy and the fixed code: on the buggy one it never reaches the assert (``.sum(dim=1)`` raises
first, and an error is a failing test); on the fixed ones it checks the value, not just "no
crash". ``tests/test_snippets.py`` runs it both ways.

    python snippets/regression_test.py      # prints PASSED/FAILED per implementation
    pytest snippets/regression_test.py      # the same test under pytest
"""

import pytest
import torch
from cosine_buggy import cosine_similarity as buggy_cosine_similarity
from cosine_fixed import cosine_similarity, cosine_similarity_dim0


# --8<-- [start:test]
@pytest.mark.parametrize("cosine_similarity", [cosine_similarity, cosine_similarity_dim0])
def test_cosine_similarity_1d(cosine_similarity):
    a = torch.tensor([1.0, 2.0, 3.0])
    b = torch.tensor([4.0, 5.0, 6.0])
    result = cosine_similarity(a, b)
    # Worked by hand: 1*4 + 2*5 + 3*6 = 32, |a| = sqrt(14), |b| = sqrt(77).
    expected = 32.0 / (torch.sqrt(torch.tensor(14.0)) * torch.sqrt(torch.tensor(77.0)))
    assert torch.allclose(result, expected)  # about 0.97463; never == on floats


# --8<-- [end:test]

if __name__ == "__main__":
    implementations = {
        "buggy (sum over dim=1)": buggy_cosine_similarity,
        "fixed (unsqueeze)": cosine_similarity,
        "fixed (dim=0)": cosine_similarity_dim0,
    }
    for name, implementation in implementations.items():
        try:
            test_cosine_similarity_1d(implementation)
        except Exception as error:  # an error is a failure, as in pytest
            print(f"{name}: FAILED ({type(error).__name__}: {error})")
        else:
            print(f"{name}: PASSED")
