"""The Atlas A2 SwiGluGrad kernel as row streams (issue 41), from ops-nn ``activation/swi_glu_grad/op_kernel``:
``swi_glu_grad.cpp``, ``swi_glu_grad_single.hpp`` (SwiGlu's split walk, :mod:`.kernel`, with the incoming
gradient l copied in at out's offsets and the two results copied out to a's and b's places in grad_x),
``swi_glu_grad_float.hpp`` and ``swi_glu_grad_bf16.hpp`` (beta = -1):

- sig = ``Div(ones, Adds(Exp(Muls(a, -1)), 1))``; grad_b = ``(sig * a) * l``;
- t = ``Adds(Muls(sig, -1), 1)``; m = ``((sig * t) * a) * 1 + sig`` (the ``Muls(m, m, -beta)``);
- float32: grad_a = ``(m * b) * l``; float16 / bfloat16 (a, b, l widened exactly): grad_a =
  ``(m * l) * b``, both results narrowed with CAST_RINT (the ``__CCE_AICORE__ == 220`` branch).
"""
from __future__ import annotations

import numpy as np

from ...dtypes import dtype_info
from ...engine import opcodes as O
from ...engine.rows import RowProgram
from .host import SwiGluTiling
from .kernel import tile_kinds

__all__ = ["row_program_grad", "schedule_grad", "run_grad"]

X, L, M = range(3)                       # global segments: x, grad_output, grad_x
K_MINUS_ONE, K_ONE = range(2)


def _stream(t: SwiGluTiling, rows: int, cols: int, code16: int) -> np.ndarray:
    out = []

    def emit(name, dst=0, src0=0, src1=0, count=1, k0=0, k1=0, mode=0):
        out.append([O.ROW_OPCODES[name], dst, src0, src1, count, k0, k1, mode])

    ln = t.tile_length
    a, b, l, sig, tmp, m, n = (i * ln for i in range(7))
    stride = -(-cols // t.ub_min_block) * t.ub_min_block
    cnt = rows * stride
    for r in range(rows):                # CopyIn: a, l, b
        emit("R_GM_IN", a + r * stride, r * 2 * t.col_len, count=cols, mode=X)
    for r in range(rows):
        emit("R_GM_IN", l + r * stride, r * t.col_len, count=cols, mode=L)
    for r in range(rows):
        emit("R_GM_IN", b + r * stride, r * 2 * t.col_len + t.col_len, count=cols, mode=X)
    emit("R_MULS", sig, a, count=cnt, k0=K_MINUS_ONE)
    emit("R_EXP", sig, sig, count=cnt)
    emit("R_ADDS", sig, sig, count=cnt, k0=K_ONE)
    emit("R_DUP", tmp, count=cnt, k0=K_ONE)
    emit("R_DIV", sig, tmp, sig, cnt)
    emit("R_MUL", n, sig, a, cnt)
    emit("R_MUL", n, n, l, cnt)
    if code16:
        emit("R_CAST_RINT", n, n, count=cnt, mode=code16)
    emit("R_MULS", tmp, sig, count=cnt, k0=K_MINUS_ONE)
    emit("R_ADDS", tmp, tmp, count=cnt, k0=K_ONE)
    emit("R_MUL", m, sig, tmp, cnt)
    emit("R_MUL", m, m, a, cnt)
    emit("R_MULS", m, m, count=cnt, k0=K_ONE)            # Muls(m, m, -beta), beta = -1
    emit("R_ADD", m, m, sig, cnt)
    first, second = (l, b) if code16 else (b, l)
    emit("R_MUL", m, m, first, cnt)
    emit("R_MUL", m, m, second, cnt)
    if code16:
        emit("R_CAST_RINT", m, m, count=cnt, mode=code16)
    for r in range(rows):                # CopyOut: grad_a to a's place, grad_b to b's
        emit("R_GM_OUT", r * 2 * t.col_len, m + r * stride, count=cols, mode=M)
    for r in range(rows):
        emit("R_GM_OUT", r * 2 * t.col_len + t.col_len, n + r * stride, count=cols, mode=M)
    return np.array(out, dtype=np.int64).reshape(-1, O.FIELDS)


def row_program_grad(t: SwiGluTiling) -> RowProgram:
    code16 = 0 if t.dtype == "float32" else dtype_info(t.dtype).code
    streams = [_stream(t, r, c, code16) for r, c in tile_kinds(t)]
    return RowProgram(streams, np.array([-1.0, 1.0], np.float32), 7 * t.tile_length)


def schedule_grad(t: SwiGluTiling, segments: np.ndarray):
    """The forward's order (tile ``i`` on core ``i mod blockDim``), three bases per tile."""
    kinds = {k: i for i, k in enumerate(tile_kinds(t))}
    col_tiles = -(-t.col_len // t.base_col_len)
    xs, ls, ms = (int(segments[i, 0]) for i in range(3))
    tiles, core_ptr = [], [0]
    for core in range(t.block_dim):
        for idx in range(core, t.total_tiles, t.block_dim):
            ri, ci = divmod(idx, col_tiles)
            row0, col0 = ri * t.base_row_len, ci * t.base_col_len
            kind = kinds[min(t.base_row_len, t.row_len - row0), min(t.base_col_len, t.col_len - col0)]
            split = row0 * 2 * t.col_len + col0
            tiles.append((kind, xs + split, ls + row0 * t.col_len + col0, ms + split))
        core_ptr.append(len(tiles))
    return np.array(tiles, dtype=np.int64).reshape(-1, 4), np.array(core_ptr, dtype=np.int64)


def run_grad(grad_output: np.ndarray, x: np.ndarray, t: SwiGluTiling) -> np.ndarray:
    """grad_x (x's flat layout and dtype) on the row machine."""
    nx, nl = 2 * t.row_len * t.col_len, t.row_len * t.col_len
    segments = np.array([[0, nx], [nx, nl], [nx + nl, nx]], dtype=np.int64)
    gm = np.empty(2 * nx + nl, dtype=np.float32)
    gm[:nx] = np.ascontiguousarray(x).reshape(-1).astype(np.float32)                 # exact widening
    gm[nx:nx + nl] = np.ascontiguousarray(grad_output).reshape(-1).astype(np.float32)
    tiles, core_ptr = schedule_grad(t, segments)
    row_program_grad(t).run(gm, segments, tiles, core_ptr)
    with np.errstate(all="ignore"):
        return gm[nx + nl:].astype(x.dtype)
