"""The second-tier activation references (tests/reference_activations_tier2.py) checked on their own:
the new instructions against IEEE arithmetic, Ln and the two Erf algorithms against float64 truth,
each operator against float64 truth of its formula within stated ulp bounds, exhaustively over the
16-bit inputs, on specials (NaN against Compare and Mins), at the attributes' edges, and on each
upstream quirk."""
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from reference import _round_rational_to_f32, assert_bits_equal, fma_f32_exact, ref_exp_f32
import reference_activations as ra
from activation_checks import assert_narrowed_from_truth, every16, spacing16, ulp32  # noqa: F401
import reference_activations_tier2 as rb

F32 = np.float32
BF16 = np.dtype(ml_dtypes.bfloat16)
DT16 = {"float16": np.dtype(np.float16), "bfloat16": BF16}
NAN, INF = np.nan, np.inf


@pytest.fixture(autouse=True)
def _ieee_arithmetic_is_expected():
    """NaN and infinity inputs are the point here: NumPy's warnings about them are not errors."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        yield


def ulp_error(ref, truth):
    return np.abs(np.asarray(ref, dtype=np.float64) - truth) / ulp32(truth)


def dense_x(lo=-12.0, hi=12.0):
    """Seeded float32 x: a fine grid, normals, and 80 decades."""
    rng = np.random.default_rng(2030)
    wide = rng.standard_normal(20000) * 10.0 ** rng.integers(-40, 3, 20000)
    return np.concatenate([np.linspace(lo, hi, 200001), rng.standard_normal(40000) * 3, wide]).astype(F32)


SPECIAL_X = np.array([NAN, INF, -INF, 0.0, -0.0, 1e-45, -1e-45, 1e-40, -1e-40, 3e38, -3e38], dtype=F32)


# ------------------------------------------------------------------ the new instructions


def test_compare_and_select_on_nan_and_signed_zero():
    """IEEE ordered compares: NaN is false for every mode but NE; -0 == +0; Select passes bits."""
    a = np.array([NAN, NAN, -0.0, 1.0, -INF], dtype=F32)
    b = np.array([NAN, 1.0, 0.0, 1.0, -INF], dtype=F32)
    assert (rb.compare(a, b, "EQ") == [False, False, True, True, True]).all()
    assert (rb.compare(a, b, "NE") == [True, True, False, False, False]).all()
    for mode in ("LT", "GT", "LE", "GE"):
        assert not rb.compare(a[:2], b[:2], mode).any()
    assert (rb.compare(a[2:], b[2:], "LE") == [True, True, True]).all()
    neg_nan = np.array([0xFFC00001], dtype=np.uint32).view(F32)
    out = rb.select(np.array([True, False]), np.concatenate([neg_nan, [F32(-0.0)]]), np.array([1.0, 2.0], F32))
    assert out.view(np.uint32)[0] == 0xFFC00001 and out[1] == 2.0


def test_mins_maxs_propagate_nan_and_abs_clears_the_sign():
    x = np.array([NAN, 40.0, -INF, 3.0, -0.0], dtype=F32)
    assert np.isnan(rb.mins(x, 30.0)[0]) and rb.mins(x, 30.0)[1] == 30.0 and rb.mins(x, 30.0)[2] == -INF
    assert np.isnan(rb.maxs(x, -3.92)[0]) and rb.maxs(x, -3.92)[2] == F32(-3.92)
    neg_nan = np.array([0xFFC00000], dtype=np.uint32).view(F32)
    assert rb.abs_f32(neg_nan).view(np.uint32)[0] == 0x7FC00000
    assert rb.abs_f32(np.array([-0.0], F32)).view(np.uint32)[0] == 0


def test_shift_right_and_int_cast_read_the_sign_bit():
    x = np.array([1.0, -1.0, 0.0, -0.0, NAN, -INF], dtype=F32)
    x[4] = np.array([0xFFC00000], np.uint32).view(F32)[0]          # a NaN with the sign bit set
    s = rb.shift_right_u32(x, 31)
    assert (s == [0, 1, 0, 1, 1, 1]).all()
    assert (rb.cast_i32_to_f32(s.view(np.int32)) == [0, 1, 0, 1, 1, 1]).all()


def test_ln_correctly_rounded():
    """The fast path against the 60-digit one on seeded values over the whole binary32 range,
    subnormals included, and at the specials."""
    rng = np.random.default_rng(31)
    bits = rng.integers(1, 0x7F800000, 3000, dtype=np.uint32)
    t = np.concatenate([bits.view(F32), np.array([1.0, 2.0, 0.5, 1 + 2 ** -23, 1 - 2 ** -24, 1e-45], F32)])
    want = np.array([rb.correctly_rounded_ln_f32(v) for v in t], dtype=F32)
    assert_bits_equal(rb.ref_ln_f32(t), want, "ln")
    s = rb.ref_ln_f32(np.array([0.0, -0.0, -1.0, INF, NAN, -INF], F32))
    assert s[0] == -INF and s[1] == -INF and np.isnan(s[2]) and s[3] == INF and np.isnan(s[4]) and np.isnan(s[5])
    # Ln(2) as the Erf routine uses it: the binary32 nearest ln 2
    assert rb.ref_ln_f32(np.array([2.0], F32)).view(np.uint32)[0] == 0x3F317218


def test_ln_catches_a_one_ulp_error():
    """An Ln off by one ulp on a single input is caught by the comparison above (guards the test)."""
    t = np.array([3.0], F32)
    good = rb.ref_ln_f32(t)
    bad = np.nextafter(good, F32(INF))
    with pytest.raises(AssertionError):
        assert_bits_equal(bad, np.array([rb.correctly_rounded_ln_f32(t[0])], F32), "ln")


# ------------------------------------------------------------------ Erf


def test_erf_constants_as_written():
    """Bit patterns are taken as written; double literals are rounded once to binary32."""
    assert rb.ERF_C0 == _round_rational_to_f32(Fraction(0x8060FE, 2 ** 23)) and 1.0029 < rb.ERF_C0 < 1.003
    assert rb.ERF_CLIP == _round_rational_to_f32(Fraction(3.92))
    assert rb.ERF_PADE_P[0] == _round_rational_to_f32(Fraction(0.29639384698e5))
    # the truncated 0.707106781 rounds to the binary32 nearest 1/sqrt(2) all the same
    assert rb.GELU_V2_RSQRT2 == F32(np.sqrt(0.5))


def test_erf_subsection_coefficients_as_written():
    """erf_3510_impl.h:37-39, typed again: a one-ulp change of a coefficient moves erf by less than
    the accuracy bounds below can see, so the bits are pinned here."""
    p1 = [0x38EB4C3A, 0xBAAE005B, 0x3C09919F, 0xBD24D99A, 0x3E235519, 0x3F69B4F9, 0x3F210A14]
    p2 = [0x38B1E96A, 0xBA574D20, 0x3BAAD5EA, 0xBCDC1BE7, 0x3DE718AF, 0xBEC093AC, 0x3E0375D3]
    assert [int(np.float32(v).view(np.uint32)) for v in rb.ERF_P1] == p1
    assert [int(np.float32(v).view(np.uint32)) for v in rb.ERF_P2] == p2
    assert int(np.float32(rb.ERF_C0).view(np.uint32)) == 0x3F8060FE


def test_erf_subsection_against_a_scalar_exact_evaluation():
    """The vectorised routine against the same steps one scalar at a time with exact-rational
    fused multiply-adds (tests/reference.py), on both branches and at the switch."""
    x = np.array([0.3, -0.7, 1.0, 1.0029, 1.5, -2.25, 3.3, -4.1, 1e-20, 6.0], F32)
    got = rb.erf_f32(x, "subsection")
    for xi, gi in zip(x, got):
        a = F32(abs(xi))
        big = a >= rb.ERF_C0
        c1 = rb.ERF_P1 if big else rb.ERF_P2
        f7 = a if big else F32(xi * xi)
        acc = fma_f32_exact(c1[0], f7, c1[1])
        for k in range(2, 7):
            acc = fma_f32_exact(acc, f7, c1[k])
        f22 = F32(-a) if big else xi
        f26 = fma_f32_exact(acc, f22, f22)
        if not big:
            want = f26
        else:
            e = ref_exp_f32(np.array([F32(f26 * F32(0.6931472))], F32))[0]
            want = F32(np.copysign(F32(1.0) - e, xi))
        assert gi == want, (xi, gi, want)


@pytest.mark.parametrize("algo,bound", [("subsection", 2.0), ("pade", 8.0)])
def test_erf_tracks_truth(algo, bound):
    """Measured: subsection within 1.2 ulp of erf on [-5, 5], Pade within 5.9 (its rational
    fit and cancellations); both odd and exact at +-0."""
    x = np.concatenate([np.linspace(-5, 5, 200001), np.random.default_rng(3).standard_normal(20000)
                        * 10.0 ** np.random.default_rng(4).integers(-38, 1, 20000)]).astype(F32)
    y = rb.erf_f32(x, algo)
    t = rb.truth_erf(x)
    err = ulp_error(y, t)
    assert err.max() <= bound, (algo, err.max(), x[np.argmax(err)])
    assert_bits_equal(rb.erf_f32(-x, algo), -y, f"{algo} is odd")


def test_erf_specials():
    s = np.array([NAN, INF, -INF, 0.0, -0.0, 1e-45, -1e-45], F32)
    for algo in rb.ERF_ALGOS:
        y = rb.erf_f32(s, algo)
        assert np.isnan(y[0]) and y[1] == 1.0 and y[2] == -1.0
        assert y[3] == 0 and not np.signbit(y[3]) and y[4] == 0 and np.signbit(y[4])
    # subsection: tiny x return f26 = fma(f20, x, x), about 1.128 x: 2^-149 stays 2^-149
    assert rb.erf_f32(s[5:], "subsection")[0] == F32(1e-45)


def test_erf_pade_clips_at_3_92():
    """Pade clips its input to [-3.92, 3.92] (Mins then Maxs): every larger x gives erf(3.92),
    which computes to exactly 1."""
    x = np.array([3.92, 3.95, 4.0, 10.0, 3e38], F32)
    y = rb.erf_f32(x, "pade")
    assert (y == y[0]).all() and y[0] == 1.0
    assert (rb.erf_f32(-x, "pade") == -y[0]).all()
    # and a NaN is not clipped (Mins/Maxs propagate NaN)
    assert np.isnan(rb.erf_f32(np.array([NAN], F32), "pade")).all()


def test_erf_subsection_switches_branch_at_0x3F8060FE():
    """Below the threshold erf is the odd polynomial f26; from it on, sign | (1 - 2^f26) through
    Exp(f26 * Ln 2). Both sides are within 2 ulp of erf right at the switch."""
    c = rb.ERF_C0
    x = np.array([np.nextafter(c, F32(0)), c, np.nextafter(c, F32(2))], F32)
    y = rb.erf_f32(x, "subsection")
    assert (ulp_error(y, rb.truth_erf(x)) <= 2).all()
    assert np.all(np.diff(y.astype(np.float64)) >= 0)


def test_erf_algorithm_per_dtype():
    """float32 GeluV2/GeluGradV2 run opbase Vec::Erf (SUBSECTION), 16-bit the default (PADE)."""
    assert rb.erf_algo_for(np.float32) == "subsection"
    assert rb.erf_algo_for(np.float16) == "pade" and rb.erf_algo_for(BF16) == "pade"


# ------------------------------------------------------------------ GeluV2


def test_gelu_v2_none_tracks_truth():
    """float32 (subsection Erf): within 3 ulp plus 2^-23 |x| absolute: for negative x, 1 + erf
    cancels and erf's own absolute error (about 2^-24) is multiplied by x / 2."""
    x = dense_x(-8, 8)
    y = rb.ref_gelu_v2(x, "none").astype(np.float64)
    t = rb.truth_gelu(x)
    bound = 3.0 * ulp32(t) + 2.0 ** -23 * np.abs(x.astype(np.float64))
    bad = ~(np.abs(y - t) <= bound)
    assert not bad.any(), (x[bad][:4], y[bad][:4], t[bad][:4])


