"""SiluGrad's hand-written instruction sequence, once for both kernels: z(x), its 16-bit tables, the
pass function (:class:`SiluGradPass`, registered with :func:`swishgrad_numba.kernel.walk.register_pass`),
kept for the benchmark (both kernels run the program of :mod:`swishgrad_numba.ops.silu_grad.program`).

Both kernels run the same steps in the same order (the products commute):
:func:`silu_derivative` is ``z(x)``, the factor ``dy`` is multiplied by
last, so a 16-bit ``x`` looks ``z`` up in a 65,536-entry table built by the
same sequence. The jitted functions are private but for
:func:`silu_derivative`.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from ..casts import f32_to_bf16_bits, f32_to_f16_bits, widen_16
from ..dtypes import FLOAT16, dtype_info
from .exp import exp_f32, vexp_f32
from . import TableCache
from .walk import register_pass

__all__ = ["silu_derivative", "derivative_table", "SiluGradPass"]


_ONE = np.float32(1.0)
_MINUS_ONE = np.float32(-1.0)
_F16 = FLOAT16.code


@njit(cache=True, error_model="numpy", inline="always")
def _after_exp(e, x):
    """The steps after Exp, ``e = exp(-x)`` -> z(x); ``dx = dy * z`` follows."""
    t = e + _ONE          # Adds(t, 1)
    s = _ONE / t          # Duplicate(1) ; Div(1, t)   -> sigmoid(x)
    t = _ONE - s          # Sub(1, s)
    t = x * t             # Mul(x, 1 - s)   (950: Mul(1 - s, x), the same product)
    t = t + _ONE          # Adds(t, 1)      (950: Add(1, t))
    return s * t          # Mul(s, t)       -> z(x)


@njit(cache=True, error_model="numpy", inline="always")
def silu_derivative(x):
    """z(x) in binary32, the factor ``dy`` is multiplied by (one value)."""
    return _after_exp(exp_f32(x * _MINUS_ONE), x)   # Muls(x, -1) ; Exp ; ...


@njit(parallel=True, cache=True, error_model="numpy")
def _derivative_table(dtype_code):
    table = np.empty(65536, dtype=np.float32)
    for bits in prange(65536):
        table[bits] = silu_derivative(widen_16(np.uint16(bits), dtype_code))
    return table


_TABLES = TableCache(size=2)   # one per 16-bit dtype


def derivative_table(dtype) -> np.ndarray:
    """z(x) for each of the 65,536 bit patterns of a float16 or bfloat16 x (read-only, cached)."""
    info = dtype_info(dtype)
    if info.itemsize != 2:
        raise ValueError(f"derivative tables are for 16-bit dtypes, got {info.name}")
    return _TABLES.get(info.name, lambda: _derivative_table(info.code))


def _widen(v, code):
    """A buffer element as float32 (exact): float32 as is, 16-bit bits by dtype code."""
    raise NotImplementedError("jitted code only")


@overload(_widen, inline="always")
def _widen_overload(v, code):
    if isinstance(v, types.Float):
        return lambda v, code: v

    return lambda v, code: widen_16(v, code)


def _narrow(buf, v, code):
    """float32 ``v`` as ``buf``'s element: float32 as is, 16-bit by CAST_RINT."""
    raise NotImplementedError("jitted code only")


@overload(_narrow, inline="always")
def _narrow_overload(buf, v, code):
    if buf.dtype == types.float32:
        return lambda buf, v, code: v

    def impl(buf, v, code):
        if code == _F16:
            return f32_to_f16_bits(v)
        return f32_to_bf16_bits(v)
    return impl


def _derive(x_buf, z, a, b, table):
    """``z[a:b] = z(x_buf[a:b])``."""
    raise NotImplementedError("jitted code only")


@overload(_derive, inline="always")
def _derive_overload(x_buf, z, a, b, table):
    if x_buf.dtype == types.float32:
        def impl(x_buf, z, a, b, table):
            vexp_f32(z[a:b], x_buf[a:b], b - a, _MINUS_ONE)   # Muls(x, -1) ; Exp  (exact path where needed)
            for i in range(b - a):
                k = np.uint64(a + i)   # unsigned: no negative-index fix-up per access
                z[k] = _after_exp(z[k], x_buf[k])
        return impl

    def impl16(x_buf, z, a, b, table):                       # widened exactly, then the whole sequence: a lookup
        for i in range(b - a):
            k = np.uint64(a + i)
            z[k] = table[x_buf[k]]
    return impl16


@njit(cache=True, error_model="numpy", inline="always")
def _compute(dy_buf, x_buf, o_buf, z, a, b, table, dy_code, out_code):
    """Elements ``[a, b)`` of one pass: ``o = narrow(widen(dy) * z(x))``."""
    _derive(x_buf, z, a, b, table)
    for i in range(b - a):
        k = np.uint64(a + i)
        o_buf[k] = _narrow(o_buf, _widen(dy_buf[k], dy_code) * z[k], out_code)   # Mul(dy, z) ; Cast CAST_RINT


class SiluGradPass(NamedTuple):
    """A launch's parameters: the 16-bit z(x) table (a dummy for float32 x),
    the dtype codes of ``dy`` and of the output."""

    table: np.ndarray
    dy_code: int
    out_code: int


@register_pass(SiluGradPass)
@njit(cache=True, error_model="numpy", inline="always")
def _silu_grad_pass(params, in_bufs, o_buf, work, a, b):
    # in_bufs: dy, then x; work[0]: z
    _compute(in_bufs[0], in_bufs[1], o_buf, work[0], a, b, params.table, params.dy_code, params.out_code)
