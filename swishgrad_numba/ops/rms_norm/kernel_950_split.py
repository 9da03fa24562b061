"""The Ascend 950 RmsNorm split kernel (tiling key 2001, ``KernelRmsNormRegBaseSplitD``,
``arch35/rms_norm_regbase_split_d.h``) as row streams on the engine's row machine.

Host (``op_host/rms_norm_tiling_arch35.cpp``, ``ComputeTotalBufSize``): ``ubFactor`` the power of two at which
``2 * L * xBytes * 2 + 2 * L * gammaBytes + 512 + 4 * L + 5120`` (L = 2 * ubFactor) first reaches UB less
1 KiB (8192 on the 950 for every dtype); ``ubLoop`` doubled from 1 while ``2 * ubLoop * ubFactor <= numCol``.

A row (``ComputeFormer``): from its start, ``tailLoop`` pairs of ``ubFactor`` chunks (each pair's two chunk
sums added into the next level-1 entry), then the remainder pair (``ubFactor / 2 + tail`` and ``ubFactor / 2``
columns folded at ``ubFactor / 2``, or ``ubFactor`` and ``tail`` columns), then ``masterLoop`` single chunks,
each a level-1 entry; 256 level-1 entries merge into a level-2 entry (and 256 of those into level 3). A chunk
(``ComputeFormerImplV2``, zero-padded to 512 bytes): the squares past the power ``p`` added onto the front,
each 128-block's two halves added and the 64 lanes reduced, the ``p / 128`` block sums reduced (merged by
pairs of 64 first when there are 128 or more). A level merge (``LevelMergeRstd``): its four quarters of 64
added ``(q0 + q1) + (q2 + q3)``, one repeat. The final sum is the merge of the first non-empty level below
256 entries, as the source's ``ComputeMultiLevelRstd`` tests it. rstd by vector Muls, Adds, Sqrt, Div;
y = ``(x * rstd) * gamma`` chunk by chunk.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import dtype_info
from ...engine import opcodes as O
from ...engine.rows import RowProgram
from .kernel_a2 import GAMMA, K_ZERO, RSTD, X, Y, Stream, vector_rstd

__all__ = ["split_ub_factor", "row_program_950_split"]

_LEVEL = 256


def split_ub_factor(x_dtype, gamma_dtype, ub_size: int) -> int:
    """ComputeTotalBufSize's loop (split): the chunk length."""
    xb, gb = np.dtype(x_dtype).itemsize, np.dtype(gamma_dtype).itemsize
    ub = ub_size - 1024

    def size(length):
        return 2 * length * xb * 2 + 2 * length * gb + 64 * 2 * 4 + length * 4 + 256 * 5 * 4

    factor = 1
    while size(factor * 2) < ub:
        factor *= 2
    return factor


