"""Tests of swishgrad_numba.precision against plain references written from model section 7."""
from __future__ import annotations

import json
import math

import ml_dtypes
import numpy as np
import pytest

import swishgrad_numba as sg
from swishgrad_numba import precision as P
from swishgrad_numba.golden import numpy_golden
from reference import ref_float64_truth

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [np.dtype(np.float32), np.dtype(np.float16), BF16]
IDS = ["float32", "float16", "bfloat16"]
UINT = {2: np.uint16, 4: np.uint32}

# model section 7, written out again here (not imported).
SPEC_THRESHOLD = {"float32": 2.0 ** -13, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}
SMALLEST_NORMAL = {"float32": 2.0 ** -126, "float16": 2.0 ** -14, "bfloat16": 2.0 ** -126}
MANTISSA_BITS = {"float32": 23, "float16": 10, "bfloat16": 7}


def reference_metrics(out, golden, dtype_name):
    """MERE, MARE and verdict by a plain Python loop (all values finite)."""
    tiny = SMALLEST_NORMAL[dtype_name]
    rel = [abs(float(o) - float(g)) / max(abs(float(g)), tiny)
           for o, g in zip(np.asarray(out).ravel(), np.asarray(golden).ravel())]
    mere = math.fsum(rel) / len(rel)
    mare = max(rel)
    t = SPEC_THRESHOLD[dtype_name]
    return mere, mare, (mere < t and mare < 10 * t)


def step_ulps(a, k):
    """Move every element k representable numbers away from zero (bit arithmetic on positives)."""
    bits = np.ascontiguousarray(a).view(UINT[a.dtype.itemsize]).copy()
    return (bits + k).astype(bits.dtype).view(a.dtype)


def sample_inputs(dtype, n=4096, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-5, 5, n).astype(dtype)
    g = rng.uniform(-5, 5, n).astype(dtype)
    return g, x


# --------------------------------------------------------------------------
# ULP distance
# --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.dtype(np.float16), BF16], ids=["float16", "bfloat16"])
def test_ulp_distance_is_rank_difference_over_all_16_bit_values(dtype):
    # Reference: the rank of each value among all distinct non-NaN values in
    # ascending order (+0 and -0 are one value).
    bits = np.arange(65536, dtype=np.uint16)
    vals = bits.view(dtype)
    with np.errstate(invalid="ignore"):  # signalling NaNs
        f = vals.astype(np.float64)
    keep = ~np.isnan(f)
    distinct = np.unique(f[keep])  # sorted; -0.0 and 0.0 collapse
    rank = np.searchsorted(distinct, f[keep])
    rng = np.random.default_rng(1)
    i = rng.integers(0, keep.sum(), 200_000)
    j = rng.integers(0, keep.sum(), 200_000)
    a, b = vals[keep][i], vals[keep][j]
    expected = np.abs(rank[i] - rank[j])
    np.testing.assert_array_equal(P.ulp_distance(a, b), expected)


def test_ulp_distance_float32_nextafter_steps():
    rng = np.random.default_rng(2)
    x = rng.standard_normal(2000).astype(np.float32) * np.float32(10.0) ** rng.integers(-30, 30, 2000)
    x = x.astype(np.float32)
    for k in (1, 2, 7):
        y = x.copy()
        for _ in range(k):
            y = np.nextafter(y, np.float32(np.inf))
        np.testing.assert_array_equal(P.ulp_distance(x, y), np.full(x.shape, k))
        np.testing.assert_array_equal(P.ulp_distance(y, x), np.full(x.shape, k))
    # Across zero: the smallest subnormals on either side are 2 apart, +-0 are 0 apart.
    tiny = np.float32(np.finfo(np.float32).smallest_subnormal)
    a = np.array([tiny, 0.0, -0.0, np.finfo(np.float32).max], dtype=np.float32)
    b = np.array([-tiny, -0.0, 0.0, np.inf], dtype=np.float32)
    np.testing.assert_array_equal(P.ulp_distance(a, b), [2, 0, 0, 1])
    nan = np.array([np.nan, 1.0], dtype=np.float32)
    assert list(P.ulp_distance(nan, nan[::-1].copy())) == [-1, -1]


def test_ulp_histogram_buckets():
    golden = np.ones(9, dtype=np.float32)
    distances = [0, 1, 2, 3, 4, 5, 8, 9, 100]
    out = np.array([step_ulps(golden[:1], d)[0] for d in distances], dtype=np.float32)
    r = P.compare(out, golden)
    assert r.max_ulp == 100
    assert r.ulp_histogram == {"0": 1, "1": 1, "2": 1, "3-4": 2, "5-8": 2, "9-16": 1, "65-128": 1}
    assert r.mismatch_count == 8