def test_gelu_v2_none_float32_left_tail_is_the_erf_tail():
    """Left of x = -3.9 the float32 path computes 1 + erf in float32: erf rounds to within
    2^-25 of -1, so gelu is x/2 * (1 + erf) with 1 + erf a multiple of 2^-24; from x of
    about -5.9 on, erf(x/sqrt 2) rounds to -1 and the result is -0."""
    y = rb.ref_gelu_v2(np.array([-6.0, -10.0, -INF], F32), "none")
    assert y[0] == 0 and np.signbit(y[0]) and y[1] == 0 and np.signbit(y[1])
    assert np.isnan(y[2])                      # (-1 + 1) * -inf
    assert rb.ref_gelu_v2(np.array([INF], F32), "none")[0] == INF


def test_gelu_v2_none_16bit_left_tail_is_the_pade_clip():
    """16-bit: the Pade erf is exactly -1 from t = -3.92 (x = -5.54) on, so y = -0 there; at
    float16 x = -5.5 it is -3.6e-7 where GELU is -1.0e-7 (1 + erf cancels)."""
    x = np.array([-5.5, -5.6, -100.0, -65504.0], np.float16)
    y = rb.ref_gelu_v2(x, "none")
    assert float(y[0]) == pytest.approx(-3.6e-7, rel=0.05) and rb.truth_gelu(x[:1].astype(np.float64))[0] > -1.1e-7
    assert (y[1:] == 0).all() and np.signbit(y[1:]).all()


