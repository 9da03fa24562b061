"""The first-tier activation references (tests/reference_activations.py) checked on their own:
against float64 truths of each kernel's formula within stated ulp bounds, on specials worked by
hand from IEEE arithmetic, exhaustively over the 16-bit inputs, and on each upstream quirk."""
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from reference import _round_rational_to_f32, assert_bits_equal, fma_f32_exact
import reference_activations as ra
from activation_checks import assert_narrowed_from_truth, every16, spacing16, ulp32  # noqa: F401

F32 = np.float32
BF16 = np.dtype(ml_dtypes.bfloat16)
DT16 = {"float16": np.dtype(np.float16), "bfloat16": BF16}
EXP_OVERFLOW = 88.72283935546875          # float32 exp overflows above log(FLT_MAX) ~ 88.7228


@pytest.fixture(autouse=True)
def _ieee_arithmetic_is_expected():
    """NaN and infinity inputs are the point here: NumPy's warnings about them are not errors."""
    with np.errstate(invalid="ignore", over="ignore"):
        yield


def assert_within_ulps(ref, truth, bound, where, context):
    """|ref - truth| <= bound * ulp32(truth) on ``where``; ``bound`` may be an array."""
    ref = np.asarray(ref, dtype=np.float64)
    err = np.abs(ref - truth) / ulp32(truth)
    bound = np.broadcast_to(bound, err.shape)
    bad = where & ~(err <= bound)
    assert not bad.any(), (f"{context}: {bad.sum()} elements over the bound; first "
                           f"{np.flatnonzero(bad)[:3]} errors {err[bad][:3]} bounds {bound[bad][:3]}")
    assert where.sum() > 0


# ------------------------------------------------------------------ the building blocks


def test_fast_fma_matches_the_exact_one():
    """The vectorised round-to-odd fma against tests/reference.py's exact rational one."""
    rng = np.random.default_rng(11)
    n = 3000
    vals = [rng.standard_normal(n) * 10.0 ** rng.integers(-40, 39, n) for _ in range(3)]
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 3e38, 1.0, -1.0])
    for v in vals:
        pick = rng.random(n) < 0.1
        v[pick] = rng.choice(specials, pick.sum())
    with np.errstate(over="ignore", invalid="ignore"):
        a, b, c = (v.astype(F32) for v in vals)
        # near-cancellations: c is minus the product rounded, so the sum is its rounding error
        c[:200] = -(a[:200] * b[:200])
    got = ra.fma_f32(a, b, c)
    want = np.array([fma_f32_exact(x, y, z) for x, y, z in zip(a, b, c)], dtype=F32)
    assert_bits_equal(got, want, "fma_f32")


def test_constants_as_written():
    """Literal floats round the decimal once; double expressions are evaluated in binary64
    and rounded once (checked here against exact rationals of the binary64 operands)."""
    assert ra.A2_GELU_CUBIC == _round_rational_to_f32(Fraction("0.0455399241"))
    prod = Fraction(-1.595769121) * Fraction(0.044715)       # the two double literals, multiplied exactly
    assert ra.ARCH35_GELU_SCALE == _round_rational_to_f32(Fraction(float(prod)))
    assert ra.ARCH35_GELU_LINEAR == _round_rational_to_f32(Fraction(float(1 / Fraction(0.044715))))
    # the 950's cubic-form constant is the tanh GELU's coefficient product, not the A2's
    assert ra.ARCH35_GELU_SCALE == F32(-1.5957691216057308 * 0.044715)
    assert ra.ARCH35_GELU_SCALE != ra.A2_GELU_SCALE * ra.A2_GELU_CUBIC
    assert ra.FAST_GELU_SCALE == F32(-1.702)


# ------------------------------------------------------------------ sweeps


def dense_x():
    """Seeded float32 x: a fine grid over [-12, 12], normals, and 80 decades."""
    rng = np.random.default_rng(2026)
    wide = rng.standard_normal(20000) * 10.0 ** rng.integers(-40, 3, 20000)
    return np.concatenate([np.linspace(-12, 12, 240001), rng.standard_normal(60000) * 3, wide]).astype(F32)


SPECIAL_X = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-40, -1e-40, 1.1754944e-38],
                     dtype=F32)


# ------------------------------------------------------------------ Sigmoid


