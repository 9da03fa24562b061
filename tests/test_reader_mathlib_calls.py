"""More of AscendC's math library in a read kernel (issue 43, reader.mathlib_calls): Silu, Swish, the three Gelus,
Sinh, Cosh, ClampMax / ClampMin, Log2, Log10, Sign, Erf, Atan and Atanh (and reader.mathlib's Acosh and Asinh on half), each expanded into the instructions asc-devkit's A2
implementation runs, bit for bit against a reference written here instruction by instruction: on float32 each
instruction one float32 operation; on half, where the library computes in half, each instruction's float32
result on the exact widenings rounded once to half (to nearest even), and where it computes in float32 (the
half specialisations) the float32 formula between a widening and one narrowing Cast.

The fixture (tests/fixtures/kernels/mathlib_acts) is a tutorial-style class kernel calling ``AscendC::Silu``;
each test puts another call in its place (and ``half`` for ``float`` where it runs on half)."""
import numpy as np
import pytest

from activation_checks import every16
from reference import SPECIALS, assert_bits_equal, random_inputs, ref_exp_f32
from reference_activations_tier2 import ref_ln_f32
from reference_family import narrow
from reader_variants import fixture_variant

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError
from swishgrad_numba.reader.mathlib import EXPANDED, NOT_EXPANDED

F32, F16 = np.float32, np.float16
CALL = "AscendC::Silu(yLocal, xLocal, this->tileLength);"


def _half(v):
    """A float32 result rounded once to half (to nearest even), as float32 again."""
    return narrow(np.asarray(v, F32), F16, ties_away=False).astype(F32)


def _same(v):
    return np.asarray(v, F32)


def _const(value, dtype):
    """``const T c = value``: the constant as the kernel's T (half through float32: the same half here)."""
    c = F32(value)
    return F32(F16(c)) if dtype == F16 else c


def _mins(a, c):
    return np.where(np.isnan(a) | (a <= c), a, c).astype(F32)


def _maxs(a, c):
    return np.where(np.isnan(a) | (a >= c), a, c).astype(F32)


def _div(a, b, r, fast):
    """Div(a, b), or with highPerformance Reciprocal(b, b) then Mul(a, b)."""
    return r(a * r(F32(1) / b)) if fast else r(a / b)


def ref_silu(x, r, dt, beta=1.0):
    d = r(x * -_const(beta, dt))
    d = r(ref_exp_f32(d))
    d = r(d + F32(1))
    return r(x / d)


def ref_gelu(x, r, dt, fast=False):
    a = r(x * x)
    b = r(x * a)
    a = r(b * _const(0.044715, dt))
    b = r(x + a)
    a = r(b * _const(1.5957691216057308, dt))
    b = r(_mins(a, F32(0)))
    b = r(ref_exp_f32(b))
    a = np.abs(a)
    a = r(a * F32(-1))
    a = r(ref_exp_f32(a))
    a = r(a + F32(1))
    a = _div(x, a, r, fast)
    return r(a * b)


def ref_faster_gelu(x, r, dt, fast=False):
    s = r(x * _const(-1.702, dt))
    s = r(ref_exp_f32(s))
    s = r(s + F32(1))
    return _div(x, s, r, fast)


def ref_faster_gelu_v2(x, r, dt, fast=False):
    a = r(x * _const(0.7071, dt))
    a = np.abs(a)
    a = r(_mins(a, _const(1.769, dt)))
    a = r(a + _const(-1.769, dt))
    a = r(a * a)
    a = r(a * _const(-0.1444, dt))
    a = r(a + _const(0.5, dt))
    b = r(x + _const(1e-12, dt))          # 0 in half
    c = np.abs(b)
    b = _div(b, c, r, fast)
    a = r(a * b)
    a = r(a + _const(0.5, dt))
    return r(x * a)


NEG_LN2 = F32(-0.69314718055994530941723212145818)


def ref_sinh(x):
    t = ref_exp_f32(x * F32(-1) + NEG_LN2)
    return ref_exp_f32(x + NEG_LN2) - t


def ref_cosh(x):
    a = ref_exp_f32(x + NEG_LN2)
    return a + F32(0.25) / a


def ref_log2(x):
    return ref_ln_f32(x) * F32(1.4426950408889634)


