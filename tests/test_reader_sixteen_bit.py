"""Arithmetic on 16-bit tensors in a read kernel (issue 43): each instruction's exact result rounded once to the
tensor's dtype (``sixteen_bit="rint"``, the default; ``"round"`` ties away from zero; None refuses). The fixture
(half_native) is written for these tests in the style of the Ascend samples' add_custom; the reference here
computes each instruction in float64 and rounds it to the dtype by hand (its quantum from the exponent)."""
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from reference import assert_bits_equal
from reader_variants import fixture_variant

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
#: (bits of precision, the least normal exponent as frexp gives it, the first power of two past the largest)
_FORMATS = {"float16": (11, -13, 16), "bfloat16": (8, -125, 128)}
_NUMPY = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}


def round_once(v, dtype, ties_away=False):
    """float64 values rounded to ``dtype``: to nearest, ties to even (or away from zero)."""
    bits, emin, emax = _FORMATS[dtype]
    v = np.asarray(v, np.float64)
    a = np.abs(v)
    _, e = np.frexp(a)
    q = np.ldexp(1.0, np.maximum(e, emin) - bits)       # the dtype's spacing at |v|
    scaled = a / q                                        # exact: a power-of-two scaling
    r = (np.floor(scaled + 0.5) if ties_away else np.round(scaled)) * q
    r = np.where(r >= np.ldexp(1.0, emax), np.inf, r)
    return (np.copysign(r, v)).astype(_NUMPY[dtype])


def ref_half_native(x, y, dtype, ties_away=False):
    """Each instruction of half_native on the exact float64 values of its operands, rounded once."""
    def r(v):
        return round_once(v, dtype, ties_away).astype(np.float64)

    def k(c):          # the scalar as the kernel's T: the float literal converted to the dtype (nearest even)
        return round_once(np.float64(np.float32(c)), dtype).astype(np.float64)

    x, y = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(all="ignore"):
        z = r(x + y)
        z = r(z * k(0.1))
        z = r(z - y)
        z = r(z * x)
        z = r(z / y)
        z = r(np.maximum(z, k(-2.5)))
    return z.astype(_NUMPY[dtype])


def _inputs(dtype, n=8 * 8 * 2 * 64, seed=43):
    rng = np.random.default_rng(seed)
    low = -14 if dtype == "float16" else -40
    x = np.ldexp(rng.uniform(1, 2, n), rng.integers(low, 8, n)) * rng.choice([-1, 1], n)
    y = np.ldexp(rng.uniform(1, 2, n), rng.integers(-6, 6, n)) * rng.choice([-1, 1], n)
    x[:4], y[:4] = [60000, -60000, 3e4, 1.0], [60000, -60000, 3e4, 1.0]     # overflow, and exact values
    return x.astype(_NUMPY[dtype]), y.astype(_NUMPY[dtype])


@pytest.fixture(scope="module")
def native():
    return read_kernel(KERNELS / "half_native")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_each_instruction_rounds_its_exact_result_once(native, dtype):
    x, y = _inputs(dtype)
    want = ref_half_native(x, y, dtype)
    assert_bits_equal(native.run(x=x, y=y), want, f"half_native {dtype}")
    # the model is not a float32 chain rounded at the end: that differs on some elements
    with np.errstate(all="ignore"):
        xf, yf = x.astype(np.float32), y.astype(np.float32)
        chain = np.maximum((((xf + yf) * np.float32(0.1) - yf) * xf) / yf, np.float32(-2.5)).astype(_NUMPY[dtype])
    assert np.any(chain.view(np.uint16) != want.view(np.uint16))


def test_ties_away_from_zero_is_the_option(tmp_path):
    op = read_kernel(KERNELS / "half_native", sixteen_bit="round")
    x, y = _inputs("float16", seed=7)
    assert_bits_equal(op.run(x=x, y=y), ref_half_native(x, y, "float16", ties_away=True), "round")
    # ties happen: x + y with x, y a 12th bit apart
    x = np.full(2048, 1.0, np.float16)
    y = np.full(2048, np.float16(2.0 ** -11), np.float16)
    want_even, want_away = ref_half_native(x, y, "float16"), ref_half_native(x, y, "float16", ties_away=True)
    assert np.any(want_even.view(np.uint16) != want_away.view(np.uint16))
    assert_bits_equal(op.run(x=x, y=y), want_away, "a tie")


def test_refused_where_asked_and_the_option_checked():
    op = read_kernel(KERNELS / "half_native", sixteen_bit=None)
    with pytest.raises(KernelSourceError) as e:
        op.program("float16")
    assert e.value.line == 48 and e.value.file.endswith("half_native.cpp"), str(e.value)
    for bad in ("even", 1, True):
        with pytest.raises(ValueError, match="sixteen_bit must be one of"):
            read_kernel(KERNELS / "half_native", sixteen_bit=bad)


def test_an_attribute_scalar_on_a_16_bit_instruction_is_refused(tmp_path):
    folder, path = fixture_variant(tmp_path, "half_native", "TILING_DATA_FIELD_DEF(uint32_t, tileNum);",
                                   "TILING_DATA_FIELD_DEF(uint32_t, tileNum);\n    TILING_DATA_FIELD_DEF(float, gain);",
                                   file="op_host/half_native_tiling.h")
    kernel = folder / "op_kernel" / "half_native.cpp"
    text = kernel.read_text()
    text = text.replace("uint32_t totalLength, uint32_t tileNum)\n", "uint32_t totalLength, uint32_t tileNum, "
                        "float gain)\n").replace("this->tileNum = tileNum;", "this->tileNum = tileNum;\n        "
                                                 "this->gain = gain;")
    text = text.replace("(T)0.1f", "this->gain").replace("uint32_t blockLength, tileNum, tileLength;",
                                                          "uint32_t blockLength, tileNum, tileLength;\n    float gain;")
    text = text.replace("tilingData.tileNum);", "tilingData.tileNum, tilingData.gain);")
    kernel.write_text(text)
    op = read_kernel(folder)
    with pytest.raises(KernelSourceError, match="an attribute converted to float16") as e:
        op.program("float16")
    assert e.value.line == 50 and e.value.file == str(kernel), str(e.value)