@pytest.mark.parametrize("dtype", DT16)
def test_gelu_v2_none_every_16bit_input(dtype):
    x = every16(dtype)
    y = rb.ref_gelu_v2(x, "none")
    x64 = x.astype(np.float64)
    t = np.where(x64 > -3.0, rb.truth_gelu(x64), np.nan)     # Pade clips at |x / sqrt 2| = 3.92
    assert_narrowed_from_truth(y, t, 10.0 * ulp32(t) + 2.0 ** -24 * np.abs(x64), dtype, f"gelu_v2 {dtype}",
                               min_checked=1000)
    assert np.array_equal(np.isnan(y.astype(F32)), np.isnan(x64) | (x64 == -INF))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_gelu_v2_tanh_is_the_950_gelu(dtype):
    x = dense_x() if dtype == "float32" else every16(dtype)
    assert_bits_equal(rb.ref_gelu_v2(x, "tanh"), ra.ref_gelu(x, "arch35"), f"gelu_v2 tanh {dtype}")


# ------------------------------------------------------------------ GeluBackwardV2


@pytest.mark.parametrize("kernel", ["arch35", "a2"])
def test_gelu_backward_v2_none_tracks_truth(kernel):
    """Phi(x) + x phi(x): within 4 ulp plus 2^-24 absolute (the sums cancel near x = -0.75,
    where the derivative crosses zero, and in the left tail)."""
    x = dense_x(-10, 10)
    x = x[np.abs(x) < 10]
    dy = np.ones_like(x)
    z = rb.ref_gelu_backward_v2(dy, x, "none", kernel).astype(np.float64)
    t = rb.truth_gelu_backward(dy, x)
    bound = 4.0 * ulp32(t) + 2.0 ** -24
    bad = ~(np.abs(z - t) <= bound)
    assert not bad.any(), (x[bad][:5], z[bad][:5], t[bad][:5])


