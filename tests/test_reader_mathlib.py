"""AscendC's math library in a read kernel (issue 43): Sigmoid and Tanh expanded into the instructions
asc-devkit's A2 implementation runs (reader.mathlib cites file and lines), bit for bit against a reference
written here instruction by instruction; the calls it does not expand refused by name at their line."""
from pathlib import Path

import numpy as np
import pytest

from activation_checks import every16
from reference import SPECIALS, assert_bits_equal, random_inputs, ref_exp_f32
from reference_activations_tier2 import ref_ln_f32
from reference_family import narrow
from reader_variants import fixture_variant

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32 = np.float32


def ref_mathlib_gate(x):
    """Sigmoid: Muls -1, Exp, Adds 1, Duplicate 1, Div(1, .); Tanh: Mins 8.8f, Maxs -8.8f, Muls 2, Exp,
    Adds -1, Adds 1, Div; then Mul(tanh, sigmoid). 16-bit widened exactly, narrowed with CAST_RINT."""
    with np.errstate(all="ignore"):
        w = x.astype(F32)
        s = w * F32(-1.0)
        s = ref_exp_f32(s)
        s = s + F32(1.0)
        s = F32(1.0) / s
        t = np.where(np.isnan(w), w, np.minimum(w, F32(8.8)))
        t = np.where(np.isnan(t), t, np.maximum(t, F32(-8.8)))
        t = t * F32(2.0)
        t = ref_exp_f32(t)
        num = t + F32(-1.0)
        t = t + F32(1.0)
        th = num / t
        y = th * s
    return y if x.dtype == F32 else narrow(y, x.dtype, ties_away=False)


@pytest.fixture(scope="module")
def gate():
    return read_kernel(KERNELS / "mathlib_gate")


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_sigmoid_and_tanh_bit_for_bit(gate, dtype):
    if dtype == "float32":
        x = np.concatenate([random_inputs(np.random.default_rng(5), 10_000, F32)[1], SPECIALS.astype(F32),
                            np.array([8.8, -8.8, 8.799999, 4.4, 1e-30], F32)])
    else:
        x = every16(dtype)
    assert_bits_equal(gate.run(x=x), ref_mathlib_gate(x), f"mathlib_gate {dtype}")


def _variant(tmp_path, old, new):
    return fixture_variant(tmp_path, "mathlib_gate", old, new)


@pytest.mark.parametrize("old, new, line, words", [
    ("AscendC::Sigmoid(sig, xLocal, this->tileLength);", "AscendC::Asin(sig, xLocal, this->tileLength);", 47,
     "AscendC::Asin: a math-library call the reader does not expand"),
    ("AscendC::Sigmoid(sig, xLocal, this->tileLength);", "AscendC::Pow(sig, xLocal, xLocal, this->tileLength);",
     47, "combines Compare masks as packed uint16_t words"),
    ("AscendC::Sigmoid(sig, xLocal, this->tileLength);", "AscendC::Erfc(sig, xLocal, this->tileLength);", 47,
     "AscendC::Erfc"),
    ("AscendC::Tanh<float, false>(th, wide, this->tileLength);",
     "AscendC::Lgamma<T, false>(yLocal, xLocal, this->tileLength);", 54, "AscendC::Lgamma: a math-library call"),
])
def test_what_is_not_expanded_is_refused_at_its_line(tmp_path, old, new, line, words):
    folder, path = _variant(tmp_path, old, new)
    with pytest.raises(KernelSourceError) as e:
        read_kernel(folder).program("float16")
    assert e.value.file == str(path) and e.value.line == line and words in str(e.value), str(e.value)


def test_a_half_sigmoid_computes_in_half(tmp_path):
    # the library computes a half Sigmoid in half: each instruction rounded once to half (sixteen_bit="rint",
    # reader.to_program), or refused where 16-bit arithmetic is (sixteen_bit=None)
    folder, path = _variant(tmp_path, "AscendC::Mul(wide, th, sig, this->tileLength);",
                            "AscendC::Sigmoid<T, false>(yLocal, xLocal, this->tileLength);")
    with pytest.raises(KernelSourceError) as e:
        read_kernel(folder, sixteen_bit=None).program("float16")
    assert e.value.file == str(path) and e.value.line == 55 and "float16" in str(e.value), str(e.value)
    steps = [str(i) for i in read_kernel(folder).program("float16").body]
    assert "Exp(yLocal_f32, yLocal_f32);" in steps and "Cast(yLocal, yLocal_f32, CAST_RINT);" in steps


