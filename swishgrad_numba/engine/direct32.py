"""A float32 stream's inputs read and its result written where they lie (issue 39).

On the machine alone a float32 block costs a CopyIn of every input into its arena row, the stream's
instructions reading those rows back, and a CopyOut of the result's row: for a short stream (a Compare
and a Select, a Sub and two Muls) the copies cost about as much as the instructions. :func:`split` marks,
instruction by instruction, which ones :func:`run_direct` runs itself with operands where they lie:

- an instruction that reads an input's row before any instruction of the block has written that row
  reads the input tensor itself, at the block's elements;
- the stream's last instruction, where it writes the result's row, writes the output itself;

where its opcode is one of :data:`DIRECT_OPCODES` (cheap element-wise ones). Every other instruction runs
on the one machine (:data:`.machine.MACHINE`, the stream's runs of them as ``code[i:j]``), over the arena;
an input such an instruction reads as it was is still copied into its row, and a result the last
instruction does not write is still copied out. Each instruction is its function in
:mod:`swishgrad_numba.program.semantics`, over the same numbers (a tensor's element is what its row would
have held), so the bits are the machine's. Nothing names an operator: any float32 stream of the flat
launch runs so where :func:`split` finds something to skip.

:func:`split` refuses (``plan[-1, 0] == 0``) a stream with an offset that is not a row's start (rows
then overlap), a row instruction, or nothing to skip. :func:`run_direct` is compiled once, like the
machine (:class:`.shared.Shared`), and called by its symbol from the launch.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic, overload
from numba.np.arrayobj import make_array, populate_array

from ..intrinsics import vectorise_full_width
from ..program import semantics as S
from .machine import run_machine
from .opcodes import (ABS, ADD, ADDS, COMPARE, COMPARE_SCALAR, DIV, DST, EXP, K0, MODE, MUL, MUL_DST_ADD, MULS,
                      NAMES, NEG, OP, RECIPROCAL, SELECT, SELECT_SCALAR, SOURCES, SRC0, SUB)
from .shared import Shared

__all__ = ["DIRECT_OPCODES", "split", "run_direct", "run_if_direct", "DIRECT32", "PLAN_FIELDS"]

#: The opcodes :func:`run_direct` runs with operands in the tensors.
DIRECT_OPCODES = (MUL, ADD, SUB, DIV, MULS, ADDS, COMPARE, COMPARE_SCALAR, SELECT, SELECT_SCALAR, RECIPROCAL,
                  NEG, ABS, MUL_DST_ADD)
_DIRECT = np.zeros(len(NAMES), dtype=np.bool_)
_DIRECT[list(DIRECT_OPCODES)] = True
_SOURCES = np.array(SOURCES, dtype=np.int64)
#: A plan row: whether run here, the input read by each source (-1: its arena row), whether it writes the
#: output. The plan's last row: whether the stream runs so, the inputs still copied in (a bit mask),
#: whether the result's row is still copied out.
PLAN_FIELDS = 5
_RUN, _IN0, _TO_OUT = 0, 1, 4


@njit(cache=True, error_model="numpy")
def split(code, out_row, grain, inputs):
    """The plan (``(instructions + 1, PLAN_FIELDS)`` int64) of a float32 stream; ``plan[-1, 0]`` is 0 where
    it is not run so."""
    m = code.shape[0]
    plan = np.zeros((m + 1, PLAN_FIELDS), dtype=np.int64)
    plan[:m, _IN0:_IN0 + 3] = -1
    if m == 0 or out_row % grain != 0:
        return plan
    limit = inputs * grain
    for i in range(m):
        op = code[i, OP]
        if op < 0 or op >= _DIRECT.shape[0]:
            return plan
        if code[i, DST] % grain != 0:
            return plan
        for s in range(_SOURCES[op]):
            if code[i, SRC0 + s] % grain != 0:
                return plan
    written = np.zeros(inputs, dtype=np.bool_)     # input rows an instruction of the block has written
    copied = 0
    skipped = False
    for i in range(m):
        op = code[i, OP]
        reads = False
        for s in range(_SOURCES[op]):
            r = code[i, SRC0 + s]
            if op == EXP and s == 1:        # Exp's scratch row: written, not read
                continue
            if r < limit and not written[r // grain]:
                reads = True
        tail = i == m - 1 and code[i, DST] == out_row
        direct = _DIRECT[op] and (reads or tail)
        for s in range(_SOURCES[op]):
            r = code[i, SRC0 + s]
            if op == EXP and s == 1:
                continue
            if r < limit and not written[r // grain]:
                if direct:
                    plan[i, _IN0 + s] = r // grain
                else:
                    copied |= 1 << (r // grain)
        if direct:
            plan[i, _RUN] = 1
            skipped = True
            if tail:
                plan[i, _TO_OUT] = 1
        d = code[i, DST]
        if d < limit:
            written[d // grain] = True
        if op == EXP and code[i, SRC0 + 1] < limit:
            written[code[i, SRC0 + 1] // grain] = True
    plan[m, 0] = 1 if skipped else 0
    plan[m, 1] = copied
    plan[m, 2] = 0 if plan[m - 1, _TO_OUT] == 1 else 1
    return plan


@njit(cache=True, error_model="numpy", inline="always")
def _unary(f, o, d, x, a, n, sat):
    if sat:
        for i in range(n):
            j = np.uint64(i)
            o[d + j] = f(x[a + j], True)
    else:
        for i in range(n):
            j = np.uint64(i)
            o[d + j] = f(x[a + j], False)


@njit(cache=True, error_model="numpy", inline="always")
def _binary(f, o, d, x, a, y, b, n, sat):
    if sat:
        for i in range(n):
            j = np.uint64(i)
            o[d + j] = f(x[a + j], y[b + j], True)
    else:
        for i in range(n):
            j = np.uint64(i)
            o[d + j] = f(x[a + j], y[b + j], False)


@njit(cache=True, error_model="numpy", inline="always")
def _scalar(f, o, d, x, a, k, n, sat):
    if sat:
        for i in range(n):
            j = np.uint64(i)
            o[d + j] = f(x[a + j], k, True)
    else:
        for i in range(n):
            j = np.uint64(i)
            o[d + j] = f(x[a + j], k, False)


@njit(cache=True, error_model="numpy", inline="always")
def _ternary(f, o, d, x, a, y, b, z, c, n, sat):
    if sat:
        for i in range(n):
            j = np.uint64(i)
            o[d + j] = f(x[a + j], y[b + j], z[c + j], True)
    else:
        for i in range(n):
            j = np.uint64(i)
            o[d + j] = f(x[a + j], y[b + j], z[c + j], False)


@njit(cache=True, error_model="numpy", inline="always")
def _select(o, d, x, a, y, b, z, c, n, sat):
    if sat:
        for i in range(n):
            j = np.uint64(i)
            o[d + j] = S.select(x[a + j], y[b + j], np.uint8(z[c + j]), True)
    else:
        for i in range(n):
            j = np.uint64(i)
            o[d + j] = S.select(x[a + j], y[b + j], np.uint8(z[c + j]), False)


@njit(cache=True, error_model="numpy", inline="always")
def _select_scalar(o, d, x, a, y, b, k, n, sat):
    if sat:
        for i in range(n):
            j = np.uint64(i)
            o[d + j] = S.select_scalar(x[a + j], np.uint8(y[b + j]), k, True)
    else:
        for i in range(n):
            j = np.uint64(i)
            o[d + j] = S.select_scalar(x[a + j], np.uint8(y[b + j]), k, False)


@njit(cache=True, error_model="numpy", inline="always")
def _compare(f, o, d, x, a, y, b, k, n, scalar):
    if scalar:
        for i in range(n):
            j = np.uint64(i)
            o[d + j] = np.float32(f(x[a + j], k, False))
    else:
        for i in range(n):
            j = np.uint64(i)
            o[d + j] = np.float32(f(x[a + j], y[b + j], False))


@njit(cache=True, error_model="numpy", inline="always")
def _compare_by_mode(mode, o, d, x, a, y, b, k, n, scalar):
    if mode == 0:
        _compare(S.compare_lt, o, d, x, a, y, b, k, n, scalar)
    elif mode == 1:
        _compare(S.compare_gt, o, d, x, a, y, b, k, n, scalar)
    elif mode == 2:
        _compare(S.compare_eq, o, d, x, a, y, b, k, n, scalar)
    elif mode == 3:
        _compare(S.compare_le, o, d, x, a, y, b, k, n, scalar)
    elif mode == 4:
        _compare(S.compare_ge, o, d, x, a, y, b, k, n, scalar)
    else:
        _compare(S.compare_ne, o, d, x, a, y, b, k, n, scalar)


@njit(cache=True, error_model="numpy", inline="always")
def _where(k, row, arena, in0, in1, in2, at):
    """A source's array and offset: input ``k``'s tensor at the block (``k`` >= 0), else the arena's row."""
    if k == 0:
        return in0, np.uint64(at)
    if k == 1:
        return in1, np.uint64(at)
    if k == 2:
        return in2, np.uint64(at)
    return arena, np.uint64(row)


