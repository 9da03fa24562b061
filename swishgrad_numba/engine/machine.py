"""The vector machine: one instruction stream over a block of the arena, compiled once.

:func:`execute` runs each instruction of a stream (:mod:`.opcodes`) over ``count`` elements of its
arena rows, one loop per instruction, each element by the instruction's function in
:mod:`swishgrad_numba.program.semantics` (the one definition, which the interpreter of the tests and
the hot loops share): nothing of the arithmetic is restated here. The overflow mode is a runtime
flag: each instruction's loop exists twice, with ``sat`` a constant in each, so the choice is made
once per instruction, never per element. Most instructions' loops (:func:`_binary` and the like) are
jitted functions of their own that :func:`execute` calls, not inlines at Numba IR level: Numba's SSA and
reaching-definition passes over one function holding them all were most of a cold process's compile (issue
39); the semantics are still inlined into each loop. The regular instructions (:data:`.opcodes.REGULAR`: each
opcode's operand form and semantics function, the table the hot tier's generator reads too) are not written out
here: :func:`_regular`, made at import from that table, holds a branch per opcode calling its form's loop with
its function; it is inlined into :func:`execute` at Numba IR level (a few calls: no measurable compile time,
where a function of its own cost 7% of the machine's cold compile: bench/RESULTS.md, onetable). Exp takes the
fast binary64 path of :mod:`swishgrad_numba.kernel.exp` and redoes only the elements its running minima flag.

The machine is compiled once (:data:`MACHINE`, :mod:`.shared`): every launch calls it by its symbol
(:func:`run_machine`), none compiles it again.

The machine trusts its stream: :func:`.stream.check` has checked every offset and index before a
launch runs it.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from ..dtypes import BFLOAT16, FLOAT16
from ..intrinsics import vectorise_full_width
from ..kernel.envelope import ulp_shift
from ..kernel.exp import exp_block
from ..kernel.ln import ln_exact, ln_fast, ln_flagged
from ..program import semantics as S
from .shared import Shared
from ..program import int_casts as IC
from .opcodes import (AND, BITWISE, CAST_F16_I8, CAST_FLOOR, CAST_FROM_INT, CAST_I32_F32, CAST_I8_F16, CAST_NONE,
                      CAST_ODD_INF, CAST_RINT, CAST_ROUND, CAST_TO_INT, CAST_WHOLE, COMPARE, COMPARE_SCALAR, DST,
                      DUPLICATE, EXP, FORMS, K0, K1, LN, LOOKUP, MODE, NAMES, OP, OR, REGULAR, SELECT, SELECT_SCALAR,
                      SHIFT_RIGHT, SRC0, SRC1, SRC2, ULP_SHIFT)

__all__ = ["execute", "MACHINE", "run_machine"]

_F16 = FLOAT16.code


@njit(cache=True, error_model="numpy")
def _unary(f, ar, d, a, n, sat):
    vectorise_full_width()
    if sat:
        for i in range(n):
            j = np.uint64(i)
            ar[d + j] = f(ar[a + j], True)
    else:
        for i in range(n):
            j = np.uint64(i)
            ar[d + j] = f(ar[a + j], False)


@njit(cache=True, error_model="numpy")
def _binary(f, ar, d, a, b, n, sat):
    vectorise_full_width()
    if sat:
        for i in range(n):
            j = np.uint64(i)
            ar[d + j] = f(ar[a + j], ar[b + j], True)
    else:
        for i in range(n):
            j = np.uint64(i)
            ar[d + j] = f(ar[a + j], ar[b + j], False)


@njit(cache=True, error_model="numpy")
def _scalar(f, ar, d, a, k, n, sat):
    vectorise_full_width()
    if sat:
        for i in range(n):
            j = np.uint64(i)
            ar[d + j] = f(ar[a + j], k, True)
    else:
        for i in range(n):
            j = np.uint64(i)
            ar[d + j] = f(ar[a + j], k, False)


@njit(cache=True, error_model="numpy")
def _ternary(f, ar, d, a, b, c, n, sat):
    vectorise_full_width()
    if sat:
        for i in range(n):
            j = np.uint64(i)
            ar[d + j] = f(ar[a + j], ar[b + j], ar[c + j], True)
    else:
        for i in range(n):
            j = np.uint64(i)
            ar[d + j] = f(ar[a + j], ar[b + j], ar[c + j], False)


@njit(cache=True, error_model="numpy")
def _axpy(f, ar, d, a, b, k, n, sat):
    vectorise_full_width()
    if sat:
        for i in range(n):
            j = np.uint64(i)
            ar[d + j] = f(ar[a + j], ar[b + j], k, True)
    else:
        for i in range(n):
            j = np.uint64(i)
            ar[d + j] = f(ar[a + j], ar[b + j], k, False)


@njit(cache=True, error_model="numpy")
def _compare(f, ar, d, a, b, k, n, scalar):
    """A mask row (0 or 1): ``src0 <mode> src1``, ``src1`` the scalar ``k`` where ``scalar`` (a mask
    never saturates)."""
    vectorise_full_width()
    if scalar:
        for i in range(n):
            j = np.uint64(i)
            ar[d + j] = np.float32(f(ar[a + j], k, False))
    else:
        for i in range(n):
            j = np.uint64(i)
            ar[d + j] = np.float32(f(ar[a + j], ar[b + j], False))


@njit(cache=True, error_model="numpy")
def _compare_by_mode(mode, ar, d, a, b, k, n, scalar):
    """COMPARE (``scalar`` false) and COMPARE_SCALAR: the comparison of ``mode`` (:data:`.opcodes.CMP_MODES`)."""
    if mode == 0:
        _compare(S.compare_lt, ar, d, a, b, k, n, scalar)
    elif mode == 1:
        _compare(S.compare_gt, ar, d, a, b, k, n, scalar)
    elif mode == 2:
        _compare(S.compare_eq, ar, d, a, b, k, n, scalar)
    elif mode == 3:
        _compare(S.compare_le, ar, d, a, b, k, n, scalar)
    elif mode == 4:
        _compare(S.compare_ge, ar, d, a, b, k, n, scalar)
    else:
        _compare(S.compare_ne, ar, d, a, b, k, n, scalar)


@njit(cache=True, error_model="numpy")
def _exp(ar, d, a, m, n, sat):
    """Exp over the block (:func:`swishgrad_numba.kernel.exp.exp_block`: the fast path, then the exact
    redo of the flagged elements only, marks in the row at ``m``)."""
    vectorise_full_width()
    exp_block(ar, d, ar, a, ar, m, n)
    if sat:
        for i in range(n):
            j = np.uint64(i)
            ar[d + j] = S.saturate(ar[d + j], True)


@njit(cache=True, error_model="numpy")
def _lookup(table, ar, d, a, n):
    """LOOKUP: the table's entry at the source's 16-bit bits (held as the number they are). The index is
    taken as an int32 (the same value: 0 .. 65535), so the gather uses 32-bit indices, 16 lanes at once."""
    vectorise_full_width()
    for i in range(n):
        j = np.uint64(i)
        ar[d + j] = table[np.int32(ar[a + j]) & np.int32(0xFFFF)]


@njit(cache=True, error_model="numpy")
def _ln(ar, d, a, n, sat):
    """Ln over the block: the vectorised fast path (:func:`swishgrad_numba.kernel.ln.ln_fast`), then, in a
    block with a flagged element only, the exact path for those elements (the same values as
    :func:`swishgrad_numba.program.semantics.ln`, element by element)."""
    vectorise_full_width()
    key_min = np.uint64(0xFFFFFFFFFFFFFFFF)
    for i in range(n):
        j = np.uint64(i)
        r, key = ln_fast(ar[a + j])
        key_min = min(key_min, key)
        ar[d + j] = r
    if ln_flagged(key_min):
        for i in range(n):
            j = np.uint64(i)
            r, key = ln_fast(ar[a + j])
            if ln_flagged(key):
                ar[d + j] = ln_exact(ar[a + j])
    if sat:
        for i in range(n):
            j = np.uint64(i)
            ar[d + j] = S.saturate(ar[d + j], True)


@njit(cache=True, error_model="numpy")
def _narrow(f, ar, d, a, code, n, sat):
    """A narrowing Cast's 16-bit bits, kept as the number they are."""
    vectorise_full_width()
    if code == _F16:
        if sat:
            for i in range(n):
                j = np.uint64(i)
                ar[d + j] = np.float32(f(ar[a + j], _F16, True))
        else:
            for i in range(n):
                j = np.uint64(i)
                ar[d + j] = np.float32(f(ar[a + j], _F16, False))
    else:
        if sat:
            for i in range(n):
                j = np.uint64(i)
                ar[d + j] = np.float32(f(ar[a + j], code, True))
        else:
            for i in range(n):
                j = np.uint64(i)
                ar[d + j] = np.float32(f(ar[a + j], code, False))