def ref_half_tanh(x):
    """asc-devkit's TanhCompute<half>: Cast to float32 (exact), TanhFormulaImpl in float32 (Mins 8.8f, Maxs
    -8.8f, Muls 2, Exp, Adds -1, Adds 1, Div), Cast back with CAST_NONE: to nearest even."""
    with np.errstate(all="ignore"):
        c = x.astype(F32)
        t = np.where(np.isnan(c), c, np.minimum(c, F32(8.8)))
        t = np.where(np.isnan(t), t, np.maximum(t, F32(-8.8)))
        t = ref_exp_f32(t * F32(2.0))
        y = (t + F32(-1.0)) / (t + F32(1.0))
    return narrow(y, x.dtype, ties_away=False)


def test_a_half_tanh_is_the_librarys_float_formula_between_two_casts(tmp_path):
    # issue 43: it was refused because of its narrowing Cast(CAST_NONE), which the reader now writes as the
    # CAST_RINT it is where precision is lost; every half input, bit for bit
    cast = "AscendC::Cast(yLocal, wide, AscendC::RoundMode::CAST_RINT, this->tileLength);"
    tanh = "AscendC::Tanh<T, false>(yLocal, xLocal, this->tileLength);"
    folder, path = _variant(tmp_path, cast, f"if constexpr (std::is_same_v<T, half>) {{ {tanh} }} else {{ {cast} }}")
    op = read_kernel(folder)
    steps = [str(i) for i in op.program("float16").body]
    assert "Cast(tanh_tmpconv56, xLocal, CAST_NONE);" in steps, steps
    assert steps[-1] == "Cast(yLocal, tanh_tmpconv56, CAST_RINT);", steps
    x = every16("float16")
    assert_bits_equal(op.run(x=x), ref_half_tanh(x), "half Tanh")
    x = every16("bfloat16")
    assert_bits_equal(op.run(x=x), ref_mathlib_gate(x), "bfloat16 beside it")


def test_a_bfloat16_tanh_is_refused(tmp_path):
    # the library has none: its generic TanhCompute passes the tensors to TanhFormulaImpl, which takes float
    folder, path = _variant(tmp_path, "AscendC::Cast(yLocal, wide, AscendC::RoundMode::CAST_RINT, this->tileLength);",
                            "AscendC::Tanh<T, false>(yLocal, xLocal, this->tileLength);")
    with pytest.raises(KernelSourceError) as e:
        read_kernel(folder)
    assert e.value.file == str(path) and e.value.line == 56 and "AscendC::Tanh on bfloat16" in str(e.value)


def ref_acosh_asinh(x):
    """Acosh: Mul(t, x, x), Adds -1, Sqrt, Add(t, x, t), Div(d, t, t), Mul(t, t, d), Ln; Asinh: Abs, Mul, Adds 1,
    Sqrt, Add, Ln, times the sign Muls 2^62, Abs, Adds 2^-62, Div; then Mul(asinh, acosh); float32 throughout."""
    with np.errstate(all="ignore"):
        t = x * x
        t = t + F32(-1.0)
        t = np.sqrt(t)
        t = x + t
        d = t / t
        t = t * d
        acosh = ref_ln_f32(t)
        a = np.abs(x)
        u = a * a
        u = u + F32(1.0)
        u = np.sqrt(u)
        u = u + a
        u = ref_ln_f32(u)
        s = x * F32(2.0 ** 62)
        dd = np.abs(s)
        dd = dd + F32(2.0 ** -62)
        s = s / dd
        asinh = u * s
        return asinh * acosh


def test_acosh_and_asinh_bit_for_bit(tmp_path):
    folder, _ = _variant(tmp_path, "AscendC::Sigmoid(sig, xLocal, this->tileLength);\n"
                         "            AscendC::Tanh(th, xLocal, this->tileLength);",
                         "AscendC::Acosh(sig, xLocal, this->tileLength);\n"
                         "            AscendC::Asinh(th, xLocal, this->tileLength);")
    op = read_kernel(folder)
    rng = np.random.default_rng(43)
    x = np.concatenate([np.ldexp(rng.uniform(1, 2, 6000), rng.integers(-70, 70, 6000)) * rng.choice([-1, 1], 6000),
                        rng.uniform(0.9, 3.0, 2000), SPECIALS, [1.0, -1.0, 2.0 ** 66, 2.0 ** 67, 1e-30]]).astype(F32)
    x = x[: x.size // 256 * 256]
    assert_bits_equal(op.run(x=x), ref_acosh_asinh(x), "acosh * asinh")