@njit(cache=True, error_model="numpy", inline="always")
def _one(code, plan, i, scalars, arena, in0, in1, in2, out, at, n, sat):
    """Instruction ``i`` over the block, its operands where ``plan[i]`` says."""
    op = code[i, OP]
    x, a = _where(plan[i, _IN0], code[i, SRC0], arena, in0, in1, in2, at)
    y, b = _where(plan[i, _IN0 + 1], code[i, SRC0 + 1], arena, in0, in1, in2, at)
    z, c = _where(plan[i, _IN0 + 2], code[i, SRC0 + 2], arena, in0, in1, in2, at)
    if plan[i, _TO_OUT] == 1:
        o, d = out, np.uint64(at)
    else:
        o, d = arena, np.uint64(code[i, DST])
    k = scalars[code[i, K0]]
    mode = code[i, MODE]
    if op == MUL:
        _binary(S.mul, o, d, x, a, y, b, n, sat)
    elif op == ADD:
        _binary(S.add, o, d, x, a, y, b, n, sat)
    elif op == SUB:
        _binary(S.sub, o, d, x, a, y, b, n, sat)
    elif op == DIV:
        _binary(S.div, o, d, x, a, y, b, n, sat)
    elif op == MULS:
        _scalar(S.muls, o, d, x, a, k, n, sat)
    elif op == ADDS:
        _scalar(S.adds, o, d, x, a, k, n, sat)
    elif op == COMPARE:
        _compare_by_mode(mode, o, d, x, a, y, b, k, n, False)
    elif op == COMPARE_SCALAR:
        _compare_by_mode(mode, o, d, x, a, y, b, k, n, True)
    elif op == SELECT:
        _select(o, d, x, a, y, b, z, c, n, sat)
    elif op == SELECT_SCALAR:
        _select_scalar(o, d, x, a, y, b, k, n, sat)
    elif op == RECIPROCAL:
        _unary(S.reciprocal, o, d, x, a, n, sat)
    elif op == NEG:
        _unary(S.neg, o, d, x, a, n, sat)
    elif op == ABS:
        _unary(S.abs_, o, d, x, a, n, sat)
    elif op == MUL_DST_ADD:
        _ternary(S.mul_dst_add, o, d, x, a, y, b, z, c, n, sat)


