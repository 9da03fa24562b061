"""Control flow that depends on no data (issue 43), decided per core on the launch's record: a set-up
under a length guard before the tile loop; loops outside the tile loop (run when read where their bounds
are constants, else followed once); continue and break; a chunk loop inside a row loop. The fixtures are
written for these tests; the references are written here in NumPy, and which tiles each core walks is
worked out here from the C arithmetic."""
import types

import numpy as np
import pytest

from reference import SPECIALS, assert_bits_equal, random_inputs
from reader_variants import KERNELS, fixture_variant

from swishgrad_numba.ops import read_kernel
from swishgrad_numba.dtypes import dtype_info
from swishgrad_numba.reader import KernelSourceError
from swishgrad_numba.reader.launch_plan import schedule

F32 = np.float32


def _maxs0(v):
    """Maxs(v, 0): v where v is NaN or v >= 0 (-0.0 kept: -0.0 >= 0), else +0.0."""
    with np.errstate(invalid="ignore"):
        return np.where(np.isnan(v) | (v >= 0), v, F32(0))


def ref_shrink_mag(x, thr):
    """shrink_mag: Duplicate(t, thr); Abs(y, x); Sub(y, y, t); Maxs(y, y, 0), float32."""
    with np.errstate(all="ignore"):
        return _maxs0(np.abs(x) - F32(thr))


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


def test_a_guard_whose_other_way_makes_other_calls_is_a_variant(tmp_path):
    # the other way sets the threshold to 0: each way a variant (.launch_branch), each core's tiles running
    # the one its length chose (core 4 has 904 elements, under the 1000 of the guard)
    old = "Duplicate(thrLocal, (T)tiling->thr, ubLen);\n        }"
    folder, path = fixture_variant(tmp_path, "ctl_guard_shrink", old,
                                   old + " else {\n            Duplicate(thrBuf.Get<T>(), (T)0, ubLen);\n        }",
                                   "shrink_mag.cpp")
    text = path.read_text().replace("if (blockLen > 0) {", "if (blockLen > 1000) {")
    path.write_text(text)
    op = read_kernel(folder)
    assert op.variants("float32") == ("blockLen > 1000", "!(blockLen > 1000)")
    x = _x(5000)
    tiling = {"totalNum": 5000, "blockFactor": 1024, "ubFactor": 256, "thr": 0.5}
    want = ref_shrink_mag(x, 0.5)
    want[4096:] = ref_shrink_mag(x[4096:], 0.0)
    assert_bits_equal(op.run(x=x, tiling=tiling, block_dim=5), want, "shrink_mag, core 4 without the threshold")


# ---------------------------------------------------------------- continue, break, loops in Init
def ref_rr_affine(x):
    """rr_affine: Muls(b, a, 0.5 ** 3); Adds(b, b, 1.0f), float32."""
    with np.errstate(all="ignore"):
        return x * F32(0.125) + F32(1.0)


@pytest.fixture(scope="module")
def rr_op():
    return read_kernel(KERNELS / "ctl_round_robin")


def test_a_constant_loop_in_init_is_run_when_read(rr_op):
    steps = rr_op.description.body("float32", "").steps
    assert [(s.op, s.args[-1].value) for s in steps] == [("Muls", 0.125), ("Adds", 1.0)]      # 1.0f halved 3 times


