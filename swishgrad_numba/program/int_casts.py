"""Casts between the float and the integer dtypes in the round modes Cast lists for them (issue 43).

What each computes is defined here once (:func:`f32_to_int`, :func:`int_to_f32`, :func:`int_to_f16_bits`,
:func:`f32_to_whole`, with the sources of the modes and the pairs); the float16 and bfloat16 roundings they end
in are :mod:`swishgrad_numba.casts`'. Also here: which (dst, src, mode) a program may name
(:data:`ROUNDED_INT_CASTS`, asc-devkit's Cast page, Table 4, for the A2), the per-element functions the engine
and its tables call, and how a step names them (:func:`call`, :func:`engine_mode`).

- float32, float16 (and bfloat16 to int32) to int32 / int16 / int8 / uint8: the source's exact value rounded
  to a whole number by the mode, saturated to the integer's range (the Cast page's default; a lowered mode
  ending ``_WRAP``, ``Platform.cast_int_overflow`` "wrap": its low bits); +-inf give the bound of their sign,
  NaN gives 0. Integers never saturate further in saturation mode.
- int32 to float32 and int16 to float16 by the mode (CAST_NONE: CAST_RINT, the RoundMode page's rule where
  precision is lost); int16 to float32 exactly.

An int16 is held as its 16 bits (:data:`.isa.BITS_DTYPE`: what And, Or and Reinterpret act on): a Cast to
int16 writes its value's bits (:func:`int16_bits`), a Cast from int16 reads the value of its bits
(:func:`int16_value`), in the engine and its tables alike.

The earlier integer Casts (CAST_NONE int32 -> float32, float16 <-> int8: :func:`.semantics.cast_i32_f32`,
:func:`.semantics.cast_f16_i8`, :func:`.semantics.cast_i8_f16`) and the mask Casts (:mod:`.semantics`, "mask
arithmetic") keep their own paths; they compute the same values as these.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..casts import f32_to_f16_bits, f32_to_f16_bits_directed, f32_to_f16_bits_round, widen_16
from ..dtypes import dtype_info

# asc-devkit docs/api/context/Cast.md (cannmirror/asc-devkit 0a2e47c1), Table 4 "Atlas A2 ... Cast" (its
# line 448 on): float/half/bfloat16_t -> int32_t, float/half -> int16_t, half -> int8_t/uint8_t in
# CAST_RINT/CAST_FLOOR/CAST_CEIL/CAST_ROUND/CAST_TRUNC (half -> int8_t/uint8_t also CAST_NONE), int32_t -> float
# and int16_t -> half in those five and CAST_NONE, int16_t -> float CAST_NONE. Table 1 (its line 104 on): a
# value past the integer's range saturates ("溢出默认按照饱和处理", by default). NaN is not public for the
# A2; the 950's conversions give 0 in both their modes (asc-devkit 0da921b9,
# docs/zh/api/SIMD-API/C-API/reg/data_type_convert/rounding_mode.md, lines 141 and 210), which the model
# takes. The round rules are Cast.md's (lines 94-99): ROUND rounds
# half away from zero, TRUNC toward zero, FLOOR/CEIL toward -inf/+inf, RINT to nearest even. ``wrap``: the
# alternative (Platform.cast_int_overflow "wrap"), the 950's documented non-saturating rule
# (the same page, lines 138-141):
# an out-of-range whole number keeps its low bits, +-inf still give the bounds, NaN 0.

#: The modes of a Cast to or from an integer dtype, in the index the functions below take.
INT_ROUNDINGS = ("CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC")


@njit(cache=True, inline="always")
def whole_f64(x, how):
    """``x`` (a float64 holding a float32: exact) rounded to a whole number per ``INT_ROUNDINGS[how]``, the
    sign kept (-0.3 gives -0.0; the directed modes as IEEE 754's roundToIntegral), +-inf and NaN as they are.
    ROUND's ``|x| + 0.5`` is exact in float64 (a float32 has 24 bits), so 0.49999997 gives 0, not 1."""
    if how == 0:
        return np.rint(x)
    if how == 1:
        return np.floor(x)
    if how == 2:
        return np.ceil(x)
    if how == 3:
        return np.copysign(np.floor(np.abs(x) + 0.5), x)
    return np.trunc(x)


@njit(cache=True, inline="always")
def f32_to_whole(f, how):
    """The float32 ``f`` rounded to a whole float32 per ``INT_ROUNDINGS[how]`` (``Cast<float, float>``, issue
    43): exact (a whole number of a float32's magnitude is a float32; from 2^23 on every float32 is whole);
    +-0, +-inf and NaN as they are, a negative number rounded to zero is -0.0."""
    if f != f:
        return f
    return np.float32(whole_f64(np.float64(f), how))


@njit(cache=True, inline="always")
def f32_to_int(f, how, lo, hi, wrap):
    """The float32 ``f`` (a 16-bit value widened exactly) rounded to a whole number per ``INT_ROUNDINGS[how]``,
    saturated to ``[lo, hi]`` (an int64), or where ``wrap`` its low bits in that range; NaN gives 0, +-inf the
    bound of its sign."""
    if f != f:
        return np.int64(0)
    r = whole_f64(np.float64(f), how)
    if wrap and np.abs(r) != np.inf:
        if np.abs(r) >= 9.223372036854775808e18:    # from 2^63 on a float32 is a multiple of 2^40: low bits 0
            return np.int64(0)
        span = np.int64(hi) - np.int64(lo) + np.int64(1)
        return (np.int64(r) - np.int64(lo)) % span + np.int64(lo)
    return np.int64(min(max(r, np.float64(lo)), np.float64(hi)))


@njit(cache=True, inline="always")
def int_to_f32(i, how):
    """The integer ``i`` (|i| <= 2^31) as float32, rounded per ``INT_ROUNDINGS[how]``: the two float32
    neighbours of |i| and the mode's pick (ROUND: the nearer, a tie away from zero)."""
    a = np.float64(abs(np.int64(i)))
    n = np.float32(a)          # to nearest even
    mag = n
    if how != 0 and np.float64(n) != a:
        bits = n.view(np.uint32)
        up, down = n, np.uint32(bits - np.uint32(1)).view(np.float32)
        if np.float64(n) < a:
            up, down = np.uint32(bits + np.uint32(1)).view(np.float32), n
        negative = i < 0
        if how == 3:
            away = a - np.float64(down) >= np.float64(up) - a
        else:
            away = (how == 1 and negative) or (how == 2 and not negative)
        mag = up if away else down
    return -mag if i < 0 else mag


@njit(cache=True, inline="always")
def int_to_f16_bits(i, how):
    """The integer ``i`` (|i| <= 2^24: exact in float32) as float16 bits, rounded per ``INT_ROUNDINGS[how]``."""
    f = np.float32(i)
    if how == 0:
        return f32_to_f16_bits(f)
    if how == 3:
        return f32_to_f16_bits_round(f)
    return f32_to_f16_bits_directed(f, 2 if how == 4 else how - 1)    # FLOOR, CEIL, TRUNC: DIRECTED_MODES

__all__ = ["ROUNDED_INT_CASTS", "UNMODELLED_CASTS", "INT_RANGES", "cast_to_int", "cast_int_to_f32", "cast_int_to_16", "call",
           "engine_mode", "TO_INT_KINDS", "FROM_INT_KINDS", "TO_INT_MODES", "FROM_INT_MODES", "int16_bits",
           "int16_value"]

_FIVE = INT_ROUNDINGS
#: (dst, src) -> the round modes a Cast between them may name (asc-devkit docs/api/context/Cast.md, Table 4,
#: its line 448 on; int64_t and int4b_t are not program dtypes, nor int32_t -> half, which needs SetDeqScale).
ROUNDED_INT_CASTS = {
    ("int32", "float32"): _FIVE, ("int16", "float32"): _FIVE,
    ("int32", "float16"): _FIVE, ("int16", "float16"): _FIVE,
    ("int8", "float16"): _FIVE + ("CAST_NONE",), ("uint8", "float16"): _FIVE + ("CAST_NONE",),
    ("int32", "bfloat16"): _FIVE,
    ("float32", "int32"): _FIVE + ("CAST_NONE",), ("float16", "int16"): _FIVE + ("CAST_NONE",),
    ("float32", "int16"): ("CAST_NONE",),
}
#: Issue 43: the A2 pairs between program dtypes that Cast.md lists (0da921b9, ``docs/zh/api/SIMD-API/基础API/
#: Memory矢量计算/类型转换/Cast.md`` lines 180-212) and the form does not model, (dst, src) -> why. Pairs with
#: int64_t, int4b_t or uint16_t are not program dtypes.
UNMODELLED_CASTS = {
    ("int16", "int32"): "an integer to integer Cast (the A2 lists CAST_NONE) is not modelled: what a value past "
                        "int16's range gives (saturated, or its low bits) is not stated for it on the page read",
    ("float16", "int32"): "its scale comes from SetDeqScale (a register the program form does not hold); roundMode "
                          "has no effect there",
}
#: Each integer dtype's range (a result past it saturates).
INT_RANGES = {"int32": (-2 ** 31, 2 ** 31 - 1), "int16": (-2 ** 15, 2 ** 15 - 1), "int8": (-128, 127),
              "uint8": (0, 255)}
#: The engine's CAST_TO_INT mode: ``how + 8 * dst + 64 * src + 256 * wrap``, ``dst`` in TO_INT_KINDS[0], ``src``
#: in [1], ``wrap`` 1 where out-of-range results keep their low bits (Platform.cast_int_overflow "wrap").
TO_INT_KINDS = (("int32", "int16", "int8", "uint8"), ("float32", "float16", "bfloat16"))
#: The engine's CAST_FROM_INT mode: ``how + 8 * kind``, ``kind`` the (dst, src) in FROM_INT_KINDS.
FROM_INT_KINDS = (("float32", "int32"), ("float16", "int16"), ("float32", "int16"))


def _how(mode: str) -> int:
    return INT_ROUNDINGS.index("CAST_RINT" if mode == "CAST_NONE" else mode)


def _split(mode: str) -> tuple:
    """A lowered step's mode as (the Cast's mode, whether out-of-range results wrap: ``_WRAP``, .lower)."""
    return (mode[:-5], True) if mode.endswith("_WRAP") else (mode, False)


@njit(cache=True, error_model="numpy", inline="always")
def cast_to_int(v, src_code, how, lo, hi, wrap):
    """The integer (an int64) of a float32 ``v`` (``src_code`` < 0) or of 16-bit bits ``v`` of dtype code
    ``src_code``, by ``INT_ROUNDINGS[how]``, saturated to ``[lo, hi]`` (``wrap``: its low bits)."""
    f = np.float32(v) if src_code < 0 else widen_16(np.uint16(v), src_code)
    return f32_to_int(f, how, lo, hi, wrap)


@njit(cache=True, error_model="numpy", inline="always")
def cast_int_to_f32(i, how):
    """An integer as float32 by ``INT_ROUNDINGS[how]`` (finite: nothing saturates)."""
    return int_to_f32(i, how)


@njit(cache=True, error_model="numpy", inline="always")
def cast_int_to_16(i, how):
    """An int16 as float16 bits by ``INT_ROUNDINGS[how]`` (finite: nothing saturates)."""
    return int_to_f16_bits(i, how)


@njit(cache=True, error_model="numpy", inline="always")
def int16_bits(i):
    """An int16's value (-32768..32767) as the 16 bits it is held as (a uint16: two's complement)."""
    return np.uint16(np.int64(i) & np.int64(0xFFFF))


@njit(cache=True, error_model="numpy", inline="always")
def int16_value(bits):
    """The value (an int64, -32768..32767) of an int16 held as its 16 bits (a uint16, or a row's number)."""
    b = np.int64(bits)
    return b - np.int64(65536) if b >= np.int64(32768) else b


_NP = {"int32": "np.int32", "int8": "np.int8", "uint8": "np.uint8"}


def call(dst: str, src: str, mode: str, arg: str) -> str | None:
    """The expression of a Cast from ``src`` to ``dst`` in ``mode`` on the variable ``arg`` (a float32, 16-bit
    bits or an integer of its dtype), or None where it is not one of :data:`ROUNDED_INT_CASTS`."""
    mode, wrap = _split(mode)
    if mode not in ROUNDED_INT_CASTS.get((dst, src), ()):
        return None
    how = _how(mode)
    if dst in INT_RANGES:
        code = -1 if src == "float32" else dtype_info(src).code
        lo, hi = INT_RANGES[dst]
        value = f"cast_to_int({arg}, {code}, {how}, {lo}, {hi}, {wrap})"
        return f"int16_bits({value})" if dst == "int16" else f"{_NP[dst]}({value})"
    if src == "int16":        # held as its bits: the Cast reads its value
        arg = f"int16_value({arg})"
    if dst == "float16":
        return f"cast_int_to_16({arg}, {how})"
    return f"cast_int_to_f32({arg}, {how})"


def engine_mode(dst: str, src: str, mode: str):
    """The engine's (opcode name, mode) for the Cast, or None where it is not one of :data:`ROUNDED_INT_CASTS`."""
    mode, wrap = _split(mode)
    if mode not in ROUNDED_INT_CASTS.get((dst, src), ()):
        return None
    how = _how(mode)
    if dst in INT_RANGES:
        return "CAST_TO_INT", how + 8 * TO_INT_KINDS[0].index(dst) + 64 * TO_INT_KINDS[1].index(src) + 256 * wrap
    return "CAST_FROM_INT", how + 8 * FROM_INT_KINDS.index((dst, src))


#: The modes each engine opcode may carry (:func:`swishgrad_numba.engine.stream.check`).
TO_INT_MODES = frozenset(engine_mode(d, s, m + w)[1] for (d, s), ms in ROUNDED_INT_CASTS.items() for m in ms
                         for w in ("", "_WRAP") if d in INT_RANGES)
FROM_INT_MODES = frozenset(engine_mode(d, s, m)[1] for (d, s), ms in ROUNDED_INT_CASTS.items() for m in ms
                           if d not in INT_RANGES)