@intrinsic
def _unmanaged(typingctx, ary):
    """``ary`` without its memory's reference count (a caller holds the array for the call): the
    instructions' dispatch passes its five arrays around per instruction and block, and each pass of an
    array counted costs an atomic increment and decrement (measured: 0.3 ns an element at a block of 1,024)."""
    def codegen(context, builder, sig, args):
        src = make_array(sig.args[0])(context, builder, args[0])
        dst = make_array(sig.return_type)(context, builder)
        populate_array(dst, data=src.data, shape=src.shape, strides=src.strides, itemsize=src.itemsize,
                       meminfo=None)
        return dst._getvalue()
    return ary(ary), codegen


@njit(cache=True, error_model="numpy")
def _copy(dst, d, src, a, n):
    """CopyIn or CopyOut: ``n`` elements of ``src`` from ``a`` into ``dst`` from ``d``. A function of its own:
    its loop inside the pass kept the compiler from vectorising the instructions' loops (measured)."""
    for t in range(n):
        j = np.uint64(t)
        dst[d + j] = src[a + j]


@njit(cache=True, error_model="numpy")
def _direct_pass(code, plan, scalars, tables, in0, in1, in2, out, arena, offset, count, grain, sat):
    """``count`` elements from ``offset`` of the inputs into ``out`` by ``plan`` (:func:`split`), in blocks
    of ``grain``."""
    vectorise_full_width()
    in0, in1, in2, out, arena = _unmanaged(in0), _unmanaged(in1), _unmanaged(in2), _unmanaged(out), _unmanaged(arena)
    code, plan, scalars, tables = _unmanaged(code), _unmanaged(plan), _unmanaged(scalars), _unmanaged(tables)
    m = code.shape[0]
    copied = plan[m, 1]
    out_row = np.uint64(code[m - 1, DST])
    for b0 in range(0, count, grain):
        n = min(grain, count - b0)
        at = offset + b0
        u = np.uint64(at)
        if copied & 1:
            _copy(arena, np.uint64(0), in0, u, n)
        if copied & 2:
            _copy(arena, np.uint64(grain), in1, u, n)
        if copied & 4:
            _copy(arena, np.uint64(2 * grain), in2, u, n)
        i = 0
        while i < m:
            if plan[i, _RUN] == 1:
                _one(code, plan, i, scalars, arena, in0, in1, in2, out, at, n, sat)
                i += 1
            else:
                j = i
                while j < m and plan[j, _RUN] == 0:
                    j += 1
                run_machine(code[i:j], scalars, tables, arena, n, sat)
                i = j
        if plan[m, 2] == 1:
            _copy(out, u, arena, out_row, n)


