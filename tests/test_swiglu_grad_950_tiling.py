"""The Ascend 950 SwiGluGrad host tiling and walks (issue 41) against a plain re-reading of ops-nn
``swi_glu_grad_tiling_regbase.cpp`` (``AutoTiling``, ``FindUniqueCut``, ``DoOpTiling``, ``GetTilingKey``) and
``arch35/`` (``InitBase``, the MoveAlign and UbRearrange loops), written here as the C++ reads, without the
package's code; and the walk's element coverage counted element by element."""
from __future__ import annotations

import math

import numpy as np
import pytest

from swishgrad_numba.ops.swi_glu.host_950 import core_walk, loops, swiglu_grad_tiling_950

UB, CORES = 253952, 64


def plain_host(rows, cols, size, cores):
    """(m, n, key) as GluBaseTiling4RegBase computes them."""
    base = 512 // size
    col_num_align = (cols + base - 1) // base
    used = min(cores, rows * col_num_align * base // 8192)
    if used == 0:
        used = 1
    cut = set()
    for m in range(1, int(math.ceil(math.sqrt(used) + 1))):
        cut.add(m)
        cut.add(used // m)
    all_tiling = []
    chosen = None
    for m in sorted(cut):
        if m > rows:
            continue
        n = used // m
        if n < 1:
            n = 1
        if n > col_num_align:
            continue
        if cols * size < 1024 and n > 1:
            continue
        rnb = -(-rows // m)
        cnb = -(-col_num_align // n)
        delta = rnb * cnb
        if m * n == used:
            if rows % m == 0 and col_num_align % n == 0:
                chosen = (m, n)
                break
            elif rows % m == 0:
                delta = delta - rnb * (col_num_align % cnb)
            elif col_num_align % n == 0:
                delta = delta - (rows % rnb) * n
            else:
                delta = delta - (rows % rnb) * (col_num_align % cnb)
        all_tiling.append([m, n, m * n, delta])
    if chosen is None:
        # insertion sort on (delta, n), as libstdc++ sorts 16 entries or fewer
        for i in range(1, len(all_tiling)):
            j = i
            while j > 0 and (all_tiling[j][3], all_tiling[j][1]) < (all_tiling[j - 1][3], all_tiling[j - 1][1]):
                all_tiling[j], all_tiling[j - 1] = all_tiling[j - 1], all_tiling[j]
                j -= 1
        chosen = (all_tiling[0][0], all_tiling[0][1])
    dtype_enum = {2: 0, 4: 1}[size]
    move_align = 0 if cols * size < 1024 else 1
    return chosen[0], chosen[1], 1000000 + dtype_enum * 10 + move_align


SHAPES = [(1, 2), (83, 2), (4, 8), (67, 400), (1000, 4096), (7, 70000), (2, 18066), (300, 8014), (5, 130000),
          (64, 512), (129, 2050), (3, 2 * 14000), (1, 2 * 300000), (4096, 64)]


@pytest.mark.parametrize("dtype, size", [("float32", 4), ("float16", 2), ("bfloat16", 2)])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_host_against_plain_reading(shape, dtype, size):
    rows, cols = shape[0], shape[1] // 2
    m, n, key = plain_host(rows, cols, size, CORES)
    t = swiglu_grad_tiling_950(shape, 1, dtype, UB, CORES)
    if dtype == "bfloat16":
        key += 20
    assert (t.row_tile_num, t.col_tile_num, t.used_core_num, t.tiling_key) == (m, n, m * n, key)
    assert (t.row_total, t.col_total, t.row_base, t.col_base) == (rows, cols, rows // m, cols // n)
    assert (t.row_tail, t.col_tail) == (rows - rows // m * m + rows // m, cols - cols // n * n + cols // n)
    assert t.workspace == 16 * 1024 * 1024 + 32 * m * n


def plain_cover(t):
    """Writes per element of grad_x, walked as the kernels' loops read (InitBase, then the kernel's loops)."""
    size = 4 if t.dtype == "float32" else 2
    writes = np.zeros(2 * t.row_total * t.col_total, np.int64)
    total = 2 * t.col_total
    for idx in range(t.used_core_num):
        col_process = t.col_base if (idx + 1) % t.col_tile_num != 0 else t.col_tail
        row_process = t.row_base if (idx + 1) // t.col_tile_num < t.row_tile_num - 1 else t.row_tail
        part_a = t.row_base * (idx // t.col_tile_num) * total + t.col_base * (idx % t.col_tile_num)
        rows_and_pieces = []
        if t.tiling_key % 10 == 1:
            node = (t.ub_size // 5 // 2) // 256 * 256
            if col_process * size > node:
                norm = node // size
                for r in range(row_process):
                    j = 0
                    while j < col_process:
                        rows_and_pieces.append((part_a + r * total + j, 1, min(norm, col_process - j)))
                        j += norm
            else:
                per = node // (((col_process + 32 // size - 1) // (32 // size)) * (32 // size) * size)
                r = 0
                while r < row_process:
                    rows_and_pieces.append((part_a + r * total, min(per, row_process - r), col_process))
                    r += per
        else:
            node = (t.ub_size // 5 // 2 // 2) // 256 * 256 * 2
            per = min(node // (total * size), row_process)
            r = 0
            while r < row_process:
                rows_and_pieces.append((part_a + r * total, min(per, row_process - r), col_process))
                r += per
        for start, nrows, ncols in rows_and_pieces:
            for r in range(nrows):
                writes[start + r * total: start + r * total + ncols] += 1
                writes[start + r * total + t.col_total: start + r * total + t.col_total + ncols] += 1
    return writes


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("shape", [s for s in SHAPES if s[0] * s[1] <= 1 << 21], ids=str)
def test_walk_against_plain_reading(shape, dtype):
    t = swiglu_grad_tiling_950(shape, 1, dtype, UB, CORES)
    want = plain_cover(t)
    got = np.zeros_like(want)
    for core in range(t.used_core_num):
        for a, _g, r, c, _p in loops(t, core):
            for i in range(r):
                got[a + i * 2 * t.col_total: a + i * 2 * t.col_total + c] += 1
                got[a + i * 2 * t.col_total + t.col_total: a + i * 2 * t.col_total + t.col_total + c] += 1
    np.testing.assert_array_equal(got, want)
    assert (want >= 1).all()


def test_the_core_before_the_last_row_block_runs_the_tail():
    """InitBase's ``(blockIdx + 1) / colTileNum < rowTileNum - 1``: row block m - 2's last core takes rowTail rows,
    over the first rowTotal % m rows of the last block (written twice, in bounds)."""
    t = swiglu_grad_tiling_950((67, 400), 1, "float32", UB, CORES)
    assert (t.row_tile_num, t.col_tile_num, t.row_base, t.row_tail) == (2, 1, 33, 34)
    assert core_walk(t, 0)[0] == 34 and core_walk(t, 1)[0] == 34
    cover = plain_cover(t).reshape(67, 400)
    assert (cover[33] == 2).all() and (np.delete(cover, 33, axis=0) == 1).all()