def test_sigmoid_kernels_agree_and_track_truth():
    x = dense_x()
    a2, k950 = ra.ref_sigmoid(x, "a2"), ra.ref_sigmoid(x, "arch35")
    assert_bits_equal(a2, k950, "the two sigmoid kernels run the same four instructions")
    u = -x.astype(np.float64)
    t = ra.truth_sigmoid(x)
    # Muls is exact, Exp, Adds and Div round once each: 2 ulp is plenty where nothing underflows
    where = (np.abs(u) < EXP_OVERFLOW) & (t >= 2.0 ** -126)
    assert_within_ulps(a2, t, 2.0, where, "sigmoid")


def test_sigmoid_specials():
    y = ra.ref_sigmoid(SPECIAL_X)
    assert np.isnan(y[0])
    assert y[1] == 1.0 and y[2] == 0.0 and not np.signbit(y[2])     # 1/(0+1), 1/(inf+1) = +0
    assert (y[3:] == F32(0.5)).all()                                  # e^(+-tiny) rounds to 1
    # exp(-x) overflows for x below -88.72: the kernel returns +0 where sigmoid is still a float32
    x = np.array([-88.72, -88.73, -100.0], dtype=F32)
    got = ra.ref_sigmoid(x)
    assert got[0] > 0 and got[1] == 0 and got[2] == 0
    assert (ra.truth_sigmoid(x) > 2.0 ** -149).all()


@pytest.mark.parametrize("dtype", DT16)
def test_sigmoid_every_16bit_input(dtype):
    x = every16(dtype)
    y = ra.ref_sigmoid(x)
    assert y.dtype == DT16[dtype]
    t = ra.truth_sigmoid(x.astype(np.float64))
    t = np.where(x.astype(np.float64) > -EXP_OVERFLOW, t, np.nan)    # the overflow zone: test_sigmoid_specials
    slack = 2.0 * ulp32(t) * (1 + np.abs(x.astype(np.float64)))
    assert_narrowed_from_truth(y, t, slack, dtype, f"sigmoid {dtype}")
    assert np.array_equal(np.isnan(y.astype(F32)), np.isnan(x.astype(F32)))


# ------------------------------------------------------------------ SigmoidBackward


def test_sigmoid_backward_two_orders():
    """A2 dy*((1-y)*y) and 950 (dy*(1-y))*y: never more than 2 ulp apart, equal most of the time,
    each within 2.5 ulp of the exact product (y in [0, 1], normal dy and results)."""
    rng = np.random.default_rng(5)
    y = rng.random(400000).astype(F32)
    dy = rng.uniform(-5, 5, 400000).astype(F32)
    a2 = ra.ref_sigmoid_backward(dy, y, "a2")
    k950 = ra.ref_sigmoid_backward(dy, y, "arch35")
    apart = np.abs(a2.view(np.int32).astype(np.int64) - k950.view(np.int32).astype(np.int64))
    assert apart.max() == 2
    assert 0.5 < np.mean(apart == 0) < 0.9
    assert 0.2 < np.mean(apart == 1) < 0.5
    t = ra.truth_sigmoid_backward(dy, y)
    where = np.abs(t) >= 2.0 ** -126
    assert_within_ulps(a2, t, 2.0, where, "a2")
    assert_within_ulps(k950, t, 2.5, where, "950")
    # outside [0, 1] the orders part ways: (1 - y) * y overflows first on the A2, dy * (1 - y) on the 950
    y, dy = np.array([2.0e19, 2.0e19], F32), np.array([1e-3, 1e3], F32)
    a2, k950 = ra.ref_sigmoid_backward(dy, y, "a2"), ra.ref_sigmoid_backward(dy, y, "arch35")
    assert a2[0] == -np.inf and np.isfinite(k950[0])
    assert a2[1] == -np.inf and k950[1] == -np.inf


@pytest.mark.parametrize("kernel", ["a2", "arch35"])
@pytest.mark.parametrize("dtype", DT16)
def test_sigmoid_backward_every_16bit_output(kernel, dtype):
    y = every16(dtype)
    dys = np.array([1.0, -2.5, 0.0078125, 3.0e3], dtype=F32).astype(DT16[dtype])
    ys, dy = np.tile(y, dys.size), np.repeat(dys, y.size)
    z = ra.ref_sigmoid_backward(dy, ys, kernel)
    y64, dy64 = ys.astype(np.float64), dy.astype(np.float64)
    t = ra.truth_sigmoid_backward(dy64, y64)
    # a y far outside [0, 1] can overflow float32 in the middle (test_sigmoid_backward_two_orders)
    fits = (np.abs((1 - y64) * y64) < 3e38) & (np.abs(dy64 * (1 - y64)) < 3e38)
    t = np.where(fits, t, np.nan)
    assert_narrowed_from_truth(z, t, 3.0 * ulp32(t), dtype, f"{kernel} {dtype}")


