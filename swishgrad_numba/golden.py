"""The operator's own Python golden (SPEC section 7), for comparison only.

The operator's tests compute the expected output with NumPy in float32
(16-bit inputs upcast first) and cast back to the input dtype. This is not
the kernel's instruction sequence: NumPy's ``exp`` is not correctly rounded
and the formula is grouped differently, so it may differ from the emulator
in the last bits. It is the yardstick the operator's precision standard is
measured against, and the baseline the benchmarks compare with.
"""
from __future__ import annotations

import numpy as np

__all__ = ["numpy_golden"]


def numpy_golden(grad_output: np.ndarray, x: np.ndarray, beta: float = 1.0) -> np.ndarray:
    """SwishGrad by the operator's float32 NumPy recipe, in the inputs' dtype."""
    dtype = x.dtype
    g = np.asarray(grad_output, dtype=np.float32)
    xf = np.asarray(x, dtype=np.float32)
    beta32 = np.float32(beta)
    with np.errstate(over="ignore", invalid="ignore"):
        sig = np.float32(1.0) / (np.float32(1.0) + np.exp(-beta32 * xf))
        result = g * sig * (np.float32(1.0) + beta32 * xf * (np.float32(1.0) - sig))
        return result.astype(dtype)
