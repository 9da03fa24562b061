"""Bit-exact float16/bfloat16 <-> float32 conversions, for jitted code.

Inside the kernels 16-bit values travel as their ``uint16`` bit patterns; the
functions here turn those bits into float32 and back (round to nearest,
ties to even: ``CAST_RINT``; or round to nearest, ties away from zero:
``CAST_ROUND``), so the emulation does not depend on how a compiler or CPU
converts. float16 uses the CPU's conversion instructions
where Numba's target has them (:data:`HARDWARE_F16`), with the same bits.
"""
from __future__ import annotations

import platform

import numba
import numpy as np
from llvmlite import binding as llvm
from numba import njit

from .dtypes import FLOAT16
from .intrinsics import f32_to_half_bits, half_bits_to_f32

__all__ = [
    "f16_bits_to_f32",
    "f32_to_f16_bits",
    "bf16_bits_to_f32",
    "f32_to_bf16_bits",
    "widen_16_quieting",
    "rint_16_widened",
    "narrow_rint_not_nan",
    "f16_bits_to_f32_soft",
    "f32_to_f16_bits_soft",
    "f32_to_f16_bits_round",
    "f32_to_bf16_bits_round",
    "HARDWARE_F16",
    "DIRECTED_MODES",
    "whole_f64",
    "f32_to_whole",
    "f32_to_f16_bits_directed",
    "f32_to_bf16_bits_directed",
    "INF_OVERFLOW",
    "INT_ROUNDINGS",
    "f32_to_int",
    "int_to_f32",
    "int_to_f16_bits",
]


# --------------------------------------------------------------------------
# float16 (IEEE binary16): 1 sign, 5 exponent (bias 15), 10 mantissa bits.
# --------------------------------------------------------------------------


def _target_converts_f16() -> bool:
    """Whether Numba's compile target converts binary16 in hardware.

    x86-64 with F16C (``vcvtph2ps``/``vcvtps2ph``) and AArch64 do; anywhere
    else LLVM would call a runtime helper that Numba may not link, so the
    integer versions are used. Numba keys its on-disk cache on the CPU name
    and features, so code compiled with one answer never runs on a machine
    that would give the other.
    """
    machine = platform.machine().lower()
    if machine in ("aarch64", "arm64"):
        return True
    if machine in ("x86_64", "amd64"):
        features = numba.config.CPU_FEATURES
        if features is None:
            features = llvm.get_host_cpu_features().flatten()
        return "+f16c" in features.split(",")
    return False


#: True where float16 conversions in the kernels use the CPU's instructions
#: (same bits as the integer versions, see :func:`f32_to_f16_bits`).
HARDWARE_F16 = _target_converts_f16()


@njit(cache=True, inline="always")
def f16_bits_to_f32_soft(h):
    """Exact float32 value of the float16 with bit pattern ``h``.

    Branch-free so that loops over it vectorise: shifting exponent and
    mantissa into float32 position gives the value times 2^-112 (exactly,
    subnormals included, as float32 keeps subnormals); one exact multiply
    by 2^112 rebiases it. Inf/NaN exponents are then widened to all ones.
    """
    h = np.uint32(h)
    magnitude = np.uint32((h & np.uint32(0x7FFF)) << np.uint32(13))
    f = magnitude.view(np.float32) * np.float32(5.192296858534828e33)  # 2^112
    bits = np.float32(f).view(np.uint32)
    if (h & np.uint32(0x7C00)) == np.uint32(0x7C00):  # inf / NaN, payload kept
        bits = magnitude | np.uint32(0x7F800000)
    return np.uint32(bits | ((h & np.uint32(0x8000)) << np.uint32(16))).view(np.float32)


@njit(cache=True, inline="always")
def _f16_bits_to_f32_cpu(h):
    """The float16 bits ``h`` widened by the CPU where :data:`HARDWARE_F16` (a signalling NaN comes back
    quieted), else by :func:`f16_bits_to_f32_soft` (exact)."""
    if HARDWARE_F16:
        return half_bits_to_f32(np.uint16(h))
    return f16_bits_to_f32_soft(h)


