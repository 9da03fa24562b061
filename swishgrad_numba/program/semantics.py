"""What each vector instruction computes, per element, defined once (model section 2).

One jitted function per instruction of :data:`.isa.INSTRUCTIONS` (a Cast per round mode);
the engine calls them (:mod:`swishgrad_numba.engine`: its machine, its hot loops and its 16-bit tables). Read against
the Ascend C API pages, one per instruction:

- float32 arithmetic (``Muls``, ``Adds``, ``Add``, ``Sub``, ``Mul``, ``Div``,
  ``Reciprocal``): one IEEE binary32 operation rounded to nearest even;
  nothing fused or reordered (no fast-math; Numba emits no FMA without it).
- ``Exp``: correctly rounded e**x (:mod:`swishgrad_numba.kernel.exp`).
- ``Ln`` (upstream ``Log``, ``Vec::Log``): correctly rounded binary32 natural logarithm
  (:mod:`swishgrad_numba.kernel.ln`); ln(+-0) = -inf, ln(negative) = NaN, ln(+inf) = +inf, NaN stays
  NaN. The device's rounding is not public (as Exp's): the model chooses the correctly rounded value
  (docs/model.md, "New instructions"). In saturation mode -inf is -FLT_MAX and NaN +0, as every result.
- ``MulDstAdd(dst, src0, src1)``: ``dst * src0 + src1`` rounded once (the
  950's ``vmadd``, model section 9).
- ``Axpy(dst, src, scalar)``: ``src * scalar + dst`` (MicroAPI ``Axpy``). Whether the device rounds
  once or twice is not public (docs/model.md "Gelu", "Axpy"): ``axpy_fused`` rounds once (the default,
  :data:`swishgrad_numba.platform.Platform.axpy_rounding` ``"fused"``), ``axpy_unfused`` rounds the
  product to float32, then the sum. In saturation mode only the result saturates (an infinite
  product inside the instruction is not a result).
- ``Compare(dst, src0, src1, mode)`` / ``CompareScalar(dst, src, scalar, mode)``: a mask element
  (uint8, :data:`.isa.MASK_DTYPE`) 1 where ``src0 <mode> src1`` holds, else 0, by IEEE 754's
  comparisons: with a NaN operand EQ, LT, GT, LE, GE are false and NE is true; -0 equals +0. A mask is
  not a float result: nothing saturates.
- ``Select(dst, src0, src1, mask)``: ``src0`` where the mask is 1, else ``src1`` (a tensor, or a
  scalar), unchanged; in saturation mode the chosen value saturates as every result does.
- ``Neg``: ``src * -1`` (model section 9: the same value as the A2's
  ``Muls(., -1)``; the NaN's sign is the CPU's multiply's).
- ``Max(dst, src0, src1)`` / ``Maxs(dst, src, scalar)``, ``Min`` / ``Mins``: the larger (smaller)
  operand, NaN propagating: a NaN first operand is the result, else a NaN second one (docs/model.md
  "New instructions": the Ascend C pages are silent on NaN, the upstream goldens accept only NaN
  propagation). Equal operands give the first, so ``Max(-0, +0)`` is -0: no kernel here compares two
  zeros, and the device's -0 rule is not public.
- ``Abs``: the sign bit cleared. ``Duplicate``: the scalar.
- ``FusedMulDstAdd(dst, src0, src1)``: MicroAPI's fused ``dst * src0 + src1``, rounded once: the same
  function as ``MulDstAdd`` (the name says fused; asc-devkit's Erf uses it as ``fmaf``).
- ``And`` / ``Or``: bitwise on the two operands' 32 bits (upstream reinterprets the registers as uint32,
  ``(RegTensor<uint32_t>&)``); on two masks (issue 43: opbase's ``Vec::And<uint8_t>`` / ``Vec::Or<uint8_t>``)
  the and / or of their 0-or-1 elements: the device combines the packed bits, and the bit of an element is
  the same either way; ``Not`` of a mask flips each element's bit. The engine computes them with ``and_``,
  ``or_`` and a CompareScalar EQ 0 on its one-per-element masks.
  A bit operation is not a float result: it never saturates.
- ``ShiftRight(dst, src, n)``: the float32 ``src``'s bits as uint32, shifted right by ``n`` (logical),
  into an int32 (``>> 31`` leaves the sign bit: 0 or 1). Integer: never saturates.
- Integer Casts (CAST_NONE): int32 -> float32 rounds to nearest even past 2^24 (the ``RoundMode`` page:
  CAST_NONE is CAST_RINT where precision is lost); float16 -> int8 rounds to nearest even and, where the
  value is outside [-128, 127] or NaN, gives the nearest bound or 0 (not public, chosen: the one kernel
  that casts, the A2 GeluGradV2, feeds it only 0 and 1); int8 -> float16 is exact. None saturates
  further in saturation mode (no result is inf or NaN).
- ``Relu``: ``src`` where ``src > 0``, a NaN as is, else +0 (-0 and every negative give +0). The Ascend C
  pages give ``dst = relu(src)`` only; the NaN and -0 rule is the upstream golden's
  (``activation/relu/tests/assets/golden.py``: ``np.maximum(x, 0)``, then -0 set to +0).
- On 16-bit float tensors (:data:`.isa.SIXTEEN_BIT_OPS`: Duplicate, Select, Compare, Relu), each instruction is
  its float32 meaning on the exact widenings, a 16-bit result narrowed back (exact: a picked element or
  a scalar the dtype holds).
- ``Cast``: CAST_NONE widens 16-bit exactly; RINT, ROUND (ties away), FLOOR, CEIL, TRUNC, ODD narrow to 16-bit
  (issue 43, :mod:`swishgrad_numba.casts`); float32 -> float32 gives a whole float32 (issue 43, ``cast_whole``).
- Subnormals are kept, never flushed (the model's ideal; the documented flush of the 950's Exp and Div
  is :mod:`swishgrad_numba.precision`'s envelope, not an instruction's semantics).
- Saturation mode (``sat`` true; model section 2, "Overflow modes"): every
  float32 result that would be +-inf is +-FLT_MAX and a NaN result is +0; a
  narrowing Cast gives the 16-bit dtype's largest finite of the sign, NaN
  +0. The exact widening Cast is not a computation and passes its value
  unchanged. Compiled code passes ``sat`` as a constant, so it costs nothing
  when false.

Each function is inlined at Numba IR level (``inline="always"``): the
float32 passes measured 20-25 % slower with calls left to LLVM.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..casts import (f32_to_bf16_bits, f32_to_bf16_bits_directed, f32_to_bf16_bits_round, f32_to_f16_bits,
                     f32_to_f16_bits_directed, f32_to_f16_bits_round, narrow_rint_not_nan, widen_16,
                     widen_16_quieting)
from ..dtypes import FLOAT16
from ..intrinsics import fma_f32
from ..kernel.exp import exp_f32
from ..kernel.ln import ln_f32
from .int_casts import f32_to_whole
from .overflow import saturate   # the overflow mode of every float32 result

__all__ = ["muls", "adds", "add", "sub", "mul", "div", "reciprocal", "neg", "abs_",
           "duplicate", "exp", "ln", "max_", "min_", "mul_dst_add", "cast_none", "cast_rint", "cast_round", "axpy_fused", "axpy_unfused",
           "relu", "compare_lt", "compare_gt", "compare_eq", "compare_le", "compare_ge", "compare_ne", "select",
           "select_scalar", "and_", "or_", "shift_right", "cast_i32_f32", "cast_f16_i8", "cast_i8_f16", "sqrt_",
           "cast_none_quieting", "cast_rint_not_nan", "cast_directed", "and16", "or16", "cast_whole"]

_F32_ZERO = np.float32(0.0)


_NEG_ONE = np.float32(-1.0)
_ONE = np.float32(1.0)
_F16 = FLOAT16.code
_F16_MAX = np.uint16(0x7BFF)    # 65504
_BF16_MAX = np.uint16(0x7F7F)   # (2 - 2**-7) * 2**127
_SIGN_OFF = np.uint32(0x7FFFFFFF)


@njit(cache=True, error_model="numpy", inline="always")
def muls(src, scalar, sat):
    return saturate(src * scalar, sat)


@njit(cache=True, error_model="numpy", inline="always")
def adds(src, scalar, sat):
    return saturate(src + scalar, sat)


@njit(cache=True, error_model="numpy", inline="always")
def add(src0, src1, sat):
    return saturate(src0 + src1, sat)


@njit(cache=True, error_model="numpy", inline="always")
def sub(src0, src1, sat):
    return saturate(src0 - src1, sat)


@njit(cache=True, error_model="numpy", inline="always")
def mul(src0, src1, sat):
    return saturate(src0 * src1, sat)


@njit(cache=True, error_model="numpy", inline="always")
def div(src0, src1, sat):
    return saturate(src0 / src1, sat)


@njit(cache=True, error_model="numpy", inline="always")
def reciprocal(src, sat):
    return saturate(_ONE / src, sat)


@njit(cache=True, error_model="numpy", inline="always")
def neg(src, sat):
    return saturate(src * _NEG_ONE, sat)


@njit(cache=True, error_model="numpy", inline="always")
def abs_(src, sat):
    return saturate(np.uint32(np.float32(src).view(np.uint32) & _SIGN_OFF).view(np.float32), sat)


@njit(cache=True, error_model="numpy", inline="always")
def max_(src0, src1, sat):
    return saturate(src0 if (src0 != src0 or src0 >= src1) else src1, sat)   # NaN in either: a NaN


@njit(cache=True, error_model="numpy", inline="always")
def min_(src0, src1, sat):
    return saturate(src0 if (src0 != src0 or src0 <= src1) else src1, sat)


@njit(cache=True, error_model="numpy", inline="always")
def duplicate(scalar, sat):
    return saturate(scalar, sat)


@njit(cache=True, error_model="numpy", inline="always")
def exp(src, sat):
    return saturate(exp_f32(src), sat)


@njit(cache=True, error_model="numpy", inline="always")
def ln(src, sat):
    return saturate(ln_f32(src), sat)


@njit(cache=True, error_model="numpy", inline="always")
def sqrt_(src, sat):
    """``Sqrt`` (issue 43): the correctly rounded binary32 square root, as the row machine's
    (:func:`.reductions.sqrt_`); sqrt(-0) = -0, a negative number's is NaN."""
    return saturate(np.sqrt(src), sat)


