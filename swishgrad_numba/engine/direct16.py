"""A 16-bit stream's inputs read and its result written where they lie (issue 39).

A 16-bit stream reads its inputs' rows only to look a table up at their bits (LOOKUP) or to widen them
(CAST_NONE), and most end by narrowing one row into the result's (CAST_RINT, CAST_ROUND). On the machine
alone a block then costs a CopyIn of every input into a float32 row, those instructions reading the rows
back (a Lookup converting each number to its index), and a CopyOut of the result's row. :func:`split`
finds the stream's *head* (its leading Lookups and widenings of the inputs) and *tail* (its closing
narrowing into the result), and :func:`run_if_direct` runs a flat pass in blocks of the grain:

- the head, each instruction one loop that reads its input's 16-bit bits from the tensor itself;
- the rest of the stream, ``code[head:tail]``, on the one machine (:data:`.machine.MACHINE`), unchanged;
- the tail, one loop that stores the narrowed bits straight into the output.

No copies into or out of the arena. Each instruction is still its function in
:mod:`swishgrad_numba.program.semantics` (a Lookup's index is the bits' number either way; the machine's
CAST_NONE widens the number its row holds, which is the bits; the tail's bits are what the result's row
held as a number), so the bits are the machine's. Nothing here names an operator or a dtype: any stream of
the shape, whatever its body, runs so, and the machine runs its body as any other stream.

:func:`split` refuses (:data:`NOT_DIRECT`) a stream whose body or tail reads an input's row before an
instruction of the block has written it (the row would hold the tensor's values on the machine, not here),
a head instruction reading an input's row after one wrote over it, and a float32 launch.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from ..dtypes import BFLOAT16, FLOAT16
from ..intrinsics import GATHER_LANES, gather_lanes, vectorise_full_width
from ..program import semantics as S
from .machine import run_machine
from .opcodes import CAST_NONE, CAST_RINT, CAST_ROUND, DST, LOOKUP, MODE, OP, SOURCES, SRC0

__all__ = ["split", "run_if_direct", "NOT_DIRECT", "lookup_bits"]

#: :func:`split`'s answer for a stream not run so.
NOT_DIRECT = (-1, -1)
_F16 = FLOAT16.code
_BF16 = BFLOAT16.code
_SOURCES = np.array(SOURCES, dtype=np.int64)


@njit(cache=True, error_model="numpy")
def split(code, out_row, grain, inputs):
    """``(head, tail)``: the stream's leading Lookups and widenings of input rows are ``code[:head]``, its
    closing narrowing into ``out_row`` is ``code[tail]`` (the last instruction), the machine runs
    ``code[head:tail]``; or :data:`NOT_DIRECT`."""
    last = code.shape[0] - 1
    if last < 1 or code[last, DST] != out_row or (code[last, OP] != CAST_RINT and code[last, OP] != CAST_ROUND):
        return NOT_DIRECT
    written = np.zeros(inputs, dtype=np.bool_)      # input rows an instruction of the block has written
    head = 0
    while head < last and (code[head, OP] == LOOKUP or code[head, OP] == CAST_NONE):
        a = code[head, SRC0]
        if a % grain != 0 or a // grain >= inputs:
            break
        if written[a // grain]:
            return NOT_DIRECT
        d = code[head, DST]
        if d < inputs * grain:
            if d % grain != 0:      # inside an input's row: not how the rows are laid out, not run here
                return NOT_DIRECT
            written[d // grain] = True
        head += 1
    if head == 0:
        return NOT_DIRECT
    for i in range(head, last + 1):
        for s in range(_SOURCES[code[i, OP]]):
            r = code[i, SRC0 + s]
            if r < inputs * grain and (r % grain != 0 or not written[r // grain]):   # an input's row the stream reads as it was
                return NOT_DIRECT
        d = code[i, DST]
        if d < inputs * grain:
            if d % grain != 0:      # a row inside an input's: not how the rows are laid out, not run here
                return NOT_DIRECT
            written[d // grain] = True
    return (head, last)


def lookup_bits(table, src, src_at, dst, dst_at, n):
    """LOOKUP of ``n`` 16-bit patterns from ``src_at`` of ``src``: ``dst[dst_at + i] = table[src[src_at + i]]``
    (``dst`` float32), 16 at a time by one vector gather
    (:func:`swishgrad_numba.intrinsics.gather_lanes`: the same loads, about 0.2 ns an element where the
    scalar loop took 0.3), the rest one by one. A float32 ``src`` (a float32 launch's, which never looks up,
    but compiles the same code) is read as the bits' numbers, one by one (jitted code only)."""
    raise NotImplementedError("lookup_bits is only callable from jitted code")


