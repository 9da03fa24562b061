"""The kernels' instruction sequences, each written once (model sections 2 and 9).

Both kernels compute ``s'(x)`` in binary32, one instruction at a time, then
multiply by the gradient. The steps up to Exp are the same in both:
``xb = Muls(x, beta)`` and ``t = -xb`` (A2: ``Muls(xb, -1)``, 950: ``Neg``;
the same value exactly). After Exp they differ:

==========  ======================================  =====================================
step        Atlas A2 (:func:`a2_after_exp`)          Ascend 950 (:func:`arch35_after_exp`)
==========  ======================================  =====================================
Adds        ``t = e + 1``                            ``t = e + 1``
Div         ``o = 1 / t``  (sigmoid)                 ``s = 1 / t``  (sigmoid)
Sub         ``t = 1 - o``                            ``o = 1 - s``
Mul         ``xb = xb * t``                          ``o = o * xb``
            ``xb = 1 + xb`` (Add)                    ``o = o * s + s`` (MulDstAdd, one rounding)
            ``o = o * xb`` (Mul) -> s'(x)            -> s'(x)
==========  ======================================  =====================================

then ``out = g * s'(x)`` (A2's ``Mul(g, o)``, the 950's ``Mul(o, g)``: the
same product). The steps are split at the two instructions whose device
error is not public: :func:`before_exp` (up to Exp's argument), Exp,
:func:`adds_one` (Exp's result + 1), Div, :func:`after_div` (the rest), so
that :mod:`.envelope` perturbs Exp and Div on the same sequence. Each step
takes ``sat``: in the device's saturation overflow mode every instruction's
result goes through :func:`saturate`. Every step is one binary32 operation rounded to nearest
even; nothing else is fused or reordered (Numba emits no FMA without
fast-math flags, and none are set). The scalar path (:func:`derivative`,
which builds the 16-bit tables) and the vector path (:func:`compute_f32`,
float32 tiles) call these same inlined step functions.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from ..casts import bf16_bits_to_f32, f16_bits_to_f32, f32_to_bf16_bits, f32_to_f16_bits, widen_16
from ..dtypes import FLOAT16
from ..intrinsics import fma_f32, vectorise_full_width
from .exp import clamp_exp_arg, exact_exp_flags, exact_exp_mark, exp_f32, exp_fast, no_exact_flags, redo_marked

__all__ = ["ARCH_A2", "ARCH_950", "a2_after_exp", "arch35_after_exp",
           "a2_after_div", "arch35_after_div", "after_div", "adds_one", "before_exp", "saturate", "derivative",
           "derivative_mode", "derivative_table", "compute_f32", "compute_16", "compute_tile"]

#: Kernel selectors passed to the jitted code.
ARCH_A2 = 0
ARCH_950 = 1

_F16 = FLOAT16.code
_ONE = np.float32(1.0)

_F32_MAX = np.float32(np.finfo(np.float32).max)
_ZERO = np.float32(0.0)
_INF = np.float32(np.inf)


@njit(cache=True, error_model="numpy", inline="always")
def saturate(v, sat):
    """One instruction's binary32 result in the device's overflow mode: as is
    in Inf/NaN mode (``sat`` false); in saturation mode (``sat`` true) +-inf
    becomes +-FLT_MAX and NaN becomes +0 (model section 2, overflow modes).
    The kernels' hot loops pass a constant ``False``, which compiles away."""
    if sat:
        if v != v:
            return _ZERO
        if v == _INF:
            return _F32_MAX
        if v == -_INF:
            return -_F32_MAX
    return v


@njit(cache=True, error_model="numpy", inline="always")
def before_exp(x, beta, sat):
    """The steps up to Exp's argument, shared by both kernels: ``(xb, t)``."""
    xb = saturate(x * beta, sat)                      # Muls(x, beta)
    return xb, saturate(xb * np.float32(-1.0), sat)   # Muls(xb, -1) / Neg: the same value


@njit(cache=True, error_model="numpy", inline="always")
def adds_one(e, sat):
    """``Adds(t, 1)`` after Exp, both kernels: the divisor of the sigmoid's Div(1, t)."""
    return saturate(e + _ONE, sat)


@njit(cache=True, error_model="numpy", inline="always")
def a2_after_div(o, xb, sat):
    """The A2 steps after Div: ``o = 1 / (e + 1)`` (the sigmoid), ``xb = x * beta`` -> s'(x)."""
    t = saturate(_ONE - o, sat)     # Duplicate(1) ; Sub
    xb = saturate(xb * t, sat)      # Mul   beta*x*(1 - sigmoid)
    xb = saturate(_ONE + xb, sat)   # Duplicate(1) ; Add
    return saturate(o * xb, sat)    # Mul   -> s'(x)


@njit(cache=True, error_model="numpy", inline="always")
def arch35_after_div(s, xb, sat):
    """The 950 steps after Div: ``s = 1 / (e + 1)`` (the sigmoid), ``xb = x * beta`` -> s'(x)."""
    o = saturate(_ONE - s, sat)           # Sub(1, s)
    o = saturate(o * xb, sat)             # Mul(o, beta*x)
    return saturate(fma_f32(o, s, s), sat)   # MulDstAdd(o, s, s): o*s + s, rounded once -> s'(x)


@njit(cache=True, error_model="numpy", inline="always")
def after_div(s, xb, arch, sat):
    """The steps after Div of kernel ``arch``."""
    if arch == ARCH_A2:
        return a2_after_div(s, xb, sat)
    return arch35_after_div(s, xb, sat)


@njit(cache=True, error_model="numpy", inline="always")
def a2_after_exp(e, xb):
    """The A2 steps after Exp: ``e = exp(-xb)``, ``xb = x * beta`` -> s'(x)."""
    return a2_after_div(_ONE / adds_one(e, False), xb, False)     # Adds(t, 1) ; Duplicate(1) ; Div