# --------------------------------------------------------------------------
# Metrics and verdicts
# --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("beta", [1.0, -1.5])
def test_known_good_outputs_pass(dtype, beta):
    g, x = sample_inputs(dtype)
    golden = ref_float64_truth(g, x, beta)
    for candidate in (sg.swish_backward(g, x, beta), numpy_golden(g, x, beta)):
        r = P.compare(candidate, golden)
        mere, mare, ok = reference_metrics(candidate, golden, dtype.name)
        assert ok and r.passed, str(r)
        assert r.mere == pytest.approx(mere, rel=1e-9)
        assert r.mare == pytest.approx(mare, rel=1e-12)
        assert r.relative_count == x.size and r.nonfinite_ok


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_verdict_flips_as_ulp_perturbation_grows(dtype):
    g, x = sample_inputs(dtype, seed=3)
    golden = sg.swish_backward(g, x, 1.0)
    # A k-ulp step has relative size in (k 2^-(p+1), k 2^-p]: choose k from
    # well inside the threshold to well past it.
    unit = SPEC_THRESHOLD[dtype.name] * 2.0 ** MANTISSA_BITS[dtype.name]
    ks = sorted({max(1, int(unit * f)) for f in (0.25, 0.5, 1.0, 2.0, 4.0, 16.0)})
    verdicts = []
    for k in ks:
        out = step_ulps(golden, k)
        r = P.compare(out, golden)
        mere, mare, ok = reference_metrics(out, golden, dtype.name)
        assert r.passed == ok, (k, str(r))
        assert r.mere == pytest.approx(mere, rel=1e-9)
        assert r.mare == pytest.approx(mare, rel=1e-12)
        assert r.max_ulp == k and r.ulp_histogram.get("0", 0) == 0
        assert r.mismatch_count == x.size
        verdicts.append(r.passed)
    assert verdicts[0] and not verdicts[-1]
    # Monotone: once failing, stays failing.
    assert verdicts == sorted(verdicts, reverse=True)


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_verdict_flips_as_relative_noise_grows(dtype):
    g, x = sample_inputs(dtype, seed=4)
    golden = ref_float64_truth(g, x, 1.1)
    rng = np.random.default_rng(5)
    t = SPEC_THRESHOLD[dtype.name]
    results = []
    for scale in (0.01, 0.1, 4.0, 40.0):
        noise = rng.uniform(-1, 1, x.size) * scale * t
        out = (golden * (1.0 + noise)).astype(dtype)
        r = P.compare(out, golden)
        mere, mare, ok = reference_metrics(out, golden, dtype.name)
        assert r.passed == ok
        assert r.mere == pytest.approx(mere, rel=1e-9)
        rel = np.abs(out.astype(np.float64) - golden) / np.maximum(np.abs(golden), SMALLEST_NORMAL[dtype.name])
        assert r.over_limit_count == np.count_nonzero(rel >= 10 * t)
        results.append(r.passed)
    assert results[0] and not results[-1]


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_mere_and_mare_criteria_separately(dtype):
    t = SPEC_THRESHOLD[dtype.name]
    golden = np.linspace(1.0, 2.0, 1000).astype(dtype)
    g64 = golden.astype(np.float64)
    # One element 20x threshold off: MERE tiny, MARE fails.
    out = golden.copy()
    out[17] = np.float64(g64[17] * (1 + 20 * t)).astype(dtype)
    r = P.compare(out, golden)
    assert r.mere_ok and not r.mare_ok and not r.passed
    assert r.over_limit_count == 1
    assert r.worst[0]["index"] == [17]
    assert r.mismatch_positions == [[17]]
    # Every element 3x threshold off (a float64 output would be exact, so
    # use a float64 golden and shift it instead): MERE fails, MARE passes.
    shifted = g64 / (1 + 3 * t)
    r = P.compare(golden, shifted)
    assert not r.mere_ok and r.mare_ok and not r.passed
    assert r.over_limit_count == 0


def test_relative_error_uses_smallest_normal_floor():
    # Golden 0 and output = the smallest float16 subnormal: the error is
    # 2^-24 / 2^-14 = 2^-10, not inf.
    out = np.array([2.0 ** -24, 1.0], dtype=np.float16)
    golden = np.array([0.0, 1.0])
    r = P.compare(out, golden)
    assert r.mare == 2.0 ** -10
    assert r.mere == 2.0 ** -11
    assert r.max_abs_error == 2.0 ** -24
    assert r.tiny == 2.0 ** -14


# --------------------------------------------------------------------------
# NaN, inf, signed zeros
# --------------------------------------------------------------------------


def test_nan_and_inf_agreement_policy():
    nan_a = np.array([0x7E00], dtype=np.uint16).view(np.float16)[0]
    nan_b = np.array([0xFE01], dtype=np.uint16).view(np.float16)[0]  # other sign and payload
    golden = np.array([nan_a, np.inf, -np.inf, 1.0], dtype=np.float16)
    out = np.array([nan_b, np.inf, -np.inf, 1.0], dtype=np.float16)
    r = P.compare(out, golden)
    assert r.passed and r.mismatch_count == 0 and r.relative_count == 1
    assert (r.nan_golden, r.nan_output, r.inf_golden, r.inf_output) == (1, 1, 2, 2)

    for bad, field in (([1.0, np.inf, -np.inf, 1.0], "nan_disagree"),
                       ([nan_a, -np.inf, -np.inf, 1.0], "inf_disagree"),
                       ([nan_a, 65504.0, -np.inf, 1.0], "inf_disagree")):
        r = P.compare(np.array(bad, dtype=np.float16), golden)
        assert getattr(r, field) == 1 and not r.nonfinite_ok and not r.passed
        assert r.worst[0]["index"] in ([0], [1])
    # Finite golden, non-finite output: relative error inf, verdict fails.
    for bad in (np.inf, np.nan):
        r = P.compare(np.array([bad, 1.0], dtype=np.float32), np.array([2.0, 1.0], dtype=np.float32))
        assert r.mare == math.inf and not r.mare_ok and not r.passed