@pytest.mark.parametrize("total, tile, cores", [(5000, 512, 3), (5000, 5000, 1), (4096, 256, 8), (700, 256, 5)])
def test_tiles_dealt_in_turn_with_continue_and_break(rr_op, total, tile, cores):
    x = _x(total, seed=total)
    tiling = {"totalLen": total, "tileLen": tile}
    assert_bits_equal(rr_op.run(x=x, tiling=tiling, block_dim=cores), ref_rr_affine(x), f"rr_affine {tiling}")
    record = np.zeros((), rr_op.record_dtype)
    record["totalLen"], record["tileLen"] = total, tile
    got = schedule(rr_op, types.SimpleNamespace(data=record[()], block_dim=cores, tiling_key=0), dtype_info("float32"))
    count = -(-total // tile)                  # Init's loop: one count per tileLen step below totalLen
    want = [[(t * tile, min(tile, total - t * tile)) for t in range(c, count, cores)] for c in range(cores)]
    assert [[(t.offset, t.length) for t in core] for core in got] == want


def test_a_continue_that_cuts_a_tile_short_is_refused_for_the_launch(tmp_path):
    skip = "if (t % GetBlockNum() != GetBlockIdx()) {\n                continue;\n            }\n"
    copy = "inQ.EnQue(a);\n"
    folder, path = fixture_variant(tmp_path, "ctl_round_robin", skip, "", "rr_affine.cpp")
    path.write_text(path.read_text().replace(copy, copy + "            " + skip, 1))
    op = read_kernel(folder)                   # read: the skipped way is a guard, as a return is
    x = _x(2048)
    tiling = {"totalLen": 2048, "tileLen": 512}
    assert_bits_equal(op.run(x=x, tiling=tiling, block_dim=1), ref_rr_affine(x), "one core skips nothing")
    with pytest.raises(KernelSourceError, match="a tile's copies are one range"):
        op.run(x=x, tiling=tiling, block_dim=2)      # core 0 copies tile 1 in, skips it, then copies tile 2


def test_a_loop_in_init_that_computes_is_refused(tmp_path):
    old = "scale = scale * 0.5f;"
    folder, path = fixture_variant(tmp_path, "ctl_round_robin", old,
                                   old + "\n            Duplicate(outQ.AllocTensor<T>(), (T)0, tileLen);",
                                   "rr_affine.cpp")
    with pytest.raises(KernelSourceError, match="a loop in Init: only Process's tile loop makes vector calls") as e:
        read_kernel(folder).program("float32")
    assert "for (int32_t k = 0; k < HALVINGS; ++k)" in path.read_text().splitlines()[e.value.line - 1]


@pytest.mark.parametrize("old, new, message", [
    ("for (uint32_t t = 0;; ++t) {", "break;\n        for (uint32_t t = 0;; ++t) {", "break;: only in a loop"),
    ("float scale = 1.0f;", "float scale = 1.0f;\n    __aicore__ inline void Skip(uint32_t k) { switch (k) "
     "{ case 1: if (k > 0) { break; } return; default: return; } }", "break;: only in a loop"),
])
def test_break_and_continue_only_in_a_loop(tmp_path, old, new, message):
    folder, path = fixture_variant(tmp_path, "ctl_round_robin", old, new, "rr_affine.cpp")
    with pytest.raises(KernelSourceError, match=message) as e:
        read_kernel(folder)
    assert "break;" in path.read_text().splitlines()[e.value.line - 1]


def test_a_break_on_data_stays_refused(tmp_path):
    old = "a = inQ.DeQue<T>();"
    folder, _ = fixture_variant(tmp_path, "ctl_round_robin", old,
                                old + "\n            if (a.GetValue(0) > (T)0) { break; }", "rr_affine.cpp")
    with pytest.raises(KernelSourceError, match="GetValue: element-by-element access"):
        read_kernel(folder).program("float32")


# ---------------------------------------------------------------- a chunk loop inside a row loop
def ref_rows_relu3(x):
    """rows_relu3: Maxs(b, a, 0); Muls(b, b, 3), float32."""
    with np.errstate(all="ignore"):
        return _maxs0(x) * F32(3)


@pytest.fixture(scope="module")
def rows_op():
    return read_kernel(KERNELS / "ctl_rows_chunks")


def _rows_tiles(rows, cols, chunk, used, cores):
    """Each core's tiles: rows r = c, c + used, ...; each row in chunks, the last one cols % chunk long."""
    out = []
    for c in range(cores):
        tiles = []
        for r in range(c, rows, used) if c < used else ():
            tiles += [(r * cols + k, min(chunk, cols - k)) for k in range(0, cols, chunk)]
        out.append(tiles)
    return out


@pytest.mark.parametrize("rows, cols, chunk, used, cores", [
    (7, 1000, 256, 3, 4),        # a short last chunk in each row; core 3 past usedCores walks nothing
    (5, 1024, 256, 2, 2),        # whole chunks only
    (3, 96, 128, 3, 3),          # one chunk a row, shorter than a chunk
])
def test_a_chunk_loop_inside_the_row_loop(rows_op, rows, cols, chunk, used, cores):
    x = _x(rows * cols, seed=cols)
    tiling = {"rows": rows, "cols": cols, "chunk": chunk, "usedCores": used}
    assert_bits_equal(rows_op.run(x=x, tiling=tiling, block_dim=cores), ref_rows_relu3(x), f"rows_relu3 {tiling}")
    record = np.zeros((), rows_op.record_dtype)
    for k, v in tiling.items():
        record[k] = v
    got = schedule(rows_op, types.SimpleNamespace(data=record[()], block_dim=cores, tiling_key=0),
                   dtype_info("float32"))
    assert [[(t.offset, t.length) for t in core] for core in got] == _rows_tiles(rows, cols, chunk, used, cores)


def test_a_call_in_the_row_loop_after_its_chunk_loop_is_refused(tmp_path):
    old = "                CopyOut(rowStart + c * chunk, len);\n            }\n"
    folder, path = fixture_variant(tmp_path, "ctl_rows_chunks", old,
                                   old + "            Duplicate(outQ.AllocTensor<T>(), (T)0, chunk);\n",
                                   "rows_relu3.cpp")
    with pytest.raises(KernelSourceError, match="a loop in BigTailProcess: vector calls or copies after its inner") as e:
        read_kernel(folder).program("float32")
    assert "for (uint32_t r = 0; r < myRows; r++)" in path.read_text().splitlines()[e.value.line - 1]
