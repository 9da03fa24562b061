"""Each tiling-key variant of a read kernel is handed the inputs it reads, by name (issue 43): the fixture
keyed_inputs (written for these tests) computes x - z under key 1 and 3x, without reading z, under any other
key. The references are written here instruction by instruction."""
from pathlib import Path

import numpy as np
import pytest

from reference import assert_bits_equal

from swishgrad_numba.ops import read_kernel

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32 = np.float32


def ref_keyed_inputs(x, z, key):
    """key 1: Sub(x, z); else Muls(x, 3.0f); each rounded to float32."""
    with np.errstate(all="ignore"):
        return (x - z) if key == 1 else x * F32(3.0)


@pytest.fixture(scope="module")
def op():
    return read_kernel(KERNELS / "keyed_inputs")


def _inputs(n):
    x = np.linspace(-9.25, 9.25, n).astype(F32)
    z = np.linspace(4.5, -1.0, n).astype(F32)
    return x, z


def test_the_variants_read_different_inputs(op):
    reads = {v: [g for g, _ in op.description.body("float32", v).inputs] for v in op.variants("float32")}
    assert sorted(reads.values()) == [["x"], ["x", "z"]]


@pytest.mark.parametrize("mode, n", [(1, 1000), (0, 1000), (5, 129)])
def test_the_key_s_variant_gets_the_inputs_it_reads(op, mode, n):
    x, z = _inputs(n)
    assert_bits_equal(op.run(x=x, z=z, mode=mode), ref_keyed_inputs(x, z, mode), f"keyed_inputs mode={mode}")


def test_a_variant_named_gets_the_inputs_it_reads(op):
    x, z = _inputs(300)
    (one,) = [v for v in op.variants("float32") if "!" not in v]
    (other,) = [v for v in op.variants("float32") if "!" in v]
    assert_bits_equal(op.run(x=x, z=z, mode=0, variant=other), ref_keyed_inputs(x, z, 0), "variant x only")
    assert_bits_equal(op.run(x=x, z=z, mode=1, variant=one), ref_keyed_inputs(x, z, 1), "variant x and z")


def test_an_input_a_variant_does_not_read_may_be_left_out_only_where_none_reads_it(op):
    x, _ = _inputs(64)
    with pytest.raises(TypeError, match="missing input 'z'"):
        op.run(x=x, mode=0)
