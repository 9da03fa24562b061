"""The hot tier over rows (issue 39): SwiGlu's and SwiGluGrad's split walks, each row's operands read in place.

An element-wise stream whose operands are, row by row, ``cols`` elements of flat tensors at a fixed row stride and
offset (SwiGlu's ``a`` and ``b``, the halves of each row of x split along ``dim``; SwiGluGrad's results, the halves
of grad_x: :mod:`swishgrad_numba.ops.swi_glu`) runs as the hot tier's generated block (:mod:`.hot`) over views of
each row's operands: nothing is copied, and an element's bits depend neither on the block it runs in nor on the
tile that would hold it on the device. A block the loop flags runs again on the machine, as in :func:`.hot._span`.

The row machine (:mod:`.rows`) stays the split walk's authority and runs everything this does not take: the hot
tier off, a launch too small (:func:`.hot.large_enough`), a stream the hot tier refuses.
"""
from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from .. import runtime
from ..arguments import may_share
from . import hot
from .launch import MAX_INPUTS, ready, rerun_block

__all__ = ["Operand", "run_rows"]

#: An operand: a flat C-contiguous tensor and where each row's ``cols`` elements start in it, ``row * stride +
#: offset``.
Operand = tuple


@njit(parallel=True, cache=True, error_model="numpy")
def _hot_rows(params, ins, inputs, out, places, cols, per_row, chunks, code, scalars, tables, grain, arena_len,
              out_row, sat, block):
    """Row ``r``'s ``cols`` results at ``out[r * places[-1, 0] + places[-1, 1]:]`` from its inputs at
    ``ins[k][r * places[k, 0] + places[k, 1]:]``; the rows' blocks (``per_row`` a row) numbered row by row and
    cut into ``chunks``, one ``prange`` iteration each."""
    for t in prange(chunks.shape[0] - 1):
        arena = np.empty(arena_len, dtype=np.float32)
        scratch = np.empty((max(params.scratch_rows, 1), block), dtype=np.float32)
        for k in range(chunks[t], chunks[t + 1]):
            r, at = k // per_row, (k % per_row) * block
            n = min(block, cols - at)
            s0, s1 = r * places[0, 0] + places[0, 1], r * places[1, 0] + places[1, 1]
            s2, so = r * places[2, 0] + places[2, 1], r * places[3, 0] + places[3, 1]
            v0, v1, v2 = ins[0][s0:s0 + cols], ins[1][s1:s1 + cols], ins[2][s2:s2 + cols]
            o = out[so:so + cols]
            if hot.hot_block(params, v0, v1, v2, o, at, n, scalars, tables, scratch):
                rerun_block((v0, v1, v2), inputs, o, at, n, code, scalars, tables, arena, grain, out_row, sat)


def _checked(name: str, a: np.ndarray, stride: int, offset: int, rows: int, cols: int, dtype) -> None:
    if a.ndim != 1 or not a.flags.c_contiguous or a.dtype != dtype:
        raise ValueError(f"{name} must be flat and C-contiguous, of dtype {dtype}; got {a.shape} {a.dtype}")
    if offset < 0 or stride < cols or offset + cols > stride or (rows - 1) * stride + offset + cols > a.shape[0]:
        raise ValueError(f"{name}: {rows} rows of {cols} at stride {stride} from {offset} do not fit in its "
                         f"{a.shape[0]} elements")


def run_rows(prepared, ins: tuple, out: Operand, rows: int, cols: int, attrs=None) -> bool:
    """Run ``prepared`` (a :class:`.runner.Prepared`) hot over ``rows`` rows of ``cols`` elements: ``ins`` its
    inputs as ``(tensor, stride, offset)``, ``out`` the result's (tensors flat, C-contiguous, of one dtype: float32
    or 16-bit bits as uint16; ``out``'s tensor sharing no memory with an input's; each row apart from the others);
    whether it ran (False: the caller's row machine runs it, which checks its own segments). ValueError where it
    would run and an operand's rows leave its tensor."""
    attrs = {} if attrs is None else attrs
    if len(ins) != prepared.inputs or not 1 <= len(ins) <= MAX_INPUTS or ins[0][0].dtype not in hot._HOT_DTYPES:
        return False
    dtype = ins[0][0].dtype
    if rows * cols == 0 or not hot.enabled() or not hot.large_enough(prepared, rows * cols):
        return False
    for k, (a, stride, offset) in enumerate(ins):
        _checked(f"input {k}", a, stride, offset, rows, cols, dtype)
    _checked("out", *out, rows, cols, dtype)
    if any(may_share(out[0], a) for a, _s, _o in ins):
        raise ValueError("out's tensor must share no memory with an input's")
    got = hot.launch_args(prepared, attrs)
    if got is None:
        return False
    params, scalars, tables = got
    m = prepared.main
    block = hot._block(params, m.grain)
    per_row = -(-cols // block)
    blocks = rows * per_row
    chunks = np.linspace(0, blocks, min(numba.get_num_threads(), blocks) + 1).astype(np.int64)
    operands = list(ins) + [ins[0]] * (MAX_INPUTS - len(ins)) + [out]
    places = np.array([(stride, offset) for _a, stride, offset in operands], dtype=np.int64)
    tensors = tuple(a for a, _s, _o in operands[:MAX_INPUTS])
    ready()
    with runtime.launch_guard():
        _hot_rows(params, tensors, len(ins), out[0], places, cols, per_row, chunks, m.code, scalars, tables,
                  m.grain, m.arena_len, m.out, prepared.sat, block)
    return True