_RO = dict(layout="C", readonly=True)
_F32 = types.Array(types.float32, 1, "C")
#: :func:`_direct_pass` compiled once for its one signature (the inputs, output and arena as float32 arrays).
DIRECT32 = Shared(_direct_pass, types.void(types.Array(types.int64, 2, **_RO), types.Array(types.int64, 2, "C"),
                                           types.Array(types.float32, 1, **_RO), types.Array(types.float32, 2, **_RO),
                                           _F32, _F32, _F32, _F32, _F32, types.int64, types.int64, types.int64,
                                           types.boolean),
                  "swishgrad_engine_direct32_v1", (__name__, "DIRECT32"))


@intrinsic
def run_direct(typingctx, code, plan, scalars, tables, in0, in1, in2, out, arena, offset, count, grain, sat):
    """:func:`_direct_pass` from jitted code, by a call of :data:`DIRECT32`."""
    args = (code, plan, scalars, tables, in0, in1, in2, out, arena, offset, count, grain, sat)
    DIRECT32.check_types(args)
    return types.void(*args), DIRECT32.lower_call


def run_if_direct(plan, code, scalars, tables, ins, out, offset, count, arena, grain, sat):
    """Run the flat pass of ``count`` elements from ``offset`` by ``plan`` (the stream's :func:`split`) where
    it runs so and the tensors are float32; whether it ran (jitted code only: else the machine runs it)."""
    raise NotImplementedError("run_if_direct is only callable from jitted code")


@overload(run_if_direct, jit_options=dict(cache=True, error_model="numpy"))
def _run_if_direct(plan, code, scalars, tables, ins, out, offset, count, arena, grain, sat):
    if not (isinstance(out, types.Array) and out.dtype == types.float32):
        return lambda plan, code, scalars, tables, ins, out, offset, count, arena, grain, sat: False

    def run(plan, code, scalars, tables, ins, out, offset, count, arena, grain, sat):
        if plan[plan.shape[0] - 1, 0] == 0:
            return False
        run_direct(code, plan, scalars, tables, ins[0], ins[1], ins[2], out, arena, offset, count, grain, sat)
        return True
    return run
