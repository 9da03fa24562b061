"""The vector machine: one instruction stream over a block of the arena, compiled once.

:func:`execute` runs each instruction of a stream (:mod:`.opcodes`) over ``count`` elements of its
arena rows, one loop per instruction, each element by the instruction's function in
:mod:`swishgrad_numba.program.semantics` (the one definition, which the interpreter of the tests and
the fused passes share): nothing of the arithmetic is restated here. The overflow mode is a runtime
flag: each instruction's loop exists twice, with ``sat`` a constant in each, so the choice is made
once per instruction, never per element. Exp takes the fast binary64 path of
:mod:`swishgrad_numba.kernel.exp` and redoes only the elements its running minima flag.

The machine trusts its stream: :func:`.stream.check` has checked every offset and index before a
launch runs it.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..dtypes import FLOAT16
from ..kernel.envelope import ulp_shift
from ..kernel.exp import clamp_exp_arg, exact_exp_flags, exact_exp_mark, exp_fast, no_exact_flags, redo_marked
from ..program import semantics as S
from .opcodes import (ABS, ADD, ADDS, AND, AXPY_FUSED, AXPY_UNFUSED, CAST_F16_I8, CAST_I8_F16, CAST_I32_F32,
                      CAST_NONE, CAST_RINT, CAST_ROUND, COMPARE, COMPARE_SCALAR, DIV, DST, DUPLICATE, EXP, K0, K1,
                      LN, LOOKUP, MAX, MAXS, MIN, MINS, MODE, MUL, MUL_DST_ADD, MULS, NEG, OP, OR, RECIPROCAL,
                      SELECT, SELECT_SCALAR, SHIFT_RIGHT, SRC0, SRC1, SRC2, SUB, ULP_SHIFT)

__all__ = ["execute"]

_F16 = FLOAT16.code
_ONE = np.float32(1.0)


@njit(cache=True, error_model="numpy", inline="always")
def _unary(f, d, a, n, sat):
    if sat:
        for j in range(n):
            d[j] = f(a[j], True)
    else:
        for j in range(n):
            d[j] = f(a[j], False)


@njit(cache=True, error_model="numpy", inline="always")
def _binary(f, d, a, b, n, sat):
    if sat:
        for j in range(n):
            d[j] = f(a[j], b[j], True)
    else:
        for j in range(n):
            d[j] = f(a[j], b[j], False)


@njit(cache=True, error_model="numpy", inline="always")
def _scalar(f, d, a, k, n, sat):
    if sat:
        for j in range(n):
            d[j] = f(a[j], k, True)
    else:
        for j in range(n):
            d[j] = f(a[j], k, False)


@njit(cache=True, error_model="numpy", inline="always")
def _ternary(f, d, a, b, c, n, sat):
    if sat:
        for j in range(n):
            d[j] = f(a[j], b[j], c[j], True)
    else:
        for j in range(n):
            d[j] = f(a[j], b[j], c[j], False)


@njit(cache=True, error_model="numpy", inline="always")
def _axpy(f, d, a, b, k, n, sat):
    if sat:
        for j in range(n):
            d[j] = f(a[j], b[j], k, True)
    else:
        for j in range(n):
            d[j] = f(a[j], b[j], k, False)


@njit(cache=True, error_model="numpy", inline="always")
def _compare(f, d, a, b, n):
    for j in range(n):
        d[j] = np.float32(f(a[j], b[j], False))   # a mask never saturates


@njit(cache=True, error_model="numpy", inline="always")
def _compare_scalar(f, d, a, k, n):
    for j in range(n):
        d[j] = np.float32(f(a[j], k, False))


@njit(cache=True, error_model="numpy", inline="always")
def _compare_by_mode(mode, d, a, b, n):
    if mode == 0:
        _compare(S.compare_lt, d, a, b, n)
    elif mode == 1:
        _compare(S.compare_gt, d, a, b, n)
    elif mode == 2:
        _compare(S.compare_eq, d, a, b, n)
    elif mode == 3:
        _compare(S.compare_le, d, a, b, n)
    elif mode == 4:
        _compare(S.compare_ge, d, a, b, n)
    else:
        _compare(S.compare_ne, d, a, b, n)


@njit(cache=True, error_model="numpy", inline="always")
def _compare_scalar_by_mode(mode, d, a, k, n):
    if mode == 0:
        _compare_scalar(S.compare_lt, d, a, k, n)
    elif mode == 1:
        _compare_scalar(S.compare_gt, d, a, k, n)
    elif mode == 2:
        _compare_scalar(S.compare_eq, d, a, k, n)
    elif mode == 3:
        _compare_scalar(S.compare_le, d, a, k, n)
    elif mode == 4:
        _compare_scalar(S.compare_ge, d, a, k, n)
    else:
        _compare_scalar(S.compare_ne, d, a, k, n)


@njit(cache=True, error_model="numpy", inline="always")
def _exp(d, a, marks, n, sat):
    """Exp over the block: the fast path, then the exact redo of the flagged elements only."""
    key_min, sub_min = no_exact_flags()
    for j in range(n):
        e, key, sub = exp_fast(clamp_exp_arg(a[j]))
        key_min = min(key_min, key)
        sub_min = min(sub_min, sub)
        d[j] = np.float32(e)
    if exact_exp_flags(key_min, sub_min):
        for j in range(n):
            marks[j] = exact_exp_mark(clamp_exp_arg(a[j]))
        redo_marked(d, a, _ONE, marks, 0, n)
    if sat:
        for j in range(n):
            d[j] = S.saturate(d[j], True)


@njit(cache=True, error_model="numpy", inline="always")
def _narrow(f, d, a, code, n, sat):
    """A narrowing Cast's 16-bit bits, kept as the number they are."""
    if code == _F16:
        if sat:
            for j in range(n):
                d[j] = np.float32(f(a[j], _F16, True))
        else:
            for j in range(n):
                d[j] = np.float32(f(a[j], _F16, False))
    else:
        if sat:
            for j in range(n):
                d[j] = np.float32(f(a[j], code, True))
        else:
            for j in range(n):
                d[j] = np.float32(f(a[j], code, False))


