"""950 DAG scalar inputs (issue 43), read from a kernel of the tests' own (fixtures/kernels/dag_gm_floor):
``Placeholder::In<k><T, Placeholder::ScalarAttr<1>>`` bound as an op's scalar (element 0 of GM input k, read
per launch), ``Vec::Select`` with the scalar as its first source, and a node of scalars (``ToFloat`` of the
element, for bfloat16); bit for bit against a plain reference."""
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from activation_checks import every16
from reader_variants import fixture_variant
from reference import SPECIALS, assert_bits_equal, random_inputs

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
_NUMPY = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}


def ref_floor_fill(x, floor, fill):
    """y = fill where x < floor else x: compared in float32 (a 16-bit x and scalars widened exactly), each
    element picked whole (a NaN x is never below, so it is kept)."""
    with np.errstate(invalid="ignore"):
        below = x.astype(np.float32) < np.float32(floor.astype(np.float32)[0])
    return np.where(below, np.full_like(x, fill[0]), x)


@pytest.fixture(scope="module")
def op():
    return read_kernel(KERNELS / "dag_gm_floor")


def _x(dtype):
    if dtype == "float32":
        x = random_inputs(np.random.default_rng(5), 20_000, np.float32)[1]
        return np.concatenate([x, SPECIALS.astype(np.float32)])
    return every16(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("floor, fill", [(0.5, -7.25), (-0.0, np.nan), (np.inf, 3.0), (np.nan, 1.0)])
def test_scalar_inputs_bit_for_bit(op, dtype, floor, fill):
    x, t = _x(dtype), _NUMPY[dtype]
    fl, fi = np.array([floor], dtype=t), np.array([fill], dtype=t)
    assert_bits_equal(op.run(x=x, floor=fl, fill=fi), ref_floor_fill(x, fl, fi), f"gm_floor {dtype}")


def test_each_launch_reads_its_own_scalars(op):
    x = _x("float32")
    for floor in (-1.0, 0.0, 2.5):
        fl, fi = np.array([floor, 99.0], np.float32), np.array([-floor], np.float32)
        assert_bits_equal(op.run(x=x, floor=fl, fill=fi), ref_floor_fill(x, fl, fi), f"floor {floor}")


def test_the_scalar_inputs_are_read_at_element_zero_only(op):
    # a scalar input of any length: its first element is the scalar, the rest never read
    x = _x("float16")
    fl, fi = np.array([0.25, -5.0, 7.0], np.float16), np.array([1.5], np.float16)
    assert_bits_equal(op.run(x=x, floor=fl, fill=fi), ref_floor_fill(x, fl[:1], fi), "floor of 3 elements")
    with pytest.raises(TypeError, match="fill"):
        op.run(x=x, floor=fl)


@pytest.mark.parametrize("old, new, words", [
    ("Placeholder::In1<T, Placeholder::ScalarAttr<1>>", "Placeholder::In1<T, Placeholder::ScalarAttr<0>>",
     "ScalarAttr<1>"),
    ("        out = ToFloat(in);\n", "", "no scalar assigned"),
])
def test_what_is_not_read_is_refused_at_its_line(tmp_path, old, new, words):
    folder, _ = fixture_variant(tmp_path, "dag_gm_floor", old, new, file="arch35/gm_floor_dag.h")
    with pytest.raises(KernelSourceError, match=words) as info:
        read_kernel(folder).run(x=_x("bfloat16" if "ToFloat" in old else "float32"),
                                floor=np.array([0.0], np.float32), fill=np.array([1.0], np.float32))
    assert info.value.line > 0