def test_gelu_backward_v2_a2_none_sign_trick_and_infinities():
    """The A2 reads the sign bit (ShiftRight 31, Cast, -0.5): +0 and -0 give the same 0.5;
    |x| is clamped to 30 before the polynomial, so +-inf give dy * 1 and dy * -0."""
    x = np.array([0.0, -0.0, INF, -INF, 30.0, 1e30], F32)
    dy = np.full(6, 3.0, F32)
    z = rb.ref_gelu_backward_v2(dy, x, "none", "a2")
    assert z[0] == z[1] == F32(1.5)
    assert z[2] == 3.0 and z[3] == 0 and np.signbit(z[3])
    assert z[4] == 3.0 and z[5] == 3.0
    # truth at +-inf is NaN in torch's formula (inf * 0); the 950's erf path gives NaN too
    k950 = rb.ref_gelu_backward_v2(dy[2:4], x[2:4], "none", "arch35")
    assert np.isnan(k950).all()


def test_gelu_backward_v2_a2_nan_needs_mins_to_propagate():
    """A NaN x: Mins(|NaN|, 30) is NaN under the model (the goldens accept only NaN out). A Mins
    returning 30 instead would give a finite gradient: the sequence with that Mins differs."""
    x = np.array([NAN, -NAN], F32)
    z = rb.ref_gelu_backward_v2(np.ones(2, F32), x, "none", "a2")
    assert np.isnan(z).all()
    clamped = rb.ref_gelu_backward_v2(np.ones(2, F32), np.array([30.0, -30.0], F32), "none", "a2")
    assert np.isfinite(clamped).all()


def test_gelu_backward_v2_a2_tanh_guard():
    """A2 tanh = the A2 GeluGrad (versionNum 0) sequence plus a NaN guard: equal bits wherever the
    old one is not NaN; where Exp overflows (x below about -10.06) and at +-inf the guard gives
    dy * (0 + s) instead of NaN."""
    x = dense_x()
    dy = np.random.default_rng(6).uniform(-3, 3, x.size).astype(F32)
    new = rb.ref_gelu_backward_v2(dy, x, "tanh", "a2")
    old = ra.ref_gelu_backward(dy, x, "a2")
    ok = ~np.isnan(old)
    assert_bits_equal(new[ok], old[ok], "a2 tanh vs GeluGrad v0")
    assert (~ok).sum() > 100 and not np.isnan(new[~ok & ~np.isnan(x)]).any()
    s = rb.ref_gelu_backward_v2(np.full(3, 2.0, F32), np.array([INF, -INF, -20.0], F32), "tanh", "a2")
    assert s[0] == 2.0 and s[1] == 0 and s[2] == 0
    # 950 tanh is the first tier's 950 GeluBackward
    assert_bits_equal(rb.ref_gelu_backward_v2(dy, x, "tanh", "arch35"), ra.ref_gelu_backward(dy, x, "arch35"), "950")


def test_gelu_backward_v2_a2_tanh_constants_as_double_casts():
    """static_cast<float>(double literal) here, float literals in GeluGrad: the same bits."""
    for key, lit in (("c0", "-0.0713548162726002527220"), ("c1", "-1.595769121605730711759"),
                     ("c2", "0.2140644488178007"), ("c3", "1.595769121605730711759")):
        assert rb.A2_GGV2_TANH[key] == ra.f32_literal(lit)


@pytest.mark.parametrize("kernel", ["arch35", "a2"])
@pytest.mark.parametrize("dtype", DT16)
def test_gelu_backward_v2_none_every_16bit_input(kernel, dtype):
    x = every16(dtype)
    dys = np.array([1.0, -2.5], dtype=F32).astype(DT16[dtype])
    xs, dy = np.tile(x, dys.size), np.repeat(dys, x.size)
    z = rb.ref_gelu_backward_v2(dy, xs, "none", kernel)
    x64, dy64 = xs.astype(np.float64), dy.astype(np.float64)
    t = rb.truth_gelu_backward(dy64, x64)
    t = np.where(np.abs(x64) < 5.5, t, np.nan)       # the 950's Pade clips at |x| = 5.54
    # 0.5 erf + 0.5 cancels for negative x: the Pade erf's absolute error (up to 6 ulp of 1) remains
    slack = np.abs(dy64) * (10.0 * ulp32(t / np.abs(dy64)) + 2.0 ** -20)
    assert_narrowed_from_truth(z, t, slack, dtype, f"gelu_backward_v2 {kernel} {dtype}", min_checked=1000)


# ------------------------------------------------------------------ Softplus


SOFTPLUS_ATTRS = [(1.0, 20.0), (2.0, 20.0), (0.5, 5.0), (-1.0, 20.0), (1.0, 0.0), (3e3, 20.0)]


@pytest.mark.parametrize("beta,threshold", SOFTPLUS_ATTRS)
def test_softplus_tracks_truth(beta, threshold):
    """log1p(e^bx) / beta with the kernel's accurate log1p: within 3 (1 + |bx|) ulp of the truth
    (the rounding of beta * x is magnified |bx| times by Exp in the left tail)."""
    x = dense_x(-60, 60)
    y = rb.ref_softplus(x, beta, threshold)
    t = rb.truth_softplus(x, beta, threshold)
    bx = np.abs(F32(beta) * x.astype(np.float64))
    where = np.isfinite(t) & (np.abs(t) >= 2.0 ** -126) & (bx < 87)
    assert (ulp_error(y, t) <= 3.0 * (1 + bx))[where].all()


