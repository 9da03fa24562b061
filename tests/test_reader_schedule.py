"""A read A2 kernel on its own schedule (issue 43): the scalar code of each core run on the launch's record,
so a tail-tile branch in Process's loop, lengths and offsets that depend on GetBlockIdx() and a tiling-key
switch give exactly the tiles the device walks. The fixtures are written for these tests in the styles of
cann-ops forks and course code; the references are written here instruction by instruction, and the tiles
each core walks are worked out here from the C arithmetic, not by the code under test."""
import types
from pathlib import Path

import numpy as np
import pytest

from activation_checks import every16
from reference import SPECIALS, assert_bits_equal, random_inputs
from reference_family import narrow
from reader_variants import fixture_variant

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.reader.launch_plan import schedule, schedule_plan
from swishgrad_numba.reader import KernelSourceError
from swishgrad_numba.reader.schedule import Tile

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32 = np.float32


def ref_tail_axpx(x, alpha):
    """tail_axpx: Muls(t, x, alpha); Adds(t, t, 1.0f); Mul(y, t, x), float32; 16-bit widened exactly
    (Cast CAST_NONE), narrowed with Cast CAST_RINT."""
    with np.errstate(all="ignore"):
        xf = x.astype(F32)
        t = xf * F32(alpha)
        t = t + F32(1.0)
        y = t * xf
    return y if x.dtype == F32 else narrow(y, x.dtype, ties_away=False)


def ref_key_strided(x):
    """key_strided: Muls(y, x, 3.0f); Adds(y, y, -1.5f)."""
    with np.errstate(all="ignore"):
        return (x * F32(3.0)) + F32(-1.5)


