"""The Ascend 950 SwiGluGrad kernel (issue 41): its Compute as a program, run on the row machine over the
walk of :mod:`.host_950`.

The Compute (``op_kernel/arch35/swi_glu_grad_base.h:186-204``, one MicroAPI loop; beta = -1, a member
``beta_``): a, b and yGrad loaded as float32 (16-bit widened exactly, :121-132), then

    Muls(dstB, srcA, beta); Exp(dstB, dstB); Adds(dstB, dstB, -beta); Duplicate(dstA, -beta);
    Div(dstB, dstA, dstB)                                   # sig
    Muls(dstA, dstB, beta); Adds(dstA, dstA, -beta); Mul(dstA, dstA, srcA); Adds(dstA, dstA, -beta);
    Mul(tempReg, grad, dstB); Mul(dstA, dstA, tempReg); Mul(dstA, dstA, srcB)     # grad_a
    Mul(dstB, dstB, grad); Mul(dstB, dstB, srcA)            # grad_b

stored (16-bit narrowed with CAST_RINT, :139-150). One order for every dtype. Its mask is made once before
the loop (``UpdateMask(calcCount)``): every lane past dataCount in the last vector is computed too, into
UB that is never copied out; no bit of the result depends on it.

:func:`programs` gives the Compute in the program form, one program per output (the form has one output):
what the hot tier runs for a large call (:func:`.kernel_grad.run_grad_hot`); the row streams run :data:`COMPUTE`,
the same instructions, once for both outputs (:func:`swishgrad_numba.engine.rows.compute_rows`). A 16-bit input's
widening is no instruction on the row machine (its segment is widened exactly as R_GM_IN reads it).
"""
from __future__ import annotations

import functools

import numpy as np

from ...dtypes import dtype_info
from ...engine import opcodes as O
from ...engine.rows import RowProgram, compute_rows, made_once, scheduled_once
from ...program.elementwise import elementwise
from ...program.form import V
from .host_950 import GluBaseTiling, loops
from .kernel import prepared
from .kernel_grad import run_grad_on

__all__ = ["COMPUTE", "programs", "row_program_950", "schedule_950", "run_grad_950", "tile_kinds_950"]

X, L, M = range(3)                       # global segments: x, yGrad, grad_x
_BETA, _NEG_BETA = -1.0, 1.0

COMPUTE = (
    V.Muls("dstB", "srcA", _BETA), V.Exp("dstB", "dstB"), V.Adds("dstB", "dstB", _NEG_BETA),
    V.Duplicate("dstA", _NEG_BETA), V.Div("dstB", "dstA", "dstB"),
    V.Muls("dstA", "dstB", _BETA), V.Adds("dstA", "dstA", _NEG_BETA), V.Mul("dstA", "dstA", "srcA"),
    V.Adds("dstA", "dstA", _NEG_BETA), V.Mul("tempReg", "grad", "dstB"), V.Mul("dstA", "dstA", "tempReg"),
    V.Mul("dstA", "dstA", "srcB"),
    V.Mul("dstB", "dstB", "grad"), V.Mul("dstB", "dstB", "srcA"),
)
_INPUTS = (("x_a", "srcA"), ("x_b", "srcB"), ("y_grad", "grad"))
_SLOTS = ("srcA", "srcB", "grad", "dstA", "dstB", "tempReg")


def programs(dtype: str) -> tuple:
    """(grad_a's program, grad_b's): the Compute in the program form, 16-bit widened and narrowed."""
    return tuple(elementwise(f"SwiGluGrad950{part}", _INPUTS, COMPUTE, f"dst{part}", dtype, "CAST_RINT",
                             output=f"out_{part.lower()}") for part in ("A", "B"))


def _scalars() -> np.ndarray:
    values = []
    for step in COMPUTE:
        for s in step.scalars():
            if float(s.f32) not in values:
                values.append(float(s.f32))
    return np.array(values, np.float32)


_SCALARS = _scalars()


def tile_kinds_950(t: GluBaseTiling) -> list:
    """The loop shapes that occur, (rows, cols, padded), in order of first use."""
    kinds = []
    for core in range(t.used_core_num):
        for _a, _g, r, c, padded in loops(t, core):
            if (r, c, padded) not in kinds:
                kinds.append((r, c, padded))
    return kinds