def test_softplus_log1p_keeps_the_left_tail():
    """Where 1 + e rounds to 1 the kernel returns e itself (mask u == 1): softplus(x) for x below
    about -16.6 is exp(x) correctly rounded, not the 0 a plain log(1 + e) gives."""
    x = np.array([-17.0, -30.0, -87.0, -100.0], F32)
    y = rb.ref_softplus(x)
    assert_bits_equal(y, ref_exp_f32(x), "softplus left tail")
    assert (y > 0).all()
    plain = rb.ref_ln_f32(ref_exp_f32(x) + F32(1.0))
    assert (plain == 0).all()


def test_softplus_specials_and_threshold():
    s = rb.ref_softplus(np.array([NAN, INF, -INF, 0.0, -0.0, 20.0, 20.000002], F32))
    assert np.isnan(s[0])
    assert s[1] == INF                               # beta*x > threshold: x itself
    assert s[2] == 0 and not np.signbit(s[2])        # e = 0 -> u == 1 -> e
    assert s[3] == s[4] == F32(np.log(2.0))
    assert s[5] == 20.0 and s[6] == F32(20.000002)  # 20 > 20 is false: log1p(e^20) rounds to 20; above, x
    # NaN: the GT mask is false, so the NaN goes through Exp/Log and stays NaN
    # threshold 0: every x > 0 returns x; x <= 0 goes through log1p
    y = rb.ref_softplus(np.array([1e-30, -0.0, -1.0], F32), 1.0, 0.0)
    assert y[0] == F32(1e-30) and y[1] == F32(np.log(2.0)) and y[2] == F32(np.log1p(np.exp(-1.0)))


def test_softplus_beta_edges():
    """beta 0 and |beta| <= FLT_EPSILON: the host sets invBeta = +inf (either sign of beta), so
    every x whose beta*x does not exceed the threshold gives +inf; torch gives inf too at
    beta = 0 but finite values for beta = 1e-8 or -1e-8. Negative beta: x where beta*x >
    threshold, else log1p(e^bx) / beta < 0. Huge beta: the threshold branch nearly everywhere."""
    x = np.array([-3.0, 0.0, 5.0], F32)
    for beta in (0.0, -0.0, 1e-8, -1e-8, 2.0 ** -23, -(2.0 ** -23)):
        assert (rb.ref_softplus(x, beta) == INF).all(), beta
    assert rb.softplus_inv_beta(2.0 ** -22) == F32(2.0 ** 22)
    y = rb.ref_softplus(np.array([-30.0, -1.0, 3.0], F32), -1.0)
    assert y[0] == F32(-30.0) and y[1] < 0 and y[2] < 0
    assert np.isclose(y[1], -np.log1p(np.exp(1.0)), rtol=1e-6)
    y = rb.ref_softplus(np.array([-1.0, 1e-3, 1.0], F32), 1e30)
    assert y[1] == F32(1e-3) and y[2] == 1.0 and y[0] == 0


@pytest.mark.parametrize("dtype", DT16)
def test_softplus_every_16bit_input_narrows_ties_away(dtype):
    """16-bit: the float32 result narrowed with CAST_ROUND (ties away from zero). Measured: no
    float32 result of a 16-bit input is an exact 16-bit tie at beta 1, threshold 20 (nor at
    beta 0.25-8, -1, threshold 0), so CAST_ROUND and CAST_RINT agree on all 2^16 inputs here."""
    x = every16(dtype)
    y = rb.ref_softplus(x)
    x64 = x.astype(np.float64)
    t = rb.truth_softplus(x64, 1.0, 20.0)
    assert_narrowed_from_truth(y, t, 4.0 * ulp32(t), dtype, f"softplus {dtype}", min_checked=1000)
    y32 = rb.softplus_arch35_f32(x.astype(F32), 1.0, 20.0)
    rint = ra.narrow_like(y32, x)
    apart = (y.view(np.uint16) != rint.view(np.uint16)) & ~np.isnan(y.astype(F32))
    assert not apart.any()
    # the narrowing itself: a float32 tie goes away from zero (1 + 2^-11 in float16, 1 + 2^-8 in bfloat16)
    tie = F32(1 + 2.0 ** (-11 if dtype == "float16" else -8))
    assert float(rb.narrow(np.array([tie, -tie]), DT16[dtype], ties_away=True)[0]) > 1


# ------------------------------------------------------------------ SoftplusBackward


@pytest.mark.parametrize("kernel", ["arch35", "a2"])
@pytest.mark.parametrize("beta,threshold", SOFTPLUS_ATTRS)
def test_softplus_backward_tracks_truth(kernel, beta, threshold):
    """dy / (1 + e^-bx): within (2.5 + |bx|) ulp on the 950 (one Div of dy), (3 + |bx|) on the A2
    (dy times 1/(1 + e)); the |bx| term is the rounding of beta * x magnified by Exp."""
    x = dense_x(-60, 60)
    dy = np.random.default_rng(7).uniform(-4, 4, x.size).astype(F32)
    z = rb.ref_softplus_backward(dy, x, beta, threshold, kernel)
    t = rb.truth_softplus_backward(dy, x, beta, threshold)
    bx = np.abs(F32(beta) * x.astype(np.float64))
    where = (np.abs(t) >= 2.0 ** -100) & (bx < 88)
    assert (ulp_error(z, t) <= (2.5 if kernel == "arch35" else 3.0) + bx)[where].all()