def ref_log10(x, r, dt):
    return r(r(ref_ln_f32(x)) * _const(0.43429448190325176, dt))


def ref_acosh(x):
    t = np.sqrt(x * x + F32(-1))
    t = x + t
    return ref_ln_f32(t * (t / t))


def ref_asinh(x):
    a = np.abs(x)
    t = ref_ln_f32(np.sqrt(a * a + F32(1)) + a)
    s = x * F32(2.0 ** 62)
    return t * (s / (np.abs(s) + F32(2.0 ** -62)))


ERF_P = [F32(v) for v in (0.053443748819, 0.75517016694e1, 0.10162808918e3, 0.13938061484e4, 0.50637915060e4,
                         0.29639384698e5)]
ERF_Q = [F32(v) for v in (0.31212858877e2, 0.39856963806e3, 0.30231248150e4, 0.13243365831e5, 0.26267224157e5)]


def ref_erf(x):
    c = _maxs(_mins(x, F32(3.92)), -F32(3.92))
    a = c * c
    b = a * ERF_P[0]
    for k in ERF_P[1:-1]:
        b = a * (b + k)
    p = c * (b + ERF_P[-1])
    q = a + ERF_Q[0]
    for k in ERF_Q[1:]:
        q = a * q + k
    return p / q


ATAN_F = [F32(v) for v in (1, -0.3333333333333333, 0.2, -0.14285714285714285, 0.1111111111111111,
                           -0.09090909090909091, 0.07692307692307693)]
TAN_PI_8, PI_8, PI_4 = F32(0.4142135623730950), F32(0.39269908169872415), F32(0.7853981633974483)


def _taylor(x, k):
    sq = x * x
    d = (x * x) * ATAN_F[k]
    for i in range(k - 1, 0, -1):
        d = (d + ATAN_F[i]) * sq
    return (d + ATAN_F[0]) * x


def _transform(x):
    return np.abs((x + -TAN_PI_8) / (x * TAN_PI_8 + F32(1)))


def _min(a, b):
    return np.where(np.isnan(a) | (a <= b), a, b).astype(F32)


def ref_atan(x):
    clip = _maxs(_mins(x, F32(10000)), F32(-10000))
    a = np.abs(clip)
    d = _taylor(a, 4)
    d = _min(d, _taylor(_transform(a), 4) + PI_8)
    t = np.abs((a + F32(-1)) / (a + F32(1)))
    d = _min(d, _taylor(t, 4) + PI_4)
    d = _min(d, (_taylor(_transform(t), 6) + PI_8) + PI_4)
    s = clip * F32(2.0 ** 62)
    return d * (s / (np.abs(s) + F32(2.0 ** -62)))


def ref_atanh(x):
    return ref_ln_f32((x + F32(1)) / (x * F32(-1) + F32(1))) * F32(0.5)


def ref_sign(x):
    t = np.where(x < 0, F32(0), F32(1))          # Select(t, 0, 1, x < 0)
    d = np.where(x > 0, F32(0), F32(-1))         # Select(d, 0, -1, x > 0)
    return (t + d).astype(F32)


def _inputs(dtype):
    if dtype == "float16":
        return every16("float16")
    rng = np.random.default_rng(43)
    wide = np.ldexp(rng.uniform(1, 2, 3000), rng.integers(-140, 128, 3000)) * rng.choice([-1, 1], 3000)
    return np.concatenate([random_inputs(rng, 6000, F32)[1], wide.astype(F32), SPECIALS.astype(F32),
                           np.array([8.8, -8.8, 1.769 / 0.7071, 89.0, -89.0, 1e-12, -1e-12], F32)])


def _op(tmp_path, call, dtype):
    folder, _ = fixture_variant(tmp_path, "mathlib_acts", CALL, call)
    if dtype == "float16":
        path = folder / "mathlib_acts.cpp"
        path.write_text(path.read_text().replace("KernelMathlibActs<float> op;", "KernelMathlibActs<half> op;"))
    return read_kernel(folder)


def _run(tmp_path, call, dtype, ref, **attrs):
    x = _inputs(dtype)
    got = _op(tmp_path, call, dtype).run(x=x, **attrs)
    with np.errstate(all="ignore"):
        want = ref(x.astype(F32))
    want = want.astype(F32) if dtype == "float32" else narrow(want, F16, ties_away=False)
    assert_bits_equal(got, want, f"{call} {dtype}")