@njit(cache=True, error_model="numpy", inline="always")
def arch35_after_exp(e, xb):
    """The 950 steps after Exp: ``e = exp(-xb)``, ``xb = x * beta`` -> s'(x)."""
    return arch35_after_div(_ONE / adds_one(e, False), xb, False)  # Adds(t, 1) ; Div(1, t)


@njit(cache=True, error_model="numpy", inline="always")
def derivative_mode(x, beta, arch, sat):
    """s'(x) in binary32 by kernel ``arch``'s instruction sequence (one value), every
    instruction's result saturated when ``sat`` (the device's saturation mode)."""
    xb, t = before_exp(x, beta, sat)
    e = saturate(exp_f32(t), sat)                            # Exp
    return after_div(saturate(_ONE / adds_one(e, sat), sat), xb, arch, sat)   # Adds ; Div ; the rest


@njit(cache=True, error_model="numpy", inline="always")
def derivative(x, beta, arch):
    """s'(x) in binary32 by kernel ``arch``'s instruction sequence (one value)."""
    return derivative_mode(x, beta, arch, False)


@njit(parallel=True, cache=True, error_model="numpy")
def derivative_table(beta, dtype_code, arch, sat):
    """s'(x) in binary32 for each of the 65,536 bit patterns of a 16-bit x.

    x is widened exactly first (the kernels' first Cast), so a 16-bit tile
    only looks its x up here, then does the remaining steps. ``sat``: every
    instruction's result saturated (the device's saturation mode).
    """
    table = np.empty(65536, dtype=np.float32)
    for bits in prange(65536):
        xf = widen_16(np.uint16(bits), dtype_code)
        table[bits] = derivative_mode(xf, beta, arch, sat)
    return table


@njit(cache=True, error_model="numpy", inline="always")
def compute_f32(g_buf, x_buf, o_buf, work, a, b, beta, table, dtype_code, arch):
    """Elements ``[a, b)`` of one float32 tile: the whole sequence, step by step.

    ``work`` is the float32 scratch buffer (``t``); ``x_buf`` is overwritten
    with ``x * beta`` (as the device does in place). The first loop runs the
    steps up to Exp and vectorises; a running minimum of the Exp keys tells
    whether any element needs the exact path, and only then are those
    elements marked and redone. The steps after Exp run in one loop per
    element; each is still its own binary32 operation, in order. Indices are
    unsigned so that the loops carry no negative-index checks.
    """
    vectorise_full_width()
    key_min, sub_min = no_exact_flags()
    for i in range(b - a):
        j = np.uint64(a + i)
        xb = x_buf[j] * beta                                  # Muls(x, beta)
        x_buf[j] = xb
        d, key, sub = exp_fast(clamp_exp_arg(xb * np.float32(-1.0)))   # Muls(xb, -1) / Neg ; Exp
        key_min = min(key_min, key)
        sub_min = min(sub_min, sub)
        work[j] = np.float32(d)
    if exact_exp_flags(key_min, sub_min):
        # Mark the elements that take the exact path in o_buf (free until
        # the last loop), then redo only those.
        for i in range(b - a):
            j = np.uint64(a + i)
            o_buf[j] = exact_exp_mark(clamp_exp_arg(x_buf[j] * np.float32(-1.0)))
        redo_marked(work, x_buf, np.float32(-1.0), o_buf, a, b)
    if arch == ARCH_A2:
        for i in range(b - a):
            j = np.uint64(a + i)
            o_buf[j] = g_buf[j] * a2_after_exp(work[j], x_buf[j])
    else:
        for i in range(b - a):
            j = np.uint64(a + i)
            o_buf[j] = g_buf[j] * arch35_after_exp(work[j], x_buf[j])


@njit(cache=True, error_model="numpy", inline="always")
def compute_16(g_buf, x_buf, o_buf, work, a, b, beta, table, dtype_code, arch):
    """Elements ``[a, b)`` of one float16/bfloat16 tile, on bit patterns.

    ``table[bits]`` is s'(x) for the x with those bits (:func:`derivative_table`
    of this kernel); what remains per element is the widening of g, the last
    Mul and the ``CAST_RINT`` narrowing. The lookup is its own loop so that
    the arithmetic loop vectorises.
    """
    vectorise_full_width()
    for i in range(b - a):
        j = np.uint64(a + i)
        work[j] = table[x_buf[j]]
    if dtype_code == _F16:
        for i in range(b - a):
            j = np.uint64(a + i)
            o_buf[j] = f32_to_f16_bits(f16_bits_to_f32(g_buf[j]) * work[j])
    else:
        for i in range(b - a):
            j = np.uint64(a + i)
            o_buf[j] = f32_to_bf16_bits(bf16_bits_to_f32(g_buf[j]) * work[j])


def compute_tile(g_buf, x_buf, o_buf, work, a, b, beta, table, dtype_code, arch):
    """Elements ``[a, b)`` of one tile; resolved at compile time by the buffers' element type."""
    raise NotImplementedError("compute_tile is only callable from jitted code")


@overload(compute_tile, inline="always")
def _compute_tile_overload(g_buf, x_buf, o_buf, work, a, b, beta, table, dtype_code, arch):
    # float32 buffers take the full sequence; uint16 buffers hold
    # float16/bfloat16 bits. Choosing here (not by passing a function) keeps
    # the launch functions cacheable on disk. The callers pass whole buffers
    # and a range: a slice view per call would cost reference counting.
    if isinstance(g_buf, types.Array) and g_buf.dtype == types.float32:
        return compute_f32.py_func
    if isinstance(g_buf, types.Array) and g_buf.dtype == types.uint16:
        return compute_16.py_func
    return None