def test_softplus_backward_kernels_differ_by_one_rounding():
    x = np.random.default_rng(8).uniform(-10, 10, 200000).astype(F32)
    dy = np.random.default_rng(9).uniform(-4, 4, x.size).astype(F32)
    a2 = rb.ref_softplus_backward(dy, x, kernel="a2")
    k950 = rb.ref_softplus_backward(dy, x, kernel="arch35")
    apart = np.abs(a2.view(np.int32).astype(np.int64) - k950.view(np.int32).astype(np.int64))
    assert 0.15 < np.mean(apart != 0) < 0.3 and apart.max() == 1       # measured 23%, 1 ulp


def test_softplus_backward_threshold_register_is_nan_at_infinity():
    """The 950 compares beta*x against (t - t) + threshold: NaN where t is +-inf, so the compare is
    false there; the division branch still gives dy at +inf (e = 0) and dy / inf = 0 at -inf."""
    t1 = np.array([INF, -INF], F32)
    assert np.isnan(t1 - t1).all()
    dy = np.array([2.5, 2.5, 2.5, -1.0], F32)
    x = np.array([INF, -INF, NAN, 25.0], F32)
    for kernel in ("arch35", "a2"):
        z = rb.ref_softplus_backward(dy, x, kernel=kernel)
        assert z[0] == 2.5 and z[1] == 0 and np.isnan(z[2]) and z[3] == -1.0
    # beta 0: beta*x = 0, never above threshold 20: dy / 2 on both
    z = rb.ref_softplus_backward(dy[:2], np.array([3.0, -3.0], F32), 0.0, 20.0, "arch35")
    assert (z == 1.25).all()


@pytest.mark.parametrize("kernel", ["arch35", "a2"])
@pytest.mark.parametrize("dtype", DT16)
def test_softplus_backward_every_16bit_input(kernel, dtype):
    x = every16(dtype)
    dy = np.full(x.size, 1.5, dtype=F32).astype(DT16[dtype])
    z = rb.ref_softplus_backward(dy, x, kernel=kernel)
    x64 = x.astype(np.float64)
    t = rb.truth_softplus_backward(dy.astype(np.float64), x64, 1.0, 20.0)
    t = np.where(x64 > -88.7, t, np.nan)            # Exp overflow: next test
    assert_narrowed_from_truth(z, t, 3.5 * (1 + np.abs(x64)) * ulp32(t), dtype, f"softplus_backward {kernel} {dtype}",
                               min_checked=1000)


def test_softplus_backward_exp_overflow_gives_zero():
    """Below beta x = -88.72 Exp(-beta x) overflows: dy / inf = 0 (A2: dy * (1 / inf)), where the
    gradient is still a normal bfloat16 / float32 (about 1e-39 at x = -89)."""
    x = np.array([-89.0, -100.0], F32)
    dy = np.array([1.5, -1.5], F32)
    for kernel in ("arch35", "a2"):
        z = rb.ref_softplus_backward(dy, x, kernel=kernel)
        assert z[0] == 0 and not np.signbit(z[0]) and z[1] == 0 and np.signbit(z[1])
    assert rb.truth_softplus_backward(dy[:1], x[:1], 1.0, 20.0)[0] > 2.0 ** -149


# ------------------------------------------------------------------ LeakyRelu, LeakyReluBackward


@pytest.mark.parametrize("dtype", DT16)
@pytest.mark.parametrize("slope", [0.01, 0.0, 1.0, -0.5, 3.0])
def test_leaky_relu_every_16bit_input(dtype, slope):
    """x for x > 0, else x * slope rounded to float32 then to the 16-bit dtype (a double
    rounding, within half a 16-bit ulp plus one binary32 ulp of the exact product)."""
    x = every16(dtype)
    y = rb.ref_leaky_relu(x, slope)
    x64 = x.astype(np.float64)
    pos = x64 > 0
    assert_bits_equal(y[pos], x[pos], "positive x passes")
    t = np.where(pos, x64, x64 * float(F32(slope)))
    assert_narrowed_from_truth(y, t, ulp32(t), dtype, f"leaky_relu {dtype} {slope}", min_checked=1000)


def test_leaky_relu_specials_and_slopes():
    x = np.array([NAN, INF, -INF, 0.0, -0.0, -2.0], F32)
    y = rb.ref_leaky_relu(x, 0.01)
    assert np.isnan(y[0]) and y[1] == INF and y[2] == -INF
    assert y[3] == 0 and not np.signbit(y[3]) and y[4] == 0 and np.signbit(y[4])     # -0 * 0.01
    y0 = rb.ref_leaky_relu(x, 0.0)
    assert np.isnan(y0[2])                          # -inf * 0: NaN, not 0
    assert y0[5] == 0 and np.signbit(y0[5])         # -2 * 0 = -0
    assert_bits_equal(rb.ref_leaky_relu(x, 1.0), x, "slope 1 is the identity")
    yn = rb.ref_leaky_relu(x, -1.0)
    assert yn[4] == 0 and not np.signbit(yn[4]) and yn[5] == 2.0


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("slope", [0.01, 0.0, 1.0, -0.5])
def test_leaky_relu_backward(dtype, slope):
    """dy where x > 0, else dy * slope; a NaN or -0 x takes the slope branch."""
    rng = np.random.default_rng(12)
    x = np.concatenate([rng.uniform(-5, 5, 5000), [NAN, 0.0, -0.0, INF, -INF]]).astype(F32)
    dy = rng.uniform(-5, 5, x.size).astype(F32)
    if dtype != "float32":
        x, dy = x.astype(DT16[dtype]), dy.astype(DT16[dtype])
    z = rb.ref_leaky_relu_backward(dy, x, slope)
    x64, dy64 = x.astype(np.float64), dy.astype(np.float64)
    exact = np.where(x64 > 0, dy64, dy64 * float(F32(slope)))
    want = ra.narrow_like(exact.astype(F32), dy) if dtype != "float32" else exact.astype(F32)
    # dy * slope rounds once in float32 and once more for 16-bit: compare to that product
    want32 = np.where(x64 > 0, dy64.astype(F32), (dy64.astype(F32) * F32(slope)))
    assert_bits_equal(z, ra.narrow_like(want32.astype(F32), dy), f"leaky_relu_backward {dtype}")
    assert (np.abs(z.astype(np.float64) - want.astype(np.float64)) <= np.abs(exact) * 2.0 ** -7 + 1e-30).all()
    # NaN, +0 and -0 x take the slope branch; +inf the dy branch
    assert_bits_equal(z[-5:-2], ra.narrow_like(dy[-5:-2].astype(F32) * F32(slope), dy[-5:-2]), "slope branch")
    assert_bits_equal(z[-2:-1], dy[-2:-1], "x = inf")