def test_sigmoid_backward_aicpu_float64():
    rng = np.random.default_rng(8)
    y, dy = rng.random(2000), rng.uniform(-5, 5, 2000)
    z = ra.ref_sigmoid_backward_aicpu_real(dy, y)
    assert z.dtype == np.float64
    for zi, yi, dyi in zip(z, y, dy):
        exact = Fraction(dyi) * (1 - Fraction(yi)) * Fraction(yi)
        assert abs(Fraction(zi) - exact) <= 3 * Fraction(np.spacing(abs(float(exact))))
    # left to right: (dy*(1-y))*y, the 950's order, not the A2's
    assert (z == (dy * (1.0 - y)) * y).all()
    assert (z != dy * ((1.0 - y) * y)).any()


def _round64(v: Fraction) -> float:
    return float(v)      # Fraction -> float is correctly rounded (nearest, ties to even)


@pytest.mark.parametrize("contract", [True, False])
def test_gcc_complex_product(contract):
    """re = ac - bd, im = ad + bc: with contraction the first product of each part is exact
    inside one rounding (fma), without it every product and sum rounds."""
    rng = np.random.default_rng(9)
    for _ in range(500):
        a, b, c, d = rng.standard_normal(4) * 10.0 ** rng.integers(-3, 4, 4)
        re, im = ra.complex_mul_gcc(complex(a, b), complex(c, d), np.float64, contract)
        bd, bc = _round64(Fraction(b) * Fraction(d)), _round64(Fraction(b) * Fraction(c))
        if contract:
            want = (_round64(Fraction(a) * Fraction(c) - Fraction(bd)), _round64(Fraction(a) * Fraction(d) + Fraction(bc)))
        else:
            want = (_round64(Fraction(_round64(Fraction(a) * Fraction(c))) - Fraction(bd)),
                    _round64(Fraction(_round64(Fraction(a) * Fraction(d))) + Fraction(bc)))
        assert (float(re), float(im)) == want


def test_gcc_complex_product_annex_g():
    """Both naive parts NaN with an infinite operand: libgcc's recovery gives an infinity."""
    re, im = ra.complex_mul_gcc(complex(np.inf, 0.0), complex(np.inf, np.inf), np.float64)
    assert re == np.inf and im == np.inf
    re, im = ra.complex_mul_gcc(complex(np.nan, 0.0), complex(1.0, 0.0), np.float64)
    assert np.isnan(re) and np.isnan(im)          # no infinity: NaN stays


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_sigmoid_backward_aicpu_complex(dtype):
    rng = np.random.default_rng(10)
    y = (rng.random(300) + 1j * rng.uniform(-1, 1, 300)).astype(dtype)
    dy = (rng.uniform(-5, 5, 300) + 1j * rng.uniform(-5, 5, 300)).astype(dtype)
    z = ra.ref_sigmoid_backward_aicpu_complex(dy, y)
    assert z.dtype == dtype
    exact = np.conj((1 - y.astype(np.complex128)) * y.astype(np.complex128)) * dy.astype(np.complex128)
    tol = 8 * np.finfo(np.float32 if dtype == np.complex64 else np.float64).eps
    assert (np.abs(z - exact) <= tol * (np.abs(exact) + np.abs(dy) * 1.0)).all()
    # with zero imaginary parts the complex path is (1-y)*y first, then dy: the A2's order
    yr = rng.random(2000)
    dyr = rng.uniform(-5, 5, 2000)
    zc = ra.ref_sigmoid_backward_aicpu_complex(dyr.astype(np.complex128), yr.astype(np.complex128))
    assert (zc.real == ((1.0 - yr) * yr) * dyr).all()
    assert (zc.real != ra.ref_sigmoid_backward_aicpu_real(dyr, yr)).any()


# ------------------------------------------------------------------ Gelu


