"""Compare, CompareScalar and Select of the A2 basic API in a read kernel (issue 43). The fixture
(select_leaky) is written for these tests in the samples' style; the reference here is NumPy on float64
values, each arithmetic instruction rounded once to the dtype (the ``sixteen_bit`` model), comparisons
and selections exact."""
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from reference import assert_bits_equal
from reader_variants import fixture_variant

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
_NUMPY = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}


def ref_select_leaky(x, y, dtype):
    t = _NUMPY[dtype]
    k = np.float32(np.float32(0.2).astype(t))                 # the literal as the kernel's T
    with np.errstate(all="ignore"):
        tmp = (x.astype(np.float32) * k).astype(t)             # a product of two T values: exact in float32
        z = np.where(x > 0, x, tmp)                            # NaN compares false: tmp (NaN) picked
        z = np.where(z < y, y, z)
        return np.where(x >= 3, z, t(0)).astype(t)


def _inputs(dtype, n=4 * 4 * 2 * 128, seed=7):
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 4, n)
    y = rng.normal(0, 4, n)
    x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 3.0, 2.9990234375, 1e-30]
    y[:8] = [np.nan, 0.0, 1.0, -np.inf, 0.0, 3.0, -1.0, 5.0]
    return x.astype(_NUMPY[dtype]), y.astype(_NUMPY[dtype])


@pytest.fixture(scope="module")
def leaky():
    return read_kernel(KERNELS / "select_leaky")


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_compare_and_select_bit_for_bit(leaky, dtype):
    x, y = _inputs(dtype)
    assert_bits_equal(leaky.run(x=x, y=y), ref_select_leaky(x, y, dtype), f"select_leaky {dtype}")


def test_the_mask_is_a_uint8_local_and_select_takes_the_forms_order(leaky):
    text = str(leaky.program("float32"))
    assert "uint8 mask" in text
    assert "Select(zLocal, xLocal, tmp, mask)" in text and "Select(zLocal, zLocal, 0.0f, mask)" in text
    assert "CompareScalar(mask, xLocal, 3.0f, GE)" in text


@pytest.mark.parametrize("old, new, words", [
    ("SELMODE::VSEL_TENSOR_TENSOR_MODE, this->tileLength);\n        Compare",
     "SELMODE::VSEL_CMPMASK_SPR, this->tileLength);\n        Compare", "VSEL_CMPMASK_SPR"),
    ("CMPMODE::LT, this->tileLength)", "CMPMODE::LT, 64, 2, {1, 1, 1, 8, 8, 8})", "level-0"),
    ("CMPMODE::GT", "RoundMode::CAST_RINT", "not an AscendC::CMPMODE"),
])
def test_what_is_not_read_is_refused_at_its_line(tmp_path, old, new, words):
    folder, path = fixture_variant(tmp_path, "select_leaky", old, new)
    with pytest.raises(KernelSourceError) as e:
        read_kernel(folder)
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if new.split(",")[0] in text)
    assert e.value.line == line and words in str(e.value), str(e.value)