def test_leaky_relu_backward_aicpu_float64():
    x = np.array([1.0, -1.0, 0.0, NAN], np.float64)
    dy = np.array([2.0, 2.0, 2.0, 2.0], np.float64)
    z = rb.ref_leaky_relu_backward(dy, x, 0.1, kernel="aicpu")
    assert z.dtype == np.float64
    assert z[0] == 2.0 and z[1] == 2.0 * float(F32(0.1)) and z[2] == z[1] and z[3] == z[1]
    assert z[1] != 0.2                              # the attribute is a float: 0.1 is not 0.1 in binary64


# ------------------------------------------------------------------ Elu


ELU_ATTRS = [(1.0, 1.0, 1.0), (0.5, 2.0, 1.0), (1.0, 1.0, 3.0), (1.6732632, 1.050701, 1.0), (0.0, 1.0, 1.0)]


@pytest.mark.parametrize("alpha,scale,input_scale", ELU_ATTRS)
def test_elu_tracks_truth(alpha, scale, input_scale):
    """scale * (x > 0 ? x : alpha expm1(input_scale x)): the degree-5 Taylor polynomial below |z| = 0.1
    (error z^6/720, under 2e-9 relative) and exp(z) - 1 above (cancellation below |z| = 1): within
    3 ulp + 2^-24 |alpha scale| absolute."""
    x = dense_x(-20, 20)
    y = rb.ref_elu(x, alpha, scale, input_scale)
    t = rb.truth_elu(x, alpha, scale, input_scale)
    bound = 3.0 * ulp32(t) + 2.0 ** -24 * abs(alpha * scale)
    bad = ~(np.abs(y.astype(np.float64) - t) <= bound)
    assert not bad.any(), (x[bad][:4], y[bad][:4], t[bad][:4])


@pytest.mark.parametrize("dtype", DT16)
def test_elu_every_16bit_input(dtype):
    """16-bit: the degree-4 polynomial (error z^5/120 < 1e-7 relative) below |z| = 0.1."""
    x = every16(dtype)
    y = rb.ref_elu(x)
    x64 = x.astype(np.float64)
    t = rb.truth_elu(x64, 1.0, 1.0, 1.0)
    assert_narrowed_from_truth(y, t, 3.0 * ulp32(t) + 2.0 ** -24 * np.minimum(np.abs(x64), 1), dtype, f"elu {dtype}",
                               min_checked=1000)


def test_elu_polynomial_switch_and_specials():
    """|z| < 0.1 takes the Taylor polynomial, which is more accurate than exp(z) - 1 there (that
    cancels): at z = -0.05 the polynomial is the correctly rounded expm1, exp - 1 is 3 ulp off."""
    z = np.array([-0.099999994, -0.05, -0.1, -0.10000001], F32)
    y = rb.ref_elu(z)
    em = ref_exp_f32(z) + F32(-1.0)
    want = np.expm1(z.astype(np.float64)).astype(F32)
    assert_bits_equal(y[:2], want[:2], "polynomial side")
    assert (y[:2] != em[:2]).all()
    assert_bits_equal(y[2:], em[2:], "|z| < 0.1 is false from 0.1 on: exp - 1")
    s = rb.ref_elu(np.array([NAN, INF, -INF, 0.0, -0.0, -1e-45], F32))
    assert np.isnan(s[0]) and s[1] == INF and s[2] == -1.0
    assert s[3] == 0 and not np.signbit(s[3]) and s[4] == 0 and np.signbit(s[4]) and s[5] == F32(-1e-45)
    # alpha 0: every x <= 0 gives -0 (r * 0 with r <= 0), -inf included
    a0 = rb.ref_elu(np.array([-3.0, -INF, -0.0], F32), alpha=0.0)
    assert (a0 == 0).all() and np.signbit(a0).all()


def test_elu_inf_nan_attributes_take_the_threshold_path():
    """alpha or input_scale inf/NaN: the op_api runs Threshold(x, 0, -alpha) and Muls(scale)."""
    y = rb.ref_elu(np.array([-2.0, 3.0, -0.0], F32), alpha=INF)
    assert y[0] == -INF and y[1] == 3.0 and y[2] == -INF
    y = rb.ref_elu(np.array([-2.0, 3.0], F32), alpha=0.5, input_scale=INF, scale=2.0)
    assert y[0] == -1.0 and y[1] == 6.0
    y = rb.ref_elu(np.array([-2.0], F32), alpha=NAN)
    assert np.isnan(y[0])


