"""The LLVM intrinsics: a fused multiply-add rounds once; a prefetch changes nothing;
full-width vectorisation reaches the CPU's 512-bit registers."""
from fractions import Fraction

import numpy as np
import pytest
from llvmlite import binding as llvm
from numba import config, njit
from numba.core.errors import TypingError

from swishgrad_numba.intrinsics import (GATHER_LANES, fma_f64, gather_lanes, prefetch_write,
                                        vectorise_full_width)


@njit
def _fma(a, b, c):
    return fma_f64(a, b, c)


def _exact_fma(a, b, c):
    """a*b + c rounded once to binary64, from exact rational arithmetic."""
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    return float(exact)  # Fraction -> float rounds to nearest, ties to even


@pytest.mark.parametrize("a, b, c", [
    (1.0 + 2.0 ** -30, 1.0 - 2.0 ** -30, -1.0),     # separate rounding gives 0, fused -2**-60
    (0.1, 10.0, -1.0),
    (1.0 + 2.0 ** -52, 1.0 + 2.0 ** -52, -(1.0 + 2.0 ** -51)),
    (3.0, 1.0 / 3.0, -1.0),
    (-2.5, 4.0, 10.0),
])
def test_fma_rounds_once(a, b, c):
    assert _fma(a, b, c) == _exact_fma(a, b, c)


def test_fma_differs_from_multiply_then_add():
    a, b, c = 1.0 + 2.0 ** -30, 1.0 - 2.0 ** -30, -1.0
    assert a * b + c == 0.0
    assert _fma(a, b, c) == -(2.0 ** -60)


def test_fma_random_against_exact():
    rng = np.random.default_rng(7)
    a, b, c = (rng.standard_normal(2000) * 10.0 ** rng.integers(-5, 5, 2000) for _ in range(3))
    got = np.array([_fma(*t) for t in zip(a, b, c)])
    want = np.array([_exact_fma(*t) for t in zip(a, b, c)])
    assert (got.view(np.uint64) == want.view(np.uint64)).all()


def test_fma_special_values():
    assert np.isnan(_fma(np.nan, 1.0, 1.0))
    assert _fma(np.inf, 2.0, 1.0) == np.inf
    assert np.isnan(_fma(np.inf, 0.0, 1.0))


@njit
def _touch_every_line(arr):
    for i in range(0, arr.size, 8):
        prefetch_write(arr, i)
    return arr.sum()


def test_prefetch_leaves_data_alone():
    arr = np.arange(1000, dtype=np.float32)
    before = arr.copy()
    assert _touch_every_line(arr) == before.sum()
    assert (arr == before).all()


def test_prefetch_rejects_non_arrays():
    @njit
    def bad(v):
        prefetch_write(v, 0)

    with pytest.raises(TypingError):
        bad(1.0)


def test_prefetch_rejects_non_contiguous_and_2d_arrays():
    @njit
    def on(a):
        prefetch_write(a, 0)

    with pytest.raises(TypingError):
        on(np.zeros(8, np.float32)[::2])
    with pytest.raises(TypingError):
        on(np.zeros((2, 2), np.float32))


def _compiles_for_avx512():
    features = config.CPU_FEATURES or llvm.get_host_cpu_features().flatten()
    return "+avx512f" in features.split(",")


def _vector_loop_asm(jitted, *args):
    jitted(*args)
    (asm,) = jitted.inspect_asm().values()
    return asm


@pytest.mark.skipif(not _compiles_for_avx512(), reason="the compile target has no 512-bit registers")
def test_full_width_vectorisation_reaches_512_bit_registers():
    # Uncached, so that the machine code can be inspected.
    @njit(error_model="numpy")
    def scale(src, dst):
        vectorise_full_width()
        for i in range(src.shape[0]):
            dst[i] = src[i] * 2.0 + 1.0

    src = np.arange(1000, dtype=np.float64)
    dst = np.empty_like(src)
    assert "zmm" in _vector_loop_asm(scale, src, dst)
    np.testing.assert_array_equal(dst, src * 2.0 + 1.0)


@njit
def _gather_all(table, src, dst):
    for i in range(0, src.shape[0] - GATHER_LANES + 1, GATHER_LANES):
        gather_lanes(table, src, i, dst, i)


@pytest.mark.parametrize("dtype", [np.float32, np.uint16])
def test_gather_lanes_reads_every_pattern(dtype):
    """Every 16-bit index, in an order that mixes them, reads its table entry (NumPy's indexing). A uint16
    table holds one entry more (its 32-bit reads of entry 65,535 reach it), which no index reads."""
    rng = np.random.default_rng(7)
    entries = rng.integers(0, 65536, 65536)
    table = entries.astype(dtype) if dtype == np.float32 else np.append(entries, 0xBEEF).astype(dtype)
    src = rng.permutation(65536).astype(np.uint16)
    dst = np.zeros(65536, dtype=dtype)
    _gather_all(table, src, dst)
    assert np.array_equal(dst, entries[src].astype(dtype))


def test_gather_lanes_keeps_each_uint16_entry_apart_from_the_next():
    """Neighbouring entries of a uint16 table, each read by its own lane: a lane keeps its own 2 bytes of the
    word it reads (every pair of neighbours differs in both bytes)."""
    table = (np.arange(65537, dtype=np.uint32) * 0x0101 + 0x1234).astype(np.uint16)
    src = np.arange(65535, 65535 - 64, -1, dtype=np.uint16)
    dst = np.zeros(64, dtype=np.uint16)
    _gather_all(table, src, dst)
    assert np.array_equal(dst, table[src.astype(np.int64)])


@njit
def _gather_at(table, src, src_at, dst, dst_at):
    gather_lanes(table, src, src_at, dst, dst_at)


def test_gather_lanes_writes_its_lanes_only():
    table = np.arange(65536, dtype=np.float32) * np.float32(2)
    src = np.arange(40, dtype=np.uint16) * np.uint16(1000)
    dst = np.full(40, -1.0, dtype=np.float32)
    _gather_at(table, src, 3, dst, 5)
    want = np.full(40, -1.0, dtype=np.float32)
    want[5:5 + GATHER_LANES] = table[src[3:3 + GATHER_LANES]]
    assert np.array_equal(dst, want)


def test_gather_lanes_rejects_other_types():
    with pytest.raises(TypingError):
        _gather_at(np.zeros(65536, np.float64), np.zeros(16, np.uint16), 0, np.zeros(16, np.float32), 0)
    with pytest.raises(TypingError):      # a float32 table into uint16, a uint16 one into float32
        _gather_at(np.zeros(65536, np.float32), np.zeros(16, np.uint16), 0, np.zeros(16, np.uint16), 0)
    with pytest.raises(TypingError):
        _gather_at(np.zeros(65537, np.uint16), np.zeros(16, np.uint16), 0, np.zeros(16, np.float32), 0)
    with pytest.raises(TypingError):
        _gather_at(np.zeros(65536, np.float32), np.zeros(16, np.int32), 0, np.zeros(16, np.float32), 0)