def _gelu_exp_argument(x, kernel):
    x = x.astype(np.float64)
    if kernel == "a2":
        return float(ra.A2_GELU_SCALE) * (x + float(ra.A2_GELU_CUBIC) * x ** 3)
    return float(ra.ARCH35_GELU_SCALE) * (x ** 3 + float(ra.ARCH35_GELU_LINEAR) * x)


@pytest.mark.parametrize("kernel,model", [("a2", None), ("arch35", "fused"), ("arch35", "unfused")])
def test_gelu_tracks_truth(kernel, model):
    """Error bound 3 (1 + |u|) ulp, u the Exp argument: u carries a few roundings, and Exp turns
    a relative error e of u into |u| e of its result."""
    x = dense_x()
    y = ra.ref_gelu(x, kernel, model or "fused")
    u = _gelu_exp_argument(x, kernel)
    t = ra.truth_gelu(x, kernel)
    where = (np.abs(u) < EXP_OVERFLOW - 0.5) & (np.abs(t) >= 2.0 ** -126)
    assert_within_ulps(y, t, 3.0 * (1 + np.abs(u)), where, f"gelu {kernel} {model}")


def test_a2_gelu_coefficient():
    """0.0455399241 (gelu.h:31), not the 0.044715 its comment quotes (line 29): outputs move
    by hundreds of ulps, and the 950 (which uses 0.044715) differs from the A2 accordingly."""
    x = np.array([1.0, 2.0, -2.0, 3.0, -1.5], dtype=F32)
    a2 = ra.ref_gelu(x, "a2").astype(np.float64)
    tanh_gelu = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x.astype(np.float64) ** 3)))
    own = ra.truth_gelu(x, "a2")
    assert (np.abs(a2 - own) <= 4 * ulp32(own)).all()
    assert (np.abs(a2 - tanh_gelu) >= 100 * ulp32(tanh_gelu)).all()
    k950 = ra.ref_gelu(x, "arch35").astype(np.float64)
    assert (np.abs(k950 - tanh_gelu) <= 4 * ulp32(tanh_gelu)).all()


def test_gelu_axpy_models_differ_on_about_8_percent():
    """Uniform float32 x in [-10, 10): the one-rounding and two-rounding Axpy differ on 7-10%
    of outputs (measured 8.4%), by up to 128-512 ulp (measured 256, near x = -10)."""
    x = np.random.default_rng(29).uniform(-10, 10, 400000).astype(F32)
    fused = ra.ref_gelu(x, "arch35", "fused")
    unfused = ra.ref_gelu(x, "arch35", "unfused")
    apart = np.abs(fused.view(np.int32).astype(np.int64) - unfused.view(np.int32).astype(np.int64))
    assert 0.07 < np.mean(apart != 0) < 0.10
    assert 128 <= apart.max() <= 512


@pytest.mark.parametrize("kernel", ["a2", "arch35"])
def test_gelu_specials(kernel):
    y = ra.ref_gelu(SPECIAL_X, kernel)
    assert np.isnan(y[0])
    assert y[1] == np.inf                        # inf / (e^-inf + 1)
    assert np.isnan(y[2])                        # -inf / (e^+inf + 1) = -inf / inf
    assert y[3] == 0 and not np.signbit(y[3])
    assert y[4] == 0 and np.signbit(y[4])        # -0 / 2
    # +-2^-149 / 2 is a tie between 0 and 2^-149: to even, a zero of x's sign
    assert y[5] == 0 and not np.signbit(y[5]) and y[6] == 0 and np.signbit(y[6])
    assert y[7] == F32(F32(1e-40) / F32(2))      # subnormals halve exactly
    # exp overflows below about x = -10: x / inf = -0, where GELU is still a float32
    x = np.array([-10.2, -30.0], dtype=F32)
    got = ra.ref_gelu(x, kernel)
    assert (got == 0).all() and np.signbit(got).all()
    assert (np.abs(ra.truth_gelu(x[:1], kernel)) > 2.0 ** -149).all()


@pytest.mark.parametrize("kernel", ["a2", "arch35"])
@pytest.mark.parametrize("dtype", DT16)
def test_gelu_every_16bit_input(kernel, dtype):
    x = every16(dtype)
    y = ra.ref_gelu(x, kernel)
    u = _gelu_exp_argument(x, kernel)
    t = ra.truth_gelu(x.astype(np.float64), kernel)
    t = np.where(np.abs(u) < EXP_OVERFLOW - 0.5, t, np.nan)   # the overflow zone is checked above
    assert_narrowed_from_truth(y, t, 3.0 * (1 + np.abs(u)) * ulp32(t), dtype, f"gelu {kernel} {dtype}")