def _native(fn, **kw):
    """A formula the library runs in T: float32 as is; on half every instruction rounded to half."""
    def ref(x, dtype):
        return fn(x, _same, F32, **kw) if dtype == "float32" else fn(x, _half, F16, **kw)
    return ref


NATIVE = [
    ("AscendC::Silu(yLocal, xLocal, this->tileLength);", _native(ref_silu)),
    ("AscendC::Swish(yLocal, xLocal, this->tileLength, 1.702f);", _native(ref_silu, beta=1.702)),
    ("AscendC::Gelu(yLocal, xLocal, this->tileLength);", _native(ref_gelu)),
    ("AscendC::Gelu<T, false, true>(yLocal, xLocal, sharedTmp, this->tileLength);", _native(ref_gelu, fast=True)),
    ("AscendC::FasterGelu(yLocal, xLocal, sharedTmp, this->tileLength);", _native(ref_faster_gelu)),
    ("AscendC::FasterGelu<T, false, true>(yLocal, xLocal, this->tileLength);", _native(ref_faster_gelu, fast=True)),
    ("AscendC::FasterGeluV2(yLocal, xLocal, this->tileLength);", _native(ref_faster_gelu_v2)),
    ("AscendC::FasterGeluV2<T, false, true>(yLocal, xLocal, sharedTmp, this->tileLength);",
     _native(ref_faster_gelu_v2, fast=True)),
    ("AscendC::Log10(yLocal, xLocal, this->tileLength);", _native(ref_log10)),
    ("AscendC::ClampMax(yLocal, xLocal, sharedTmp, static_cast<T>(2.5f), this->tileLength);",
     lambda x, dtype: _mins(x, F32(2.5))),
    ("AscendC::ClampMin<T>(yLocal, xLocal, static_cast<T>(-0.3f), this->tileLength);",
     lambda x, dtype: _maxs(x, _const(-0.3, F16 if dtype == "float16" else F32))),
    ("AscendC::Sign(yLocal, xLocal, sharedTmp, this->tileLength);", lambda x, dtype: ref_sign(x)),
]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("call, ref", NATIVE, ids=[c.split("(")[0] + ("_fast" if "true" in c else "") for c, _ in NATIVE])
def test_a_call_computed_in_its_type_bit_for_bit(tmp_path, call, ref, dtype):
    _run(tmp_path, call, dtype, lambda x: ref(x, dtype))


WIDENED = [   # float32 formulas, and on half the library's float32 specialisation between two Casts
    ("AscendC::Sinh(yLocal, xLocal, sharedTmp, this->tileLength);", ref_sinh),
    ("AscendC::Log2(yLocal, xLocal, sharedTmp, this->tileLength);", ref_log2),
    ("AscendC::Acosh(yLocal, xLocal, sharedTmp, this->tileLength);", ref_acosh),     # reader.mathlib
    ("AscendC::Asinh(yLocal, xLocal, this->tileLength);", ref_asinh),
    ("AscendC::Atan(yLocal, xLocal, sharedTmp, this->tileLength);", ref_atan),
    ("AscendC::Atanh(yLocal, xLocal, this->tileLength);", ref_atanh),
    ("AscendC::Gelu<T, true>(yLocal, xLocal, sharedTmp, this->tileLength);", lambda x: ref_gelu(x, _same, F32)),
    ("AscendC::FasterGelu<T, true, true>(yLocal, xLocal, this->tileLength);",
     lambda x: ref_faster_gelu(x, _same, F32, fast=True)),
    ("AscendC::FasterGeluV2<T, true>(yLocal, xLocal, this->tileLength);", lambda x: ref_faster_gelu_v2(x, _same, F32)),
]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("call, ref", WIDENED, ids=[c.split("(")[0] for c, _ in WIDENED])
def test_a_call_computed_in_float32_bit_for_bit(tmp_path, call, ref, dtype):
    _run(tmp_path, call, dtype, ref)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("call, ref", [("AscendC::Cosh(yLocal, xLocal, this->tileLength);", ref_cosh),
                                       ("AscendC::Erf(yLocal, xLocal, sharedTmp, this->tileLength);", ref_erf)],
                         ids=["Cosh", "Erf"])