def tail_axpx_tiles(n, cores=5, tile=512):
    """Each core's (offset, length) tiles, from the kernel's C: the first n % cores cores one element longer."""
    small, big = divmod(n, cores)
    out = []
    for c in range(cores):
        length = small + 1 if c < big else small
        start = (small + 1) * c if c < big else big * (small + 1) + (c - big) * small
        count = -(-length // tile)
        out.append([(start + i * tile, tile if i < count - 1 else length - (count - 1) * tile) for i in range(count)])
    return out


@pytest.fixture(scope="module")
def tail_op():
    return read_kernel(KERNELS / "tail_axpx")


@pytest.fixture(scope="module")
def key_op():
    return read_kernel(KERNELS / "key_strided")


def _copy(tmp_path, name, old, new):
    return fixture_variant(tmp_path, name, old, new)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_tail_tiles_and_uneven_cores_bit_for_bit(tail_op, dtype):
    if dtype == "float32":
        x = np.concatenate([random_inputs(np.random.default_rng(7), 12_345, F32)[1], SPECIALS.astype(F32)])
    else:
        x = every16(dtype)
    if dtype == "bfloat16":          # the op definition lists float32 and float16 only
        with pytest.raises(ValueError, match="x.dtype must be one of"):
            tail_op.run(x=x)
        return
    assert_bits_equal(tail_op.run(x=x), ref_tail_axpx(x, 0.5), f"tail_axpx {dtype}")
    assert_bits_equal(tail_op.run(x=x, alpha=-2.25), ref_tail_axpx(x, -2.25), f"tail_axpx {dtype} alpha")


@pytest.mark.parametrize("n", [1, 2, 7, 12, 33])
def test_every_core_the_host_launches_runs_however_few_elements_it_holds(tail_op, n):
    # The host sets 5 cores whatever n; below 5 x 32 bytes the template's split would use fewer (one per
    # 32-byte block), but the record's fields are the 5 cores' and the device runs all 5 (a run on the
    # template's count left every core but the first unwritten: zeros).
    x = random_inputs(np.random.default_rng(n), n, F32)[1]
    assert_bits_equal(tail_op.run(x=x), ref_tail_axpx(x, 0.5), f"tail_axpx n={n}")
    h = np.random.default_rng(n).uniform(-5, 5, n).astype(np.float16)
    assert_bits_equal(tail_op.run(x=h), ref_tail_axpx(h, 0.5), f"tail_axpx float16 n={n}")


def test_each_core_walks_the_tiles_its_scalar_code_gives(tail_op):
    for n in (12_375, 7, 5 * 512, 5 * 512 + 4):
        record = np.zeros((), tail_op.record_dtype)
        record["smallLength"], record["bigCores"], record["tileLength"] = n // 5, n % 5, 512
        launch = types.SimpleNamespace(data=record[()], block_dim=5, tiling_key=0)
        got = schedule(tail_op, launch, _info("float32"))
        assert [[(t.offset, t.length) for t in core] for core in got] == tail_axpx_tiles(n), n


def test_a_tail_the_kernel_gets_wrong_is_left_unwritten(tmp_path):
    # the last tile one element short: each core's last element is never stored (zero here; on the device,
    # what GM held). The template's walk computed them all.
    folder, _ = _copy(tmp_path, "tail_axpx", "len = this->lastLength;", "len = this->lastLength - 1;")
    op = read_kernel(folder)
    x = np.linspace(1.0, 2.0, 5 * 700 + 2).astype(F32)
    got, want = op.run(x=x), ref_tail_axpx(x, 0.5)
    ends = [core[-1][0] + core[-1][1] - 1 for core in tail_axpx_tiles(x.size)]
    assert np.all(got[ends] == 0)
    keep = np.ones(x.size, bool)
    keep[ends] = False
    assert_bits_equal(got[keep], want[keep], "tail_axpx, the tail one short")


@pytest.mark.parametrize("n, key", [(4096, 1), (8192, 1), (5000, 2), (300, 2)])
def test_the_tiling_key_picks_the_schedule(key_op, n, key):
    x = np.linspace(-3, 3, n).astype(F32)
    assert_bits_equal(key_op.run(x=x), ref_key_strided(x), f"key_strided n={n}")
    record = np.zeros((), key_op.record_dtype)
    record["totalLength"], record["tileLength"] = n, 256
    got = schedule(key_op, types.SimpleNamespace(data=record[()], block_dim=4, tiling_key=key), _info("float32"))
    tiles = -(-n // 256)
    if key == 1:        # core c: its own block of n / 4, in tiles of 256
        want = [[(c * (n // 4) + i * 256, 256) for i in range(n // 4 // 256)] for c in range(4)]
    else:               # tile t on core t % 4, the last one short
        want = [[(t * 256, 256 if t < tiles - 1 else n - (tiles - 1) * 256) for t in range(c, tiles, 4)]
                for c in range(4)]
    assert [[(t.offset, t.length) for t in core] for core in got] == want


def test_a_plan_of_tiles_covers_each_once():
    cores = [[Tile(0, 256), Tile(256, 256), Tile(512, 100)], [Tile(612, 256)], [Tile(2000, 8)]]
    plan = schedule_plan(cores, 700, threads=2)
    p = plan.pieces
    assert [tuple(r) for r in p] == [(0, 1, 0, 3, 256, 100), (612, 1, 0, 1, 256, 256)]
    assert plan.bins[0] == 0 and plan.bins[-1] == 2 and plan.elements == 612 + 88


def test_a_loop_counter_is_not_its_first_value(tmp_path):
    # if (i == 0) { ... } in the tile: the first tile makes a call the others do not. It used to be read as
    # the counter's first value, for every tile; then refused; now each way is a variant (.launch_branch)
    # and each tile runs the one its core's counter chose
    folder, path = _copy(tmp_path, "tail_axpx", "CopyIn(i, len);",
                         "if (i == 0) { AscendC::LocalTensor<float> w = wideBuf.Get<float>(); "
                         "AscendC::Duplicate(w, 0.0f, len); }\n            CopyIn(i, len);")
    op = read_kernel(folder)
    assert op.variants("float32") == ("i == 0", "!(i == 0)")
    x = np.linspace(-4.0, 4.0, 5 * 700 + 3).astype(F32)
    assert_bits_equal(op.run(x=x), ref_tail_axpx(x, 0.5), "tail_axpx with a first-tile Duplicate")


@pytest.mark.parametrize("old, new, line, construct", [
    ("AscendC::Mul(yLocal, tmp, xLocal, len);", "AscendC::Mul(yLocal, tmp, xLocal, len / 2);", 62,
     r"Mul over \d+ elements"),
    # two rows a copy (reader.split_loads): the store's second row overruns its buffer
    ("copyParams.blockCount = 1;", "copyParams.blockCount = 2;", 82, "DataCopyPad over 1024 elements of outQ"),
    ("AscendC::DataCopyPad(xLocal, xGm[i * this->tileLength], copyParams, padParams);",
     "AscendC::DataCopy(xLocal, xGm[i * this->tileLength], len);", 51, "DataCopy of 485 elements"),
    ("AscendC::DataCopyPad(yGm[i * this->tileLength], yLocal, copyParams);",
     "AscendC::DataCopyPad(yGm[i * this->tileLength + 8], yLocal, copyParams);", 51, r"a copy of \d+ elements"),
])
def test_a_tile_the_program_cannot_compute_is_refused_at_its_line(tmp_path, old, new, line, construct):
    folder, path = _copy(tmp_path, "tail_axpx", old, new)
    op = read_kernel(folder)
    x = np.linspace(-1, 1, 5 * 997).astype(F32)       # 997 per core: a tile of 512, a tail of 485
    with pytest.raises(KernelSourceError, match=construct) as e:
        op.run(x=x)
    assert e.value.file == str(path) and e.value.line == line, str(e.value)


def _info(name):
    from swishgrad_numba.dtypes import dtype_info

    return dtype_info(name)


def test_data_copy_with_a_params_struct_of_32_byte_blocks(tmp_path):
    # issue 43: DataCopy(dst, src, DataCopyParams) moves blockCount blocks of blockLen 32-byte blocks; gm_prelu_weight
    # (4 cores, 8 tiles a core) with its counted copies written as one block of tileLength * 4 / 32 blocks
    load = "DataCopy(xLocal, xGm[progress * this->tileLength], this->tileLength);"
    store = "DataCopy(yGm[progress * this->tileLength], yLocal, this->tileLength);"
    params = "DataCopyParams cp{1, (uint16_t)(this->tileLength * sizeof(T) / 32), 0, 0};\n        "
    folder, path = _copy(tmp_path, "gm_prelu_weight", load, params + load.replace("this->tileLength);", "cp);"))
    path.write_text(path.read_text().replace(store, params + store.replace("this->tileLength);", "cp);")))
    op = read_kernel(folder)
    x = np.linspace(-6.0, 6.0, 4 * 8 * 64).astype(F32)
    w = np.array([-0.375], F32)
    with np.errstate(all="ignore"):
        want = np.where(x >= 0, x, x * w[0])            # Muls by w, CompareScalar GE 0, Select
    assert_bits_equal(op.run(x=x, weight=w), want, "gm_prelu_weight by DataCopyParams")
    # the same struct on the launch's schedule, checked: 32-byte blocks of float are 8 elements each
    text = path.read_text().replace("(uint16_t)(this->tileLength * sizeof(T) / 32)", "(uint16_t)(this->tileLength / 32)")
    path.write_text(text)
    got = read_kernel(folder).run(x=x, weight=w)
    assert_bits_equal(got[:16], want[:16], "the first 16 of each 64-element tile")
    assert not np.any(got[16:64]), "elements no copy moved are left 0"
