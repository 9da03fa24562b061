"""The dtype table, dtype arguments and beta: every row complete, every spelling resolved."""
import ml_dtypes
import numpy as np
import pytest

from swishgrad_numba import dtypes
from swishgrad_numba.dtypes import DTYPES, beta_argument, canonical_dtype, dtype_info, to_float32

BF16 = np.dtype(ml_dtypes.bfloat16)
ROWS = pytest.mark.parametrize("info", list(DTYPES.values()), ids=list(DTYPES))


@ROWS
def test_row_facts_agree_with_numpy_and_ml_dtypes(info):
    # The row's facts checked against the libraries that define the formats.
    assert info.numpy.name == info.name
    assert info.tiny == float(ml_dtypes.finfo(info.numpy).smallest_normal)
    assert info.itemsize == info.numpy.itemsize
    assert info.bits_dtype == (np.float32 if info.itemsize == 4 else np.uint16)
    assert dtype_info(info.name) is info and dtype_info(info.numpy) is info and dtype_info(info) is info
    for alias in info.aliases:
        assert dtype_info(alias.upper()) is info


def test_table_values():
    # model section 7 thresholds, the aclDataType enum, the 950 kernel's dtype templates.
    assert {n: i.threshold for n, i in DTYPES.items()} == {"float32": 2.0 ** -13, "float16": 2.0 ** -10,
                                                           "bfloat16": 2.0 ** -7}
    assert {n: i.acl_data_type for n, i in DTYPES.items()} == {"float32": 0, "float16": 1, "bfloat16": 27}
    assert {n: i.arch35_template for n, i in DTYPES.items()} == {"float32": 3, "float16": 1, "bfloat16": 2}
    assert len({i.code for i in DTYPES.values()}) == len(DTYPES)
    assert dtypes.SUPPORTED_DTYPES == {n: i.numpy for n, i in DTYPES.items()}


def test_beta_argument_aliases():
    assert beta_argument(None, {}) == np.float32(1.0)
    assert beta_argument(1.1, {"scale": None, "sconf": None}) == np.float32(1.1)
    assert beta_argument(None, {"scale": 2.5}) == np.float32(2.5)
    assert beta_argument(None, {"sconf": -3}) == np.float32(-3.0)
    with pytest.raises(TypeError, match="more than once"):
        beta_argument(1.0, {"scale": 2.0})
    with pytest.raises(TypeError, match="scale"):
        beta_argument(None, {"scale": "x"})


def test_canonical_dtype():
    assert canonical_dtype("bf16") == BF16
    assert canonical_dtype(np.float16) == np.float16
    assert canonical_dtype(ml_dtypes.bfloat16) == BF16
    with pytest.raises(ValueError, match="x.dtype"):
        canonical_dtype(np.float64, argname="x.dtype")


def test_to_float32():
    assert to_float32(1.1) == np.float32(1.1)
    assert to_float32(np.float16(1.1)) == np.float32(np.float16(1.1))
    assert to_float32(ml_dtypes.bfloat16(1.1)) == np.float32(1.1015625)
    assert to_float32(True) == np.float32(1.0)
    assert to_float32(2**64) == np.float32(2**64)
    assert to_float32(1e300) == np.float32(np.inf)
    assert to_float32(-(10**400)) == np.float32(-np.inf)
    assert to_float32(np.int8(-7)) == np.float32(-7)
    with pytest.raises(TypeError, match="beta"):
        to_float32(1 + 2j)
    with pytest.raises(TypeError, match="beta"):
        to_float32("1.0")