def test_float64_golden_beyond_range_expects_inf():
    out = np.array([np.inf, 65504.0], dtype=np.float16)
    golden = np.array([1e6, 65504.0])
    assert P.compare(out, golden).passed
    r = P.compare(np.array([65504.0, 65504.0], dtype=np.float16), golden)
    assert r.inf_disagree == 1 and not r.passed


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_every_nan_pattern_agrees_with_every_other(dtype):
    # All NaN bit patterns (signalling ones included) on both sides.
    ubits = UINT[dtype.itemsize]
    nbits = 8 * dtype.itemsize
    mant = {"float32": 23, "float16": 10, "bfloat16": 7}[dtype.name]
    exp_mask = ((1 << (nbits - 1 - mant)) - 1) << mant
    rng = np.random.default_rng(7)
    m = rng.integers(1, 1 << mant, 1000)
    s = rng.integers(0, 2, 1000) << (nbits - 1)
    a = (exp_mask | m | s).astype(ubits).view(dtype)
    b = a[::-1].copy()
    r = P.compare(a, b)
    assert r.passed and r.nan_disagree == 0 and r.mismatch_count == 0 and r.nan_output == 1000
    r = P.compare(a, np.ones(1000, dtype))
    assert r.nan_disagree == 1000 and not r.passed


def test_signed_zero_is_a_mismatch_of_zero_ulps():
    r = P.compare(np.array([-0.0, 1.0], dtype=np.float32), np.array([0.0, 1.0], dtype=np.float32))
    assert r.mismatch_count == 1 and r.max_ulp == 0 and r.passed and r.mare == 0.0


# --------------------------------------------------------------------------
# Report object
# --------------------------------------------------------------------------


def test_report_format_positions_worst_and_json():
    golden = sg.swish_backward(*sample_inputs(np.float32, n=24, seed=6)).reshape(4, 6)
    out = golden.copy()
    out[1, 2] = step_ulps(out[1:2, 2], 50000)[0]
    out[3, 0] = step_ulps(out[3:4, 0], 3)[0]
    g = np.ones_like(golden)
    r = P.compare(out, golden, inputs={"grad": g, "x": golden}, worst=1)
    assert r.mismatch_positions == [[1, 2], [3, 0]]
    assert len(r.worst) == 1 and r.worst[0]["index"] == [1, 2] and r.worst[0]["ulp"] == 50000
    assert r.worst[0]["inputs"] == {"grad": 1.0, "x": float(golden[1, 2])}
    text = str(r)
    assert "FAIL" in text and "(1, 2)" in text and "grad" in text
    d = json.loads(json.dumps(r.to_dict()))
    assert d["passed"] is False and d["mismatch_count"] == 2 and d["shape"] == [4, 6]
    ok = P.compare(golden, golden)
    assert ok.passed and "PASS" in ok.format() and ok.worst == [] and ok.mismatch_count == 0
    assert P.compare(out, golden, max_positions=1).mismatch_positions == [[1, 2]]


def test_empty_and_zero_d():
    r = P.compare(np.empty(0, np.float16), np.empty(0))
    assert r.passed and r.numel == 0 and r.ulp_histogram == {}
    r = P.compare(np.array(2.0, np.float32), np.array(1.0, np.float32))
    assert not r.passed and r.worst[0]["index"] == [] and r.mismatch_positions == [[]]


def test_thresholds_and_tiny():
    for name in IDS:
        assert P.threshold_for(name) == SPEC_THRESHOLD[name]
        assert P.tiny_for(name) == SMALLEST_NORMAL[name]


@pytest.mark.parametrize("args, kwargs, exc, words", [
    (([1.0], np.ones(1)), {}, TypeError, "output"),
    ((np.ones(1, np.int32), np.ones(1)), {}, ValueError, "output.dtype"),
    ((np.ones(1, np.float32), [1.0]), {}, TypeError, "golden"),
    ((np.ones(1, np.float32), np.ones(1, np.int64)), {}, TypeError, "golden.dtype"),
    ((np.ones(2, np.float32), np.ones(3)), {}, ValueError, "shape"),
    ((np.ones(2, np.float32), np.ones(2)), {"worst": -1}, ValueError, "worst"),
    ((np.ones(2, np.float32), np.ones(2)), {"max_positions": 1.5}, ValueError, "max_positions"),
    ((np.ones(2, np.float32), np.ones(2)), {"inputs": {"x": np.ones(3)}}, ValueError, "inputs"),
])
def test_bad_arguments(args, kwargs, exc, words):
    with pytest.raises(exc, match=words):
        P.compare(*args, **kwargs)
