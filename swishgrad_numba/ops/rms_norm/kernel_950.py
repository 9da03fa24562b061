"""The Ascend 950 RmsNorm full_load kernel (tiling key 5000, ``KernelRmsNormRegBasePerf``) as row streams on the
engine's row machine.

Host (``op_host/rms_norm_tiling_arch35.cpp``): full_load when the row padded to 32 bytes (``numColAlign``) is
at most 16384 and ``(ub - 2048 - align * gammaBytes) / (align * xBytes * 4 + 12 + firstVcadd) >= 1`` (UB less
1 KiB); the fold point is ``2 ** floor(log2(align - 1))``. Otherwise split (:mod:`.kernel_950_split`).

Sum (``norm_common/op_kernel/reduce_common_regbase.h``, ``CalculateSquareReduceSum``, branching on ``align``
and reducing ``numCol`` columns): up to 64 one repeat; up to 128 the squares past 64 added onto the front,
one repeat; else the squares past the fold point added onto the front ones, each 64-chunk of the front a
repeat, the chunk sums one repeat (past 8192: the second 64 chunk sums added onto the first 64 first).
rstd: ``ComputeRstdNewtonRaphson<false, true>``: ``var = s * avg + eps`` (two roundings), ``r = 1 / var``,
``y = sqrt(r)``, one Newton step and a correction by ``Mula`` multiply-adds (``mula_fused``: one rounding,
the MulAddDst page's reading; else two), then ``var == FLT_MAX`` gives 0 and ``var == 0`` gives FLT_MAX (the
source's POS_INF rounds to FLT_MAX). y = ``(x * rstd) * gamma``, a 16-bit y cast to nearest even.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...dtypes import dtype_info
from ...engine import opcodes as O
from ...engine.rows import RowProgram
from .kernel_950_split import row_program_950_split, split_ub_factor
from .kernel_a2 import GAMMA, RSTD, X, Y, Stream

__all__ = ["Arch35Tiling", "arch35_tiling", "row_program_950"]

K_AVG, K_EPS, K_ZERO, K_ONE, K_MHALF, K_THREE_HALVES, K_MONE, K_HALF, K_FLT_MAX = range(9)
_FLT_MAX = np.float32(np.finfo(np.float32).max)


@dataclass(frozen=True)
class Arch35Tiling:
    mode: str               # "full_load" or "split"
    num_row: int
    num_col: int
    num_col_align: int
    fold: int
    block_factor: int
    block_dim: int
    avg_factor: np.float32
    epsilon: np.float32
    ub_factor: int = 0      # split: columns per chunk


def arch35_tiling(num_row, num_col, x_dtype, gamma_dtype, epsilon, platform) -> Arch35Tiling:
    xb, gb = np.dtype(x_dtype).itemsize, np.dtype(gamma_dtype).itemsize
    ub = platform.ub_size - 1024
    align = -(-num_col * xb // 32) * 32 // xb
    fold = 2 ** int(math.floor(math.log(align - 1) / math.log(2))) if align > 1 else 1
    first_vcadd = -(-(-(-fold // 64)) // 32) * 32
    factor = (ub - 2048 - align * gb) // (align * xb * 4 + 4 * 3 + first_vcadd)
    mode = "full_load" if factor >= 1 and align <= 16384 else "split"
    block_factor = -(-num_row // platform.core_num)
    ub_factor = split_ub_factor(x_dtype, gamma_dtype, platform.ub_size) if mode == "split" else 0
    return Arch35Tiling(mode, num_row, num_col, align, fold, block_factor, -(-num_row // block_factor),
                        np.float32(np.float32(1.0) / np.float32(num_col)), np.float32(epsilon), ub_factor)


def _square_sum(s: Stream, dst: int, sq: int, tmp: int, n: int, align: int, fold: int, o: int) -> None:
    if align <= 64:
        s.emit("R_REPEAT_SUM", dst, sq, count=n, mode=o)
        return
    if align <= 128:
        s.emit("R_ADD", sq, sq, sq + 64, n - 64)
        s.emit("R_REPEAT_SUM", dst, sq, count=64, mode=o)
        return
    s.emit("R_ADD", sq, sq, sq + fold, n - fold)
    for j in range(fold // 64):
        s.emit("R_REPEAT_SUM", tmp + j, sq + 64 * j, count=64, mode=o)
    if align <= 8192:
        s.emit("R_REPEAT_SUM", dst, tmp, count=fold // 64, mode=o)
    else:
        s.emit("R_ADD", tmp, tmp, tmp + 64, 64)
        s.emit("R_REPEAT_SUM", dst, tmp, count=64, mode=o)


def _newton_raphson(s: Stream, v: int, w: int, mula: int) -> int:
    """rstd of the sum at ``v`` into a scratch element from ``w`` on (8 elements); returns its offset."""
    r, y, t, t1, rs, t3, s1, t4 = range(w, w + 8)
    one = lambda off, k: s.emit("R_DUP", off, count=1, k0=k)   # noqa: E731
    s.emit("R_MULS", v, v, count=1, k0=K_AVG)
    s.emit("R_ADDS", v, v, count=1, k0=K_EPS)
    one(t1, K_ONE)
    s.emit("R_DIV", r, t1, v, 1)
    s.emit("R_SQRT", y, r, count=1)
    s.emit("R_MULS", t, v, count=1, k0=K_MHALF)
    s.emit("R_MUL", t, t, y, 1)
    one(t1, K_THREE_HALVES)
    s.emit("R_MULA", t1, t, y, 1, mode=mula)
    s.emit("R_MUL", rs, y, t1, 1)
    s.emit("R_MULS", t3, v, count=1, k0=K_MONE)
    one(s1, K_ONE)
    s.emit("R_MULA", s1, t3, r, 1, mode=mula)
    s.emit("R_MULS", t4, rs, count=1, k0=K_MONE)
    s.emit("R_MULA", r, t4, rs, 1, mode=mula)
    s.emit("R_MULA", s1, v, r, 1, mode=mula)
    s.emit("R_MUL", s1, s1, rs, 1)
    one(t, K_HALF)
    s.emit("R_MULA", rs, s1, t, 1, mode=mula)
    s.emit("R_SET_IF_EQ", rs, v, count=1, k0=K_FLT_MAX, k1=K_ZERO)
    s.emit("R_SET_IF_EQ", rs, v, count=1, k0=K_ZERO, k1=K_FLT_MAX)
    return rs


def row_program_950(t: Arch35Tiling, x_dtype, order: str = "tree", mula_fused: bool = True) -> RowProgram:
    """Stream 0 loads gamma; stream 1 runs one row (full_load; split: :mod:`.kernel_950_split`, whose rstd
    has no Mula)."""
    if t.mode == "split":
        return row_program_950_split(t, x_dtype, order)
    o = O.REDUCE_ORDERS.index(order)
    code16 = 0 if np.dtype(x_dtype) == np.float32 else dtype_info(x_dtype).code
    n = t.num_col
    pad = -(-t.num_col_align // 64) * 64
    xo, sq, g, y, tmp = 0, pad, 2 * pad, 3 * pad, 4 * pad
    v, w = tmp + 128, tmp + 136
    load, row = Stream(), Stream()
    load.emit("R_GM_IN", g, 0, count=n, mode=GAMMA)
    row.emit("R_GM_IN", xo, 0, count=n, mode=X)
    row.emit("R_MUL", sq, xo, xo, n)
    _square_sum(row, v, sq, tmp, n, t.num_col_align, t.fold, o)
    rs = _newton_raphson(row, v, w, 0 if mula_fused else 1)
    row.emit("R_GM_OUT", 0, rs, count=1, mode=RSTD)
    row.emit("R_MULS_AT", y, xo, rs, n)
    row.emit("R_MUL", y, y, g, n)
    if code16:
        row.emit("R_CAST_RINT", y, y, count=n, mode=code16)
    row.emit("R_GM_OUT", 0, y, count=n, mode=Y)
    scalars = np.array([t.avg_factor, t.epsilon, 0.0, 1.0, -0.5, 1.5, -1.0, 0.5, _FLT_MAX], dtype=np.float32)
    return RowProgram([load.array(), row.array()], scalars, w + 8)
