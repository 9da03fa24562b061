"""The Ascend 950 kernel (model section 9) against the plain step-by-step reference, bit for bit.

The reference (tests/reference.py, ``ref_swish_grad_950``) computes
MulDstAdd as an exact fused multiply-add (rational arithmetic, one
rounding); everything else as in model section 2.
"""
import ml_dtypes
import numpy as np
import pytest
from reference import (DTYPES, assert_bits_equal, fma_f32_exact, random_inputs, ref_swish_grad,
                       ref_swish_grad_950)

import swishgrad_numba as sg
from swishgrad_numba.intrinsics import fma_f32

A950 = sg.ASCEND950_PLATFORM
BETAS = [1.0, 1.1, 0.0, -0.0, -1.0, -842.45, 878.97, -285.98646973440657, 1e-3, 2.5, np.inf, np.nan]


def test_seed_example():
    g = np.ones(6, np.float32)
    x = np.arange(1, 7, dtype=np.float32)
    out = sg.swish_backward(g, x, 1.1, platform=A950)
    assert_bits_equal(out, ref_swish_grad_950(g, x, 1.1))
    # the 950 rounds 1 + xs*(1-s) times s once, where the A2 rounds twice: x = 2 differs
    assert out[1] != sg.swish_backward(g, x, 1.1)[1]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("beta", BETAS, ids=str)
