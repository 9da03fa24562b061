"""The directed narrowings float32 -> float16/bfloat16 (CAST_FLOOR, CAST_CEIL, CAST_TRUNC, CAST_ODD, issue 43)
bit for bit against a plain reference: each 16-bit value as an exact float64, the float32 placed between two
neighbours by a search, the neighbour picked by the mode's rule. Sources: specials, ties, near-overflow,
subnormals of both widths and a million random bit patterns; saturation mode on top."""
import ml_dtypes
import numpy as np
import pytest
from numba import njit

from swishgrad_numba.dtypes import dtype_info
from swishgrad_numba.program import semantics as S

MODES = ("CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC", "CAST_ODD")
DTYPES = {"float16": (np.dtype(np.float16), 0x7C00), "bfloat16": (np.dtype(ml_dtypes.bfloat16), 0x7F80)}


@njit(cache=True)
def _run(src, code, sat, how, out):
    for i in range(src.size):
        f = src[i]
        if how == 0:
            out[i] = S.cast_floor(f, code, sat)
        elif how == 1:
            out[i] = S.cast_ceil(f, code, sat)
        elif how == 2:
            out[i] = S.cast_trunc(f, code, sat)
        else:
            out[i] = S.cast_odd(f, code, sat)


def _reference(src, dtype_name, mode, sat):
    """The mode's 16-bit bits of each float32 in ``src`` (NaN results returned as NaN markers)."""
    dtype, inf_bits = DTYPES[dtype_name]
    table = np.arange(inf_bits + 1, dtype=np.uint16).view(dtype).astype(np.float64)   # +0 .. +inf, increasing
    with np.errstate(invalid="ignore"):      # signalling NaNs among the sources
        x = src.astype(np.float64)
    mag = np.abs(x)
    neg = np.signbit(src)
    nan = np.isnan(x)
    low = np.searchsorted(table, np.where(nan, 0.0, mag), side="right") - 1   # largest magnitude <= |x|
    exact = table[low] == np.where(nan, 0.0, mag)
    up = np.minimum(low + 1, inf_bits)
    if mode == "CAST_TRUNC":
        k = low
    elif mode == "CAST_ODD":
        k = np.where(exact | (low % 2 == 1), low, up)
    else:
        away = neg if mode == "CAST_FLOOR" else ~neg
        k = np.where(exact | ~away, low, up)
    bits = (k | np.where(neg, 0x8000, 0)).astype(np.uint16)
    if sat:
        bits = np.where(k == inf_bits,   # saturation: an inf result (inf in too) is the largest finite
                         (bits & 0x8000) | (inf_bits - 1), bits).astype(np.uint16)
        bits = np.where(nan, 0, bits).astype(np.uint16)
    return bits, nan & (not sat)


def _sources():
    rng = np.random.default_rng(43)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, 65504.0, -65504.0, 65519.99,
                        65520.0, 65536.0, -65536.0, 3.4028235e38, -3.4028235e38, 1e-45, -1e-45, 1.1754942e-38,
                        2.0 ** -24, 2.0 ** -25, -2.0 ** -25, 2.0 ** -14, 2.0 ** -15, 0.5 + 2.0 ** -12,
                        0.5 + 2.0 ** -11 + 2.0 ** -12], np.float32)
    ties = []
    # float32 patterns with 0..2 low bits set around each dropped-bit boundary, in every binade
    hi = rng.integers(0, 1 << 16, 20000, dtype=np.uint32) << np.uint32(16)
    for low in (0, 1, 0x1000, 0x1001, 0x0FFF, 0x2000, 0x8000, 0x8001, 0x7FFF, 0xFFFF, 0xE000):
        ties.append(hi | np.uint32(low))
    near = (np.arange(-4096, 4096, dtype=np.int64) + 0x477FE000).astype(np.uint32)       # around 65504 .. 2^16
    near_bf = (np.arange(-4096, 4096, dtype=np.int64) + 0x7F7F8000).astype(np.uint32)    # around the bf16 max
    small = rng.integers(0, 0x39000000, 200000, dtype=np.uint32)                          # f16 subnormal range
    f32sub = rng.integers(0, 0x00800000, 20000, dtype=np.uint32)                          # float32 subnormals
    random = rng.integers(0, 1 << 32, 1_000_000, dtype=np.uint64).astype(np.uint32)
    pos = np.concatenate([special.view(np.uint32), *ties, near, near_bf, small, f32sub, random])
    return np.concatenate([pos, pos ^ np.uint32(0x80000000)]).view(np.float32)


SOURCES = _sources()


@pytest.mark.parametrize("sat", [False, True], ids=["inf", "sat"])
@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("mode", MODES)
def test_directed_narrowing(mode, dtype_name, sat):
    code = dtype_info(dtype_name).code
    out = np.empty(SOURCES.size, np.uint16)
    _run(SOURCES, code, sat, MODES.index(mode), out)
    ref, ref_nan = _reference(SOURCES, dtype_name, mode, sat)
    dtype, inf_bits = DTYPES[dtype_name]
    got_nan = ((out & 0x7FFF) > inf_bits)
    ok = np.where(ref_nan, got_nan & ((out & 0x8000) == (ref & 0x8000)), out == ref)
    if not ok.all():
        i = np.flatnonzero(~ok)[0]
        raise AssertionError(f"{int((~ok).sum())} differ; first float32 0x{int(SOURCES.view(np.uint32)[i]):08x}: "
                             f"0x{int(out[i]):04x}, expected 0x{int(ref[i]):04x}")