@njit(cache=True, inline="always")
def _f32_to_f16_bits_cpu(f):
    """float32 -> float16 bits to nearest even by the CPU where :data:`HARDWARE_F16`, else by
    :func:`f32_to_f16_bits_soft`: the same bits but on a NaN."""
    if HARDWARE_F16:
        return f32_to_half_bits(np.float32(f))
    return f32_to_f16_bits_soft(f)


@njit(cache=True, inline="always")
def f16_bits_to_f32(h):
    """Exact float32 value of the float16 with bit pattern ``h``.

    The CPU's conversion where :data:`HARDWARE_F16`, else
    :func:`f16_bits_to_f32_soft`: the same bits for every pattern. A NaN
    keeps its payload in the top mantissa bits (the model's exact widening);
    the CPU quiets a signalling NaN (sets mantissa bit 22), which is undone:
    where the result is a NaN, its bit 22 is cleared where the input's bit 9
    (the quiet bit) is clear. Every step stays in 32 bits (Numba would widen each
    integer operation to 64) and tests the float result, not the input's
    fields, so the loop vectorises at full width: 0.09 ns an element where
    the test of the input's fields in 64-bit lanes took 0.18-0.20 (issue 39,
    engine-f16; bfloat16's shift takes 0.04).
    """
    if HARDWARE_F16:
        f = _f16_bits_to_f32_cpu(h)
        bits = np.float32(f).view(np.uint32)
        # all ones but bit 22 where the input's quiet bit (0x200) is clear, else all ones
        quiet = np.uint32(np.uint32(np.uint32(h) & np.uint32(0x200)) << np.uint32(13))
        keep = np.uint32(quiet | np.uint32(0xFFBFFFFF))
        return np.uint32(bits & (keep if f != f else np.uint32(0xFFFFFFFF))).view(np.float32)
    return f16_bits_to_f32_soft(h)


@njit(cache=True, inline="always")
def f32_to_f16_bits_soft(f):
    """float32 -> float16 bits, round to nearest, ties to even (CAST_RINT)."""
    u = np.float32(f).view(np.uint32)
    sign = np.uint32((u >> np.uint32(16)) & np.uint32(0x8000))
    a = u & np.uint32(0x7FFFFFFF)
    # Normal float16 results: rebias the exponent (127 -> 15) and drop 13
    # mantissa bits rounding to nearest even: add 0xFFF plus the lowest kept
    # bit, so a tie carries only when the kept part is odd. A carry out of
    # the mantissa bumps the exponent, which is the right answer; values
    # from 65520 (the tie between 65504 and 2^16) on reach the inf pattern.
    normal = np.uint32(a - np.uint32(112 << 23) + np.uint32(0xFFF) + ((a >> np.uint32(13)) & np.uint32(1))) >> np.uint32(13)
    # Subnormal results (|f| < 2^-14): adding 0.5 puts the float16 subnormal
    # quantum 2^-24 at the last mantissa bit of the sum, so the float32
    # addition itself rounds to nearest even; the low bits are the result.
    sub = np.float32(np.uint32(a).view(np.float32) + np.float32(0.5)).view(np.uint32) - np.uint32(0x3F000000)
    res = normal if a >= np.uint32(0x38800000) else sub
    if a >= np.uint32(0x47800000):  # >= 2^16: inf; NaN stays a quiet NaN
        res = np.uint32(0x7E00) if a > np.uint32(0x7F800000) else np.uint32(0x7C00)
    return np.uint16(res | sign)


@njit(cache=True, inline="always")
def f32_to_f16_bits(f):
    """float32 -> float16 bits, round to nearest, ties to even (CAST_RINT).

    The CPU's conversion where :data:`HARDWARE_F16`, else
    :func:`f32_to_f16_bits_soft`; either way every NaN becomes the quiet NaN
    0x7E00 with the input's sign, so both give the same bits for all 2^32
    inputs (the tests check both).
    """
    if HARDWARE_F16:
        h = _f32_to_f16_bits_cpu(f)
        # NaN: one canonical quiet NaN, with the sign the conversion kept (the float32's)
        return np.uint16(np.uint16(h & np.uint16(0x8000)) | np.uint16(0x7E00)) if f != f else h
    return f32_to_f16_bits_soft(f)


