"""Ulp steps on the binary32 line: how far a device's Exp, Div or Ln result may stray (model section 10).

:func:`ulp_shift` is the step :func:`swishgrad_numba.program.envelope.program_envelope` compiles after
each freed result of a program. Ulps are steps on the ordered line of binary32 values, +-inf included,
on which -0 and +0 are one point, never across zero (:func:`ulp_step`). A NaN stays NaN. With ``ftz``
a subnormal result (after the step) becomes the zero of its sign.
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["ulp_step", "ulp_shift"]

_INF_ORD = np.int32(0x7F800000)      # +inf's place on the ordered line (its bit pattern)
_MAG = np.uint32(0x7FFFFFFF)
_SIGN = np.uint32(0x80000000)
_MIN_NORMAL = np.uint32(0x00800000)


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
def ulp_shift(c, k, ftz):
    """:func:`ulp_step` of ``c`` by ``k`` (a float32 holding an integer; ``ftz`` 0 or 1), or where that
    step runs off the line, the end it ran into: the zero of ``c``'s sign, or its infinity; a NaN stays
    itself. That end is reached anyway by a shorter step, so an envelope that tries every ``k`` in
    ``[-K, K]`` reaches the same outputs as one that drops the step (a compiled program's freed
    results, :func:`swishgrad_numba.program.envelope.program_envelope`), and the result is monotone in
    ``k`` and in ``c``: the least and greatest shifted values are those of ``k = -K`` and ``k = K``
    (:mod:`swishgrad_numba.program.monotone`)."""
    flush = ftz != np.float32(0)
    kk = np.int32(k)
    ok, v = ulp_step(c, kk, flush)
    sign = np.float32(c).view(np.uint32) & _SIGN
    towards_zero = (kk < 0) != (sign != np.uint32(0))
    end = np.uint32(_select(towards_zero, sign, sign | np.uint32(_INF_ORD))).view(np.float32)
    return _select(ok | (c != c), _select(ok, v, c), end)