class _Row:
    def __init__(self, s: Stream, xb: int, o: int, lay: dict):
        self.s, self.xb, self.o, self.lay = s, xb, o, lay
        self.off, self.levels, self.counts = 0, (lay["l1"], lay["l2"], lay["l3"]), [0, 0, 0]

    def chunk(self, dst: int, count: int, power: int) -> None:
        """ComputeFormerHandle: ``count`` columns from the row's offset, reduced with the power ``power``."""
        s, lay, o = self.s, self.lay, self.o
        cal = -(-count * self.xb // 512) * 512 // self.xb
        s.emit("R_GM_IN", lay["x"], self.off, count=count, mode=X)
        if cal > count:
            s.emit("R_DUP", lay["x"] + count, count=cal - count, k0=K_ZERO)
        sq = lay["sq"]
        s.emit("R_MUL", sq, lay["x"], lay["x"], cal)
        if cal > power:
            s.emit("R_ADD", sq, sq, sq + power, cal - power)
        work, pair = lay["work"], lay["pair"]
        blocks = power // 128
        for b in range(blocks):
            s.emit("R_ADD", pair, sq + 128 * b, sq + 128 * b + 64, 64)
            s.emit("R_REPEAT_SUM", work + b, pair, count=64, mode=o)
        merges = blocks // 128
        for i in range(merges):
            s.emit("R_ADD", pair, work + 128 * i, work + 128 * i + 64, 64)
            s.emit("R_REPEAT_SUM", work + i, pair, count=64, mode=o)
        s.emit("R_REPEAT_SUM", dst, work, count=merges or blocks, mode=o)
        self.off += count

    def merge(self, dst: int, level: int) -> None:
        s, pair, buf = self.s, self.lay["pair"], level
        s.emit("R_ADD", pair, buf, buf + 64, 64)
        s.emit("R_ADD", pair + 64, buf + 128, buf + 192, 64)
        s.emit("R_ADD", pair, pair, pair + 64, 64)
        s.emit("R_REPEAT_SUM", dst, pair, count=64, mode=self.o)

    def entry(self) -> int:
        return self.levels[0] + self.counts[0]

    def push(self) -> None:
        """ComputeMultiLevelReduce after a level-1 entry."""
        self.counts[0] += 1
        for k in (0, 1):
            if self.counts[k] == _LEVEL:
                self.merge(self.levels[k + 1] + self.counts[k + 1], self.levels[k])
                self.counts[k] = 0
                self.counts[k + 1] += 1


def row_program_950_split(t, x_dtype, order: str = "tree") -> RowProgram:
    """Stream 0 (empty: gamma loads chunk by chunk), stream 1 one row, for the tiling ``t``
    (``num_col``, ``ub_factor``)."""
    o = O.REDUCE_ORDERS.index(order)
    code16 = 0 if np.dtype(x_dtype) == np.float32 else dtype_info(x_dtype).code
    n, ub = t.num_col, t.ub_factor
    lay = {"x": 0, "sq": ub, "g": 2 * ub, "y": 3 * ub}
    base = 4 * ub
    lay.update(work=base, pair=base + 256, l1=base + 384, l2=base + 640, l3=base + 896)
    sc = base + 1152
    temp, s_sum, s_one = sc, sc + 2, sc + 3
    row = Stream()
    r = _Row(row, np.dtype(x_dtype).itemsize, o, lay)
    for level in (lay["l1"], lay["l2"], lay["l3"]):
        row.emit("R_DUP", level, count=_LEVEL, k0=K_ZERO)
    ub_loop = 1
    while ub_loop * 2 * ub <= n:
        ub_loop *= 2
    col_tail = n - ub_loop * ub
    tail, tail_loop = col_tail % ub, col_tail // ub
    master_loop = ub_loop - tail_loop - (1 if tail else 0)
    for _ in range(tail_loop):
        r.chunk(temp, ub, ub)
        r.chunk(temp + 1, ub, ub)
        row.emit("R_ADD", r.entry(), temp, temp + 1, 1)
        r.push()
    if tail:
        if tail <= ub // 2:
            r.chunk(temp, ub // 2 + tail, ub // 2)
            r.chunk(temp + 1, ub // 2, ub // 2)
        else:
            r.chunk(temp, ub, ub)
            r.chunk(temp + 1, tail, ub // 2)
        row.emit("R_ADD", r.entry(), temp, temp + 1, 1)
        r.push()
    for _ in range(master_loop):
        r.chunk(r.entry(), ub, ub)
        r.push()
    c1, c2 = r.counts[0], r.counts[1]
    final = lay["l1"] if 0 < c1 < _LEVEL else lay["l2"] if 0 < c2 < _LEVEL else lay["l3"]
    r.merge(s_sum, final)
    vector_rstd(row, s_sum, s_one)
    row.emit("R_GM_OUT", 0, s_sum, count=1, mode=RSTD)
    for c in range(0, n, ub):
        m = min(ub, n - c)
        row.emit("R_GM_IN", lay["x"], c, count=m, mode=X)
        row.emit("R_GM_IN", lay["g"], c, count=m, mode=GAMMA)
        row.emit("R_MULS_AT", lay["y"], lay["x"], s_sum, m)
        row.emit("R_MUL", lay["y"], lay["y"], lay["g"], m)
        if code16:
            row.emit("R_CAST_RINT", lay["y"], lay["y"], count=m, mode=code16)
        row.emit("R_GM_OUT", c, lay["y"], count=m, mode=Y)
    scalars = np.array([t.avg_factor, t.epsilon, 0.0, 1.0], dtype=np.float32)
    return RowProgram([Stream().array(), row.array()], scalars, sc + 8)