# --------------------------------------------------------------------------
# bfloat16: the top 16 bits of a float32.
# --------------------------------------------------------------------------


@njit(cache=True, inline="always")
def bf16_bits_to_f32(h):
    """Exact float32 value of the bfloat16 with bit pattern ``h``."""
    return np.uint32(np.uint32(h) << np.uint32(16)).view(np.float32)


@njit(cache=True, inline="always")
def _bf16_rint_not_nan(u):
    """The bfloat16 bits of the float32 with bits ``u``, not a NaN, to nearest even."""
    # Add 0x7FFF plus the lowest kept bit: the sum carries into bit 16 when
    # the dropped half is above 0x8000, or equal to it with an odd kept part.
    # Overflow past the largest finite lands exactly on the inf pattern.
    return np.uint16((u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16))


@njit(cache=True, inline="always")
def f32_to_bf16_bits(f):
    """float32 -> bfloat16 bits, round to nearest, ties to even."""
    u = np.float32(f).view(np.uint32)
    if (u & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000):  # NaN -> quiet NaN
        return np.uint16((u >> np.uint32(16)) | np.uint32(0x40))
    return _bf16_rint_not_nan(u)


# --------------------------------------------------------------------------
# CAST_ROUND: round to nearest, ties away from zero.
# --------------------------------------------------------------------------
# The Ascend C ``Cast`` page's binary rounding rules: under CAST_ROUND the
# kept part is incremented whenever the first dropped bit is 1, whatever
# follows (its float -> half example rounds the tie 0.5 + 2^-12 up to
# 0.5 + 2^-11, where CAST_RINT gives 0.5). On sign-magnitude bits that is
# round half away from zero. Overflow and NaN follow CAST_RINT's rules
# (model section 2: values past the largest finite become inf, NaN stays a
# quiet NaN with its sign).


@njit(cache=True, inline="always")
def f32_to_f16_bits_round(f):
    """float32 -> float16 bits, round to nearest, ties away from zero (CAST_ROUND).

    Branch-free, every integer step in 32 bits, so that loops over it vectorise at full width
    (0.39 ns an element in the hot loop of HardSwish's 950 float16 stream, against 0.73 with a
    branch on a variable shift; bench/RESULTS.md, castround).
    """
    u = np.float32(f).view(np.uint32)
    sign = np.uint32(np.uint32(u >> np.uint32(16)) & np.uint32(0x8000))
    a = np.uint32(u & np.uint32(0x7FFFFFFF))
    # Normal results: rebias (127 -> 15) and add half of the last kept bit
    # (0x1000 of the 13 dropped ones): the sum carries exactly when the first
    # dropped bit is 1. A carry out of the mantissa bumps the exponent; from
    # 65520 (half-way between 65504 and 2^16) on it reaches the inf pattern.
    normal = np.uint32(np.uint32(np.uint32(a - np.uint32(112 << 23)) + np.uint32(0x1000)) >> np.uint32(13))
    # Subnormal results (|f| < 2^-14): adding 0.5 puts the quantum 2^-24 at the
    # sum's last bit, so the float32 addition rounds |f| to nearest even there
    # (as f32_to_f16_bits_soft). A tie it rounded down leaves |f| exactly 2^-25
    # above the result's value (both exact: the difference of two floats
    # within a factor of 2, or |f| itself): add the 1 that ties away want.
    mag = a.view(np.float32)
    sub = np.uint32(np.float32(mag + np.float32(0.5)).view(np.uint32) - np.uint32(0x3F000000))
    back = np.float32(np.float32(np.int32(sub)) * np.float32(2.0 ** -24))
    sub = np.uint32(sub + np.uint32(1)) if mag - back == np.float32(2.0 ** -25) else sub
    res = normal if a >= np.uint32(0x38800000) else sub
    # >= 2^16: inf; NaN stays a quiet NaN
    top = np.uint32(0x7E00) if a > np.uint32(0x7F800000) else np.uint32(0x7C00)
    res = top if a >= np.uint32(0x47800000) else res
    return np.uint16(np.uint32(res | sign))


