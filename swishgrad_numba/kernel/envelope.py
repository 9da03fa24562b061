"""The outputs a device can reach when its Exp and Div err by a few ulps (model section 10).

Private to :func:`swishgrad_numba.precision.envelope`, which validates. Per
element the model is the kernel's own sequence (:mod:`.sequence`) with two
instructions set free: Exp may return any binary32 within ``exp_ulp`` ulps
of the correctly rounded e**t, and Div any binary32 within ``div_ulp`` ulps
of the correctly rounded quotient of its actual (already perturbed)
operands. Every other instruction is exact. So the reachable outputs of one
element are enumerated exactly: at most ``(2 exp_ulp + 1)(2 div_ulp + 1)``
of them, before the final narrowing merges some.

Ulps are steps on the ordered line of binary32 values, +-inf included, on
which -0 and +0 are one point, never across zero (:func:`ulp_step`). A NaN stays NaN. With
``ftz`` a subnormal Exp or Div result (after the step) becomes the zero of
its sign. Members are output bit patterns as ``uint32`` (a 16-bit output's
pattern in the low half), every NaN mapped to :data:`NAN_KEY`.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..casts import f32_to_bf16_bits, f32_to_f16_bits
from ..dtypes import FLOAT16, FLOAT32
from ..intrinsics import vectorise_full_width
from .exp import exp_f32, vexp_f32
from .sequence import ARCH_A2, a2_after_div, adds_one, after_div, arch35_after_div, before_exp

__all__ = ["NAN_KEY", "ENVELOPE_CHUNK", "ulp_step", "members", "envelope_bounds", "envelope_count",
           "envelope_contains"]

#: Every NaN member (and NaN query) is this pattern: it is no 16-bit pattern, and a NaN as float32.
NAN_KEY = np.uint32(0xFFFFFFFF)

#: Elements per parallel iteration.
ENVELOPE_CHUNK = 2048

_F32 = FLOAT32.code
_F16 = FLOAT16.code
_ONE = np.float32(1.0)
_INF_ORD = np.int32(0x7F800000)      # +inf's place on the ordered line (its bit pattern)
_MAG = np.uint32(0x7FFFFFFF)
_SIGN = np.uint32(0x80000000)
_MIN_NORMAL = np.uint32(0x00800000)
_NO_LO = np.int32(0x7FFFFFFF)         # running extremes before any non-NaN member (keys lie strictly between)
_NO_HI = np.int32(-0x80000000)


@njit(cache=True, error_model="numpy", inline="always")
def _select(cond, a, b):
    return a if cond else b


@njit(cache=True, error_model="numpy", inline="always")
def ulp_step(c, k, ftz):
    """``(ok, value)``: the binary32 ``k`` steps from ``c`` on the ordered line.

    The line runs -inf .. -0/+0 .. +inf with both zeros one point; a step
    past an infinity is off the line (``ok`` false), and so is a step that
    crosses zero: a rounded result keeps the sign of the exact one (a
    device's reciprocal of a positive number is not negative), so the steps
    stay on ``c``'s side, and reaching the zero point gives the zero of
    ``c``'s sign. A NaN ``c`` only reaches itself (``k == 0``). With ``ftz``
    a subnormal value becomes the zero of its sign. Written with selects,
    not branches, so that loops over it vectorise.
    """
    b = np.float32(c).view(np.uint32)
    is_nan = c != c
    sign = b & _SIGN
    mag = np.int32(b & _MAG)
    o = _select(sign != np.uint32(0), -mag, mag) + np.int32(k)   # place on the ordered line, stepped (|k| <= 64)
    own_side = _select(sign != np.uint32(0), o <= 0, o >= 0)     # not across zero
    ok = _select(is_nan, k == 0, (o <= _INF_ORD) & (o >= -_INF_ORD) & own_side)
    r = np.uint32(_select(o < 0, -o, o)) | _select(o < 0, _SIGN, np.uint32(0))
    r = _select(o == 0, sign, r)                                # the zero point: c's sign
    r = _select(ftz & ((r & _MAG) < _MIN_NORMAL), r & _SIGN, r)
    r = _select(is_nan, b, r)
    return ok, np.uint32(r).view(np.float32)


@njit(cache=True, error_model="numpy", inline="always")
def _output_bits(f, dtype_code):
    """The binary32 result narrowed to the output dtype (CAST_RINT), as uint32 bits; NaN -> NAN_KEY."""
    if dtype_code == _F32:
        b = np.float32(f).view(np.uint32)
    elif dtype_code == _F16:
        b = np.uint32(f32_to_f16_bits(f))
    else:
        b = np.uint32(f32_to_bf16_bits(f))
    return _select(f != f, NAN_KEY, b)


@njit(cache=True, error_model="numpy", inline="always")
def _order_key(bits, shift):
    """A total order on non-NaN output patterns as int32: by value, -0 just below +0.

    The pattern is shifted to the top of 32 bits (``shift`` 16 for 16-bit
    outputs) and read as a signed integer; flipping the magnitude bits of a
    negative one makes the order that of the values. Its own inverse.
    """
    k = np.int32(bits << shift)
    return k ^ ((k >> np.int32(31)) & np.int32(0x7FFFFFFF))


@njit(cache=True, error_model="numpy", inline="always")
def _key_bits(key, shift):
    """The output pattern of an order key (:func:`_order_key` inverted)."""
    k = key ^ ((key >> np.int32(31)) & np.int32(0x7FFFFFFF))
    return np.uint32(k) >> shift


@njit(cache=True, error_model="numpy", inline="always")
def members(gf, xf, beta, exp_ulp, div_ulp, ftz, arch, dtype_code, buf):
    """Fill ``buf`` with the reachable outputs of one element (repeats kept); return how many.

    ``gf``, ``xf`` are the widened inputs. The same steps as the kernel
    (:func:`.sequence.derivative_mode`), with Exp and Div stepped.
    """
    xb, t = before_exp(xf, beta, False)        # Muls(x, beta) ; Muls(xb, -1) / Neg
    e0 = exp_f32(t)                              # Exp, correctly rounded
    n = 0
    for i in range(-exp_ulp, exp_ulp + 1):
        ok_e, e = ulp_step(e0, i, ftz)
        if not ok_e:
            continue
        q0 = _ONE / adds_one(e, False)           # Adds(t, 1) ; Div(1, t), correctly rounded
        for j in range(-div_ulp, div_ulp + 1):
            ok_s, s = ulp_step(q0, j, ftz)
            if not ok_s:
                continue
            buf[n] = _output_bits(gf * after_div(s, xb, arch, False), dtype_code)   # the rest ; Mul(g) ; Cast
            n += 1
    return n




@njit(cache=True, error_model="numpy", inline="always")
def _prepare(g, x, a, m, beta, gb, xb, e0):
    """A chunk's widened g, ``x * beta`` and correctly rounded Exp results (vectorised, as the kernel)."""
    for t in range(m):
        gb[t] = g[a + t]
        xb[t] = before_exp(x[a + t], beta, False)[0]          # Muls(x, beta)
    vexp_f32(e0, xb, m, np.float32(-1.0))                      # Muls(xb, -1) / Neg ; Exp


@njit(cache=True, error_model="numpy", inline="always")
def _chunk_members(gb, xb, q0, ok_e, j, ftz, arch, dtype_code, m, ok, sv, bits):
    """For a chunk's ``m`` elements: ``ok[t]``, ``bits[t]``, the output when Div's result is
    ``j`` ulps from ``q0[t]``. One loop per step kind, the kernel and dtype choices outside
    the loops, so that each loop vectorises."""
    for t in range(m):
        ok_s, s = ulp_step(q0[t], j, ftz)
        ok[t] = np.int32(ok_s) & ok_e[t]
        sv[t] = s
    if arch == ARCH_A2:                                           # the rest ; Mul(g)
        for t in range(m):
            sv[t] = gb[t] * a2_after_div(sv[t], xb[t], False)
    else:
        for t in range(m):
            sv[t] = gb[t] * arch35_after_div(sv[t], xb[t], False)
    if dtype_code == _F32:                                        # Cast (CAST_RINT); NaN -> NAN_KEY
        for t in range(m):
            f = sv[t]
            bits[t] = _select(f != f, NAN_KEY, np.float32(f).view(np.uint32))
    elif dtype_code == _F16:
        for t in range(m):
            f = sv[t]
            bits[t] = _select(f != f, NAN_KEY, np.uint32(f32_to_f16_bits(f)))
    else:
        for t in range(m):
            f = sv[t]
            bits[t] = _select(f != f, NAN_KEY, np.uint32(f32_to_bf16_bits(f)))


@njit(cache=True, error_model="numpy", inline="always")
def _chunk_divisors(e0, i, ftz, m, ok_e, q0):
    """``ok_e[t]``, ``q0[t]``: the correctly rounded Div(1, Exp + 1) when Exp's result is ``i`` ulps from ``e0[t]``."""
    for t in range(m):
        ok, e = ulp_step(e0[t], i, ftz)
        ok_e[t] = np.int32(ok)
        q0[t] = _ONE / adds_one(e, False)              # Adds(t, 1) ; Div(1, t), correctly rounded


@njit(parallel=True, cache=True, error_model="numpy")
def envelope_bounds(g, x, beta, exp_ulp, div_ulp, ftz, arch, dtype_code, key_shift, lo, hi, nan_reachable, chunk):
    """Least and greatest non-NaN reachable output of each element (``NAN_KEY`` where
    there is none), and whether NaN is reachable.

    Member by member over a chunk of elements (the same enumeration as
    :func:`members`, reordered so that the loops over elements vectorise),
    keeping running extremes of the order key.
    """
    n = x.shape[0]
    for c in prange((n + chunk - 1) // chunk):
        vectorise_full_width()       # on the outlined parallel body, which holds the loops
        a = c * chunk
        m = min(n, a + chunk) - a
        gb = np.empty(m, dtype=np.float32)
        xb = np.empty(m, dtype=np.float32)
        e0 = np.empty(m, dtype=np.float32)
        q0 = np.empty(m, dtype=np.float32)
        ok_e = np.empty(m, dtype=np.int32)
        ok = np.empty(m, dtype=np.int32)
        sv = np.empty(m, dtype=np.float32)
        bits = np.empty(m, dtype=np.uint32)
        lo_k = np.full(m, _NO_LO, dtype=np.int32)
        hi_k = np.full(m, _NO_HI, dtype=np.int32)
        has_nan = np.zeros(m, dtype=np.int32)
        _prepare(g, x, a, m, beta, gb, xb, e0)
        for i in range(-exp_ulp, exp_ulp + 1):
            _chunk_divisors(e0, i, ftz, m, ok_e, q0)
            for j in range(-div_ulp, div_ulp + 1):
                _chunk_members(gb, xb, q0, ok_e, j, ftz, arch, dtype_code, m, ok, sv, bits)
                for t in range(m):
                    b = bits[t]
                    is_nan = np.int32(b == NAN_KEY)
                    key = _order_key(b, key_shift)
                    use = ok[t] & (is_nan ^ np.int32(1))
                    lo_k[t] = min(lo_k[t], _select(use != 0, key, _NO_LO))
                    hi_k[t] = max(hi_k[t], _select(use != 0, key, _NO_HI))
                    has_nan[t] = has_nan[t] | (ok[t] & is_nan)
        for t in range(m):
            lo[a + t] = _select(lo_k[t] == _NO_LO, NAN_KEY, _key_bits(lo_k[t], key_shift))
            hi[a + t] = _select(hi_k[t] == _NO_HI, NAN_KEY, _key_bits(hi_k[t], key_shift))
            nan_reachable[a + t] = has_nan[t] != 0


@njit(parallel=True, cache=True, error_model="numpy")
def envelope_count(g, x, beta, exp_ulp, div_ulp, ftz, arch, dtype_code, count, chunk):
    """How many distinct outputs each element can reach (all NaNs count as one)."""
    n = x.shape[0]
    width = (2 * exp_ulp + 1) * (2 * div_ulp + 1)
    for c in prange((n + chunk - 1) // chunk):
        buf = np.empty(width, dtype=np.uint32)
        for i in range(c * chunk, min(n, (c + 1) * chunk)):
            m = members(g[i], x[i], beta, exp_ulp, div_ulp, ftz, arch, dtype_code, buf)
            # Sort the members (n log n: up to 129^2 of them), then count the runs.
            buf[:m].sort()
            distinct = 0
            for k in range(m):
                if k == 0 or buf[k] != buf[k - 1]:
                    distinct += 1
            count[i] = distinct


@njit(parallel=True, cache=True, error_model="numpy")
def envelope_contains(g, x, beta, exp_ulp, div_ulp, ftz, arch, dtype_code, query, inside, chunk):
    """``inside[i]``: whether the output pattern ``query[i]`` (NaN as ``NAN_KEY``) is reachable.

    The enumeration of :func:`envelope_bounds`, comparing each member with the query.
    """
    n = x.shape[0]
    for c in prange((n + chunk - 1) // chunk):
        vectorise_full_width()       # on the outlined parallel body, which holds the loops
        a = c * chunk
        m = min(n, a + chunk) - a
        gb = np.empty(m, dtype=np.float32)
        xb = np.empty(m, dtype=np.float32)
        e0 = np.empty(m, dtype=np.float32)
        q0 = np.empty(m, dtype=np.float32)
        ok_e = np.empty(m, dtype=np.int32)
        ok = np.empty(m, dtype=np.int32)
        sv = np.empty(m, dtype=np.float32)
        bits = np.empty(m, dtype=np.uint32)
        found = np.zeros(m, dtype=np.int32)
        _prepare(g, x, a, m, beta, gb, xb, e0)
        for i in range(-exp_ulp, exp_ulp + 1):
            _chunk_divisors(e0, i, ftz, m, ok_e, q0)
            for j in range(-div_ulp, div_ulp + 1):
                _chunk_members(gb, xb, q0, ok_e, j, ftz, arch, dtype_code, m, ok, sv, bits)
                for t in range(m):
                    found[t] = found[t] | (ok[t] & np.int32(bits[t] == query[a + t]))
        for t in range(m):
            inside[a + t] = found[t] != 0
