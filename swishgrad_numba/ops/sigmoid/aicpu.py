"""The AICPU SigmoidGrad kernel (``activation/sigmoid_grad/op_kernel_aicpu/sigmoid_grad_aicpu.cpp``):
what aclnnSigmoidBackward runs for float64, complex64 and complex128. Host C++, so host code here
(NumPy), no program.

docs/model.md, "SigmoidBackward", gives the sources and the evidence:

- float64 (line 101): ``(dy * (1 - y)) * y``, left to right in binary64 (the 950's order);
- complex (line 131, ``complex_conj`` always set by the op_api): ``conj((1 - y) * y) * dy`` in
  ``std::complex<T>``, ``1 - y`` being ``(1 - yr, 0 - yi)``, each product as GCC compiles it at
  ``-O2`` for C++ (``-ffp-contract=fast``) on a target with FMA: ``re = fma(a, c, -(b*d))``,
  ``im = fma(a, d, b*c)``, and where both parts are NaN libgcc's ``__mul?c3`` recovery (C11 Annex
  G: infinities boxed to +-1, the product recomputed as an infinity).

The fused multiply-adds are computed exactly: for complex64 in binary64, where a product of two
binary32 is exact and the sum, rounded to odd, rounds to binary32 as the exact sum would; for
complex128 by the same round-to-odd construction on an exact product split (Dekker), with every
element whose operands are not far from the binary64 range's ends (or not finite) computed in
exact rational arithmetic instead.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

__all__ = ["DTYPES", "sigmoid_grad", "fma"]

#: The dtypes the op_api sends to this kernel.
DTYPES = (np.dtype(np.float64), np.dtype(np.complex64), np.dtype(np.complex128))


def _round_odd_sum(x, y):
    """``x + y`` (binary64 arrays) rounded to odd: TwoSum's exact remainder moves an inexact
    result with an even last bit one step towards the exact sum."""
    s = x + y
    bp = s - x
    err = (x - (s - bp)) + (y - bp)
    fix = np.isfinite(s) & (err != 0) & ((s.view(np.int64) & 1) == 0)
    return np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)


def _fma32(a, b, c):
    """``a * b + c`` for binary32 arrays, one rounding."""
    a64, b64, c64 = (np.asarray(v, dtype=np.float32).astype(np.float64) for v in (a, b, c))
    return _round_odd_sum(a64 * b64, c64).astype(np.float32)


_SPLIT = 134217729.0          # 2^27 + 1, Veltkamp's splitter for binary64
_SAFE_HI, _SAFE_LO = 2.0 ** 500, 2.0 ** -400


def _exact_fma64(a: float, b: float, c: float) -> float:
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return a * b + c                                # inf/NaN: what the fused operation gives too
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:                                      # IEEE's sign of an exact zero sum
        return (a * b) + c if a == 0 or b == 0 else 0.0
    try:
        return float(exact)                             # round to nearest even
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


def _fma64(a, b, c):
    """``a * b + c`` for binary64 arrays, one rounding: Boldo and Melquiond's emulation through
    rounding to odd (Dekker's exact product ``p + e``; ``th + tl = c + p`` exactly; the result
    ``RN(th + RO(tl + e))``), valid where nothing nears the range's ends; exact rationals elsewhere
    (and for a zero result, whose sign the emulation does not keep)."""
    a, b, c = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    with np.errstate(all="ignore"):
        p = a * b

        def split(v):
            t = _SPLIT * v
            hi = t - (t - v)
            return hi, v - hi

        ah, al = split(a)
        bh, bl = split(b)
        e = ((ah * bh - p) + ah * bl + al * bh) + al * bl        # p + e == a * b exactly
        th = c + p
        bp = th - c
        tl = (c - (th - bp)) + (p - bp)                          # th + tl == c + p exactly
        out = th + _round_odd_sum(tl, e)
        ma, mb, mc = np.abs(a), np.abs(b), np.abs(c)
        safe = np.isfinite(out) & (out != 0) & (mc < _SAFE_HI) & ((mc > _SAFE_LO) | (mc == 0))
        for m in (ma, mb):
            safe &= (m < _SAFE_HI) & (m > _SAFE_LO)
        # a zero factor: the product is an exact signed zero, the sum one IEEE addition
        zero = ((a == 0) & np.isfinite(b) | (b == 0) & np.isfinite(a)) & np.isfinite(c)
        out = np.where(zero, p + c, out)
        safe |= zero
    for i in np.flatnonzero(~safe):
        out.flat[i] = _exact_fma64(float(a.flat[i]), float(b.flat[i]), float(c.flat[i]))
    return out


def fma(a, b, c):
    """``a * b + c`` on arrays of one real dtype (float32 or float64), rounded once."""
    return _fma32(a, b, c) if np.asarray(a).dtype == np.float32 else _fma64(a, b, c)


def _recover(a, b, c, d, x, y):
    """libgcc ``__mul?c3`` for the elements where both parts of the naive product are NaN."""
    both = np.isnan(x) & np.isnan(y)
    if not both.any():
        return x, y
    real = x.dtype.type
    for i in np.flatnonzero(both):
        p, q, r, s = (float(v.flat[i]) for v in (a, b, c, d))
        recalc = False
        if math.isinf(p) or math.isinf(q):
            p, q = (math.copysign(1.0 if math.isinf(v) else 0.0, v) for v in (p, q))
            r, s = (math.copysign(0.0, v) if math.isnan(v) else v for v in (r, s))
            recalc = True
        if math.isinf(r) or math.isinf(s):
            r, s = (math.copysign(1.0 if math.isinf(v) else 0.0, v) for v in (r, s))
            p, q = (math.copysign(0.0, v) if math.isnan(v) else v for v in (p, q))
            recalc = True
        if recalc:
            with np.errstate(all="ignore"):
                x.flat[i] = real(math.inf) * real(real(p * r) - real(q * s))
                y.flat[i] = real(math.inf) * real(real(p * s) + real(q * r))
    return x, y


def _complex_mul(a, b, c, d):
    """``(a + bi)(c + di)`` as GCC compiles ``std::complex<T>``'s product, on arrays of the part type."""
    with np.errstate(all="ignore"):
        bd, bc = b * d, b * c
        x, y = fma(a, c, -bd), fma(a, d, bc)
    return _recover(a, b, c, d, x, y)


def sigmoid_grad(dy: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The kernel over C-contiguous ``dy`` and ``y`` of one shape and one of :data:`DTYPES`."""
    if dy.dtype == np.float64:
        with np.errstate(all="ignore"):
            return (dy * (1.0 - y)) * y
    real = np.float32 if dy.dtype == np.complex64 else np.float64
    yr, yi = np.ascontiguousarray(y.real), np.ascontiguousarray(y.imag)
    with np.errstate(all="ignore"):
        omr, omi = real(1.0) - yr, real(0.0) - yi                 # complex(1) - y
    pr, pi = _complex_mul(omr, omi, yr, yi)
    zr, zi = _complex_mul(pr, -pi, np.ascontiguousarray(dy.real), np.ascontiguousarray(dy.imag))   # conj(.) * dy
    out = np.empty(dy.shape, dtype=dy.dtype)
    out.real, out.imag = zr, zi
    return out