@njit(cache=True, error_model="numpy")
def _widen(ar, d, a, code, n):
    vectorise_full_width()
    if code == _F16:
        for i in range(n):
            j = np.uint64(i)
            ar[d + j] = S.cast_none(np.uint16(ar[a + j]), _F16)
    else:
        for i in range(n):
            j = np.uint64(i)
            ar[d + j] = S.cast_none(np.uint16(ar[a + j]), code)


#: CAST_TO_INT's integer bounds and source dtype codes, by the mode's fields (program.int_casts.TO_INT_KINDS)
_INT_LO = tuple(IC.INT_RANGES[k][0] for k in IC.TO_INT_KINDS[0])
_INT_HI = tuple(IC.INT_RANGES[k][1] for k in IC.TO_INT_KINDS[0])
_SRC_CODES = (-1, _F16, BFLOAT16.code)


@njit(cache=True, error_model="numpy")
def _to_int(ar, d, a, mode, n):
    """A float -> integer Cast (issue 43): an int32 or int16 kept as its bits, the others as their numbers."""
    vectorise_full_width()
    how, dk, code, wrap = mode % 8, (mode // 8) % 8, _SRC_CODES[(mode // 64) % 4], mode >= 256
    lo, hi = _INT_LO[dk], _INT_HI[dk]
    for t in range(n):
        j = np.uint64(t)
        r = IC.cast_to_int(ar[a + j], code, how, lo, hi, wrap)
        if dk == 0:
            ar[d + j] = np.int32(r).view(np.float32)
        elif dk == 1:      # an int16 as its 16 bits (program.isa.BITS_DTYPE)
            ar[d + j] = np.float32(IC.int16_bits(r))
        else:
            ar[d + j] = np.float32(r)


@njit(cache=True, error_model="numpy")
def _from_int(ar, d, a, mode, n):
    """An integer -> float Cast (issue 43): int32 (its bits) -> float32, int16 (its bits) -> float16 bits or
    float32."""
    vectorise_full_width()
    how, kind = mode % 8, mode // 8
    if kind == 0:
        for t in range(n):
            j = np.uint64(t)
            ar[d + j] = IC.cast_int_to_f32(np.float32(ar[a + j]).view(np.int32), how)
    elif kind == 1:
        for t in range(n):
            j = np.uint64(t)
            ar[d + j] = np.float32(IC.cast_int_to_16(IC.int16_value(ar[a + j]), how))
    else:
        for t in range(n):
            j = np.uint64(t)
            ar[d + j] = np.float32(IC.int16_value(ar[a + j]))


#: Each form's loop (:data:`.opcodes.FORMS`).
_LOOPS = {"unary": _unary, "binary": _binary, "scalar": _scalar, "ternary": _ternary, "axpy": _axpy}
#: The forms' operands as :func:`execute` and :func:`_regular` name them, by field.
_OPERANDS = {SRC0: "a", SRC1: "b", SRC2: "c", K0: "k"}


def _regular_source() -> str:
    """The source of ``_regular(op, ar, d, a, b, c, k, n, sat)``: one branch per instruction of
    :data:`.opcodes.REGULAR`, its form's loop (``loop_<form>``) of its semantics function (``S.<name>``) on the
    form's operands; nothing for another opcode."""
    lines = ['@njit(cache=True, error_model="numpy", inline="always")', "def _regular(op, ar, d, a, b, c, k, n, sat):"]
    for i, (code, (form, name)) in enumerate(REGULAR.items()):
        operands = ", ".join(_OPERANDS[field] for field in FORMS[form])
        lines += [f"    {'el' if i else ''}if op == {code}:   # {NAMES[code]}",
                  f"        loop_{form}(S.{name}, ar, d, {operands}, n, sat)"]
    return "\n".join(lines) + "\n"


def _bitwise_source() -> str:
    """The source of ``_bitwise(op, mode, ar, d, a, b, n, sat)``: a branch per instruction and mode of
    :data:`.opcodes.BITWISE`, mode 1's function on the patterns (as numbers), mode 0's the binary loop."""
    lines = ['@njit(cache=True, error_model="numpy", inline="always")', "def _bitwise(op, mode, ar, d, a, b, n, sat):"]
    for i, (code, (on_bits, on_patterns)) in enumerate(BITWISE.items()):
        lines += [f"    {'el' if i else ''}if op == {code} and mode == 1:   # {NAMES[code]}",
                  "        for t in range(n):",
                  "            j = np.uint64(t)",
                  f"            ar[d + j] = np.float32(S.{on_patterns}(ar[a + j], ar[b + j]))",
                  f"    elif op == {code}:",
                  f"        loop_binary(S.{on_bits}, ar, d, a, b, n, sat)"]
    return "\n".join(lines) + "\n"


def _made(source: str, name: str):
    """The jitted function ``name`` of ``source`` (its code objects name this file: Numba's disk cache locates a
    function by its source file)."""
    namespace = {"njit": njit, "np": np, "S": S, **{f"loop_{form}": loop for form, loop in _LOOPS.items()}}
    exec(compile(source, __file__, "exec"), namespace)   # noqa: S102 (source made from the opcode tables)
    return namespace[name]


#: The regular instructions' dispatch, made from :data:`.opcodes.REGULAR` (the table the hot tier reads too).
_regular = _made(_regular_source(), "_regular")
#: And and Or by mode, made from :data:`.opcodes.BITWISE` (the table the hot tier reads too).
_bitwise = _made(_bitwise_source(), "_bitwise")


@njit(cache=True, error_model="numpy")
def execute(code, scalars, tables, arena, count, sat):
    """Run the stream ``code`` over ``count`` elements of each of its rows of ``arena``.

    Rows are addressed by offset into the one arena, never as views (a view per operand would cost its
    reference counting); the offsets are unsigned, so no index wraps."""
    vectorise_full_width()
    n = count
    ar = arena
    for i in range(code.shape[0]):
        op = code[i, OP]
        d = np.uint64(code[i, DST])
        a = np.uint64(code[i, SRC0])
        b = np.uint64(code[i, SRC1])
        c = np.uint64(code[i, SRC2])
        k = scalars[code[i, K0]]
        mode = code[i, MODE]
        if op == EXP:
            _exp(ar, d, a, b, n, sat)
        elif op == CAST_NONE:
            _widen(ar, d, a, mode, n)
        elif op == CAST_RINT:
            _narrow(S.cast_rint, ar, d, a, mode, n, sat)
        elif op == LOOKUP:
            _lookup(tables[mode], ar, d, a, n)
        elif op == LN:
            _ln(ar, d, a, n, sat)
        elif op == AND or op == OR:
            _bitwise(op, mode, ar, d, a, b, n, sat)
        elif op == DUPLICATE:
            v = S.duplicate(k, sat)
            for t in range(n):
                ar[d + np.uint64(t)] = v
        elif op == COMPARE or op == COMPARE_SCALAR:   # one call: its loops compile once, not once per form
            _compare_by_mode(mode, ar, d, a, b, k, n, op == COMPARE_SCALAR)
        elif op == SELECT:
            if sat:
                for t in range(n):
                    j = np.uint64(t)
                    ar[d + j] = S.select(ar[a + j], ar[b + j], np.uint8(ar[c + j]), True)
            else:
                for t in range(n):
                    j = np.uint64(t)
                    ar[d + j] = S.select(ar[a + j], ar[b + j], np.uint8(ar[c + j]), False)
        elif op == SELECT_SCALAR:
            if sat:
                for t in range(n):
                    j = np.uint64(t)
                    ar[d + j] = S.select_scalar(ar[a + j], np.uint8(ar[b + j]), k, True)
            else:
                for t in range(n):
                    j = np.uint64(t)
                    ar[d + j] = S.select_scalar(ar[a + j], np.uint8(ar[b + j]), k, False)
        elif op == CAST_ROUND:
            _narrow(S.cast_round, ar, d, a, mode, n, sat)
        elif op == SHIFT_RIGHT:
            for t in range(n):
                j = np.uint64(t)
                ar[d + j] = np.int32(S.shift_right(ar[a + j], k, False)).view(np.float32)
        elif op == CAST_I32_F32:
            for t in range(n):
                j = np.uint64(t)
                ar[d + j] = S.cast_i32_f32(np.float32(ar[a + j]).view(np.int32))
        elif op == CAST_F16_I8:
            for t in range(n):
                j = np.uint64(t)
                ar[d + j] = np.float32(S.cast_f16_i8(np.uint16(ar[a + j])))
        elif op == CAST_I8_F16:
            for t in range(n):
                j = np.uint64(t)
                ar[d + j] = np.float32(S.cast_i8_f16(np.int8(ar[a + j])))
        elif CAST_FLOOR <= op <= CAST_ODD_INF:   # issue 43: the directed narrowings, then their "_INF" forms
            for t in range(n):
                j = np.uint64(t)
                ar[d + j] = np.float32(S.cast_directed(ar[a + j], mode, sat, op - CAST_FLOOR))
        elif op == CAST_TO_INT:
            _to_int(ar, d, a, mode, n)
        elif op == CAST_FROM_INT:
            _from_int(ar, d, a, mode, n)
        elif op == CAST_WHOLE:      # issue 43: Cast<float, float>, mode the round mode's index
            if sat:
                for t in range(n):
                    j = np.uint64(t)
                    ar[d + j] = S.cast_whole(ar[a + j], mode, True)
            else:
                for t in range(n):
                    j = np.uint64(t)
                    ar[d + j] = S.cast_whole(ar[a + j], mode, False)
        elif op == ULP_SHIFT:
            k1 = scalars[code[i, K1]]
            for t in range(n):
                j = np.uint64(t)
                ar[d + j] = ulp_shift(ar[a + j], k, k1)
        else:       # opcodes.REGULAR's, after the others (before them: a mixed block ~10% slower, RESULTS onetable)
            _regular(op, ar, d, a, b, c, k, n, sat)


_RO = dict(layout="C", readonly=True)
#: The machine, compiled once for its one signature (:class:`.shared.Shared`): the stream, its scalars and
#: tables read-only, the arena, the block's count, the overflow mode.
MACHINE = Shared(execute, types.void(types.Array(types.int64, 2, **_RO), types.Array(types.float32, 1, **_RO),
                                     types.Array(types.float32, 2, **_RO), types.Array(types.float32, 1, "C"),
                                     types.int64, types.boolean),
                 "swishgrad_engine_machine_v1", (__name__, "MACHINE"))


@intrinsic
def run_machine(typingctx, code, scalars, tables, arena, count, sat):
    """:func:`execute` from jitted code, by a call of :data:`MACHINE` (C-contiguous arrays)."""
    MACHINE.check_types((code, scalars, tables, arena, count, sat))
    return types.void(code, scalars, tables, arena, count, sat), MACHINE.lower_call