# ------------------------------------------------------------------ GeluBackward


def _gelu_backward_exp_argument(x, kernel):
    x = x.astype(np.float64)
    if kernel == "arch35":
        k = ra.ARCH35_GELU_GRAD
        return (float(k["an"]) * x * x + float(k["betan"])) * x
    k = ra.A2_GELU_GRAD_V0 if kernel == "a2" else ra.A2_GELU_GRAD_V1
    return (float(k["c0"]) * x * x + float(k["c1"])) * x


GELU_BACKWARD_CASES = [("a2", "fused"), ("a2_310b", "fused"), ("arch35", "fused"), ("arch35", "unfused")]


@pytest.mark.parametrize("kernel,model", GELU_BACKWARD_CASES)
def test_gelu_backward_tracks_truth(kernel, model):
    """Relative bound 6 (1 + |u|) ulp away from the derivative's zero near x = -0.75, plus an
    absolute one for the cancellations there and in the 310B formula's (s - 1):
    |x|^3 ulp(1) (measured: 1.7 ulp(1) for A2/950, 17 for the 310B, at |x| < 8)."""
    x = dense_x()
    x = x[np.abs(x) < 10]
    dy = np.ones_like(x)
    z = ra.ref_gelu_backward(dy, x, kernel, model).astype(np.float64)
    u = _gelu_backward_exp_argument(x, kernel)
    t = ra.truth_gelu_backward(dy, x, kernel)
    err = np.abs(z - t)
    bound = 6.0 * (1 + np.abs(u)) * ulp32(t) + 2.0 ** -23 * (2 + np.abs(x.astype(np.float64)) ** 3)
    bad = ~(err <= bound)
    assert not bad.any(), (x[bad][:5], err[bad][:5], bound[bad][:5])


def test_gelu_backward_a2_overflow_nan():
    """A2 (ascend910b): where Exp overflows (x below about -10.06) e*s is inf*0 = NaN and the
    result is NaN for a finite x; the 950's guard gives dy*(0 + 0) there, the 310B formula dy*(t*0)."""
    x = np.array([-10.0, -10.1, -11.0, -50.0], dtype=F32)
    dy = np.full(4, 2.0, dtype=F32)
    a2 = ra.ref_gelu_backward(dy, x, "a2")
    assert not np.isnan(a2[0]) and np.isnan(a2[1:]).all()
    k950 = ra.ref_gelu_backward(dy, x, "arch35")
    assert (k950[1:] == 0).all() and not np.signbit(k950[1:]).any()
    v1 = ra.ref_gelu_backward(dy, x, "a2_310b")
    assert (v1[1:] == 0).all() and np.signbit(v1[1:]).all()  # (s-1)*x*g2 + 1 < 0, times s = +0
    assert (np.abs(ra.truth_gelu_backward(dy[:2], x[:2], "a2")) > 0).all()


def test_gelu_backward_infinities():
    """x = +inf / -inf: the 950's Compare/Select turns its NaN into dy*1 / dy*0; the A2 gives NaN."""
    x = np.array([np.inf, -np.inf, np.inf, -np.inf], dtype=F32)
    dy = np.array([3.0, 3.0, -0.5, -0.5], dtype=F32)
    k950 = ra.ref_gelu_backward(dy, x, "arch35")
    assert k950[0] == 3.0 and k950[2] == -0.5
    assert k950[1] == 0 and not np.signbit(k950[1]) and k950[3] == 0 and np.signbit(k950[3])
    for kernel in ("a2", "a2_310b"):
        assert np.isnan(ra.ref_gelu_backward(dy, x, kernel)).all()
    # NaN in, NaN out on every kernel (the guard only zeroes the product term; div stays NaN)
    nan = np.array([np.nan], dtype=F32)
    for kernel in ("a2", "a2_310b", "arch35"):
        assert np.isnan(ra.ref_gelu_backward(np.ones(1, F32), nan, kernel)).all()


