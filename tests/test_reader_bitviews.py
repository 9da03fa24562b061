"""ReinterpretCast between a 16-bit float tensor and int16_t/uint16_t in a read kernel (issue 43): a view of the
same buffer's bits, with the A2's And and Or on them and Duplicate of a constant's bits. The fixtures bits_abs
and bits_copysign are written for these tests (sign-bit tricks in the tutorials' style); the references here
compute each instruction on the bits with NumPy, over every 16-bit pattern, on the engine."""
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from reference import SPECIALS, assert_bits_equal, random_inputs
from reference_family import narrow
from reader_variants import fixture_variant

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
NUMPY = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
U16 = np.uint16


def ref_bits_abs(x):
    """Duplicate(mask, 0x7FFF); And(y, x, mask) on the bits."""
    mask = np.full(x.shape, 0x7FFF, U16)
    return (x.view(U16) & mask).view(x.dtype)


def ref_bits_copysign(x, y):
    """Duplicate(mag, 0x7FFF); Duplicate(sign, -32768 = 0x8000); And(x, x, mag); And(y, y, sign); Or(z, x, y)."""
    mag, sign = np.full(x.shape, 0x7FFF, U16), np.full(x.shape, -32768, np.int16).view(U16)
    xb = x.view(U16) & mag
    yb = y.view(U16) & sign
    return (xb | yb).view(x.dtype)


def _every(dtype):
    return np.arange(65536, dtype=np.uint32).astype(U16).view(NUMPY[dtype])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_abs_on_the_bits_of_every_pattern(dtype):
    x = _every(dtype)
    got = read_kernel(KERNELS / "bits_abs").run(x=x)
    assert_bits_equal(got, ref_bits_abs(x), f"bits_abs {dtype}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_copysign_on_the_bits_of_every_pattern(dtype):
    x = _every(dtype)
    y = np.random.default_rng(43).permutation(x.view(U16)).view(NUMPY[dtype])
    got = read_kernel(KERNELS / "bits_copysign").run(x=x, y=y)
    assert_bits_equal(got, ref_bits_copysign(x, y), f"bits_copysign {dtype}")


def test_the_float_path_beside_them():
    rng = np.random.default_rng(5)
    x = np.concatenate([random_inputs(rng, 3000, np.float32)[1], SPECIALS.astype(np.float32)])
    y = random_inputs(rng, x.size, np.float32)[1]
    with np.errstate(all="ignore"):
        want = np.abs(x) * y
    assert_bits_equal(read_kernel(KERNELS / "bits_copysign").run(x=x, y=y), want, "bits_copysign float32")
    assert_bits_equal(read_kernel(KERNELS / "bits_abs").run(x=x), np.abs(x), "bits_abs float32")


def test_arithmetic_on_the_buffer_after_its_view_reads_the_views_bits(tmp_path):
    # Or writes z's bits through zBits; the half Adds on zLocal then reads them (a Reinterpret back), its exact
    # sum rounded once to the dtype (sixteen_bit="rint")
    folder, _ = fixture_variant(tmp_path, "bits_copysign", "AscendC::Or(zBits, xBits, yBits, this->tileLength);",
                                "AscendC::Or(zBits, xBits, yBits, this->tileLength); "
                                "AscendC::Adds(zLocal, zLocal, (T)1.5f, this->tileLength);")
    op = read_kernel(folder)
    steps = [str(i) for i in op.program("float16").body]
    assert steps.index("Reinterpret(zLocal, zBits);") < steps.index("Cast(zLocal_f32, zLocal, CAST_NONE);"), steps
    for dtype in ("float16", "bfloat16"):
        x = _every(dtype)
        y = np.random.default_rng(7).permutation(x.view(U16)).view(NUMPY[dtype])
        with np.errstate(all="ignore"):
            want = narrow(ref_bits_copysign(x, y).astype(np.float32) + np.float32(1.5), NUMPY[dtype], ties_away=False)
        assert_bits_equal(op.run(x=x, y=y), want, f"copysign then + 1.5 {dtype}")


def _line(path, text):
    return next(i for i, s in enumerate(Path(path).read_text().splitlines(), 1) if text in s)


@pytest.mark.parametrize("old, new, words", [
    ("AscendC::And(xBits, xBits, mag, this->tileLength);", "AscendC::And(xLocal, xLocal, yLocal, this->tileLength);",
     "And on float16 tensors: the A2's And and Or take int16_t or uint16_t tensors"),
    ("AscendC::And(xBits, xBits, mag, this->tileLength);", "AscendC::Muls(xBits, xBits, (int16_t)2, this->tileLength);",
     "Muls on an int16_t or uint16_t tensor: of the integer instructions only Cast, And, Or and Duplicate"),
    ("AscendC::Duplicate<int16_t>(mag, 0x7FFF, this->tileLength);",
     "AscendC::Duplicate<int16_t>(mag, 70000, this->tileLength);", "a whole number that 16 bits hold"),
    ("xLocal.template ReinterpretCast<int16_t>();", "xLocal.template ReinterpretCast<int64_t>();",
     "ReinterpretCast: a float16 tensor as int64_t"),
])
def test_what_is_not_a_16_bit_bit_trick_is_refused_at_its_line(tmp_path, old, new, words):
    folder, path = fixture_variant(tmp_path, "bits_copysign", old, new)
    with pytest.raises(KernelSourceError) as e:
        read_kernel(folder)
    assert e.value.file == str(path) and e.value.line == _line(path, new) and words in str(e.value), str(e.value)


def test_a_cast_of_a_uint16_tensor_is_refused_at_its_line(tmp_path):
    # an int16 Cast reads or writes an int16_t's value (program.int_casts); a uint16_t's is not modelled
    new = "AscendC::Cast(mask, xLocal, AscendC::RoundMode::CAST_RINT, this->tileLength);"
    old = "AscendC::Duplicate(mask, (uint16_t)0x7FFF, this->tileLength);"
    folder, path = fixture_variant(tmp_path, "bits_abs", old, new)
    with pytest.raises(KernelSourceError) as e:
        read_kernel(folder)
    assert e.value.file == str(path) and e.value.line == _line(path, new), str(e.value)
    assert "Cast of a uint16_t tensor" in str(e.value), str(e.value)