@overload(lookup_bits, jit_options=dict(cache=True, error_model="numpy"), inline="always")
def _lookup_bits(table, src, src_at, dst, dst_at, n):
    if src.dtype != types.uint16:
        def one_by_one(table, src, src_at, dst, dst_at, n):
            for i in range(n):
                dst[dst_at + np.uint64(i)] = table[np.int64(src[src_at + np.uint64(i)]) & 0xFFFF]
        return one_by_one

    def gathered(table, src, src_at, dst, dst_at, n):
        src_at, dst_at = np.int64(src_at), np.int64(dst_at)
        whole = n - n % GATHER_LANES
        for i in range(0, whole, GATHER_LANES):
            gather_lanes(table, src, src_at + i, dst, dst_at + i)
        for i in range(whole, n):
            dst[dst_at + i] = table[np.int32(src[src_at + i])]
    return gathered


@njit(cache=True, error_model="numpy", inline="always")
def _widen(src, offset, arena, d, n, code16):
    """CAST_NONE of ``n`` 16-bit patterns into the row at ``d``; ``code16`` a constant at each call, so the
    loop is the one dtype's conversion and vectorises."""
    for i in range(n):
        arena[d + np.uint64(i)] = S.cast_none(src[offset + np.uint64(i)], code16)


@njit(cache=True, error_model="numpy")
def _head(code, tables, ins, offset, n, arena, grain, head):
    """The head's instructions over ``n`` elements from ``offset`` of the inputs, into their rows."""
    vectorise_full_width()
    for h in range(head):
        d = np.uint64(code[h, DST])
        src = ins[code[h, SRC0] // grain]
        mode = code[h, MODE]
        if code[h, OP] == LOOKUP:
            lookup_bits(tables[mode], src, offset, arena, d, n)
        elif mode == _F16:
            _widen(src, offset, arena, d, n, _F16)
        else:
            _widen(src, offset, arena, d, n, _BF16)


@njit(cache=True, error_model="numpy")
def _tail(f, out, offset, arena, a, n, code16, sat):
    """The narrowing ``f`` of the row at ``a`` into ``out``; ``code16`` and ``sat`` constants at each call."""
    vectorise_full_width()
    if sat:
        for i in range(n):
            out[offset + np.uint64(i)] = f(arena[a + np.uint64(i)], code16, True)
    else:
        for i in range(n):
            out[offset + np.uint64(i)] = f(arena[a + np.uint64(i)], code16, False)


@njit(cache=True, error_model="numpy", inline="always")
def _tail_by_dtype(f, out, offset, arena, a, n, code16, sat):
    if code16 == _F16:
        _tail(f, out, offset, arena, a, n, _F16, sat)
    else:
        _tail(f, out, offset, arena, a, n, _BF16, sat)


@njit(cache=True, error_model="numpy")
def _direct_pass(code, scalars, tables, ins, out, offset, count, arena, grain, head, tail, sat):
    body = code[head:tail]
    a = np.uint64(code[tail, SRC0])
    code16 = code[tail, MODE]
    rounding = code[tail, OP]
    vectorise_full_width()
    for b0 in range(0, count, grain):
        n = min(grain, count - b0)
        at = np.uint64(offset + b0)
        _head(code, tables, ins, at, n, arena, grain, head)
        if body.shape[0] > 0:
            run_machine(body, scalars, tables, arena, n, sat)
        if rounding == CAST_RINT:
            _tail_by_dtype(S.cast_rint, out, at, arena, a, n, code16, sat)
        else:
            _tail_by_dtype(S.cast_round, out, at, arena, a, n, code16, sat)


def run_if_direct(direct, code, scalars, tables, ins, out, offset, count, arena, grain, sat):
    """Run the flat pass of ``count`` elements from ``offset`` with its head and tail on the tensors where
    ``direct`` (the stream's :func:`split`) says so and the tensors are 16-bit; whether it ran (jitted code
    only: else the machine runs the pass)."""
    raise NotImplementedError("run_if_direct is only callable from jitted code")


@overload(run_if_direct, jit_options=dict(cache=True, error_model="numpy"))
def _run_if_direct(direct, code, scalars, tables, ins, out, offset, count, arena, grain, sat):
    if not (isinstance(out, types.Array) and out.dtype == types.uint16):
        return lambda direct, code, scalars, tables, ins, out, offset, count, arena, grain, sat: False

    def run(direct, code, scalars, tables, ins, out, offset, count, arena, grain, sat):
        if direct[0] < 0:
            return False
        _direct_pass(code, scalars, tables, ins, out, offset, count, arena, grain, direct[0], direct[1], sat)
        return True
    return run
