"""Issue 43, A2 class style: a float attribute negated (``-lambd_``, ops-nn ``shrink.h:150``) is its product with
-1, exact; ``Compares`` (the basic API's other name of CompareScalar) reads as CompareScalar. Variants of the
tests' own fixtures (a2_scaled_abs, select_leaky), bit for bit against plain references."""
import ml_dtypes
import numpy as np
import pytest

from reader_variants import fixture_variant
from reference import assert_bits_equal
from reference_family import narrow
from test_reader_compare import _inputs, ref_select_leaky

from swishgrad_numba.ops import read_kernel

F32 = np.float32
SHRINK = F32(0.3 * 0.7)
_NUMPY = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}


@pytest.mark.parametrize("dtype", ["float32"])       # the 16-bit path is the fixture's own test's
def test_a_negated_attribute_is_its_product_with_minus_one(tmp_path, dtype):
    folder, _ = fixture_variant(tmp_path, "a2_scaled_abs", "AscendC::Muls(calc, calc, this->scale,",
                                "AscendC::Muls(calc, calc, -this->scale,", file="scaled_abs.h")
    op = read_kernel(folder)
    x = np.random.default_rng(3).normal(0, 3, 4096).astype(_NUMPY[dtype])
    bias = np.zeros_like(x)
    for scale in (0.75, -2.0):
        with np.errstate(all="ignore"):
            want = np.abs(x.astype(F32)) * F32(-scale) * SHRINK + F32(1.0)
        want = want if dtype == "float32" else narrow(want, x.dtype, ties_away=True)
        assert_bits_equal(op.run(x=x, bias=bias, scale=scale), want, f"-scale {dtype} {scale}")
    assert "(scale * -1.0f)" in str(op.program(dtype))


def test_compares_is_compare_scalar(tmp_path):
    folder, _ = fixture_variant(tmp_path, "select_leaky", "CompareScalar(mask, xLocal, (T)0.0f",
                                "Compares(mask, xLocal, (T)0.0f")
    op = read_kernel(folder)
    assert "CompareScalar(mask, xLocal, 0.0f, GT)" in str(op.program("float32"))
    x, y = _inputs("float32")
    assert_bits_equal(op.run(x=x, y=y), ref_select_leaky(x, y, "float32"), "Compares")