# ------------------------------------------------------------------ EluBackward


@pytest.mark.parametrize("kernel", ["arch35", "a2"])
@pytest.mark.parametrize("is_result", [False, True])
@pytest.mark.parametrize("alpha,scale,input_scale", ELU_ATTRS)
def test_elu_backward_tracks_truth(kernel, is_result, alpha, scale, input_scale):
    rng = np.random.default_rng(13)
    x = np.concatenate([rng.uniform(-15, 5, 20000), rng.standard_normal(2000)]).astype(F32)
    dy = rng.uniform(-4, 4, x.size).astype(F32)
    x64, dy64 = x.astype(np.float64), dy.astype(np.float64)
    a, s, i = (float(F32(v)) for v in (alpha, scale, input_scale))
    negcoef = float(F32(alpha) * F32(scale))         # the float32 factor both kernels add
    if is_result:
        # activations are the forward output; the kernel's input is y = scale * alpha * expm1(i x) for x <= 0
        act = np.where(x64 > 0, s * x64, s * a * np.expm1(i * x64)).astype(F32)
        t = np.where(act.astype(np.float64) <= 0, dy64 * i * (act.astype(np.float64) + negcoef), dy64 * s)
        inp = act
    else:
        t = np.where(x64 <= 0, dy64 * i * s * a * np.exp(i * x64), dy64 * s)
        inp = x
    z = rb.ref_elu_backward(dy, inp, alpha, scale, input_scale, is_result, kernel)
    where = np.abs(t) >= 2.0 ** -100
    # exp mode: the rounding of input_scale * x is magnified |input_scale x| times by Exp
    amplify = 0 if is_result else np.abs(i * x64)
    assert (ulp_error(z, t) <= 4.0 + amplify)[where].all()


def test_elu_backward_nan_activation_gives_dy_times_scale():
    """Compare LE is false for a NaN activation, so both kernels return dy * scale, not NaN."""
    for kernel in ("arch35", "a2"):
        for is_result in (False, True):
            z = rb.ref_elu_backward(np.array([2.0], F32), np.array([NAN], F32), 1.0, 3.0, 1.0, is_result, kernel)
            assert z[0] == 6.0


def test_elu_backward_orders_differ():
    """The 950 multiplies (dy * inputScale) * negcoef * exp; the A2 exp * (alpha scale inputScale) * dy;
    in result mode the 950 (dy * inputScale) * (y + alpha scale), the A2 ((y + bias) * inputScale) * dy."""
    rng = np.random.default_rng(14)
    x = rng.uniform(-5, 0, 100000).astype(F32)
    dy = rng.uniform(-4, 4, x.size).astype(F32)
    for is_result in (False, True):
        k950 = rb.ref_elu_backward(dy, x, 0.7, 1.3, 1.7, is_result, "arch35")
        a2 = rb.ref_elu_backward(dy, x, 0.7, 1.3, 1.7, is_result, "a2")
        assert (k950.view(np.int32) != a2.view(np.int32)).mean() > 0.05


def test_elu_backward_a2_skips_nearly_one_factors_per_variant():
    """(0.999, 1.001): a variant that skips Muls by such a factor gives different bits from one that
    multiplies; at exactly 1 all variants agree (a Muls by 1 is exact)."""
    rng = np.random.default_rng(15)
    x = rng.uniform(-5, 3, 20000).astype(F32)
    dy = rng.uniform(-4, 4, x.size).astype(F32)
    for is_result in (False, True):
        outs = [rb.ref_elu_backward(dy, x, 1.0, 1.0005, 1.0005, is_result, "a2", skip) for skip in rb.A2_ELU_SKIPS]
        assert (outs[0].view(np.int32) != outs[2].view(np.int32)).any()
        ones = [rb.ref_elu_backward(dy, x, 1.0, 1.0, 1.0, is_result, "a2", skip) for skip in rb.A2_ELU_SKIPS]
        for o in ones[1:]:
            assert_bits_equal(o, ones[0], "factor exactly 1")
    # result mode, float32 "input_scale" variant: only the inputScale Muls is left out
    a = rb.ref_elu_backward(dy, x, 1.0, 1.0005, 1.0, True, "a2", "input_scale")
    b = rb.ref_elu_backward(dy, x, 1.0, 1.0005, 1.0, True, "a2", "none")
    assert_bits_equal(a, b, "scale is still applied")


@pytest.mark.parametrize("kernel", ["arch35", "a2"])
@pytest.mark.parametrize("dtype", DT16)
def test_elu_backward_every_16bit_input(kernel, dtype):
    x = every16(dtype)
    dy = np.full(x.size, -1.25, F32).astype(DT16[dtype])
    z = rb.ref_elu_backward(dy, x, 1.0, 1.0, 1.0, False, kernel)
    x64 = x.astype(np.float64)
    t = np.where(x64 <= 0, -1.25 * np.exp(x64), -1.25)
    assert_narrowed_from_truth(z, t, 3.0 * ulp32(t), dtype, f"elu_backward {kernel} {dtype}", min_checked=1000)