@njit(cache=True, error_model="numpy", inline="always")
def mul_dst_add(dst, src0, src1, sat):
    return saturate(fma_f32(dst, src0, src1), sat)


@njit(cache=True, error_model="numpy", inline="always")
def axpy_fused(dst, src, scalar, sat):
    return saturate(fma_f32(src, scalar, dst), sat)


@njit(cache=True, error_model="numpy", inline="always")
def axpy_unfused(dst, src, scalar, sat):
    return saturate(src * scalar + dst, sat)   # two float32 operations: two roundings


_TRUE, _FALSE = np.uint8(1), np.uint8(0)


@njit(cache=True, error_model="numpy", inline="always")
def compare_lt(src0, src1, sat):
    return _TRUE if src0 < src1 else _FALSE


@njit(cache=True, error_model="numpy", inline="always")
def compare_gt(src0, src1, sat):
    return _TRUE if src0 > src1 else _FALSE


@njit(cache=True, error_model="numpy", inline="always")
def compare_eq(src0, src1, sat):
    return _TRUE if src0 == src1 else _FALSE


@njit(cache=True, error_model="numpy", inline="always")
def compare_le(src0, src1, sat):
    return _TRUE if src0 <= src1 else _FALSE


@njit(cache=True, error_model="numpy", inline="always")
def compare_ge(src0, src1, sat):
    return _TRUE if src0 >= src1 else _FALSE