@njit(cache=True, error_model="numpy", inline="always")
def _widen(d, a, code, n):
    if code == _F16:
        for j in range(n):
            d[j] = S.cast_none(np.uint16(a[j]), _F16)
    else:
        for j in range(n):
            d[j] = S.cast_none(np.uint16(a[j]), code)


@njit(cache=True, error_model="numpy")
def execute(code, scalars, tables, arena, count, sat):
    """Run the stream ``code`` over ``count`` elements of each of its rows of ``arena``."""
    n = count
    for i in range(code.shape[0]):
        op = code[i, OP]
        d = arena[code[i, DST]:code[i, DST] + n]
        a = arena[code[i, SRC0]:code[i, SRC0] + n]
        b = arena[code[i, SRC1]:code[i, SRC1] + n]
        c = arena[code[i, SRC2]:code[i, SRC2] + n]
        k = scalars[code[i, K0]]
        mode = code[i, MODE]
        if op == MUL:
            _binary(S.mul, d, a, b, n, sat)
        elif op == ADD:
            _binary(S.add, d, a, b, n, sat)
        elif op == MULS:
            _scalar(S.muls, d, a, k, n, sat)
        elif op == ADDS:
            _scalar(S.adds, d, a, k, n, sat)
        elif op == EXP:
            _exp(d, a, b, n, sat)
        elif op == SUB:
            _binary(S.sub, d, a, b, n, sat)
        elif op == DIV:
            _binary(S.div, d, a, b, n, sat)
        elif op == CAST_NONE:
            _widen(d, a, mode, n)
        elif op == CAST_RINT:
            _narrow(S.cast_rint, d, a, mode, n, sat)
        elif op == LOOKUP:
            for j in range(n):
                d[j] = tables[mode, np.int64(a[j]) & 0xFFFF]
        elif op == MUL_DST_ADD:
            _ternary(S.mul_dst_add, d, a, b, c, n, sat)
        elif op == AXPY_FUSED:
            _axpy(S.axpy_fused, d, a, b, k, n, sat)
        elif op == RECIPROCAL:
            _unary(S.reciprocal, d, a, n, sat)
        elif op == NEG:
            _unary(S.neg, d, a, n, sat)
        elif op == ABS:
            _unary(S.abs_, d, a, n, sat)
        elif op == LN:
            _unary(S.ln, d, a, n, sat)
        elif op == MAX:
            _binary(S.max_, d, a, b, n, sat)
        elif op == MIN:
            _binary(S.min_, d, a, b, n, sat)
        elif op == MAXS:
            _scalar(S.max_, d, a, k, n, sat)
        elif op == MINS:
            _scalar(S.min_, d, a, k, n, sat)
        elif op == AND:
            _binary(S.and_, d, a, b, n, sat)
        elif op == OR:
            _binary(S.or_, d, a, b, n, sat)
        elif op == DUPLICATE:
            v = S.duplicate(k, sat)
            for j in range(n):
                d[j] = v
        elif op == AXPY_UNFUSED:
            _axpy(S.axpy_unfused, d, a, b, k, n, sat)
        elif op == COMPARE:
            _compare_by_mode(mode, d, a, b, n)
        elif op == COMPARE_SCALAR:
            _compare_scalar_by_mode(mode, d, a, k, n)
        elif op == SELECT:
            if sat:
                for j in range(n):
                    d[j] = S.select(a[j], b[j], np.uint8(c[j]), True)
            else:
                for j in range(n):
                    d[j] = S.select(a[j], b[j], np.uint8(c[j]), False)
        elif op == SELECT_SCALAR:
            if sat:
                for j in range(n):
                    d[j] = S.select_scalar(a[j], np.uint8(b[j]), k, True)
            else:
                for j in range(n):
                    d[j] = S.select_scalar(a[j], np.uint8(b[j]), k, False)
        elif op == CAST_ROUND:
            _narrow(S.cast_round, d, a, mode, n, sat)
        elif op == SHIFT_RIGHT:
            for j in range(n):
                d[j] = np.int32(S.shift_right(a[j], k, False)).view(np.float32)
        elif op == CAST_I32_F32:
            for j in range(n):
                d[j] = S.cast_i32_f32(np.float32(a[j]).view(np.int32))
        elif op == CAST_F16_I8:
            for j in range(n):
                d[j] = np.float32(S.cast_f16_i8(np.uint16(a[j])))
        elif op == CAST_I8_F16:
            for j in range(n):
                d[j] = np.float32(S.cast_i8_f16(np.int8(a[j])))
        elif op == ULP_SHIFT:
            k1 = scalars[code[i, K1]]
            for j in range(n):
                d[j] = ulp_shift(a[j], k, k1)
