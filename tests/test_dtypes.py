"""The dtype table, dtype arguments and beta: every row complete, every spelling resolved."""
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from swishgrad_numba import dtypes
from swishgrad_numba.dtypes import DTYPES, beta_argument, canonical_dtype, dtype_info, to_float32

from reference import _round_rational_to_f32

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




# Values whose float64 rounding is a step away from float32's: rounding through float64 first gives
# another float32 (a tie in float64 broken to even in float32, or the overflow boundary).
DOUBLE_ROUNDING_CASES = [
    Fraction(1) + Fraction(1, 2**24) + Fraction(1, 2**60),      # float64 drops 2**-60: a tie, then 1.0
    -(Fraction(1) + Fraction(1, 2**24) + Fraction(1, 2**60)),
    Fraction(1, 3),
    Fraction(3, 2**151) + Fraction(1, 2**200),                  # a subnormal tie broken by the tail
    Fraction(1, 2**150),                                        # exactly half the smallest subnormal: to +0
    2**128 - 2**103 - 1,                                        # just below the overflow tie: FLT_MAX
    2**128 - 2**103,                                            # the tie: to inf (even)
    -(2**128 - 2**103 - 1),
    2**60 + 2**36 + 1,                                          # float64 ties it, float32 must round up
    np.int64(2**60 + 2**36 + 1),
    np.int64(-(2**60 + 2**36 + 1)),
    np.uint64(2**63 + 2**39 + 1),
    np.uint64(2**64 - 1),
    2**200 + 1,
]


@pytest.mark.parametrize("value", DOUBLE_ROUNDING_CASES, ids=repr)
def test_to_float32_rounds_once_from_the_exact_value(value):
    expected = _round_rational_to_f32(Fraction(int(value)) if isinstance(value, np.integer) else Fraction(value))
    got = to_float32(value)
    assert isinstance(got, np.float32)
    assert got.view(np.uint32) == expected.view(np.uint32), (got, expected)


def test_to_float32_double_rounding_examples_of_the_issue():
    assert to_float32(Fraction(1) + Fraction(1, 2**24) + Fraction(1, 2**60)) == np.float32(1 + 2**-23)
    assert to_float32(2**128 - 2**103 - 1) == np.finfo(np.float32).max


def test_to_float32_random_rationals_against_the_reference():
    rng = np.random.default_rng(22)
    for _ in range(300):
        num = int(rng.integers(-2**62, 2**62)) * 2**int(rng.integers(0, 70)) + int(rng.integers(-3, 4))
        den = int(rng.integers(1, 2**62)) * 2**int(rng.integers(0, 100))
        value = Fraction(num, den)
        assert to_float32(value).view(np.uint32) == _round_rational_to_f32(value).view(np.uint32), value
        assert to_float32(num).view(np.uint32) == _round_rational_to_f32(Fraction(num)).view(np.uint32), num


@pytest.mark.parametrize("value", [np.timedelta64(1, "s"), np.datetime64("2024-01-01")], ids=repr)
def test_to_float32_refuses_time_values_by_name(value):
    with pytest.raises(TypeError, match=r"beta must be a real number, got (timedelta64|datetime64)"):
        to_float32(value)
    with pytest.raises(TypeError, match=r"^scale must be a real number"):
        beta_argument(None, {"scale": value})


@pytest.mark.parametrize("name", list(DTYPES))
def test_flat_bits_is_the_tensor_flat_as_kernels_see_it(name):
    """A flat view of the same memory: float32 values as themselves, 16-bit elements as their uint16 bits;
    a flat float32 tensor is passed as it is (no view per call)."""
    info = DTYPES[name]
    a = np.arange(-3, 3, dtype=np.float32).astype(info.numpy).reshape(2, 3)
    flat = info.flat_bits(a)
    assert flat.shape == (6,) and np.shares_memory(flat, a) and flat.dtype == info.bits_dtype
    assert flat.tobytes() == a.tobytes()
    one = a.reshape(-1)
    assert (info.flat_bits(one) is one) == (info.bits_dtype == info.numpy)
