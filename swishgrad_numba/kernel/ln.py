"""The Ln (``Log``) vector instruction: correctly rounded binary32 natural logarithm (model section 2).

Like Exp, the device's rounding of Ln is not public; the model takes the
correctly rounded value (docs/model.md, "New instructions"). ``ln(+-0) =
-inf``, ``ln(negative) = NaN``, ``ln(+inf) = +inf``, NaN stays NaN.

How it is exact. The fast path (:func:`ln_fast`) evaluates ln t in binary64,
branch-free so that loops over it vectorise (libm's ``log`` is a call per element, 10-20 ns):
``t = 2**e m`` read from the widened value's bits (exact; a binary32 subnormal is a binary64
normal), ``m`` in [sqrt(1/2), sqrt(2)), ``ln m = 2 atanh(s)``, ``s = (m - 1) / (m + 1)`` (numerator
and denominator exact, one rounding in the division), the series to ``s**17`` (truncation below
2**-50 relative, ``s**2 <= 0.0295``), and ``e ln 2`` added as an exact product with a 2**-100 tail.
Every step but the division and the final sum is small against the result, so the value lies
within a few binary64 ulps of ln t (a scan of every positive finite binary32 puts it within 7
ulps of the platform's ``math.log``, the path it replaced; the series to ``s**21`` was within one,
and two more multiply-adds; to ``s**15``, 211 ulps). Rounded once to
binary32 that is the correctly rounded result unless it lies within
:data:`GUARD_ULPS` binary64 ulps of a binary32 rounding boundary; binary64
alone is not enough there (t = 0x3C413D3A is such a case: its ln lies
2**-55 relative from a boundary). Those rare elements (about 2**-20 of them)
take the exact path, :func:`ln_exact`: ln t = e ln 2 + 2 atanh(s),
``s = (m - 1) / (m + 1)``, m in [sqrt(1/2), sqrt(2)), every step in
double-double arithmetic (about 2**-100 relative), then rounded once. A
result is never subnormal (|ln t| >= 2**-24 for t != 1), so the boundaries
are binary32's normal ones. tests/test_ln_exhaustive.py compares all 2**32
inputs with the correctly rounded value (decided in 60-digit decimal near
the boundaries, tests/reference_activations_tier2.py's ``ref_ln_f32``).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..intrinsics import fma_f64

__all__ = ["GUARD_ULPS", "ln_exact", "ln_f32", "ln_fast", "ln_fast_value", "ln_flagged", "vln_f32"]

#: Half-width of the band around a binary32 rounding boundary, in binary64 ulps, inside which the fast
#: value is not trusted.
GUARD_ULPS = 1 << 8
# Rounding binary64 to binary32 drops the low 29 mantissa bits; the boundary is where they read 2**28
# (exp.py's key, for normal binary32 results).
_M29 = np.uint64(0x1FFFFFFF)
_GUARD_ADD = np.uint64((GUARD_ULPS - 0x10000000) % (1 << 64))
_GUARD_LIM = np.uint64(2 * GUARD_ULPS)
_LN2_HI = 0.6931471805599453
_LN2_LO = 2.3190468138462996e-17
_SQRT_HALF = 0.7071067811865476
_MANT = np.uint64(0x000FFFFFFFFFFFFF)
_ONE_BITS = np.uint64(0x3FF0000000000000)
_SQRT_TWO = 1.4142135623730951
_INF = np.inf
_NAN = np.nan
_NO_KEY = np.uint64(1 << 29)
# ln 2 as a 36-bit head (e * head exact for |e| <= 2**16) and a binary64 tail
_LN2_HEAD = float.fromhex("0x1.62e42fefap-1")
_LN2_TAIL = float.fromhex("0x1.cf79abc9e3b3ap-40")
# The fast path's series: 2 / (2k + 3), k = 0 .. 7 (s**2 <= 0.0295: the next term is below 2**-43 of it)
_N_SERIES = 8
_SERIES = tuple(2.0 / (2 * k + 3) for k in range(_N_SERIES))
# atanh(s) / s = sum s^(2k) / (2k + 1): |s| <= 0.1716, so 22 terms reach 2**-110
_TERMS = 22


@njit(cache=True, error_model="numpy", inline="always")
def _two_sum(a, b):
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


@njit(cache=True, error_model="numpy", inline="always")
def _dd_add(ah, al, bh, bl):
    s, e = _two_sum(ah, bh)
    e += al + bl
    return _two_sum(s, e)


@njit(cache=True, error_model="numpy", inline="always")
def _dd_mul(ah, al, bh, bl):
    p = ah * bh
    e = fma_f64(ah, bh, -p) + (ah * bl + al * bh)
    return _two_sum(p, e)


@njit(cache=True, error_model="numpy")
def ln_exact(t):
    """ln of a positive finite binary32 ``t`` in double-double, rounded once to binary32."""
    m, e = math.frexp(np.float64(t))          # m in [0.5, 1): exact
    if m < _SQRT_HALF:
        m *= 2.0
        e -= 1
    num, den = m - 1.0, m + 1.0               # both exact (m has 24 significant bits)
    sh = num / den
    sl = fma_f64(-sh, den, num) / den         # the division's exact remainder, divided
    s2h, s2l = _dd_mul(sh, sl, sh, sl)
    ph, pl = 1.0 / (2 * _TERMS + 1), 0.0
    for k in range(_TERMS - 1, -1, -1):       # Horner: p = p s^2 + 1 / (2k + 1)
        ph, pl = _dd_mul(ph, pl, s2h, s2l)
        q = np.float64(2 * k + 1)
        ch = 1.0 / q
        ph, pl = _dd_add(ph, pl, ch, fma_f64(-ch, q, 1.0) / q)
    lh, ll = _dd_mul(sh, sl, ph, pl)          # atanh(s)
    lh, ll = 2.0 * lh, 2.0 * ll               # ln m
    eh, el = _dd_mul(np.float64(e), 0.0, _LN2_HI, _LN2_LO)
    rh, rl = _dd_add(eh, el, lh, ll)
    r = np.float32(rh)
    # rh rounds to r unless rh is a binary32 midpoint exactly; then rl decides (ties: float32() is even)
    back = np.float64(r)
    if rl != 0.0 and back != rh:
        other = np.float32(np.nextafter(r, np.float32(np.inf) if rh > back else np.float32(-np.inf)))
        mid = 0.5 * (back + np.float64(other))
        if mid == rh and (rl > 0.0) == (np.float64(other) > back):
            r = other
    return r


@njit(cache=True, error_model="numpy", inline="always")
def ln_fast(t):
    """``(r, key)`` for a binary32 ``t``: ``r`` its binary32 ln by the fast path (the special values'
    exactly: -inf at +-0, NaN below 0 and at NaN, +inf at +inf), ``key`` flagged by
    :func:`ln_flagged` where ``t`` must take :func:`ln_exact` instead. Branch-free: a loop over it
    vectorises."""
    td = np.float64(t)
    d = ln_fast_value(td)
    key = (np.float64(d).view(np.uint64) + _GUARD_ADD) & _M29
    ok = (td > 0.0) & (td < _INF)
    special = -_INF if td == 0.0 else (_INF if td == _INF else _NAN)
    return (np.float32(d) if ok else np.float32(special)), (key if ok else _NO_KEY)


@njit(cache=True, error_model="numpy", inline="always")
def ln_fast_value(td):
    """The fast path's binary64 ln of a positive finite binary32 ``td`` (widened); garbage elsewhere."""
    b = np.float64(td).view(np.uint64)
    mb = (b & _MANT) | _ONE_BITS                           # m in [1, 2), t = 2**e m (t positive finite)
    m = np.uint64(mb).view(np.float64)
    big = m > _SQRT_TWO
    m = m * 0.5 if big else m                              # m in [sqrt(1/2), sqrt(2)): exact
    e = np.float64(np.int64(b >> np.uint64(52)) - (1022 if big else 1023))
    num, den = m - 1.0, m + 1.0                            # both exact (m has 24 significant bits)
    s = num / den
    z = s * s
    p = _SERIES[_N_SERIES - 1]
    for k in range(_N_SERIES - 2, -1, -1):                # 2 (1/3 + z/5 + ... + z**7/17), Horner
        p = fma_f64(p, z, _SERIES[k])
    lnm = fma_f64(s * z, p, 2.0 * s)                       # 2 atanh(s) = 2 s + s z p
    return e * _LN2_HEAD + fma_f64(e, _LN2_TAIL, lnm)      # e * _LN2_HEAD exact


@njit(cache=True, error_model="numpy", inline="always")
def ln_flagged(key):
    """Whether a :func:`ln_fast` key (or a loop's minimum key) is in the guard band."""
    return key <= _GUARD_LIM


@njit(cache=True, error_model="numpy", inline="always")
def ln_f32(t):
    """Correctly rounded binary32 ln(t), one value: -inf at +-0, NaN below 0 and at NaN."""
    r, key = ln_fast(t)
    if ln_flagged(key):
        return ln_exact(t)
    return r


@njit(cache=True, error_model="numpy")
def vln_f32(dst, src, length):
    """The Ln vector instruction over ``src[:length]`` into ``dst`` (what the exhaustive test checks)."""
    for j in range(length):
        dst[j] = ln_f32(src[j])
