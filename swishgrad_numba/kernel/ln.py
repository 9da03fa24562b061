"""The Ln (``Log``) vector instruction: correctly rounded binary32 natural logarithm (model section 2).

Like Exp, the device's rounding of Ln is not public; the model takes the
correctly rounded value (docs/model.md, "New instructions"). ``ln(+-0) =
-inf``, ``ln(negative) = NaN``, ``ln(+inf) = +inf``, NaN stays NaN.

How it is exact. The fast path (:func:`ln_fast`) evaluates ln t in binary64,
branch-free so that loops over it vectorise (libm's ``log`` is a call per element, 10-20 ns), from a
table: ``t = 2**k z`` read from the widened value's bits (exact; a binary32 subnormal is a binary64
normal), ``z`` in [0.6875, 1.375) less half a step, its top :data:`TABLE_BITS` mantissa bits an index ``i``
into :data:`LN_INV_C` (a binary64 near 1/c, c the middle of ``z``'s interval; exactly 1 for the interval
around 1) and :data:`LN_LOG_C` (-ln of that binary64, rounded once). Then ``ln t = k ln 2 + logc +
ln(1 + r)``, ``r = z invc - 1`` rounded once (``|r| <= 2**-8``), ``ln(1 + r)`` by its series to ``r**6``
(truncation below 2**-50 relative), ``k ln 2`` as an exact product with a 2**-100 tail. Two table
reads and a Horner chain of four multiply-adds, where the atanh series it replaced had a division and
seven (issue 39: softplus's loop, bench/RESULTS.md). The value lies within a few binary64 ulps of ln t
(2**22 random positive binary32 and all t near 1: within 5.2 ulps of an 80-bit ``log``; the atanh
series, 6.0). Rounded once to binary32 that is the correctly rounded result unless it lies within
:data:`GUARD_ULPS` binary64 ulps of a binary32 rounding boundary; binary64 alone is not enough there
(t = 0x3C413D3A is such a case: its ln lies 2**-55 relative from a boundary). Those rare elements (about 2**-20 of them)
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
from decimal import Decimal, localcontext

import numpy as np
from numba import njit

from ..intrinsics import fma_f64

__all__ = ["GUARD_ULPS", "LN_INV_C", "LN_LOG_C", "TABLE_BITS", "ln_exact", "ln_f32", "ln_fast", "ln_fast_value",
           "ln_flagged", "vln_f32"]

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
_INF = np.inf
_NAN = np.nan
_NO_KEY = np.uint64(1 << 29)
# ln 2 as a 36-bit head (e * head exact for |e| <= 2**16) and a binary64 tail
_LN2_HEAD = float.fromhex("0x1.62e42fefap-1")
_LN2_TAIL = float.fromhex("0x1.cf79abc9e3b3ap-40")
#: The fast path's table: 2**TABLE_BITS intervals of z.
TABLE_BITS = 7
_STEP = 52 - TABLE_BITS
# z's interval starts at 0.6875 less half a step (binary64 bits), so that 1.0 lies inside one, not at an edge:
# there logc = 0 and r = z - 1 exactly, and ln t ~ t - 1 keeps its relative accuracy
_OFF = np.uint64(0x3FE6000000000000 - (1 << (_STEP - 1)))
_EXP_FIELD = np.uint64(0xFFF0000000000000)
_INDEX = np.uint64((1 << TABLE_BITS) - 1)
# ln(1 + r) = r + r**2 (-1/2 + r/3 - r**2/4 + r**3/5 - r**4/6): |r| <= 2**-8, the next term below 2**-50 of r
_LOG1P = (-0.5, 1.0 / 3.0, -0.25, 0.2, -1.0 / 6.0)


def _tables():
    """(invc, logc): per interval, the binary64 nearest 1/c (c its middle; 1.0 in the interval around 1) and
    -ln(invc) rounded once to binary64 (40 decimal digits, then one rounding)."""
    invc, logc = np.empty(1 << TABLE_BITS), np.empty(1 << TABLE_BITS)
    off = int(_OFF)
    with localcontext() as ctx:
        ctx.prec = 40
        for i in range(1 << TABLE_BITS):
            lo = float(np.uint64(off + (i << _STEP)).view(np.float64))
            hi = float(np.uint64(off + ((i + 1) << _STEP)).view(np.float64))
            invc[i] = 1.0 if lo <= 1.0 < hi else 2.0 / (lo + hi)
            logc[i] = float(-Decimal(float(invc[i])).ln())
    invc.flags.writeable = logc.flags.writeable = False
    return invc, logc


#: The fast path's table of binary64 near 1/c and of -ln of each (:func:`_tables`).
LN_INV_C, LN_LOG_C = _tables()
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
    rel = b - _OFF
    i = (rel >> np.uint64(_STEP)) & _INDEX
    k = np.float64(np.int64(rel) >> np.int64(52))               # t = 2**k z
    z = np.uint64(b - (rel & _EXP_FIELD)).view(np.float64)     # exact
    r = fma_f64(z, LN_INV_C[i], -1.0)
    q = fma_f64(fma_f64(fma_f64(fma_f64(_LOG1P[4], r, _LOG1P[3]), r, _LOG1P[2]), r, _LOG1P[1]), r, _LOG1P[0])
    lnz = LN_LOG_C[i] + fma_f64(r * r, q, r)
    return k * _LN2_HEAD + fma_f64(k, _LN2_TAIL, lnz)         # k * _LN2_HEAD exact


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
