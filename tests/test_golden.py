"""Tests of swishgrad_numba.golden: the two float32 NumPy groupings of the operator's golden."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from swishgrad_numba import golden
from swishgrad_numba.golden import atk_golden, numpy_golden, operator_test_golden

DTYPES = [np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)]
IDS = ["float32", "float16", "bfloat16"]
BETAS = [1.0, 1.1, -1.5, 0.3]


def bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.int32 if a.dtype.itemsize == 4 else np.int16)


def sample(dtype, n, seed):
    """Seeded values in [-5, 5] in ``dtype``, plus zeros, a NaN and infinities."""
    rng = np.random.default_rng(seed)
    v = rng.uniform(-5.0, 5.0, n)
    v[:5] = [0.0, -0.0, np.nan, np.inf, -np.inf]
    return v.astype(dtype)


def restated_terms(g, x, beta):
    """sig and f written out step by step from model section 1, in float32 (16-bit upcast exactly)."""
    g32 = g.astype(np.float32)
    b = np.float32(beta)
    bx = x.astype(np.float32) * b
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(np.negative(bx))
        sig = np.divide(np.float32(1.0), np.add(e, np.float32(1.0)))
        one_minus = np.subtract(np.float32(1.0), sig)
        f = np.add(np.float32(1.0), np.multiply(bx, one_minus))
    return g32, sig, f


def restated_atk(g, x, beta):
    g32, sig, f = restated_terms(g, x, beta)
    with np.errstate(over="ignore", invalid="ignore"):
        gs = np.multiply(g32, sig)
        return np.multiply(gs, f).astype(x.dtype)


def restated_operator_test(g, x, beta):
    g32, sig, f = restated_terms(g, x, beta)
    with np.errstate(over="ignore", invalid="ignore"):
        sf = np.multiply(sig, f)
        return np.multiply(g32, sf).astype(x.dtype)


@pytest.mark.parametrize("beta", BETAS)
@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_each_grouping_matches_its_restatement(dtype, beta):
    g = sample(dtype, 5000, seed=1)
    x = sample(dtype, 5000, seed=2)
    for fn, ref in ((atk_golden, restated_atk), (operator_test_golden, restated_operator_test)):
        out = fn(g, x, beta)
        assert out.dtype == dtype and out.shape == x.shape
        np.testing.assert_array_equal(bits(out), bits(ref(g, x, beta)))


def test_numpy_golden_is_the_atk_grouping():
    assert numpy_golden is atk_golden
    assert set(golden.__all__) == {"atk_golden", "float64_truth", "numpy_golden", "operator_test_golden"}


@pytest.mark.parametrize("beta", BETAS)
def test_groupings_differ_on_float32(beta):
    # Issue 12 section 8: (g * sig) * f and g * (sig * f) round differently.
    g = sample(np.float32, 20000, seed=3)[5:]
    x = sample(np.float32, 20000, seed=4)[5:]
    a = bits(atk_golden(g, x, beta)).astype(np.int64)
    b = bits(operator_test_golden(g, x, beta)).astype(np.int64)
    differ = a != b
    assert differ.sum() > 100, differ.sum()
    # Same sign, a few float32 ULPs apart (both are two roundings of the same product).
    assert np.abs(a - b).max() <= 4


@pytest.mark.parametrize("beta", BETAS)
@pytest.mark.parametrize("gvalue", [1.0, -1.0, 2.0, 0.5, -0.125, 0.0])
def test_groupings_agree_when_grad_scales_exactly(gvalue, beta):
    # Multiplying by 0 or a power of two is exact (no overflow or subnormal here),
    # so the order of the two products cannot matter.
    x = sample(np.float32, 20000, seed=5)
    g = np.full_like(x, gvalue)
    np.testing.assert_array_equal(bits(atk_golden(g, x, beta)), bits(operator_test_golden(g, x, beta)))


def test_rejects_bad_inputs():
    x = np.ones(3, np.float32)
    for fn in (atk_golden, operator_test_golden):
        with pytest.raises(TypeError, match="grad_output must be a numpy.ndarray, got list"):
            fn([1.0, 1.0, 1.0], x)
        with pytest.raises(TypeError, match="x.dtype must be float32, float16 or bfloat16, got float64"):
            fn(x, np.ones(3))
        with pytest.raises(TypeError, match="grad_output and x must have the same dtype"):
            fn(x.astype(np.float16), x)
        with pytest.raises(ValueError, match="grad_output and x must have the same shape"):
            fn(np.ones(4, np.float32), x)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_float64_truth_is_the_formula_in_float64(dtype):
    from reference import ref_float64_truth

    from swishgrad_numba.golden import float64_truth

    rng = np.random.default_rng(64)
    g = rng.uniform(-5, 5, 5000).astype(np.float32).astype(dtype)
    x = (rng.standard_normal(5000) * 30).astype(np.float32).astype(dtype)
    for beta in (1.0, 1.1, -842.45):
        truth = float64_truth(g, x, beta)
        assert truth.dtype == np.float64
        np.testing.assert_array_equal(truth, ref_float64_truth(g, x, beta))
    with pytest.raises(TypeError, match="x.dtype"):
        float64_truth(g, x.astype(np.float64))
