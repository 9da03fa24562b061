"""Casts between the float and the integer dtypes in the round modes Cast lists for them (issue 43).

What each computes is :mod:`swishgrad_numba.casts`' (:func:`~swishgrad_numba.casts.f32_to_int`,
:func:`~swishgrad_numba.casts.int_to_f32`, :func:`~swishgrad_numba.casts.int_to_f16_bits`: the one
definition, with the sources of the modes and the pairs). Here: which (dst, src, mode) a program may name
(:data:`ROUNDED_INT_CASTS`, asc-devkit's Cast page, Table 4, for the A2), the per-element functions the fused
passes, the engine and the tables call, and how a step names them (:func:`call`, :func:`engine_mode`).

- float32, float16 (and bfloat16 to int32) to int32 / int16 / int8 / uint8: the source's exact value rounded
  to a whole number by the mode, saturated to the integer's range (the Cast page's default; a lowered mode
  ending ``_WRAP``, ``Platform.cast_int_overflow`` "wrap": its low bits); +-inf give the bound of their sign,
  NaN gives 0. Integers never saturate further in saturation mode.
- int32 to float32 and int16 to float16 by the mode (CAST_NONE: CAST_RINT, the RoundMode page's rule where
  precision is lost); int16 to float32 exactly.

An int16 is held as its 16 bits (:data:`.isa.BITS_DTYPE`: what And, Or and Reinterpret act on): a Cast to
int16 writes its value's bits (:func:`int16_bits`), a Cast from int16 reads the value of its bits
(:func:`int16_value`), in the fused passes, the tables and the engine alike.

The earlier integer Casts (CAST_NONE int32 -> float32, float16 <-> int8, the mask Casts) keep their own
entries in :data:`.semantics.FUNCTIONS`; they compute the same values as these.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..casts import INT_ROUNDINGS, f32_to_int, int_to_f16_bits, int_to_f32, widen_16
from ..dtypes import dtype_info

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
    ``src_code``, by ``casts.INT_ROUNDINGS[how]``, saturated to ``[lo, hi]`` (``wrap``: its low bits)."""
    f = np.float32(v) if src_code < 0 else widen_16(np.uint16(v), src_code)
    return f32_to_int(f, how, lo, hi, wrap)


@njit(cache=True, error_model="numpy", inline="always")
def cast_int_to_f32(i, how):
    """An integer as float32 by ``casts.INT_ROUNDINGS[how]`` (finite: nothing saturates)."""
    return int_to_f32(i, how)


@njit(cache=True, error_model="numpy", inline="always")
def cast_int_to_16(i, how):
    """An int16 as float16 bits by ``casts.INT_ROUNDINGS[how]`` (finite: nothing saturates)."""
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