def _pitch(t: GluBaseTiling, cols: int, padded: bool) -> int:
    block = 32 // t.dsize
    return -(-cols // block) * block if padded else cols


def _stream(t: GluBaseTiling, rows: int, cols: int, padded: bool, slot: int, code16: int) -> np.ndarray:
    out = []

    def emit(name, dst=0, src0=0, src1=0, count=1, k0=0, mode=0):
        out.append([O.ROW_OPCODES[name], dst, src0, src1, count, k0, 0, mode])

    at = {name: i * slot for i, name in enumerate(_SLOTS)}
    pitch = _pitch(t, cols, padded)
    count, total = rows * pitch, 2 * t.col_total
    for r in range(rows):                # CopyIn: a, b (MoveAlign: two strided copies; UbRearrange: x's rows,
        emit("R_GM_IN", at["srcA"] + r * pitch, r * total, count=cols, mode=X)     # split in UB)
        emit("R_GM_IN", at["srcB"] + r * pitch, r * total + t.col_total, count=cols, mode=X)
    if padded:
        for r in range(rows):
            emit("R_GM_IN", at["grad"] + r * pitch, r * t.col_total, count=cols, mode=L)
    else:                                # whole rows: yGrad is one block
        emit("R_GM_IN", at["grad"], 0, count=rows * cols, mode=L)
    out += compute_rows(COMPUTE, at, _SCALARS, count)
    if code16:                           # StoreOneTensor's CAST_RINT
        emit("R_CAST_RINT", at["dstA"], at["dstA"], count=count, mode=code16)
        emit("R_CAST_RINT", at["dstB"], at["dstB"], count=count, mode=code16)
    for r in range(rows):                # CopyOut: grad_a to a's place, grad_b to b's
        emit("R_GM_OUT", r * total, at["dstA"] + r * pitch, count=cols, mode=M)
        emit("R_GM_OUT", r * total + t.col_total, at["dstB"] + r * pitch, count=cols, mode=M)
    return np.array(out, dtype=np.int64).reshape(-1, O.FIELDS)


def row_program_950(t: GluBaseTiling, kinds=None) -> RowProgram:
    kinds = tile_kinds_950(t) if kinds is None else kinds
    code16 = 0 if t.dtype == "float32" else dtype_info(t.dtype).code
    slot = max([r * _pitch(t, c, p) for r, c, p in kinds] + [1])
    streams = [_stream(t, r, c, p, slot, code16) for r, c, p in kinds]
    return RowProgram(streams, _SCALARS, len(_SLOTS) * slot)


_row_program_950 = made_once(row_program_950)


def schedule_950(t: GluBaseTiling, segments: np.ndarray, kinds=None):
    """Each core's UB loops in order, three global bases per loop (x, yGrad, grad_x)."""
    kinds = {k: i for i, k in enumerate(tile_kinds_950(t) if kinds is None else kinds)}
    xs, ls, ms = (int(segments[i, 0]) for i in range(3))
    tiles, core_ptr = [], [0]
    for core in range(t.used_core_num):
        for a, g, r, c, padded in loops(t, core):
            tiles.append((kinds[r, c, padded], xs + a, ls + g, ms + a))
        core_ptr.append(len(tiles))
    return np.array(tiles, dtype=np.int64).reshape(-1, 4), np.array(core_ptr, dtype=np.int64)


_schedule_950 = scheduled_once(schedule_950)


@functools.lru_cache(maxsize=64)
def _kinds_950(t: GluBaseTiling) -> tuple:
    """:func:`tile_kinds_950` made once per tiling."""
    return tuple(tile_kinds_950(t))


def run_grad_950(grad_output: np.ndarray, x: np.ndarray, t: GluBaseTiling, out=None) -> np.ndarray:
    """grad_x of the 950 kernel (:func:`.kernel_grad.run_grad_on`)."""
    def walk(gm, segments):
        kinds = _kinds_950(t)
        tiles, core_ptr = _schedule_950(t, segments, kinds)
        _row_program_950(t, kinds).run(gm, segments, tiles, core_ptr)
    return run_grad_on(prepared(programs, t.dtype), grad_output, x, out, t.row_total, t.col_total, walk)
