"""Plain readings of the HardSwish and HardSwishGrad kernels (ops-nn ``activation/hard_swish``,
``activation/hard_swish_grad`` arch35 and ``experimental/activation/hard_swish_grad``), for the tests only.

Nothing here imports the package. Each line is one instruction of the kernel's Compute, in its operand
order, on whole float32 arrays (one IEEE rounding each); 16-bit inputs are widened exactly and results
narrowed as each kernel says. Maxs/Mins propagate NaN (a NaN first operand is the result).
"""
from __future__ import annotations

import numpy as np

from reference_family import narrow

F32 = np.float32


def maxs(a, s):
    return np.where(np.isnan(a) | (a >= F32(s)), a, F32(s)).astype(F32)


def mins(a, s):
    return np.where(np.isnan(a) | (a <= F32(s)), a, F32(s)).astype(F32)


def _widen(a):
    return np.asarray(a).astype(F32)


def _narrow(y32, like, ties_away: bool):
    like = np.asarray(like)
    if like.dtype == np.float32:
        return y32
    return narrow(y32.reshape(-1), like.dtype, ties_away=ties_away).reshape(like.shape)


def hardswish_f32(x):
    """``hard_swish.h:114-126`` (and :226-233, :335-342 on the widened x)."""
    with np.errstate(invalid="ignore", over="ignore"):
        t = x + F32(3.0)                    # Adds(tmp, x, 3)
        t = mins(t, 6.0)                    # Mins(tmp, tmp, 6)
        t = maxs(t, 0.0)                    # Maxs(tmp, tmp, 0)
        xm = maxs(x, -3.0)                  # Maxs(x, x, -3)
        y = xm * t                          # Mul(y, x, tmp)
        return y * (F32(1.0) / F32(6.0))    # Muls(y, y, 1.0f / 6.0f)


def ref_hardswish(x) -> np.ndarray:
    """The 950 kernel's result in x's dtype (16-bit narrowed with CAST_ROUND)."""
    return _narrow(hardswish_f32(_widen(x)), x, ties_away=True)


def hardswish_grad_arch35_f32(g, x):
    """``arch35/hard_swish_grad.h:147-185``: inclusive masks, Select with scalars."""
    with np.errstate(invalid="ignore", over="ignore"):
        d = x * F32(1.0 / 3.0)              # Muls(d, x, (T)(1.0 / 3.0))
        d = d + F32(0.5)                    # Adds(d, d, 0.5)
        d = np.where(x >= F32(-3.0), d, F32(0.0)).astype(F32)   # Compares GE; Select(d, mask, d, 0)
        d = np.where(x <= F32(3.0), d, F32(1.0)).astype(F32)    # Compares LE; Select(d, mask, d, 1)
        return g * d                        # Mul(result, grad, d)


def hardswish_grad_a2_f32(g, x):
    """``experimental/.../hard_swish_grad.h:180-197``: strict masks against duplicated tensors."""
    with np.errstate(invalid="ignore", over="ignore"):
        gt = x > F32(-3.0)                  # Compare(greaterMask, x, lower, GT)
        lt = x < F32(3.0)                   # Compare(lessMask, x, upper, LT)
        slope = x * F32(0.333333343)        # Muls(slope, x, 0.333333343f)
        slope = slope + F32(0.5)            # Adds(slope, slope, 0.5f)
        slope = np.where(gt, slope, F32(0.0)).astype(F32)       # Select(slope, greaterMask, slope, zero)
        slope = np.where(lt, slope, F32(1.0)).astype(F32)       # Select(slope, lessMask, slope, one)
        return g * slope                    # Mul(y, grad, slope)


def ref_hardswish_backward(g, x, kernel: str = "a2") -> np.ndarray:
    """The kernel's result in x's dtype (both narrow 16-bit to nearest even: the A2's float16
    ``CAST_NONE`` on a narrowing is round to nearest even)."""
    f = hardswish_grad_a2_f32 if kernel == "a2" else hardswish_grad_arch35_f32
    return _narrow(f(_widen(g), _widen(x)), x, ties_away=False)


def torch_hardswish_f64(x):
    """The mathematical Hardswish (torch's formula) in binary64: for the documented differences."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return x * np.clip(x + 3.0, 0.0, 6.0) / 6.0