@njit(cache=True, error_model="numpy", inline="always")
def compare_ne(src0, src1, sat):
    return _TRUE if src0 != src1 else _FALSE


@njit(cache=True, error_model="numpy", inline="always")
def select(src0, src1, mask, sat):
    return saturate(src0 if mask != 0 else src1, sat)


@njit(cache=True, error_model="numpy", inline="always")
def select_scalar(src0, mask, scalar, sat):
    return saturate(src0 if mask != 0 else scalar, sat)


@njit(cache=True, error_model="numpy", inline="always")
def cast_none(bits, dtype_code):
    """16-bit bits -> float32, exactly."""
    return widen_16(bits, dtype_code)


@njit(cache=True, error_model="numpy", inline="always")
def _saturate_16(h, f, dtype_code, sat):
    """A narrowed result in saturation mode: inf -> the largest finite of its sign, NaN -> +0."""
    if sat:
        if f != f:
            return np.uint16(0)
        top = _F16_MAX if dtype_code == _F16 else _BF16_MAX
        if (h & np.uint16(0x7FFF)) > top:
            return np.uint16((h & np.uint16(0x8000)) | top)
    return h


@njit(cache=True, error_model="numpy", inline="always")
def cast_rint(f, dtype_code, sat):
    """float32 -> 16-bit bits, to nearest even."""
    h = f32_to_f16_bits(f) if dtype_code == _F16 else f32_to_bf16_bits(f)
    return _saturate_16(h, f, dtype_code, sat)


# the hot tier's Casts (engine.hot_source, which sets apart every block where a NaN could reach a result):
# cast_none but a float16 signalling NaN may come back quieted; cast_rint's bits in Inf/NaN mode but on a NaN
cast_none_quieting, cast_rint_not_nan = widen_16_quieting, narrow_rint_not_nan


@njit(cache=True, error_model="numpy", inline="always")
def cast_round(f, dtype_code, sat):
    """float32 -> 16-bit bits, to nearest, ties away from zero."""
    h = f32_to_f16_bits_round(f) if dtype_code == _F16 else f32_to_bf16_bits_round(f)
    return _saturate_16(h, f, dtype_code, sat)


@njit(cache=True, error_model="numpy", inline="always")
def and_(src0, src1, sat):
    return np.uint32(np.float32(src0).view(np.uint32) & np.float32(src1).view(np.uint32)).view(np.float32)


@njit(cache=True, error_model="numpy", inline="always")
def or_(src0, src1, sat):
    return np.uint32(np.float32(src0).view(np.uint32) | np.float32(src1).view(np.uint32)).view(np.float32)


