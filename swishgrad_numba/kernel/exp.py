"""The Exp vector instruction: correctly rounded binary32 e**t (model section 2).

Private to the kernels: :func:`exp_f32` for one value; :func:`exp_block`, the
machine's Exp over a block, with :func:`exact_exp_mark` and :func:`redo_marked`
for its exact path; :func:`exp_fast`, the fast value and its guard keys that the
hot tier's loops use (:mod:`swishgrad_numba.engine.hot_source`; on AVX-512 its
Exp loops use :mod:`.exp_vector` instead), :func:`clamp_exp_arg` and
:func:`exact_exp_flags`; and :func:`vexp_f32`, a whole buffer by
:func:`exp_block` (what the exhaustive test checks).

How it is exact. e**t is evaluated in binary64, branch-free so that loops
over it vectorise: ``t = k ln2 + r`` with ``k = round(t / ln2)`` (one fused
multiply-add gives ``r``), e**r by a degree-9 polynomial with fused multiply-adds, its even and
odd halves each in Horner form in ``r**2`` (relative error 2**-45.6 on ``|r| <= ln2/2``), times
2**k by adding ``k << 52`` to the bits. An exhaustive scan of every
binary32 ``t`` with a normal result puts this value within 150 (2**7.23) binary64 ulps of the
platform's binary64 ``exp``, itself within one ulp of e**t. Rounded once to
binary32 it is therefore correctly rounded unless it lies within
:data:`GUARD_ULPS` (2**9) binary64 ulps of a binary32 rounding boundary,
or the binary32 result is subnormal (where the boundaries sit elsewhere).
Those rare elements (about 2**-19 of the results for inputs spread over a
few binades) take the exact path: the platform's binary64 ``exp``, rounded
once to binary32, which is correct there. A loop learns that it has such an
element from running minima; only then does it mark them (a second
vectorised pass) and redo just those (:func:`redo_marked`). A test compares
the result with the correctly rounded value for all 2**32 binary32 inputs.

Speed (:func:`exp_block`; AVX-512, one thread). The fast loop is vectorised
8 binary64 lanes wide and bound by its floating-point operations (the ten
fused multiply-adds and a square first). Measured alternatives that lost: a table of
2**(j/N) (N = 32 .. 256) with a degree 3-5 polynomial (the table read is a
gather, which costs about what the multiply-adds it saves cost; in the hot
tier's blocks 0.97-1.29x the time of this path: bench/exp_fast_variants.py,
bench/RESULTS.md, exp32); a shorter polynomial needs a wider guard. The
degree-9 polynomial replaced a degree-8 one in one Horner chain (2**-40.2, a
guard of 2**14 ulps), which flagged 3% of the hot tier's 512-element blocks
for a rerun on the machine (0.1% now); the two halves shorten the chain of
dependent operations from nine to six, which the long fused loops of the hot
tier need more than one operation fewer (llvm-mca; bench/RESULTS.md, rows32). What the
block loop saves: the subnormal test and the lower clamp become one running
maximum of the input's bits (a chunk with any ``t < -87`` takes the second
loop), and the minima are kept per chunk of :data:`BLOCK_CHUNK` elements, so
that an exact-path element costs a second loop over its chunk, not the block.

The fused multiply-adds are internal to the binary64 evaluation: the
binary32 result is the correctly rounded e**t either way. The emulated
binary32 instructions themselves are never fused.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..intrinsics import fma_f64

__all__ = ["BLOCK_CHUNK", "GUARD_LIM", "GUARD_ULPS", "LOW_BITS", "NO_KEY", "T_HI", "clamp_exp_arg", "exact_exp_flags", "exact_exp_mark", "exp_block", "exp_f32",
           "exp_fast", "redo_marked", "vexp_f32"]

# Every jitted function: cache=True (compiled code kept on disk) and the
# NumPy error model (IEEE division, no ZeroDivisionError checks). Never fast-math.

_INV_LN2 = 1.4426950408889634
_LN2 = 0.6931471805599453
_SHIFTER = 6755399441055744.0            # 1.5 * 2**52: adding it rounds to an integer, k in the low bits
# e**r ~ sum c_i r**i on |r| <= ln2/2: a near-minimax fit (Chebyshev, mpmath.chebyfit in 50-digit
# arithmetic on [-1.0001, 1.0001] ln2/2), relative error 2**-45.6 including the binary64 fused Horner
# evaluation.
_EXP_POLY = (1.0000000000000135, 1.0000000000000013, 0.4999999999943814, 0.16666666666615607,
             0.041666667040776456, 0.008333333367332009, 0.0013888801714761622, 0.0001984119061583585,
             2.488447635159146e-05, 2.763265575933203e-06)

#: Half-width of the band around a binary32 rounding boundary, in binary64
#: ulps, inside which the fast value is not trusted.
GUARD_ULPS = 1 << 9
# Rounding to binary32 drops the low 29 of binary64's 52 mantissa bits; the
# boundary is where they read 0x10000000. key = (bits + GUARD - 2**28) mod
# 2**29 is then <= 2 * GUARD exactly inside the band: one add, one and, and
# a running minimum per element.
_M29 = np.uint64(0x1FFFFFFF)
_GUARD_ADD = np.uint64((GUARD_ULPS - 0x10000000) % (1 << 64))
GUARD_LIM = np.uint64(2 * GUARD_ULPS)
NO_KEY = np.uint64(0xFFFFFFFFFFFFFFFF)

# Arguments are clamped to [-110, 100]: e**100 and e**-110 lie far outside
# binary32's range, so the result does not change, and 2**k stays a normal
# binary64. NaN passes through. Results below 2**-126 (subnormal or zero
# after rounding) come from t in [-103.98, -87.34); t in [-104.5, -87) takes
# the exact path: t + 104.5 is then in [0, 17.5), whose binary32 bit pattern,
# read as an unsigned integer, is below that of 17.5 (a negative or NaN sum
# reads far above it).
_T_LO = np.float32(-110.0)
T_HI = np.float32(100.0)
_SUB_SHIFT = np.float32(104.5)
_SUB_T_HI = np.float32(-87.0)
_SUB_LIM = np.uint32(np.float32(17.5).view(np.uint32))
# exp_block: a t whose bits, read unsigned, exceed those of -87 is below -87 (or a negative NaN);
# below -104.5 the result is +0.
LOW_BITS = np.uint32(np.float32(-87.0).view(np.uint32))
_ZERO_BELOW = np.float32(-104.5)
_ONE = np.float32(1.0)
#: Elements of one fast loop of :func:`exp_block`: a chunk with an element for the exact path is
#: looped over again, so a short one keeps that second loop short.
BLOCK_CHUNK = 256


@njit(cache=True, error_model="numpy", inline="always")
def clamp_exp_arg(t):
    """``t`` clamped to [-110, 100] (NaN passes through)."""
    return min(max(t, _T_LO), T_HI)


@njit(cache=True, error_model="numpy", inline="always")
def exp_fast(tc):
    """``(d, key, sub)`` for a clamped binary32 ``tc``: ``d`` ~ e**tc in binary64;
    ``key <= 2 * GUARD_ULPS`` inside the guard band, ``sub < bits(17.5)``
    in the subnormal-result range (see :func:`exact_exp_flags`)."""
    td = np.float64(tc)
    kd = fma_f64(td, _INV_LN2, _SHIFTER)
    kb = np.float64(kd).view(np.uint64)
    kf = kd - _SHIFTER
    r = fma_f64(kf, -_LN2, td)
    r2 = r * r                               # even and odd halves in r**2: two short chains, not one long
    ev = fma_f64(_EXP_POLY[8], r2, _EXP_POLY[6])
    ev = fma_f64(ev, r2, _EXP_POLY[4])
    ev = fma_f64(ev, r2, _EXP_POLY[2])
    ev = fma_f64(ev, r2, _EXP_POLY[0])
    od = fma_f64(_EXP_POLY[9], r2, _EXP_POLY[7])
    od = fma_f64(od, r2, _EXP_POLY[5])
    od = fma_f64(od, r2, _EXP_POLY[3])
    od = fma_f64(od, r2, _EXP_POLY[1])
    p = fma_f64(od, r, ev)
    db = np.float64(p).view(np.uint64) + (kb << np.uint64(52))   # times 2**k
    key = (db + _GUARD_ADD) & _M29
    sub = np.float32(tc + _SUB_SHIFT).view(np.uint32)
    return np.uint64(db).view(np.float64), key, sub


@njit(cache=True, error_model="numpy", inline="always")
def exact_exp_flags(key, sub):
    """Whether an element with these keys takes the exact path (guard band,
    or subnormal result); given a loop's minimum keys, whether the loop has
    such an element. Branch-free (``|``, not ``or``), so that a loop over it
    vectorises."""
    return (key <= GUARD_LIM) | (sub < _SUB_LIM)


@njit(cache=True, error_model="numpy", inline="always")
def exact_exp_mark(tc):
    """1.0 where the (clamped) element ``tc`` takes the exact path, else 0.0."""
    d, key, sub = exp_fast(tc)
    return np.float32(exact_exp_flags(key, sub))


@njit(cache=True, error_model="numpy", inline="always")
def exp_f32(t):
    """Correctly rounded binary32 e**t, one value."""
    tc = clamp_exp_arg(t)
    d, key, sub = exp_fast(tc)
    if exact_exp_flags(key, sub):
        d = math.exp(np.float64(t))
    return np.float32(d)


@njit(cache=True, error_model="numpy", inline="always")
def redo_marked(dst, src, sign, marks, a, b):
    """``dst[j] = exp_f32(sign * src[j])`` for each ``j`` in ``[a, b)`` with
    ``marks[j] != 0``.

    The search holds no call: LLVM treats ``exp`` as free of side effects
    and would otherwise evaluate it for every element of a plain loop (the
    branch turned into a select), which costs about 10 ns per element.
    """
    j = a
    while j < b:
        while j < b and marks[j] == np.float32(0.0):
            j += 1
        if j < b:
            dst[j] = exp_f32(src[j] * sign)
            j += 1


@njit(cache=True, error_model="numpy", inline="always")
def exp_block(dst, d, src, a, marks, m, n):
    """The Exp vector instruction over ``n`` elements: ``dst[d + j] = e**src[a + j]``, ``marks[m + j]``
    its scratch (offsets unsigned; the rows of ``dst`` and ``src`` must not overlap). The machine
    passes its arena as all three arrays.

    The fast loop, over :data:`BLOCK_CHUNK` elements at a time, clamps only from above (``min(t,
    100)``: the same value as :func:`exp_fast` of :func:`clamp_exp_arg` for every ``t >= -110``), and
    keeps two running extremes: the least guard key, and the greatest bit pattern of ``t`` read as an
    unsigned integer, which exceeds that of -87 exactly when some ``t < -87`` (or a negative NaN) is
    in the chunk. Only in such a chunk (rare) does a second loop mark, as before, the elements that
    take the exact path, and set to +0 every ``t < -104.5``, whose fast value is not computed
    (``e**t < 2**-150``: +0 is the correctly rounded result, the value the clamped path gives).
    """
    for c in range(0, n, BLOCK_CHUNK):
        cn = min(n - c, BLOCK_CHUNK)
        cu = np.uint64(c)
        dc, ac, mc = d + cu, a + cu, m + cu
        key_min = NO_KEY
        bits_max = np.uint32(0)
        for i in range(cn):
            j = np.uint64(i)
            t = src[ac + j]
            e, key, _sub = exp_fast(min(t, T_HI))
            key_min = min(key_min, key)
            bits_max = max(bits_max, np.float32(t).view(np.uint32))
            dst[dc + j] = np.float32(e)
        if (key_min <= GUARD_LIM) | (bits_max > LOW_BITS):
            for i in range(cn):
                j = np.uint64(i)
                t = src[ac + j]
                marks[mc + j] = exact_exp_mark(clamp_exp_arg(t))
                if t < _ZERO_BELOW:
                    dst[dc + j] = np.float32(0.0)
            redo_marked(dst[dc:dc + np.uint64(cn)], src[ac:ac + np.uint64(cn)], _ONE, marks[mc:mc + np.uint64(cn)],
                        0, cn)


@njit(cache=True, error_model="numpy", inline="always")
def vexp_f32(dst, src, length, sign):
    """``Muls(src, sign)`` then the Exp vector instruction, into ``dst``.

    ``dst[j] = e**(sign * src[j])`` in binary32 for ``j < length``; ``sign``
    is +1 or -1 (an exact multiply). The loop of the machine's Exp
    (:func:`exp_block`), which the exhaustive test checks.
    """
    marks = np.empty(length, dtype=np.float32)
    zero = np.uint64(0)
    if sign == _ONE:
        exp_block(dst, zero, src, zero, marks, zero, length)
    else:
        scaled = np.empty(length, dtype=np.float32)
        for j in range(length):
            scaled[j] = src[j] * sign
        exp_block(dst, zero, scaled, zero, marks, zero, length)
