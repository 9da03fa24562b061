"""Slow, plain re-statements of the Swish family's forward model (docs/model.md,
"Swish and Silu (forward)"), for the tests only.

Nothing here imports the package: NumPy float32 one instruction at a time,
the correctly rounded Exp of tests/reference.py, and the narrowing modes
decided on exact values in plain Python.
"""
from __future__ import annotations

import math

import numpy as np

from reference import BF16, ref_exp_f32

F32 = np.float32

# ---------------------------------------------------------------- narrowing


def narrow(values: np.ndarray, dtype, ties_away: bool) -> np.ndarray:
    """float32 values -> float16 / bfloat16, to nearest; ties away from zero
    (CAST_ROUND) or to even (CAST_RINT). Past the largest finite: inf; NaN:
    the quiet NaN with the input's sign (float16 0x7E00, bfloat16 the top
    half with the quiet bit set).

    Exact in binary64: the magnitude is divided by its target quantum (a
    power of two), the integer part kept or incremented by the rule, and
    the (representable) result converted.
    """
    dtype = np.dtype(dtype)
    if dtype == np.float16:
        min_normal_exp, mant_bits, max_finite, sub_quantum = -14, 10, 65504.0, 2.0 ** -24
    else:
        min_normal_exp, mant_bits, max_finite, sub_quantum = -126, 7, (2 - 2.0 ** -7) * 2.0 ** 127, 2.0 ** -133
    with np.errstate(all="ignore"):     # NaN casts, inf arithmetic
        return _narrow(np.asarray(values, dtype=np.float32), dtype, ties_away, min_normal_exp, mant_bits,
                       max_finite, sub_quantum)


def _narrow(f, dtype, ties_away, min_normal_exp, mant_bits, max_finite, sub_quantum):
    u = f.view(np.uint32).astype(np.int64)
    sign = np.where(u >> 31, 0x8000, 0).astype(np.uint16)
    mag = np.abs(f.astype(np.float64))
    finite = np.isfinite(mag) & (mag > 0)
    e = np.frexp(np.where(finite, mag, 1.0))[1] - 1                 # |v| in [2^e, 2^(e+1))
    q = np.where(e < min_normal_exp, sub_quantum, np.ldexp(1.0, e - mant_bits))
    m = np.where(finite, mag, 0.0) / q
    low = np.floor(m)
    frac = m - low
    up = (frac > 0.5) | ((frac == 0.5) & (ties_away | (np.fmod(low, 2) == 1)))
    r = (low + up) * q
    r = np.where(np.isinf(mag) | (r > max_finite), np.inf, np.where(finite, r, 0.0))
    out = r.astype(dtype).view(np.uint16) | sign
    nan = np.isnan(mag)
    if dtype == np.float16:
        out = np.where(nan, sign | 0x7E00, out)
    else:
        out = np.where(nan, ((u >> 16) | 0x40).astype(np.uint16), out)
    return out.astype(np.uint16).view(dtype)


# ---------------------------------------------------------------- the 950's DAG choice


def is_float_equal(a, b) -> bool:
    """opbase IsFloatEqual on float32, as docs/model.md states it."""
    a, b = F32(a), F32(b)
    if math.isnan(a) or math.isnan(b):
        return False
    if math.isinf(a) or math.isinf(b):
        return math.copysign(1, a) == math.copysign(1, b)
    return abs(float(F32(a - b))) <= 2.0 ** -23


def dag_950(beta) -> str:
    if is_float_equal(beta, -1.0):
        return "neg_one"
    if is_float_equal(beta, 0.0):
        return "zero"
    return "other"


# ---------------------------------------------------------------- the sequences


def ref_swish_f32(x: np.ndarray, beta, kernel: str) -> np.ndarray:
    """The float32 result of ``kernel`` ("a2", or the 950's "neg_one",
    "zero", "other") on float32 ``x``, one NumPy op per instruction."""
    xf = np.asarray(x, dtype=np.float32)
    b = F32(beta)
    one = F32(1.0)
    with np.errstate(all="ignore"):
        if kernel == "zero":
            return xf * F32(0.5)                     # Muls(x, 0.5)
        if kernel == "neg_one":
            e = ref_exp_f32(xf)                      # Exp(x)
        elif kernel == "other":
            t = xf * F32(-1.0)                       # Muls(x, -1)
            t = t * b                                # Muls(., scale)
            e = ref_exp_f32(t)                       # Exp
        else:
            t = xf * (F32(-1.0) * b)                 # Muls(x, -1.0f * scale)
            e = ref_exp_f32(t)                       # Exp
        d = e + one                                  # Adds(., 1)
        return xf / d                                # Div(x, .)


def ref_swish(x: np.ndarray, beta, architecture: str) -> np.ndarray:
    """Swish of ``x`` (float32, float16 or bfloat16) as ``architecture``
    ("a2" or "arch35") computes it, narrowed as that kernel narrows."""
    kernel = "a2" if architecture == "a2" else dag_950(beta)
    y = ref_swish_f32(np.asarray(x).astype(np.float32), beta, kernel)
    if np.asarray(x).dtype == np.float32:
        return y
    return narrow(y, np.asarray(x).dtype, ties_away=(architecture == "a2"))


__all__ = ["BF16", "narrow", "is_float_equal", "dag_950", "ref_swish_f32", "ref_swish"]
