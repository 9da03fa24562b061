"""The 16-bit two-input stream of one table, run in one loop over the tensors (issue 39).

Most two-input 16-bit programs lower (:mod:`.stream`) to the same four instructions: the table of the
tabulated part looked up at one input's bits, the other input widened (CAST_NONE), one Mul of the two,
the product narrowed (CAST_RINT) into the result::

    LOOKUP t <- in_a ; CAST_NONE f <- in_b ; MUL p <- (t, f) or (f, t) ; CAST_RINT out <- p

:func:`shape` recognises that stream from its code (whatever the operator), and :func:`run_if_fused`
then runs a flat pass as one loop over the tensors: each element's bits read straight from the two
16-bit inputs, the four instructions in registers, the result's bits stored straight into the output.
The machine's blocks would copy both inputs into float32 rows, run four loops over them and copy the
result's row out; this loop skips the copies and the rows, and looks the table up by an integer index.

Each instruction is its function in :mod:`swishgrad_numba.program.semantics` (the machine's and the
interpreter's), with the operands in the stream's order, so the bits are the machine's: a Lookup's
index is the bits' number either way, CAST_RINT's bits are what the result's row held as a number, and
the block cuts nothing of an element-wise stream. A stream of any other shape (or a float32 launch)
is not fused and runs on the machine as before.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from ..dtypes import BFLOAT16, FLOAT16
from ..intrinsics import vectorise_full_width
from ..program import semantics as S
from .opcodes import CAST_NONE, CAST_RINT, DST, LOOKUP, MODE, MUL, OP, SRC0, SRC1

__all__ = ["shape", "run_if_fused", "NOT_FUSED"]

_F16 = FLOAT16.code
_BF16 = BFLOAT16.code
#: :func:`shape`'s answer for a stream it does not fuse.
NOT_FUSED = (-1, 0, 0, 0, 0)


@njit(cache=True, error_model="numpy", inline="always")
def _input(offset, grain, inputs):
    """The input index of an arena offset, or -1 where it is not the start of an input's row."""
    if offset % grain != 0 or offset // grain >= inputs:
        return -1
    return offset // grain


@njit(cache=True, error_model="numpy")
def shape(code, out_row, grain, inputs):
    """``(table, look, wide, first, dtype_code)``: the stream as the fused loop runs it (the Lookup's
    table, the inputs looked up and widened, 0 where the table's value is the Mul's first operand
    else 1, the 16-bit dtype's code), or :data:`NOT_FUSED`."""
    if code.shape[0] != 4 or (code[0, OP], code[1, OP], code[2, OP], code[3, OP]) != (LOOKUP, CAST_NONE, MUL,
                                                                                        CAST_RINT):
        return NOT_FUSED
    t, f, p = code[0, DST], code[1, DST], code[2, DST]
    look, wide = _input(code[0, SRC0], grain, inputs), _input(code[1, SRC0], grain, inputs)
    dtype_code = code[1, MODE]
    if look < 0 or wide < 0 or t == f or t == code[1, SRC0] or code[3, SRC0] != p or code[3, DST] != out_row:
        return NOT_FUSED
    if dtype_code != code[3, MODE] or (dtype_code != _F16 and dtype_code != _BF16):
        return NOT_FUSED
    if code[2, SRC0] == t and code[2, SRC1] == f:
        first = 0
    elif code[2, SRC0] == f and code[2, SRC1] == t:
        first = 1
    else:
        return NOT_FUSED
    return (code[0, MODE], look, wide, first, dtype_code)


@njit(cache=True, error_model="numpy", inline="always")
def _loop(table, look, wide, out, base, n, scratch, dtype_code, first, sat):
    """``n`` elements from ``base``; ``dtype_code``, ``first`` and ``sat`` constants at each call. The
    Lookups of a block first, into ``scratch`` (a gather that stays scalar), then the rest of the block
    in one loop that vectorises."""
    block = scratch.shape[0]
    for b0 in range(0, n, block):
        m = min(block, n - b0)
        at = base + np.uint64(b0)
        for i in range(m):
            scratch[i] = table[np.int32(look[at + np.uint64(i)])]
        for i in range(m):
            j = at + np.uint64(i)
            t = scratch[i]
            f = S.cast_none(wide[j], dtype_code)
            p = S.mul(t, f, sat) if first == 0 else S.mul(f, t, sat)
            out[j] = S.cast_rint(p, dtype_code, sat)


@njit(cache=True, error_model="numpy", inline="always")
def _by_first(table, look, wide, out, base, n, scratch, dtype_code, first, sat):
    if first == 0:
        if sat:
            _loop(table, look, wide, out, base, n, scratch, dtype_code, 0, True)
        else:
            _loop(table, look, wide, out, base, n, scratch, dtype_code, 0, False)
    else:
        if sat:
            _loop(table, look, wide, out, base, n, scratch, dtype_code, 1, True)
        else:
            _loop(table, look, wide, out, base, n, scratch, dtype_code, 1, False)


@njit(cache=True, error_model="numpy")
def _fused_pass(table, look, wide, out, offset, count, scratch, dtype_code, first, sat):
    vectorise_full_width()
    base = np.uint64(offset)
    if dtype_code == _F16:
        _by_first(table, look, wide, out, base, count, scratch, _F16, first, sat)
    else:
        _by_first(table, look, wide, out, base, count, scratch, _BF16, first, sat)


def run_if_fused(fused, tables, ins, out, offset, count, scratch, sat):
    """Run the flat pass of ``count`` elements from ``offset`` as the fused loop where ``fused`` (the
    stream's :func:`shape`) fuses it and the tensors are 16-bit, its Lookups held in ``scratch`` (a float32
    array: blocks of its length); whether it ran (jitted code only)."""
    raise NotImplementedError("run_if_fused is only callable from jitted code")


@overload(run_if_fused, jit_options=dict(cache=True, error_model="numpy"))
def _run_if_fused(fused, tables, ins, out, offset, count, scratch, sat):
    if not (isinstance(out, types.Array) and out.dtype == types.uint16):
        return lambda fused, tables, ins, out, offset, count, scratch, sat: False

    def run(fused, tables, ins, out, offset, count, scratch, sat):
        if fused[0] < 0:
            return False
        _fused_pass(tables[fused[0]], ins[fused[1]], ins[fused[2]], out, offset, count, scratch, fused[4], fused[3],
                    sat)
        return True
    return run
