"""An empty-input guard that returns from Init before the GM tensors are bound, and a guard on the core
index in Process (issue 43, reader/block_guard.py): on the path where the tiling field is 0, every core
returns at Process's guard (a core index is never negative), so that path reads nothing unbound. The
fixture gm_empty_guard is written for these tests; the reference is written here in NumPy."""
import numpy as np
import pytest

from reference import SPECIALS, assert_bits_equal, random_inputs
from reader_variants import KERNELS, fixture_variant, refusal

from swishgrad_numba.ops import read_kernel

F32 = np.float32
_GUARD = "if (GetBlockIdx() >= blockNum_) {"


def ref_abs_scale(x, scale):
    """abs_scale_guard: Abs(y, x); Muls(y, y, scale), float32."""
    with np.errstate(all="ignore"):
        return np.abs(x) * F32(scale)


def _x(n, seed=5):
    return np.concatenate([random_inputs(np.random.default_rng(seed), n - SPECIALS.size, F32)[1],
                           SPECIALS.astype(F32)])


@pytest.fixture(scope="module")
def op():
    return read_kernel(KERNELS / "gm_empty_guard")


def test_the_empty_input_path_computes_nothing_and_the_other_reads(op):
    assert [s.op for s in op.description.body("float32", "").steps] == ["Abs", "Muls"]


@pytest.mark.parametrize("block_num, block_dim", [(3, 3), (3, 5)])     # cores 3 and 4 return at the guard
def test_a_guarded_kernel_bit_for_bit(op, block_num, block_dim):
    x = _x(3000)
    tiling = {"blockNum": block_num, "blockFactor": 1024, "tailFactor": 3000 - 2048, "ubFactor": 256,
              "scale": -0.375}
    assert_bits_equal(op.run(x=x, tiling=tiling, block_dim=block_dim), ref_abs_scale(x, -0.375),
                      f"abs_scale_guard, {block_num} of {block_dim} cores")


def test_the_guard_written_the_other_way_round_reads(tmp_path):
    folder, _ = fixture_variant(tmp_path, "gm_empty_guard", _GUARD, "if (blockNum_ <= GetBlockIdx()) {",
                                "abs_scale_guard.cpp")
    x = _x(1500)
    tiling = {"blockNum": 2, "blockFactor": 1024, "tailFactor": 1500 - 1024, "ubFactor": 512, "scale": 3.0}
    assert_bits_equal(read_kernel(folder).run(x=x, tiling=tiling, block_dim=3), ref_abs_scale(x, 3.0), "flipped")


@pytest.mark.parametrize("guard", ["if (GetBlockIdx() > blockNum_) {", "if (GetBlockIdx() + 1 > blockNum_) {"])
def test_a_guard_the_path_does_not_settle_is_refused(tmp_path, guard):
    err, path = refusal(tmp_path, "gm_empty_guard", _GUARD, guard, "abs_scale_guard.cpp")
    assert err.construct == "GlobalTensor xGm_" and "never bound" in str(err), str(err)
    assert err.file == str(path)


def test_a_scalar_read_from_a_gm_input_is_refused_naming_the_input(tmp_path):
    # issue 43: a GlobalTensor's GetValue (a scalar taken from an input, as a threshold or a weight) is read
    # where the tensor is bound at the input's start (.gm_scalars); here it is bound at the core's part, so
    # which element it reads is not modelled: the refusal names the tensor and the GM input it reads
    err, path = refusal(tmp_path, "gm_empty_guard", "Muls(yl, yl, scale_, cur);",
                        "Muls(yl, yl, xGm_.GetValue(0), cur);", "abs_scale_guard.cpp")
    assert err.construct == "xGm_.GetValue" and "GM input x at an offset" in str(err), str(err)
    assert "xGm_.GetValue(0)" in path.read_text().splitlines()[err.line - 1]
