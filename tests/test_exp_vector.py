"""swishgrad_numba.kernel.exp_vector: the hot tier's AVX-512 Exp loop against the correctly rounded binary32
e**t of tests/reference.py (binary64 exp rounded once, decided in decimal near a rounding boundary), on
sampled inputs and the specials, 8 elements a call as the hot tier's flags need: every element of a call
that returns False, and not below -87 (which the hot tier flags from its argument loop), must be correctly
rounded. All 2**32 inputs: tests/test_exp_exhaustive.py. The target check that decides whether the hot tier
uses it; the hot tier with it and without: tests/test_engine_hot.py."""
from __future__ import annotations

import platform

import numpy as np
import pytest
from numba import njit

from reference import SPECIALS, assert_bits_equal, ref_exp_f32
from swishgrad_numba.kernel import exp_vector
from swishgrad_numba.kernel.exp import LOW_BITS, T_HI

needs_avx512 = pytest.mark.skipif(not exp_vector.VECTOR_EXP, reason="the compile target has no AVX-512F")
#: An input whose fast value lies in the guard band (exp_fast's and the vector loop's).
IN_BAND = np.uint32(0x3F95F6B1).view(np.float32)


@njit(cache=True, error_model="numpy")
def _by_eights(src, dst, flags):
    for c in range(flags.size):
        flags[c] = exp_vector.exp_rows(src[8 * c:8 * c + 8], dst[8 * c:8 * c + 8], min(8, src.size - 8 * c))


@njit(cache=True, error_model="numpy")
def _rows(src, dst):
    return exp_vector.exp_rows(src, dst, src.size)


def _exp_by_eights(t):
    """The hot tier's view of the vector loop: (results, flagged per element), the argument clamped as the
    hot tier hands it over (``min(t, 100)``, NaN passing)."""
    got = np.empty_like(t)
    flags = np.zeros(-(-t.size // 8), np.bool_)
    _by_eights(np.where(t > T_HI, T_HI, t), got, flags)
    return got, np.repeat(flags, 8)[:t.size]


@needs_avx512
def test_unflagged_results_are_correctly_rounded():
    rng = np.random.default_rng(3901)
    t = np.concatenate([rng.integers(0, 1 << 32, 100_000, dtype=np.uint64).astype(np.uint32).view(np.float32),
                        rng.uniform(-88.0, 89.0, 200_000).astype(np.float32),
                        rng.uniform(-1e-3, 1e-3, 20_000).astype(np.float32), SPECIALS.astype(np.float32),
                        np.array([0x7F800001, 0x7FC01234, 0x7FFFFFFF, 1, 0x00800000], np.uint32).view(np.float32),
                        np.float32([88.72283, 88.72284, 100.0, 101.0, -87.0, IN_BAND])])
    got, flagged = _exp_by_eights(t)
    checked = ~flagged & (t.view(np.uint32) <= LOW_BITS)
    assert checked.sum() > 0.99 * np.count_nonzero(t.view(np.uint32) <= LOW_BITS)
    with np.errstate(invalid="ignore"):        # the signalling NaNs widened
        want = ref_exp_f32(t[checked])
    assert_bits_equal(got[checked], want)


@needs_avx512
def test_a_guard_band_element_flags_its_call_in_the_lanes_and_the_tail():
    calm = np.random.default_rng(3902).uniform(-10.0, 10.0, 1003).astype(np.float32)
    got = np.empty_like(calm)
    assert not _rows(calm, got)
    assert_bits_equal(got, ref_exp_f32(calm))
    for at in (5, 1000):                   # in the 8-lane steps, in the last 1003 % 8 elements
        t = calm.copy()
        t[at] = IN_BAND
        assert _rows(t, got)


def test_the_target_check_reads_numbas_cpu_settings():
    x86 = platform.machine().lower() in ("x86_64", "amd64")
    assert exp_vector.compiles_avx512f(None, "+sse2,+avx2,+avx512f,+avx512dq") == x86
    assert not exp_vector.compiles_avx512f(None, "+sse2,+avx2,-avx512f")
    assert not exp_vector.compiles_avx512f(None, "")
    assert not exp_vector.compiles_avx512f("generic", None)      # numba.config: no features for generic
    assert exp_vector.compiles_avx512f("generic", "+avx512f") == x86


@njit(cache=True, error_model="numpy")
def _first(src, dst, n):
    return exp_vector.exp_rows(src, dst, n)


@needs_avx512
@pytest.mark.parametrize("n", [-1, 17, 40])
def test_a_count_past_either_row_stays_inside_both(n):
    rows = np.full(40, 7.0, np.float32)
    src, dst = rows[:16], rows[16:40]           # dst follows src in one buffer: a write past src's end shows
    src[:] = np.linspace(-3.0, 3.0, 16, dtype=np.float32)
    _first(src, dst, n)
    done = max(min(n, 16), 0)
    assert_bits_equal(dst[:done], ref_exp_f32(src[:done]))
    assert (dst[done:] == 7.0).all()
