"""A scalar's bits read as another type on the scalar unit (``*(P*)&var = x``), integer arithmetic on those
bits, ``static_cast<half>`` of an attribute, and an explicit specialization of a function template chosen
by its template arguments (issue 43: the experimental threshold_v2's ``FloatToT<bfloat16_t>``). The
fixture pun_gain_floor is written for these tests; the references here compute the scalars from the
attribute's bits with NumPy integers, and the vector calls instruction by instruction."""
import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from activation_checks import every16
from reference import SPECIALS, assert_bits_equal, random_inputs
from reference_family import narrow
from reader_variants import fixture_variant, refusal

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32 = np.float32
NAME = "pun_gain_floor"


def bf16_by_hand(v, rounded=True):
    """The fixture's bfloat16 scalar: u = bits(v); u += 0x7FFF + ((u >> 16) & 1) (uint32, wrapping); the top
    half. Without ``rounded``: the top half of the bits as they are (truncation)."""
    u = int(np.array(v, F32).view(np.uint32))
    if rounded:
        u = (u + 0x7FFF + ((u >> 16) & 1)) % (1 << 32)
    return np.array((u >> 16) << 16, np.uint32).view(F32)[()]


def t_scalar(v, dtype, rounded=True):
    """The attribute (a float32 tiling field) as the kernel's T scalar, widened exactly to float32."""
    if dtype == "bfloat16":
        return bf16_by_hand(v, rounded)
    if dtype == "float16":
        with np.errstate(over="ignore"):                         # past 65504: inf
            return F32(np.array(v, F32).astype(np.float16))      # static_cast<half>: to nearest even
    return F32(v)


def ref_gain_floor(x, gain, floor, rounded=True):
    """Muls(y, x, gain_T); Maxs(y, y, floor_T): each in float32 on the exact widenings, rounded once to the
    dtype (to nearest even); Max keeps a NaN of either operand and, on a tie, the first."""
    dt = x.dtype.name
    g, f = t_scalar(gain, dt, rounded), t_scalar(floor, dt, rounded)
    keep = (lambda v: v) if dt == "float32" else (lambda v: narrow(v, x.dtype, ties_away=False).astype(F32))
    with np.errstate(all="ignore"):
        y = keep(x.astype(F32) * g)
        y = keep(np.where(np.isnan(y) | (y >= f), y, f))
    return y.astype(x.dtype)


def _inputs(dtype):
    if dtype == "float32":
        return np.concatenate([random_inputs(np.random.default_rng(11), 5_003, F32)[1], SPECIALS.astype(F32)])
    return every16(dtype)


@pytest.fixture(scope="module")
def op():
    return read_kernel(KERNELS / NAME)


# 1.00390625 + 2**-9 lies on a bfloat16 tie: the by-hand rounding goes to even, truncation down
GAINS = [(1.3, -0.7), (1.0 + 2.0 ** -8 + 2.0 ** -9, 0.1), (-2.5, -1e-3), (65519.0, -3.4e38)]


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("gain, floor", GAINS)
def test_scalars_from_bits_bit_for_bit(op, dtype, gain, floor):
    x = _inputs(dtype)
    assert_bits_equal(op.run(x=x, gain=gain, floor=floor), ref_gain_floor(x, gain, floor), f"{dtype} {gain} {floor}")


def test_the_bits_arithmetic_is_followed_not_assumed(tmp_path):
    # without the rounding line the bfloat16 scalar is the bits truncated (threshold_v2's FloatToT)
    folder, _ = fixture_variant(tmp_path, NAME, "    u = u + 0x7FFFu + ((u >> 16) & 1u);\n", "")
    tied = 1.0 + 2.0 ** -8 + 2.0 ** -9
    assert bf16_by_hand(tied, False) != bf16_by_hand(tied, True)
    x = every16("bfloat16")
    assert_bits_equal(read_kernel(folder).run(x=x, gain=tied, floor=-1.0),
                      ref_gain_floor(x, tied, -1.0, rounded=False), "truncated")


def test_unsigned_wrap_around_in_the_bits(op):
    # a NaN with every bit set: u + 0x7FFF + 1 wraps to 0x7FFF, whose top half is +0.0
    nan_ones = np.array(0xFFFFFFFF, np.uint32).view(F32)[()]
    x = np.linspace(-2, 2, 64).astype(ml_dtypes.bfloat16)
    assert bf16_by_hand(nan_ones) == 0.0
    assert_bits_equal(op.run(x=x, gain=1.0, floor=nan_ones), ref_gain_floor(x, 1.0, nan_ones), "wrapped NaN")


@pytest.mark.parametrize("old, new, why", [
    ("*((float*)&u) = v;", "*((uint16_t*)&u) = 7;", "a store of 2 bytes into a uint32_t"),
    ("u = u + 0x7FFFu", "u = u * 1.5f + 0x7FFFu", "operator \\* on the bits"),
    ("return static_cast<T>(v);", "uint32_t w = 0;\n    *((float*)&w) = v;\n    return static_cast<T>(w);",
     "conversion .* from uint32_t to half"),
    ("floor_ = ToScalar<T>(t.floor);", "floor_ = ToScalar(t.floor);", "without template arguments"),
])
def test_puns_it_does_not_model_are_refused(tmp_path, old, new, why):
    err, path = refusal(tmp_path, NAME, old, new)
    assert err.file == str(path), str(err)
    assert re.search(why, str(err)), str(err)
    assert new.splitlines()[-1].strip() in path.read_text().splitlines()[err.line - 1]