def test_a_float32_formula_narrowed_with_cast_round_on_half(tmp_path, call, ref, dtype):
    # the A2's CoshCast (cosh_v220_impl.h) and GetErfCastType (erf_common_impl.h) narrow with CAST_ROUND:
    # ties away from zero
    x = _inputs(dtype)
    got = _op(tmp_path, call, dtype).run(x=x)
    with np.errstate(all="ignore"):
        want = ref(x.astype(F32))
    want = want if dtype == "float32" else narrow(want, F16, ties_away=True)
    assert_bits_equal(got, want, f"{call} {dtype}")


def test_a_float_tiling_field_as_swish_and_clamp_scalars(tmp_path):
    x = _inputs("float32")
    for call, ref in [("AscendC::Swish(yLocal, xLocal, this->tileLength, this->beta);",
                       lambda x, b: ref_silu(x, _same, F32, beta=b)),
                      ("AscendC::ClampMax(yLocal, xLocal, this->beta, this->tileLength);", lambda x, b: _mins(x, F32(b))),
                      ("AscendC::ClampMin(yLocal, xLocal, this->beta, this->tileLength);", lambda x, b: _maxs(x, F32(b)))]:
        op = _op(tmp_path / call.split("(")[0][9:], call, "float32")
        for beta in (0.7, -1.25):
            with np.errstate(all="ignore"):
                assert_bits_equal(op.run(x=x, beta=beta), ref(x, beta), f"{call} beta={beta}")


def test_dst_may_be_src_as_in_the_library(tmp_path):
    # Silu writes dst (-x, e^-x, 1 + e^-x), then divides src by it: called in place src is that same
    # 1 + e^-x, so the library's order gives d / d (1, or NaN where d is infinite)
    x = _inputs("float32")
    op = _op(tmp_path, "AscendC::Silu(xLocal, xLocal, this->tileLength);\n"
                       "        AscendC::Muls(yLocal, xLocal, 1.0f, this->tileLength);", "float32")
    with np.errstate(all="ignore"):
        d = ref_exp_f32(x * F32(-1)) + F32(1)
        assert_bits_equal(op.run(x=x), d / d, "in-place Silu")


@pytest.mark.parametrize("call, words", [
    ("AscendC::Silu(yLocal, xLocal, sharedTmp, this->tileLength);", "the reader knows (dst, src, count)"),
    ("AscendC::Swish(yLocal, xLocal, this->tileLength);", "(dst, src, count, scalar)"),
    ("AscendC::ClampMax(yLocal, xLocal, this->tileLength);", "(dst, src, [sharedTmpBuffer], scalar, count)"),
    ("AscendC::Gelu<T, this->beta>(yLocal, xLocal, this->tileLength);", "template argument 2"),
    ("AscendC::Lgamma(yLocal, xLocal, this->tileLength);", "AscendC::Lgamma: a math-library call the reader does"),
    ("AscendC::Power(yLocal, xLocal, xLocal, this->tileLength);", "combines Compare masks as packed uint16_t"),
    ("AscendC::Floor(yLocal, xLocal, sharedTmp);", "the reader knows (dst, src, [sharedTmpBuffer], count)"),
])
def test_what_is_not_read_is_refused_at_its_line(tmp_path, call, words):
    folder, path = fixture_variant(tmp_path, "mathlib_acts", CALL, call)
    with pytest.raises(KernelSourceError) as e:
        read_kernel(folder)
    assert e.value.file == str(path) and e.value.line == 50 and words in str(e.value), str(e.value)


def test_bfloat16_is_refused_by_name(tmp_path):
    folder, path = fixture_variant(tmp_path, "mathlib_acts", "KernelMathlibActs<float> op;",
                                   "KernelMathlibActs<bfloat16_t> op;")
    with pytest.raises(KernelSourceError) as e:
        read_kernel(folder)
    assert e.value.line == 50 and "AscendC::Silu on bfloat16" in str(e.value), str(e.value)


def test_expanded_and_refused_are_one_list():
    assert not set(EXPANDED) & NOT_EXPANDED
    assert {"Silu", "Swish", "Gelu", "FasterGelu", "FasterGeluV2", "Sinh", "Cosh", "ClampMax", "ClampMin", "Log2",
            "Log10", "Sign", "Erf", "Atan", "Atanh"} <= set(EXPANDED)