@njit(cache=True, error_model="numpy", inline="always")
def shift_right(src, n, sat):
    return np.uint32(np.float32(src).view(np.uint32) >> np.uint32(n)).view(np.int32)


@njit(cache=True, error_model="numpy", inline="always")
def cast_i32_f32(i):
    return np.float32(i)


@njit(cache=True, error_model="numpy", inline="always")
def cast_f16_i8(bits):
    f = widen_16(bits, _F16)
    if f != f:
        return np.int8(0)
    r = np.rint(f)
    return np.int8(min(max(r, np.float32(-128.0)), np.float32(127.0)))


@njit(cache=True, error_model="numpy", inline="always")
def cast_i8_f16(i):
    return f32_to_f16_bits(np.float32(i))


@njit(cache=True, error_model="numpy", inline="always")
def relu(src, sat):
    return saturate(src if (src != src or src > _F32_ZERO) else _F32_ZERO, sat)   # NaN stays, -0 -> +0


# ---------------------------------------------------------------- mask arithmetic (issue 41)
# The A2 MishGrad's NaN guard (experimental/activation/mish_grad/op_kernel/mish_grad.h:197-202) casts two
# Compare masks to half (CAST_NONE), adds them in half, and casts the sum back to the mask (CAST_RINT):
# - ``Cast`` float16 <- uint8 (CAST_NONE): a mask element's number as half, exact (every uint8 is a half);
# - ``Add`` on float16 tensors (:data:`.isa.SIXTEEN_BIT_OPS`): the float32 sum of the exact widenings,
#   narrowed to nearest even: the correctly rounded half sum (float32 holds 2 * 11 + 2 bits, so the double
#   rounding is innocuous);
# - ``Cast`` uint8 <- float16 (CAST_RINT): to nearest even, clamped to [0, 255], NaN 0. The device's
#   out-of-range and NaN results are not public (chosen as the int8 Cast's); the guard casts 0 and 1 only.
# The device packs a mask one bit per element and these Casts convert its *bytes* (8 elements each); the
# program form keeps one mask element per element (:data:`.isa.MASK_DTYPE`). The two agree where the added
# masks are never both 1 on an element (no carry between the packed bits): the guard adds x > 0 and
# x <= 0, which are never both true (docs/model.md, "MishBackward", "The A2 kernel"). The engine computes it
# with its float32 opcodes (:func:`swishgrad_numba.engine.stream._lower_mask_arithmetic`).


# ---------------------------------------------------------------- directed narrowings (issue 43)
# ``Cast`` float32 -> float16/bfloat16 with CAST_FLOOR (toward -inf), CAST_CEIL (toward +inf), CAST_TRUNC
# (toward zero) and CAST_ODD (round to odd): :func:`swishgrad_numba.casts.f32_to_f16_bits_directed`, past the
# range IEEE 754's directed overflow (FLOOR: +max / -inf, CEIL: +inf / -max, TRUNC and ODD: +-max); NaN and
# saturation mode as CAST_RINT. The alternative overflow (Platform.cast_overflow "inf"): every overflow to
# inf. A lowered program names these modes (CAST_FLOOR_INF ..., .lower.lower); ``how`` is then the mode's
# index + INF_OVERFLOW.


@njit(cache=True, error_model="numpy", inline="always")
def cast_directed(f, dtype_code, sat, how):
    """float32 -> 16-bit bits rounded per ``casts.DIRECTED_MODES[how]`` (0 FLOOR, 1 CEIL, 2 TRUNC, 3 ODD)."""
    h = f32_to_f16_bits_directed(f, how) if dtype_code == _F16 else f32_to_bf16_bits_directed(f, how)
    return _saturate_16(h, f, dtype_code, sat)


# ---------------------------------------------------------------- 16-bit bit patterns (issue 43)
# An int16 is held as its 16 bits (.isa.BITS_DTYPE; a Cast reads their value, .int_casts): And and Or act on
# them, a Reinterpret between it and float16 or bfloat16 keeps them.


@njit(cache=True, error_model="numpy", inline="always")
def and16(src0, src1):
    return np.uint16(np.uint16(src0) & np.uint16(src1))


@njit(cache=True, error_model="numpy", inline="always")
def or16(src0, src1):
    return np.uint16(np.uint16(src0) | np.uint16(src1))


@njit(cache=True, error_model="numpy", inline="always")
def cast_whole(f, how, sat):
    """Cast float32 -> float32 (``Cast<float, float>``, issue 43): a whole float32 by ``isa.WHOLE_ROUND_MODES[how]``,
    :func:`swishgrad_numba.program.int_casts.f32_to_whole` (the chosen -0, inf and NaN rule there)."""
    return saturate(f32_to_whole(np.float32(f), how), sat)
