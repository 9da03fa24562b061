"""The Exp vector instruction: correctly rounded binary32 e**t (SPEC section 2).

Private to the kernels: :func:`exp_f32` for one value, :func:`vexp_f32` for a
buffer (vectorised, with the rare exact fix-ups in a second loop).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..intrinsics import fma_f64

__all__ = ["exp_f32", "vexp_f32"]

# Every jitted function: cache=True (compiled code kept on disk) and the
# NumPy error model (IEEE division, no ZeroDivisionError checks). Never fast-math.

# --------------------------------------------------------------------------
# Exp: correctly rounded binary32 e**t.
#
# e**t is evaluated in binary64 by a branch-free routine that vectorises:
# t = k*ln2 + r with |r| <= ln2/2, e**r by a polynomial of degree 10 in
# Horner form with fused multiply-adds (error below 2**-50.9), times 2**k
# built in the exponent bits. Its error is a few binary64 ulps, so rounding
# it to binary32 is correct unless the binary64 value lies within a few ulps
# of a binary32 rounding boundary, or the binary32 result is subnormal (where
# the boundary sits elsewhere). Those rare elements (about 2**-22 of all
# normal results) are flagged and recomputed with the platform libm's exp.
# The exhaustive test checks the outcome against the correctly rounded value
# for all 2**32 inputs.
#
# The fused multiply-adds are internal to this binary64 evaluation: the
# binary32 result is the correctly rounded e**t either way. The emulated
# binary32 instructions themselves are never fused.
# --------------------------------------------------------------------------
_INV_LN2 = 1.4426950408889634
_SHIFTER = 6755399441055744.0            # 1.5 * 2**52: adding it rounds to an integer
_SHIFTER_BITS = 0x4338000000000000       # its bit pattern; k sits in the low bits
_LN2_HI = 6.93147180369123816490e-01     # 32 significant bits: k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
# Distance (in binary64 ulps) from a binary32 rounding boundary under which
# the fast result is not trusted.
_EXP_GUARD_ULPS = 64
_MIN_NORMAL_F32 = 1.1754943508222875e-38  # 2**-126
# e**r ~ 1 + r + r**2 * q(r) on |r| <= 0.347: q of degree 8 fitted by least
# squares (weighted for relative error) at 600 Chebyshev nodes against
# 60-digit decimal values. Relative error below 2**-50.9 including the
# binary64 fused Horner evaluation, far inside the guard above.
_EXP_POLY = (
    1.0, 1.0, 0.4999999999999708, 0.16666666666610014, 0.041666666668962536,
    0.008333333371470015, 0.0013888888333666101, 0.00019841184508640286,
    2.480209672969405e-05, 2.7635270676836677e-06, 2.742419840118817e-07,
)


@njit(cache=True, error_model="numpy", inline="always")
def _exp_f64_fast(td):
    """(e**td in binary64 within a few ulps, needs_exact_path) for a binary32 td."""
    # Past these bounds the binary32 result is +inf or +0 anyway; clamping
    # keeps 2**k a normal binary64. NaN fails both tests and propagates.
    if td > 100.0:
        td = 100.0
    if td < -110.0:
        td = -110.0
    kd = fma_f64(td, _INV_LN2, _SHIFTER)
    k = np.float64(kd).view(np.int64) - _SHIFTER_BITS
    kd = kd - _SHIFTER
    r = fma_f64(-kd, _LN2_HI, td)     # exact: t - k*_LN2_HI is representable
    r = fma_f64(-kd, _LN2_LO, r)
    p = _EXP_POLY[10]
    p = fma_f64(p, r, _EXP_POLY[9])
    p = fma_f64(p, r, _EXP_POLY[8])
    p = fma_f64(p, r, _EXP_POLY[7])
    p = fma_f64(p, r, _EXP_POLY[6])
    p = fma_f64(p, r, _EXP_POLY[5])
    p = fma_f64(p, r, _EXP_POLY[4])
    p = fma_f64(p, r, _EXP_POLY[3])
    p = fma_f64(p, r, _EXP_POLY[2])
    p = fma_f64(p, r, 1.0)
    p = fma_f64(p, r, 1.0)
    d = p * np.int64((k + 1023) << 52).view(np.float64)
    # Rounding to binary32 drops the low 29 of binary64's 52 mantissa bits;
    # the rounding boundary is where they read 0x10000000.
    # One unsigned compare tests |low - 0x10000000| <= guard; bitwise |
    # rather than `or` keeps the loop free of branches so it vectorises.
    low = (np.float64(d).view(np.int64) & 0x1FFFFFFF) - (0x10000000 - _EXP_GUARD_ULPS)
    suspect = np.int64(np.uint64(low) <= np.uint64(2 * _EXP_GUARD_ULPS)) | np.int64(d < _MIN_NORMAL_F32)
    return d, suspect


@njit(cache=True, error_model="numpy", inline="always")
def exp_f32(t):
    """Correctly rounded binary32 e**t (scalar form of :func:`vexp_f32`)."""
    td = np.float64(t)
    d, suspect = _exp_f64_fast(td)
    if suspect:
        d = math.exp(td)
    return np.float32(d)


@njit(cache=True, error_model="numpy", inline="always")
def vexp_f32(dst, src, length, sign):
    """``Muls(src, sign)`` then the Exp vector instruction, into ``dst``.

    ``dst[j] = e**(sign * src[j])`` in binary32 for ``j < length``; ``sign``
    is +1 or -1 (an exact multiply); ``dst`` must not alias ``src``. The
    first loop is branch-free and vectorises; the second, rarely entered,
    redoes the elements whose fast result was not trusted.
    """
    suspects = 0
    for j in range(length):
        d, suspect = _exp_f64_fast(np.float64(src[j] * sign))
        suspects += suspect
        dst[j] = np.float32(d)
    if suspects:
        for j in range(length):
            td = np.float64(src[j] * sign)
            if _exp_f64_fast(td)[1]:
                dst[j] = np.float32(math.exp(td))