@njit(cache=True, inline="always")
def f32_to_bf16_bits_round(f):
    """float32 -> bfloat16 bits, round to nearest, ties away from zero (CAST_ROUND)."""
    u = np.float32(f).view(np.uint32)
    if (u & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000):  # NaN -> quiet NaN
        return np.uint16((u >> np.uint32(16)) | np.uint32(0x40))
    # Add half of the last kept bit: the sum carries into bit 16 exactly when
    # the first dropped bit is 1; past the largest finite it lands on inf.
    return np.uint16((u + np.uint32(0x8000)) >> np.uint32(16))


_F16_CODE = FLOAT16.code


@njit(cache=True, inline="always")
def widen_16(bits, dtype_code):
    """The float32 of 16-bit ``bits`` of the dtype with code ``dtype_code``
    (float16's, else bfloat16's), exactly: the kernels' first Cast, which the
    16-bit tables are indexed by."""
    if dtype_code == _F16_CODE:
        return f16_bits_to_f32(bits)
    return bf16_bits_to_f32(bits)


@njit(cache=True, inline="always")
def rint_16_widened(f, dtype_code):
    """``f`` narrowed to the 16-bit dtype ``dtype_code`` to nearest even and widened back, exactly: the bits of
    ``widen_16(CAST_RINT(f))`` in Inf/NaN mode for every float32 (a NaN: the dtype's quiet NaN of its sign,
    float16's 0x7E00 widened, or bfloat16's top half with its quiet bit set). In 32-bit steps with the NaN taken
    by a select, so that a loop of it vectorises (the composed conversions, with their 16-bit steps and NaN
    branch, run a lane at a time)."""
    u = np.float32(f).view(np.uint32)
    if dtype_code == _F16_CODE:
        if not HARDWARE_F16:
            return f16_bits_to_f32(f32_to_f16_bits(f))
        kept = np.float32(half_bits_to_f32(f32_to_half_bits(np.float32(f)))).view(np.uint32)
        nan = np.uint32(np.uint32(u & np.uint32(0x80000000)) | np.uint32(0x7FC00000))
    else:
        up = np.uint32(np.uint32(u + np.uint32(0x7FFF)) + np.uint32(np.uint32(u >> np.uint32(16)) & np.uint32(1)))
        kept = np.uint32(up & np.uint32(0xFFFF0000))
        nan = np.uint32(np.uint32(u & np.uint32(0xFFFF0000)) | np.uint32(0x00400000))
    return np.uint32(nan if f != f else kept).view(np.float32)


@njit(cache=True, inline="always")
def widen_16_quieting(bits, dtype_code):
    """:func:`widen_16`'s float32 for every pattern but a float16 signalling NaN, which may come back
    quieted (the CPU's conversion alone, without :func:`f16_bits_to_f32`'s undoing of it; a NaN either
    way): for a loop that sets every NaN apart (:mod:`swishgrad_numba.engine.hot_source`)."""
    if dtype_code == _F16_CODE:
        return _f16_bits_to_f32_cpu(bits)
    return bf16_bits_to_f32(bits)


@njit(cache=True, inline="always")
def narrow_rint_not_nan(f, dtype_code):
    """CAST_RINT's 16-bit bits (:func:`f32_to_f16_bits`, :func:`f32_to_bf16_bits`) for every float32 ``f``
    that is not a NaN; a NaN gives unspecified bits (the conversions without their NaN test): for a loop
    that sets every NaN apart (:mod:`swishgrad_numba.engine.hot_source`)."""
    if dtype_code == _F16_CODE:
        return _f32_to_f16_bits_cpu(f)
    return _bf16_rint_not_nan(np.float32(f).view(np.uint32))



