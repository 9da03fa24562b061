"""A plain reference for the directed narrowings float32 -> float16/bfloat16 (issue 43): each 16-bit value as
an exact float64, the float32 placed between two neighbours by a search, the neighbour picked by the mode's
rule (FLOOR toward -inf, CEIL toward +inf, TRUNC toward zero, ODD the one whose last bit is 1)."""
import ml_dtypes
import numpy as np

MODES = ("CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC", "CAST_ODD")
#: dtype, inf bits, largest finite bits
DTYPES = {"float16": (np.dtype(np.float16), 0x7C00), "bfloat16": (np.dtype(ml_dtypes.bfloat16), 0x7F80)}


#: Where a 16-bit dtype's range ends for a rounding with an unbounded exponent: the power of two after the
#: largest finite (the next value that exponent would give).
PAST_MAX = {"float16": 2.0 ** 16, "bfloat16": 2.0 ** 128}


def directed_bits(src, dtype_name, mode, sat=False, overflow="ieee"):
    """The 16-bit bits of ``mode`` for each float32 of ``src``; saturation mode (``sat``): an inf result is
    the largest finite of its sign, NaN +0. A NaN is CAST_RINT's quiet NaN (float16 0x7E00 with the sign,
    bfloat16 the top half with bit 6 set). Overflow (``overflow``): "ieee" IEEE 754's directed rule (the
    neighbours of a value past the largest finite are the largest finite and inf); "inf" every magnitude
    whose rounding with an unbounded exponent is past the largest finite (from :data:`PAST_MAX` on) is inf."""
    src = np.asarray(src, np.float32)
    dtype, inf_bits = DTYPES[dtype_name]
    table = np.arange(inf_bits + 1, dtype=np.uint16).view(dtype).astype(np.float64)   # +0 .. +inf, increasing
    with np.errstate(invalid="ignore"):      # signalling NaNs among the sources
        x = src.astype(np.float64)
    nan = np.isnan(x)
    mag = np.where(nan, 0.0, np.abs(x))
    neg = np.signbit(src)
    low = np.searchsorted(table, mag, side="right") - 1     # the largest magnitude <= |x|
    exact = table[low] == mag
    up = np.minimum(low + 1, inf_bits)
    if mode == "CAST_TRUNC":
        k = low
    elif mode == "CAST_ODD":
        k = np.where(exact | (low % 2 == 1), low, up)
    else:
        away = neg if mode == "CAST_FLOOR" else ~neg
        k = np.where(exact | ~away, low, up)
    if overflow == "inf":
        k = np.where(mag >= PAST_MAX[dtype_name], inf_bits, k)
    elif overflow != "ieee":
        raise ValueError(overflow)
    if sat:
        k = np.where(k == inf_bits, inf_bits - 1, k)
    bits = (k | np.where(neg, 0x8000, 0)).astype(np.uint16)
    u = src.view(np.uint32)
    quiet = (u >> 16) | 0x40 if dtype_name == "bfloat16" else ((u >> 16) & 0x8000) | 0x7E00
    return np.where(nan, 0 if sat else quiet, bits).astype(np.uint16)
