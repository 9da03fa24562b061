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
interpreter's), so the bits are the machine's: a Lookup's index is the bits' number either way,
CAST_RINT's bits are what the result's row held as a number, and the block cuts nothing of an
element-wise stream. One exception is left to the machine: a Mul of two NaNs gives the first operand's
NaN (its sign, its payload), and the compiler, to which a multiply is commutative, may swap the
operands of the fused loop's Mul (it did: measured). The loop flags a block with a Mul of two NaNs,
and a pass that met one is run again on the machine, whose Mul keeps the stream's order. A stream of
any other shape (or a float32 launch) is not fused and runs on the machine as before.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from ..dtypes import BFLOAT16, FLOAT16
from ..intrinsics import vectorise_full_width
from ..program import semantics as S
from .direct16 import lookup_bits
from .opcodes import CAST_NONE, CAST_RINT, DST, LOOKUP, MODE, MUL, OP, SRC0, SRC1

__all__ = ["shape", "run_if_fused", "run_if_fused_raw", "NOT_FUSED"]

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
def _loop(table, look, wide, out, at, n, scratch, dtype_code, sat):
    """``n`` elements, from ``at[0]`` of ``look``, ``at[1]`` of ``wide`` and ``at[2]`` of ``out``;
    ``dtype_code`` and ``sat`` constants at each call. The Mul takes the table's value first whichever the
    stream's order: a product's bits are the same both ways unless both operands are NaN, a block flagged
    here and run again on the machine (one loop per order would double the compile, for nothing). A block (``scratch``'s length) at a
    time: its Lookups into ``scratch`` (:func:`.direct16.lookup_bits`: vector gathers), then the rest in one loop that
    vectorises. Whether a Mul of two NaNs was met (the loop then stops after its block)."""
    block = scratch.shape[0]
    for b0 in range(0, n, block):
        m = min(block, n - b0)
        b = np.uint64(b0)
        la, wa, oa = at[0] + b, at[1] + b, at[2] + b
        lookup_bits(table, look, la, scratch, 0, m)
        both_nan = np.uint32(0)
        for i in range(m):
            t = scratch[i]
            f = S.cast_none(wide[wa + np.uint64(i)], dtype_code)
            both_nan |= np.uint32(t != t) & np.uint32(f != f)
            p = S.mul(t, f, sat)
            out[oa + np.uint64(i)] = S.cast_rint(p, dtype_code, sat)
        if both_nan:
            return True
    return False


@njit(cache=True, error_model="numpy", inline="always")
def _by_sat(table, look, wide, out, at, n, scratch, dtype_code, sat):
    if sat:
        return _loop(table, look, wide, out, at, n, scratch, dtype_code, True)
    return _loop(table, look, wide, out, at, n, scratch, dtype_code, False)


@njit(cache=True, error_model="numpy")
def _fused_pass(table, look, wide, out, at, count, scratch, dtype_code, sat):
    """``count`` elements from the offsets ``at`` (of ``look``, ``wide``, ``out``: uint16 arrays); whether
    it finished (False: a Mul of two NaNs met, which the machine runs instead)."""
    vectorise_full_width()
    at = (np.uint64(at[0]), np.uint64(at[1]), np.uint64(at[2]))
    if dtype_code == _F16:
        return not _by_sat(table, look, wide, out, at, count, scratch, _F16, sat)
    return not _by_sat(table, look, wide, out, at, count, scratch, _BF16, sat)


def run_if_fused(fused, tables, ins, out, offset, count, scratch, sat):
    """Run the flat pass of ``count`` elements from ``offset`` as the fused loop where ``fused`` (the
    stream's :func:`shape`) fuses it and the tensors are 16-bit, its Lookups held in ``scratch`` (a float32
    array: blocks of its length); whether it ran to the end (jitted code only: else the machine runs the
    pass, all of it again)."""
    raise NotImplementedError("run_if_fused is only callable from jitted code")


@overload(run_if_fused, jit_options=dict(cache=True, error_model="numpy"))
def _run_if_fused(fused, tables, ins, out, offset, count, scratch, sat):
    if not (isinstance(out, types.Array) and out.dtype == types.uint16):
        return lambda fused, tables, ins, out, offset, count, scratch, sat: False

    def run(fused, tables, ins, out, offset, count, scratch, sat):
        if fused[0] < 0:
            return False
        return _fused_pass(tables[fused[0]], ins[fused[1]], ins[fused[2]], out, (offset, offset, offset), count,
                           scratch, fused[4], sat)
    return run


@njit(cache=True, error_model="numpy")
def run_if_fused_raw(code, out_row, grain, tables, dy, dy_off, x, x_off, out, out_off, count, scratch, sat):
    """The broadcast walk's UB loop (:func:`.launch._engine_wide`: input 0 ``dy``, input 1 ``x``, raw
    ``(uint8 array, wide)``, each from its offset) as the fused loop, where the stream has
    :func:`shape`'s shape and the three are 16-bit; whether it ran."""
    fused = shape(code, out_row, grain, 2)
    if fused[0] < 0 or dy[1] or x[1] or out[1]:
        return False
    ins = (dy[0].view(np.uint16), x[0].view(np.uint16))
    offs = (dy_off, x_off)
    return _fused_pass(tables[fused[0]], ins[fused[1]], ins[fused[2]], out[0].view(np.uint16),
                       (offs[fused[1]], offs[fused[2]], out_off), count, scratch, fused[4], sat)
