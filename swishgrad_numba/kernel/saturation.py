"""The kernels in the device's saturation overflow mode (model section 2, overflow modes).

In CANN's saturation mode (``ACL_RT_OVERFLOW_MODE_SATURATION``, set with
``aclrtSetDeviceSatMode``; the Atlas A2 and A3 only) an instruction whose
result would be +-inf returns the largest finite value of its sign, and one
whose result would be NaN returns 0. The model applies this to every
instruction's result, the narrowing Cast of a 16-bit output included
(+-inf -> the 16-bit dtype's largest finite, NaN -> +0).

The result is still a pure function of the input bits, so the mode runs as
one flat ``prange`` over the elements rather than the tile walk: the same
steps (:mod:`.sequence`, with ``sat`` true) without the vectorised fast
path. It is a compatibility mode, not a hot path.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..casts import bf16_bits_to_f32, f16_bits_to_f32, f32_to_bf16_bits, f32_to_f16_bits
from ..dtypes import FLOAT16
from .sequence import derivative_mode, saturate

__all__ = ["narrow_saturated", "launch_saturated_f32", "launch_saturated_16"]

_F16 = FLOAT16.code
_F16_MAX = np.uint16(0x7BFF)    # 65504
_BF16_MAX = np.uint16(0x7F7F)   # (2 - 2**-7) * 2**127


@njit(cache=True, error_model="numpy", inline="always")
def narrow_saturated(f, dtype_code):
    """Saturated binary32 ``f`` (never inf or NaN) -> 16-bit bits, round to nearest even,
    a result past the 16-bit range saturated to the largest finite of its sign."""
    if dtype_code == _F16:
        h = f32_to_f16_bits(f)
        if (h & np.uint16(0x7FFF)) == np.uint16(0x7C00):
            h = np.uint16((h & np.uint16(0x8000)) | _F16_MAX)
        return h
    h = f32_to_bf16_bits(f)
    if (h & np.uint16(0x7FFF)) == np.uint16(0x7F80):
        h = np.uint16((h & np.uint16(0x8000)) | _BF16_MAX)
    return h


@njit(parallel=True, cache=True, error_model="numpy")
def launch_saturated_f32(g, x, o, beta, arch):
    """``o = g * s'(x)`` for float32 arrays, every instruction saturated."""
    for i in prange(o.shape[0]):
        o[i] = saturate(g[i] * derivative_mode(x[i], beta, arch, True), True)   # Mul(g, s'(x))


@njit(parallel=True, cache=True, error_model="numpy")
def launch_saturated_16(g, x, o, table, dtype_code):
    """``o = g * s'(x)`` on 16-bit bit patterns; ``table`` is the saturated s'(x) table."""
    for i in prange(o.shape[0]):
        if dtype_code == _F16:
            gf = f16_bits_to_f32(g[i])
        else:
            gf = bf16_bits_to_f32(g[i])
        o[i] = narrow_saturated(saturate(gf * table[x[i]], True), dtype_code)   # Mul ; Cast
