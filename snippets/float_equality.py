"""Why a test must not compare floats with ``==``, shown on the course's own numbers.

The cosine of ``[1, 2, 3]`` and ``[4, 5, 6]`` is ``32 / sqrt(1078)``. PyTorch computes it in
float32, rounding after every multiply, sum and square root; the "expected" value below is
computed in double precision by Python's ``math`` and rounded to float32 only once. The two land
on neighbouring float32 numbers (one unit in the last place apart), so ``==`` says False although
both are right to 7 digits. (Two float32 routes, e.g. ``F.cosine_similarity`` and a manual
``torch.sqrt`` formula, happen to round identically on this input; the script prints that too,
because a course should not claim a difference that a run does not show.)

    python snippets/float_equality.py
"""

import math

import torch
import torch.nn.functional as F

a = torch.tensor([1.0, 2.0, 3.0])
b = torch.tensor([4.0, 5.0, 6.0])

# --8<-- [start:pitfall]
result = F.cosine_similarity(a, b, dim=0)  # float32 all the way
expected = torch.tensor(32 / math.sqrt(14 * 77))  # exact in float64, rounded once to float32
print(f"result   = {result.item():.10f}")
print(f"expected = {expected.item():.10f}")
print("result == expected:", (result == expected).item())  # False: last-bit rounding
# --8<-- [end:pitfall]

# --8<-- [start:allclose]
# allclose asks "equal within a tolerance" (default rtol=1e-05, atol=1e-08): the right question.
print("torch.allclose(result, expected):", torch.allclose(result, expected))  # True
# --8<-- [end:allclose]

if __name__ == "__main__":
    step = (torch.nextafter(expected, torch.tensor(2.0)) - expected).item()  # next float32 up
    gap = (result - expected).abs().item()
    print(f"difference: {gap:.2e} = {gap / step:g} x the gap between adjacent float32 values here")
    manual = 32.0 / (torch.sqrt(torch.tensor(14.0)) * torch.sqrt(torch.tensor(77.0)))
    print("two float32 routes agree bit for bit here:", (result == manual).item())
