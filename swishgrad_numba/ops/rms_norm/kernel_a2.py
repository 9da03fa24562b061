"""The Atlas A2 RmsNorm kernel as row streams on the engine's row machine (:mod:`swishgrad_numba.engine.rows`).

One stream per row (normal, single_row, merge_n: the gamma loaded once per core by a first stream;
split_d: the row in chunks of ``ub_factor`` columns), written from ops-nn ``norm/rms_norm/op_kernel``:

- **normal / single_row** (``rms_norm.h``, ``rms_norm_single_row.h``): squares, ``ReduceSumHalfInterval``
  (``reduce_common.h``: the part past the largest power of two added onto the front, halved to 64, one
  repeat), rstd on the scalar unit ``1 / sqrt(s * avg + eps)`` (``s * avg + eps`` rounded twice, or once
  with ``scalar_fused``; sqrt and division in float32, or ``scalar_sqrt="double"``);
- **merge_n** (``rms_norm_merge_n.h``, ``ReduceSumMultiN``): whole 64-column chunks added lane by lane into a
  zeroed 64-lane buffer, the tail chunk, one repeat; rstd by vector Muls, Adds, Sqrt, Div(1, .);
- **split_d** (``rms_norm_split_d.h``): each chunk's squares by HalfInterval, the chunk sums added left to
  right on the scalar unit from 0; rstd as merge_n; y chunk by chunk.

y is ``(x * rstd) * gamma`` in float32, narrowed to nearest even for a 16-bit x. The repeat's order is
``order`` (:data:`swishgrad_numba.engine.opcodes.REDUCE_ORDERS`).
"""
from __future__ import annotations

import numpy as np

from ...dtypes import dtype_info
from ...engine import opcodes as O
from ...engine.rows import RowProgram, made_once, scheduled_once, segment
from .host_a2 import A2Tiling

__all__ = ["row_program", "schedule", "run_a2", "run_program"]

# global segments
X, GAMMA, Y, RSTD = range(4)
# scalar indices
K_AVG, K_EPS, K_ZERO, K_ONE = range(4)


class Stream:
    def __init__(self):
        self.rows = []

    def emit(self, name, dst=0, src0=0, src1=0, count=1, k0=0, k1=0, mode=0):
        self.rows.append([O.ROW_OPCODES[name], dst, src0, src1, count, k0, k1, mode])

    def array(self):
        return np.array(self.rows, dtype=np.int64).reshape(-1, O.FIELDS)


def _half_interval(s: Stream, dst: int, sq: int, n: int, order: int) -> None:
    """reduce_common.h ReduceSumHalfInterval of ``n`` squares at ``sq`` into the element at ``dst``."""
    if n > 64:
        body = 1 << (n.bit_length() - 1)
        if n - body:
            s.emit("R_ADD", sq, sq, sq + body, n - body)
        while body > 64:
            body //= 2
            s.emit("R_ADD", sq, sq, sq + body, body)
        n = 64
    s.emit("R_REPEAT_SUM", dst, sq, count=n, mode=order)


def _merge_n(s: Stream, dst: int, sq: int, acc: int, n: int, order: int) -> None:
    s.emit("R_DUP", acc, count=64, k0=K_ZERO)
    c = 0
    while c + 64 <= n:
        s.emit("R_ADD", acc, sq + c, acc, 64)
        c += 64
    if n % 64:
        s.emit("R_ADD", acc, sq + c, acc, n % 64)
    s.emit("R_REPEAT_SUM", dst, acc, count=64, mode=order)


def vector_rstd(s: Stream, r: int, one: int) -> None:
    s.emit("R_MULS", r, r, count=1, k0=K_AVG)
    s.emit("R_ADDS", r, r, count=1, k0=K_EPS)
    s.emit("R_SQRT", r, r, count=1)
    s.emit("R_DUP", one, count=1, k0=K_ONE)
    s.emit("R_DIV", r, one, r, 1)


def _y(s: Stream, y: int, xo: int, g: int, r: int, n: int, code16: int) -> None:
    s.emit("R_MULS_AT", y, xo, r, n)
    s.emit("R_MUL", y, y, g, n)
    if code16:
        s.emit("R_CAST_RINT", y, y, count=n, mode=code16)