# --------------------------------------------------------------------------
# Directed narrowings (issue 43): CAST_FLOOR, CAST_CEIL, CAST_TRUNC, CAST_ODD.
# --------------------------------------------------------------------------
# Each is the float32's magnitude truncated to the 16-bit dtype (toward
# zero), plus one unit in the last place where dropped bits were nonzero and
# the mode moves away from zero: FLOOR for negatives, CEIL for positives,
# never for TRUNC; ODD sets the last bit instead (round to odd: the
# neighbour whose last bit is 1). Adding one to the magnitude bits carries
# into the exponent, and from the largest finite onto inf. A finite value
# past the largest finite truncates to it, inexactly: so past the range
# TRUNC and ODD give the largest finite, FLOOR -inf / +max, CEIL -max /
# +inf (IEEE 754's directed-rounding overflow; docs/model.md). inf stays
# inf, NaN becomes the quiet NaN of CAST_RINT, a zero result keeps the sign.
# The device's overflow is not public: ``how`` + 4 (:data:`INF_OVERFLOW`) takes
# the alternative, every overflow to inf as CAST_RINT's (Platform.cast_overflow
# "inf"). Overflow is a result past the largest finite once rounded with an
# unbounded exponent: float16 from 2^16 on, in every mode; a bfloat16 never
# overflows toward zero (float32's largest truncates to bfloat16's largest).

#: The directed modes, in the index the functions below take.
DIRECTED_MODES = ("CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC", "CAST_ODD")
#: Added to a directed mode's index: every overflow gives inf (``cast_overflow="inf"``).
INF_OVERFLOW = 4


@njit(cache=True, inline="always")
def _directed(t, inexact, negative, how):
    """Truncated magnitude bits ``t`` moved per mode ``how`` (index in DIRECTED_MODES)."""
    if how == 3:
        return t | np.uint32(inexact)
    away = (how == 0 and negative) or (how == 1 and not negative)
    return t + np.uint32(inexact and away)


@njit(cache=True, inline="always")
def f32_to_f16_bits_directed(f, how):
    """float32 -> float16 bits, rounded per ``DIRECTED_MODES[how % 4]``, overflow to inf from ``how`` 4 on."""
    u = np.float32(f).view(np.uint32)
    sign = np.uint32((u >> np.uint32(16)) & np.uint32(0x8000))
    a = u & np.uint32(0x7FFFFFFF)
    if a > np.uint32(0x7F800000):
        return np.uint16(sign | np.uint32(0x7E00))
    if a == np.uint32(0x7F800000):
        return np.uint16(sign | np.uint32(0x7C00))
    if a >= np.uint32(0x47800000):          # >= 2^16, finite: the largest finite, inexact
        if how >= INF_OVERFLOW:
            return np.uint16(sign | np.uint32(0x7C00))
        t = np.uint32(0x7BFF)
        inexact = True
    elif a >= np.uint32(0x38800000):        # normal result: rebias, drop 13 bits
        t = (a - np.uint32(112 << 23)) >> np.uint32(13)
        inexact = (a & np.uint32(0x1FFF)) != np.uint32(0)
    else:                                   # subnormal result: units of 2^-24
        e = np.int32(a >> np.uint32(23))
        t = np.uint32(0)
        inexact = a != np.uint32(0)
        if e > 0:
            m = (a & np.uint32(0x7FFFFF)) | np.uint32(0x800000)
            shift = np.int32(126) - e           # >= 14
            if shift < 32:
                t = m >> np.uint32(shift)
                inexact = (m & ((np.uint32(1) << np.uint32(shift)) - np.uint32(1))) != np.uint32(0)
    return np.uint16(_directed(t, inexact, sign != np.uint32(0), how % INF_OVERFLOW) | sign)


@njit(cache=True, inline="always")
def f32_to_bf16_bits_directed(f, how):
    """float32 -> bfloat16 bits, rounded per ``DIRECTED_MODES[how % 4]`` (no overflow toward zero: ``how`` 4
    on is the same)."""
    u = np.float32(f).view(np.uint32)
    a = u & np.uint32(0x7FFFFFFF)
    if a > np.uint32(0x7F800000):  # NaN -> quiet NaN
        return np.uint16((u >> np.uint32(16)) | np.uint32(0x40))
    sign = u & np.uint32(0x80000000)
    t = _directed(a >> np.uint32(16), (a & np.uint32(0xFFFF)) != np.uint32(0), sign != np.uint32(0),
                  how % INF_OVERFLOW)
    return np.uint16(t | (sign >> np.uint32(16)))
