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
from ...engine import hot, hot_rows, opcodes as O
from ...engine.rows import RowProgram, compute_rows, made_once, scheduled_once, segment
from ...program.elementwise import elementwise
from ...program.form import V
from .host import SwiGluTiling
from .kernel import SCALARS, as_bits, dtype_kind, prepared, tile_kinds

__all__ = ["COMPUTE", "programs", "row_program_grad", "schedule_grad", "run_grad", "run_grad_hot", "run_grad_on"]

X, L, M = range(3)                       # global segments: x, grad_output, grad_x


def _compute(last: tuple) -> tuple:
    return (V.Muls("sig", "a", -1.0), V.Exp("sig", "sig"), V.Adds("sig", "sig", 1.0), V.Duplicate("tmp", 1.0),
            V.Div("sig", "tmp", "sig"),
            V.Mul("n", "sig", "a"), V.Mul("n", "n", "l"),                               # grad_b
            V.Muls("tmp", "sig", -1.0), V.Adds("tmp", "tmp", 1.0), V.Mul("m", "sig", "tmp"), V.Mul("m", "m", "a"),
            V.Muls("m", "m", 1.0), V.Add("m", "m", "sig"),                # Muls(m, m, -beta), beta = -1
            V.Mul("m", "m", last[0]), V.Mul("m", "m", last[1]))                          # grad_a


#: The Compute over float32 a, b and l (the incoming gradient) into grad_a (``m``) and grad_b (``n``), by the kind
#: of dtype (16-bit: after the exact widenings, both results narrowed with CAST_RINT): the row streams and the
#: element-wise programs are both made from it.
COMPUTE = {"float32": _compute(("b", "l")), "16-bit": _compute(("l", "b"))}
_INPUTS = (("x_a", "a"), ("x_b", "b"), ("y_grad", "l"))


def programs(dtype: str) -> tuple:
    """(grad_a's program, grad_b's): the Compute in the element-wise form (one output each)."""
    steps = COMPUTE[dtype_kind(dtype)]
    return tuple(elementwise(f"SwiGluGrad{part}", _INPUTS, steps, name, dtype, "CAST_RINT", output=f"out_{part}")
                 for part, name in (("a", "m"), ("b", "n")))


def run_grad_hot(pair: tuple, grad_output: np.ndarray, x: np.ndarray, out: np.ndarray, rows: int, cols: int) -> bool:
    """grad_x into flat ``out`` (x's dtype) on the hot tier (:func:`swishgrad_numba.engine.hot_rows.run_rows`) by
    ``pair``, the :class:`swishgrad_numba.engine.runner.Prepared` of grad_a's and grad_b's programs (inputs a, b,
    then the incoming gradient); whether it ran (False: out untouched, or to be written again in full)."""
    if hot.too_small(rows * cols):
        return False
    xf, gf = (as_bits(np.ascontiguousarray(v).reshape(-1)) for v in (x, grad_output))
    of = as_bits(out.reshape(-1))          # written: a view (run_rows refuses what is not flat and C-contiguous)
    ins = ((xf, 2 * cols, 0), (xf, 2 * cols, cols), (gf, cols, 0))
    return all(hot_rows.run_rows(p, ins, (of, 2 * cols, offset), rows, cols)
               for p, offset in zip(pair, (0, cols)))


def _stream(t: SwiGluTiling, rows: int, cols: int, code16: int) -> np.ndarray:
    out = []

    def emit(name, dst=0, src0=0, src1=0, count=1, k0=0, k1=0, mode=0):
        out.append([O.ROW_OPCODES[name], dst, src0, src1, count, k0, k1, mode])

    ln = t.tile_length
    at = {name: i * ln for i, name in enumerate(("a", "b", "l", "sig", "tmp", "m", "n"))}
    stride = -(-cols // t.ub_min_block) * t.ub_min_block
    cnt = rows * stride
    for r in range(rows):                # CopyIn: a, l, b
        emit("R_GM_IN", at["a"] + r * stride, r * 2 * t.col_len, count=cols, mode=X)
    for r in range(rows):
        emit("R_GM_IN", at["l"] + r * stride, r * t.col_len, count=cols, mode=L)
    for r in range(rows):
        emit("R_GM_IN", at["b"] + r * stride, r * 2 * t.col_len + t.col_len, count=cols, mode=X)
    out += compute_rows(COMPUTE["16-bit" if code16 else "float32"], at, SCALARS, cnt)
    if code16:                           # n is read no more once made: narrowed here as at its own step
        emit("R_CAST_RINT", at["n"], at["n"], count=cnt, mode=code16)
        emit("R_CAST_RINT", at["m"], at["m"], count=cnt, mode=code16)
    for r in range(rows):                # CopyOut: grad_a to a's place, grad_b to b's
        emit("R_GM_OUT", r * 2 * t.col_len, at["m"] + r * stride, count=cols, mode=M)
    for r in range(rows):
        emit("R_GM_OUT", r * 2 * t.col_len + t.col_len, at["n"] + r * stride, count=cols, mode=M)
    return np.array(out, dtype=np.int64).reshape(-1, O.FIELDS)


def row_program_grad(t: SwiGluTiling) -> RowProgram:
    code16 = 0 if t.dtype == "float32" else dtype_info(t.dtype).code
    streams = [_stream(t, r, c, code16) for r, c in tile_kinds(t)]
    return RowProgram(streams, np.array(SCALARS, np.float32), 7 * t.tile_length)


_row_program_grad = made_once(row_program_grad)


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


_schedule_grad = scheduled_once(schedule_grad)


def run_grad_on(pair: tuple, grad_output: np.ndarray, x: np.ndarray, out, rows: int, cols: int, walk) -> np.ndarray:
    """grad_x (x's flat layout and dtype) into ``out`` where given (flat, C-contiguous, sharing no memory with an
    input): on the hot tier where it takes the launch (:func:`run_grad_hot` by ``pair``), else on the row machine
    (``walk(gm, segments)``: the kernel's schedule and streams over global memory, x, the incoming gradient and
    grad_x each a segment read or written where it lies)."""
    nx, nl = 2 * rows * cols, rows * cols
    out = np.empty(nx, dtype=x.dtype) if out is None else out
    if run_grad_hot(pair, grad_output, x, out, rows, cols):
        return out
    walk((segment(x), segment(grad_output), out.reshape(-1)), np.array([[0, nx], [0, nl], [0, nx]], dtype=np.int64))
    return out


def run_grad(grad_output: np.ndarray, x: np.ndarray, t: SwiGluTiling, out=None) -> np.ndarray:
    """grad_x of the A2 kernel (:func:`run_grad_on`)."""
    def walk(gm, segments):
        tiles, core_ptr = _schedule_grad(t, segments)
        _row_program_grad(t).run(gm, segments, tiles, core_ptr)
    return run_grad_on(prepared(programs, t.dtype), grad_output, x, out, t.row_len, t.col_len, walk)