def row_program(t: A2Tiling, x_dtype, order: str = "tree", scalar_fused: bool = False,
                scalar_sqrt: str = "float") -> RowProgram:
    """The row streams of the tiling ``t``: stream 0 loads gamma (empty for split_d, which loads it chunk by
    chunk), stream 1 runs one row."""
    o = O.REDUCE_ORDERS.index(order)
    code16 = 0 if np.dtype(x_dtype) == np.float32 else dtype_info(x_dtype).code
    w = t.ub_factor if t.mode == "split_d" else t.num_col
    pad = -(-w // 64) * 64
    xo, sq, g, y, acc = 0, pad, 2 * pad, 3 * pad, 4 * pad
    sc = acc + 64                      # scalars: sum, rstd, one, chunk sum
    s_sum, s_r, s_one, s_c = sc, sc + 1, sc + 2, sc + 3
    arena = sc + 8
    load = Stream()
    row = Stream()
    n = t.num_col
    if t.mode != "split_d":
        load.emit("R_GM_IN", g, 0, count=n, mode=GAMMA)
        row.emit("R_GM_IN", xo, 0, count=n, mode=X)
        row.emit("R_MUL", sq, xo, xo, n)
        if t.mode == "merge_n":
            _merge_n(row, s_r, sq, acc, n, o)
            vector_rstd(row, s_r, s_one)
        else:
            _half_interval(row, s_r, sq, n, o)
            if scalar_fused:
                row.emit("R_MULS_ADDS_FUSED", s_r, s_r, count=1, k0=K_AVG, k1=K_EPS)
            else:
                row.emit("R_MULS", s_r, s_r, count=1, k0=K_AVG)
                row.emit("R_ADDS", s_r, s_r, count=1, k0=K_EPS)
            if scalar_sqrt == "double":
                row.emit("R_RSQRT_F64", s_r, s_r, count=1)
            else:
                row.emit("R_SQRT", s_r, s_r, count=1)
                row.emit("R_DUP", s_one, count=1, k0=K_ONE)
                row.emit("R_DIV", s_r, s_one, s_r, 1)
        row.emit("R_GM_OUT", 0, s_r, count=1, mode=RSTD)
        _y(row, y, xo, g, s_r, n, code16)
        row.emit("R_GM_OUT", 0, y, count=n, mode=Y)
    else:
        row.emit("R_DUP", s_sum, count=1, k0=K_ZERO)
        chunks = [(c, min(w, n - c)) for c in range(0, n, w)]
        for c, m in chunks:
            row.emit("R_GM_IN", xo, c, count=m, mode=X)
            row.emit("R_MUL", sq, xo, xo, m)
            _half_interval(row, s_c, sq, m, o)
            row.emit("R_ADD", s_sum, s_sum, s_c, 1)
        vector_rstd(row, s_sum, s_one)
        row.emit("R_GM_OUT", 0, s_sum, count=1, mode=RSTD)
        for c, m in chunks:
            row.emit("R_GM_IN", xo, c, count=m, mode=X)
            row.emit("R_GM_IN", g, c, count=m, mode=GAMMA)
            _y(row, y, xo, g, s_sum, m, code16)
            row.emit("R_GM_OUT", c, y, count=m, mode=Y)
    scalars = np.array([t.avg_factor, t.epsilon, 0.0, 1.0], dtype=np.float32)
    return RowProgram([load.array(), row.array()], scalars, arena)


def schedule(t, segments: np.ndarray):
    """Each core's tiles: the gamma load, then its ``block_factor`` rows (the last core the rest)."""
    tiles, core_ptr = [], [0]
    xs, gs, ys, rs = (int(segments[i, 0]) for i in range(4))
    for c in range(t.block_dim):
        first, last = c * t.block_factor, min((c + 1) * t.block_factor, t.num_row)
        tiles.append((0, xs, gs, ys, rs))
        tiles.extend((1, xs + r * t.num_col, gs, ys + r * t.num_col, rs + r) for r in range(first, last))
        core_ptr.append(len(tiles))
    return np.array(tiles, dtype=np.int64).reshape(-1, 5), np.array(core_ptr, dtype=np.int64)


_row_program = made_once(row_program)


def run_a2(x2d: np.ndarray, gamma: np.ndarray, t: A2Tiling, order: str = "tree", scalar_fused: bool = False,
           scalar_sqrt: str = "float", out=None):
    """``(y, rstd)`` of the rows of ``x2d`` (``(rows, num_col)``, any float dtype) on the row machine: y of
    x's dtype, rstd float32 ``(rows,)`` (into ``out`` as :func:`run_program` takes it)."""
    return run_program(x2d, gamma, t, _row_program(t, x2d.dtype, order, scalar_fused, scalar_sqrt), out)


_schedule = scheduled_once(schedule)


def run_program(x2d: np.ndarray, gamma: np.ndarray, t, prog: RowProgram, out=None):
    """Run a row program of either kernel (stream 0 per core, then stream 1 per row) over ``x2d``'s rows,
    scheduled by the tiling ``t`` (``num_row``, ``num_col``, ``block_factor``, ``block_dim``). Each global segment
    is its own array: x and gamma read where they lie (a 16-bit one widened exactly as it is read), y written where
    it is returned (a 16-bit y narrowed exactly as it is written): into ``out`` where given, the pair (y, rstd) of
    flat, C-contiguous arrays of x's dtype and float32 (the row machine checks their sizes, dtypes and
    writeability before it runs)."""
    rows, n = x2d.shape
    sizes = (rows * n, n, rows * n, rows)
    segments = np.zeros((4, 2), np.int64)
    segments[:, 1] = sizes
    y, rstd = out if out is not None else (np.empty(sizes[Y], x2d.dtype), np.empty(rows, np.float32))
    gms = (segment(x2d), segment(gamma), y, rstd)
    tiles, core_ptr = _schedule(t, segments)
    prog.run(gms, segments, tiles, core_ptr)
    return gms[Y].reshape(rows, n), gms[RSTD]