def test_random_and_special_inputs(dtype, beta):
    rng = np.random.default_rng(abs(hash(("950", dtype, str(beta)))) % 2**32)
    n = int(rng.integers(1, 6000))
    g, x = random_inputs(rng, n, dtype, 0.15)
    assert_bits_equal(sg.swish_backward(g, x, beta, platform=A950), ref_swish_grad_950(g, x, beta),
                      f"{dtype} beta={beta} n={n}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("beta", [1.0, -842.45, 878.97], ids=str)
def test_every_16_bit_x(dtype, beta):
    """All 65,536 x bit patterns, against the reference: with g = 1 the output is s'(x) rounded
    to the dtype; with a seeded g the whole sequence."""
    x = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(DTYPES[dtype])
    rng = np.random.default_rng(16)
    for g in (np.ones(65536, np.float32), rng.uniform(-5, 5, 65536).astype(np.float32)):
        g = g.astype(DTYPES[dtype])
        assert_bits_equal(sg.swish_backward(g, x, beta, platform=A950), ref_swish_grad_950(g, x, beta),
                          f"{dtype} beta={beta}")


def test_sign_of_zero_differs_from_the_a2():
    # beta*x far below zero: the sigmoid is 0. The A2 computes 0 * (1 + xs) = -0; the 950
    # computes (1 - 0) * xs * 0 + 0 = -0 + 0 = +0.
    g = np.ones(3, np.float32)
    x = np.array([-200.0, -1e4, -3e38], np.float32)
    a2 = sg.swish_backward(g, x)
    a950 = sg.swish_backward(g, x, platform=A950)
    assert np.all(a2 == 0) and np.all(np.signbit(a2))
    assert np.all(a950 == 0) and not np.any(np.signbit(a950))
    assert_bits_equal(a2, ref_swish_grad(g, x, 1.0))
    assert_bits_equal(a950, ref_swish_grad_950(g, x, 1.0))


# The operator's TTK kernel cases (ops-nn activation/swish_grad/tests/st/arch35): dtype, shape,
# scale and the value ranges of their inputs ("nan, nan": every element NaN; a list: uniform in
# the first two with the specials mixed in).
TTK_CASES = [
    ("swish_grad_fuzz_25", "float16", (13, 40), 1.0, (np.nan, np.nan)),
    ("swish_grad_fuzz_21", "float16", (19, 34), -842.4471245256836, (-1, 1)),
    ("swish_grad_fuzz_11", "float32", (31, 31, 32), 878.9714304813585, (-1, 1, np.nan, -0.0, np.inf)),
    ("swish_grad_fuzz_50", "float32", (8, 6), 1.0, (np.nan, np.nan)),
    ("swish_grad_fuzz_110", "bfloat16", (1,), -285.98646973440657, (np.nan, np.nan)),
]


def _ttk_input(rng, shape, ranges):
    low, high = ranges[0], ranges[1]
    if np.isnan(low):
        return np.full(shape, np.nan)
    values = rng.uniform(low, high, shape)
    specials = ranges[2:]
    if specials:
        pick = rng.random(shape) < 0.2
        values[pick] = rng.choice(np.array(specials, dtype=np.float64), pick.sum())
    return values


@pytest.mark.parametrize("case", TTK_CASES, ids=[c[0] for c in TTK_CASES])
def test_ttk_kernel_cases(case):
    name, dtype, shape, scale, ranges = case
    rng = np.random.default_rng(len(name) * 1009)
    g = _ttk_input(rng, shape, ranges).astype(np.float32).astype(DTYPES[dtype])
    x = _ttk_input(rng, shape, ranges).astype(np.float32).astype(DTYPES[dtype])
    assert_bits_equal(sg.swish_backward(g, x, scale, platform=A950), ref_swish_grad_950(g, x, scale), name)
    assert_bits_equal(sg.swish_backward(g, x, scale), ref_swish_grad(g, x, scale), name)


PLATFORMS_950 = [sg.Platform(soc_version="ascend950", core_num=c) for c in (1, 2, 3, 7, 64, 72)] + [
    sg.Platform(soc_version="Ascend950PR_9599", ub_size=u) for u in (245760, 16384, 1536)
]


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_same_bits_for_every_950_platform_and_thread_count(dtype):
    import numba

    rng = np.random.default_rng(950)
    g, x = random_inputs(rng, 200_003, dtype, 0.15)
    expected = sg.swish_backward(g, x, 1.7, platform=A950)
    assert_bits_equal(expected[:5000], ref_swish_grad_950(g[:5000], x[:5000], 1.7))
    saved = numba.get_num_threads()
    try:
        for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(threads)
            for platform in PLATFORMS_950:
                assert_bits_equal(sg.swish_backward(g, x, 1.7, platform=platform), expected, str(platform))
    finally:
        numba.set_num_threads(saved)


def test_fma_f32_rounds_once():
    from numba import njit

    @njit(cache=False)
    def fma_all(a, b, c, out):
        for i in range(a.size):
            out[i] = fma_f32(a[i], b[i], c[i])

    rng = np.random.default_rng(3)
    n = 20000
    a, b = (rng.standard_normal(n) * 10.0 ** rng.integers(-25, 25, n) for _ in range(2))
    # c near -a*b: cancellation, where one rounding and two differ most
    c = -(a * b) * (1 + rng.standard_normal(n) * 2.0 ** -20)
    c[::3] = rng.standard_normal(len(c[::3])) * 1e-40
    with np.errstate(over="ignore"):
        a, b, c = (v.astype(np.float32) for v in (a, b, c))
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 3.4e38], np.float32)
    a[:7], b[:7], c[:7] = specials, specials[::-1], specials[[1, 0, 3, 2, 4, 5, 6]]
    out = np.empty(n, np.float32)
    fma_all(a, b, c, out)
    expected = np.array([fma_f32_exact(*t) for t in zip(a, b, c)], np.float32)
    assert_bits_equal(out, expected)
    # and it is not Mul then Add
    with np.errstate(all="ignore"):
        assert np.count_nonzero(out != a * b + c) > 100


def test_the_reference_fma_is_exact():
    # 2**-24 steps: (1 + 2**-23) * (1 - 2**-23) = 1 - 2**-46 exactly; + (-1) rounds once to -2**-46.
    a, b = np.float32(1 + 2**-23), np.float32(1 - 2**-23)
    assert fma_f32_exact(a, b, np.float32(-1.0)) == np.float32(-(2.0**-46))
    assert np.float32(a * b) - np.float32(1.0) == 0          # two roundings lose it
    assert fma_f32_exact(np.float32(3e38), np.float32(2), np.float32(-3e38)) == np.float32(3e38)
    assert np.isinf(fma_f32_exact(np.float32(3e38), np.float32(3), np.float32(0)))
    assert fma_f32_exact(ml_dtypes.bfloat16(1), np.float32(1e-45), np.float32(0)) == np.float32(1e-45)