@pytest.mark.parametrize("kernel", ["a2", "a2_310b", "arch35"])
@pytest.mark.parametrize("dtype", DT16)
def test_gelu_backward_every_16bit_input(kernel, dtype):
    x = every16(dtype)
    dys = np.array([1.0, -3.5, 0.0078125], dtype=F32).astype(DT16[dtype])
    xs, dy = np.tile(x, dys.size), np.repeat(dys, x.size)
    z = ra.ref_gelu_backward(dy, xs, kernel)
    u = _gelu_backward_exp_argument(xs, kernel)
    x64 = xs.astype(np.float64)
    t = ra.truth_gelu_backward(dy.astype(np.float64), x64, kernel)
    t = np.where(np.abs(u) < EXP_OVERFLOW - 0.5, t, np.nan)
    slack = np.abs(dy.astype(np.float64)) * (6.0 * (1 + np.abs(u)) * ulp32(t / np.abs(dy.astype(np.float64)))
                                             + 2.0 ** -23 * (2 + np.abs(x64) ** 3))
    assert_narrowed_from_truth(z, t, slack, dtype, f"gelu_backward {kernel} {dtype}")


# ------------------------------------------------------------------ FastGelu, FastGeluBackward


def test_fast_gelu_tracks_truth_and_specials():
    x = dense_x()
    y = ra.ref_fast_gelu(x)
    u = float(ra.FAST_GELU_SCALE) * x.astype(np.float64)
    t = ra.truth_fast_gelu(x)
    where = (np.abs(u) < EXP_OVERFLOW - 0.5) & (np.abs(t) >= 2.0 ** -126)
    assert_within_ulps(y, t, 2.0 * (1 + np.abs(u)), where, "fast_gelu")
    s = ra.ref_fast_gelu(SPECIAL_X)
    assert np.isnan(s[0]) and s[1] == np.inf and np.isnan(s[2])
    assert s[3] == 0 and not np.signbit(s[3]) and s[4] == 0 and np.signbit(s[4])
    # exp(1.702 * 52.2) overflows: -0 where x * sigmoid(1.702 x) is about -2e-37
    assert ra.ref_fast_gelu(np.array([-52.2], F32))[0] == 0
    assert ra.truth_fast_gelu(np.array([-52.2]))[0] < -1e-38


def test_fast_gelu_backward_tracks_truth_and_specials():
    x = dense_x()
    x = x[np.abs(x) < 40]
    dy = np.ones_like(x)
    z = ra.ref_fast_gelu_backward(dy, x).astype(np.float64)
    u = float(ra.FAST_GELU_SCALE) * x.astype(np.float64)
    t = ra.truth_fast_gelu_backward(dy, x)
    bound = 4.0 * (1 + np.abs(u)) * ulp32(t) + 2.0 ** -23 * (2 + np.abs(u))
    assert (np.abs(z - t) <= bound).all()
    # +inf: (s - 1) * m = 0 * -inf; -inf: (0 - 1) * inf + 1 = -inf, times s = 0: NaN either way
    got = ra.ref_fast_gelu_backward(np.ones(3, F32), np.array([np.inf, -np.inf, -60.0], F32))
    assert np.isnan(got[:2]).all()
    assert got[2] == 0 and np.signbit(got[2])           # finite but exp overflowed: (1 - m) * 0 = -0


@pytest.mark.parametrize("dtype", DT16)
def test_fast_gelu_pair_every_16bit_input(dtype):
    x = every16(dtype)
    x64 = x.astype(np.float64)
    u = float(ra.FAST_GELU_SCALE) * x64
    y = ra.ref_fast_gelu(x)
    t = np.where(np.abs(u) < EXP_OVERFLOW - 0.5, ra.truth_fast_gelu(x64), np.nan)
    assert_narrowed_from_truth(y, t, 2.0 * (1 + np.abs(u)) * ulp32(t), dtype, f"fast_gelu {dtype}")
    dy = np.ones_like(x)
    z = ra.ref_fast_gelu_backward(dy, x)
    t = np.where(np.abs(u) < EXP_OVERFLOW - 0.5, ra.truth_fast_gelu_backward(dy.astype(np.float64), x64), np.nan)
    slack = 4.0 * (1 + np.abs(u)) * ulp32(t) + 2.0 ** -23 * (2 + np.abs(u))
    assert_narrowed_from_truth(z, t, slack, dtype, f"fast_gelu_backward {dtype}")
