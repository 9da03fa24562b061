"""Control flow that depends on no data (issue 43), decided per core on the launch's record: a set-up
under a length guard before the tile loop. The fixtures are written for these tests; the references are
written here in NumPy, and which cores skip the set-up is worked out here from the C arithmetic."""
import numpy as np
import pytest

from reference import SPECIALS, assert_bits_equal, random_inputs
from reader_variants import KERNELS, fixture_variant

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

F32 = np.float32


def ref_shrink_mag(x, thr):
    """shrink_mag: Duplicate(t, thr); Abs(y, x); Sub(y, y, t); Maxs(y, y, 0), float32."""
    with np.errstate(all="ignore"):
        return np.maximum(np.abs(x) - F32(thr), F32(0))


def _x(n, seed=11):
    return np.concatenate([random_inputs(np.random.default_rng(seed), n - SPECIALS.size, F32)[1],
                           SPECIALS.astype(F32)])


@pytest.fixture(scope="module")
def guard_op():
    return read_kernel(KERNELS / "ctl_guard_shrink")


def test_the_guarded_set_up_is_the_programs_first_step(guard_op):
    steps = guard_op.description.body("float32", "").steps
    assert [s.op for s in steps] == ["Duplicate", "Abs", "Sub", "Maxs"]


@pytest.mark.parametrize("block_dim, thr", [
    (5, 0.5),          # 5000 = 4 x 1024 + 904: every core takes the guard; the last one's last tile 136 long
    (7, 1.25),         # cores 5 and 6 have -120 and -1144 elements left: they skip the set-up and walk no tile
])
def test_a_set_up_under_a_length_guard_bit_for_bit(guard_op, block_dim, thr):
    x = _x(5000)
    tiling = {"totalNum": 5000, "blockFactor": 1024, "ubFactor": 256, "thr": thr}
    assert_bits_equal(guard_op.run(x=x, tiling=tiling, block_dim=block_dim), ref_shrink_mag(x, thr),
                      f"shrink_mag on {block_dim} cores")


def test_a_core_that_skips_the_set_up_and_walks_a_tile_is_refused(tmp_path):
    folder, path = fixture_variant(tmp_path, "ctl_guard_shrink", "if (blockLen > 0) {", "if (blockLen > 1000) {",
                                   "shrink_mag.cpp")
    op = read_kernel(folder)
    x = _x(5000)
    tiling = {"totalNum": 5000, "blockFactor": 1024, "ubFactor": 256, "thr": 0.5}
    assert_bits_equal(op.run(x=x, tiling=tiling, block_dim=4)[:4096], ref_shrink_mag(x, 0.5)[:4096], "4 cores")
    with pytest.raises(KernelSourceError, match="core 4's tile at element 4096.*other vector calls") as e:
        op.run(x=x, tiling=tiling, block_dim=5)        # core 4: 904 elements, no set-up, 4 tiles from 4096
    assert e.value.line > 0


def test_a_guard_whose_other_way_makes_other_calls_is_refused(tmp_path):
    old = "Duplicate(thrLocal, (T)tiling->thr, ubLen);\n        }"
    folder, path = fixture_variant(tmp_path, "ctl_guard_shrink", old,
                                   old + " else {\n            Duplicate(thrBuf.Get<T>(), (T)0, ubLen);\n        }",
                                   "shrink_mag.cpp")
    with pytest.raises(KernelSourceError, match=r"vector calls under a runtime branch.*if \(blockLen > 0\)") as e:
        read_kernel(folder).program("float32")
    assert "if (blockLen > 0)" in path.read_text().splitlines()[e.value.line - 1]
