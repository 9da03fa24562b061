"""The hot tier over the halves of rows (issue 39): SwiGlu's split walk, each row's two halves read in place.

A two-input element-wise stream whose operands are the halves of each row of a ``(rows, 2 * cols)`` tensor
(SwiGlu's ``a`` and ``b``, x split along ``dim``: :mod:`swishgrad_numba.ops.swi_glu.kernel`), into a
``(rows, cols)`` result, runs as the hot tier's generated block (:mod:`.hot`) over views of each row's halves:
nothing is copied, and an element's bits do not depend on the block it runs in, nor on the tile that would hold
it on the device. A block the loop flags runs again on the machine, as in :func:`.hot._span`.

The row machine (:mod:`.rows`) stays the split walk's authority and runs everything this does not take: the
hot tier off, a launch too small (:func:`.hot.large_enough`), a stream the hot tier refuses.
"""
from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from .. import runtime
from . import hot
from .launch import copy_in, copy_out, ready
from .machine import run_machine

__all__ = ["run_halves"]


@njit(parallel=True, cache=True, error_model="numpy")
def _hot_halves(params, x, out, cols, per_row, chunks, code, scalars, tables, grain, arena_len, out_row, sat,
                block):
    """``out[r * cols + c]`` = the stream of ``x[r * 2 * cols + c]`` and ``x[r * 2 * cols + cols + c]``, flat
    C-contiguous ``x`` and ``out``; the rows' blocks (``per_row`` a row) numbered row by row and cut into
    ``chunks``, one ``prange`` iteration each."""
    for t in prange(chunks.shape[0] - 1):
        arena = np.empty(arena_len, dtype=np.float32)
        scratch = np.empty((max(params.scratch_rows, 1), block), dtype=np.float32)
        for k in range(chunks[t], chunks[t + 1]):
            r, at = k // per_row, (k % per_row) * block
            n = min(block, cols - at)
            a = x[r * 2 * cols:r * 2 * cols + cols]
            b = x[r * 2 * cols + cols:(r + 1) * 2 * cols]
            o = out[r * cols:(r + 1) * cols]
            if hot.hot_block(params, a, b, a, o, at, n, scalars, tables, scratch):
                copy_in(arena, 0, a, at, n)
                copy_in(arena, grain, b, at, n)
                run_machine(code, scalars, tables, arena, n, sat)
                copy_out(o, at, arena, out_row, n)


def run_halves(prepared, x: np.ndarray, out: np.ndarray, rows: int, cols: int, attrs=None) -> bool:
    """Run ``prepared`` (a :class:`.runner.Prepared` of two inputs) hot over the halves of ``rows`` rows of flat
    C-contiguous ``x`` (``2 * cols`` elements a row) into flat C-contiguous ``out`` (``cols`` a row), of one
    dtype (float32, or 16-bit bits as uint16) and sharing no memory; whether it ran (False: the caller's row
    machine runs it)."""
    attrs = {} if attrs is None else attrs
    numel = rows * cols
    if prepared.inputs != 2 or numel == 0 or x.dtype != out.dtype or x.dtype not in hot._HOT_DTYPES:
        return False
    if x.shape != (2 * numel,) or out.shape != (numel,) or not (x.flags.c_contiguous and out.flags.c_contiguous):
        raise ValueError(f"x and out must be flat and C-contiguous, of {2 * numel} and {numel} elements; got "
                         f"{x.shape} and {out.shape}")
    if not hot.enabled() or not hot.large_enough(prepared, numel):
        return False
    got = hot.launch_args(prepared, attrs)
    if got is None:
        return False
    params, scalars, tables = got
    m = prepared.main
    block = hot._block(params, m.grain)
    per_row = -(-cols // block)
    blocks = rows * per_row
    chunks = np.linspace(0, blocks, min(numba.get_num_threads(), blocks) + 1).astype(np.int64)
    ready()
    with runtime.launch_guard():
        _hot_halves(params, x, out, cols, per_row, chunks, m.code, scalars, tables, m.grain, m.arena_len, m.out,
                    prepared.sat, block)
    return True
