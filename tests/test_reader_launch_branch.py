"""A branch known for the launch whose ways make different vector calls (issue 43, .launch_branch): a last
tile computed with other instructions (a branch on the tile index in Compute), a branch on the core index
or on an attribute's value,
a Process that pipelines its tiles (each loaded one ahead of the tile computed) and takes one tile alone
where a core has one. The fixtures are written for these tests; the references are written here in NumPy,
and which tile each element lies in is worked out here from the kernels' C arithmetic. A branch on a
tensor's data stays refused."""
import numpy as np
import pytest

from reference import SPECIALS, assert_bits_equal, random_inputs
from reference_family import narrow
from reader_variants import KERNELS, fixture_variant

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader import KernelSourceError

F32 = np.float32
DT16 = {"float16": np.float16}
CORES, TILE = 4, 256          # ctl_last_tile's and ctl_pipelined's op_host


def _x(n, dtype="float32", seed=5):
    x = np.concatenate([random_inputs(np.random.default_rng(seed), n - SPECIALS.size, F32)[1],
                        SPECIALS.astype(F32)])
    with np.errstate(over="ignore"):
        return x if dtype == "float32" else x.astype(DT16[dtype])


def _last_tiles(n):
    """Which elements lie in their core's last tile: each core ceil(n / 4) elements, in tiles of 256."""
    per = -(-n // CORES)
    tiles = -(-per // TILE)
    within = np.arange(n) % per
    return within >= (tiles - 1) * TILE


def ref_last_tile(x, last):
    """last_tile: widened exactly to float32; Abs, Muls 0.5, Adds 1 on a core's last tile, Mul(w, w, w),
    Adds -2 elsewhere; narrowed with Cast CAST_RINT."""
    with np.errstate(all="ignore"):
        w = x.astype(F32)
        y = np.where(last, np.abs(w) * F32(0.5) + F32(1.0), w * w + F32(-2.0)).astype(F32)
    return y if x.dtype == F32 else narrow(y, x.dtype, ties_away=False)


@pytest.fixture(scope="module")
def last_op():
    return read_kernel(KERNELS / "ctl_last_tile")


def test_each_way_of_a_tile_branch_is_a_variant(last_op):
    assert last_op.variants("float32") == ("progress == this->tileNum - 1", "!(progress == this->tileNum - 1)")
    last = last_op.description.body("float32", "progress == this->tileNum - 1").steps
    other = last_op.description.body("float32", "!(progress == this->tileNum - 1)").steps
    assert [s.op for s in last] == ["Abs", "Muls", "Adds"] and [s.op for s in other] == ["Mul", "Adds"]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("n", [4 * 600, 4 * 256, 4 * 100, 4 * 1000 + 4])
def test_the_last_tile_of_each_core_runs_its_own_calls_bit_for_bit(last_op, dtype, n):
    x = _x(n, dtype)
    assert_bits_equal(last_op.run(x=x), ref_last_tile(x, _last_tiles(n)), f"last_tile {dtype} n={n}")


def test_a_branch_on_the_core_index(tmp_path):
    folder, _ = fixture_variant(tmp_path, "ctl_last_tile", "if (progress == this->tileNum - 1) {",
                                "if (AscendC::GetBlockIdx() == 2) {", "op_kernel/last_tile.cpp")
    op = read_kernel(folder)
    assert op.variants("float32") == ("AscendC::GetBlockIdx() == 2", "!(AscendC::GetBlockIdx() == 2)")
    n = 4 * 700
    x = _x(n)
    core2 = np.arange(n) // (n // CORES) == 2
    assert_bits_equal(op.run(x=x), ref_last_tile(x, core2), "last_tile by core index")


def test_a_branch_on_a_tensors_data_is_refused(tmp_path):
    folder, path = fixture_variant(tmp_path, "ctl_last_tile", "if (progress == this->tileNum - 1) {",
                                   "if (xLocal.GetValue(0) > (T)0) {", "op_kernel/last_tile.cpp")
    with pytest.raises(KernelSourceError, match="GetValue") as e:
        read_kernel(folder)
    assert e.value.file == str(path) and "GetValue" in path.read_text().splitlines()[e.value.line - 1]


def ref_attr_branch(x, beta):
    """attr_branch: where beta > 0 (a float32 comparison: false for a NaN), Abs(t, x); Adds(t, t, 1);
    Muls(y, x, beta); Div(y, y, t); else Abs(y, x)."""
    b = F32(beta)
    with np.errstate(all="ignore"):
        return (x * b) / (np.abs(x) + F32(1.0)) if b > 0 else np.abs(x)


@pytest.fixture(scope="module")
def attr_op():
    return read_kernel(KERNELS / "ctl_attr_branch")


@pytest.mark.parametrize("beta", [1.0, 0.25, 0.0, -0.0, -3.0, float("nan"), float("inf"), 1e-45])
def test_a_branch_on_an_attribute_is_decided_per_launch(attr_op, beta):
    assert attr_op.variants("float32") == ("this->beta > 0.0f", "!(this->beta > 0.0f)")
    x = _x(2 * 1024 * 3)
    assert_bits_equal(attr_op.run(x=x, beta=beta), ref_attr_branch(x, beta), f"attr_branch beta={beta}")


def test_a_guard_on_an_attribute_is_refused(tmp_path):
    # on the way that returns the kernel computes nothing: the template's walk would compute the other way
    loop = "uint32_t loops = this->blockLength / this->tileLength;"
    folder, path = fixture_variant(tmp_path, "ctl_attr_branch", loop,
                                   "if (this->beta == 0.0f) {\n            return;\n        }\n        " + loop,
                                   "op_kernel/attr_branch.cpp")
    with pytest.raises(KernelSourceError, match=r"a branch on attribute values: if \(this->beta == 0.0f\)") as e:
        read_kernel(folder)
    assert e.value.file == str(path) and "this->beta == 0.0f" in path.read_text().splitlines()[e.value.line - 1]


def test_an_attribute_branch_needs_the_record_or_a_variant(attr_op):
    # no record of its own (the template's walk): which way is not known, so the variant must be named
    with pytest.raises(ValueError, match="variant must be given"):
        attr_op.program("float32")
    assert [s.op for s in attr_op.description.body("float32", "!(this->beta > 0.0f)").steps] == ["Abs"]


# ---------------------------------------------------------------- a pipelined Process
def ref_pipelined(x):
    """pipelined: Maxs(y, x, 0); Muls(y, y, 3); Adds(y, y, -1), in x's dtype."""
    t = x.dtype.type
    with np.errstate(all="ignore"):
        y = np.where(np.isnan(x) | (x >= 0), x, t(0)).astype(x.dtype)
        return ((y * t(3)).astype(x.dtype) + t(-1)).astype(x.dtype)


@pytest.fixture(scope="module")
def pipe_op():
    return read_kernel(KERNELS / "ctl_pipelined")


@pytest.mark.parametrize("n", [4 * 100, 4 * 256, 4 * 257, 4 * 600 + 4, 4 * 2000])
def test_a_pipelined_process_bit_for_bit(pipe_op, n):
    # 4 * 100 and 4 * 256: one tile a core (the branch's other way); the others: tiles loaded one ahead
    x = _x(n)
    assert_bits_equal(pipe_op.run(x=x), ref_pipelined(x), f"pipelined n={n}")


def test_a_load_ahead_that_is_not_the_tile_stored_is_refused(tmp_path):
    # the tile loaded ahead is stored at the next tile's offset: its load and its store are two ranges
    folder, path = fixture_variant(tmp_path, "ctl_pipelined", "CopyOut(i - 1, this->tileLength);",
                                   "CopyOut(i, this->tileLength);", "op_kernel/pipelined.cpp")
    op = read_kernel(folder)
    with pytest.raises(KernelSourceError, match="a tile's copies are one range") as e:
        op.run(x=_x(4 * 600))
    assert e.value.file == str(path) and "DataCopyPad" in path.read_text().splitlines()[e.value.line - 1]
