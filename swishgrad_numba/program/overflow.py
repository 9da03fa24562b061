"""The device's overflow mode applied to one float32 result (model section 2, "Overflow modes"): the one
definition, which :mod:`.semantics` uses for every instruction.
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["saturate"]

_F32_MAX = np.float32(np.finfo(np.float32).max)
_F32_ZERO = np.float32(0.0)
_F32_INF = np.float32(np.inf)


@njit(cache=True, error_model="numpy", inline="always")
def saturate(v, sat):
    """One instruction's binary32 result in the device's overflow mode: as is
    in Inf/NaN mode (``sat`` false); in saturation mode (``sat`` true) +-inf
    becomes +-FLT_MAX and NaN becomes +0 (model section 2, overflow modes).
    The passes give a constant ``sat``, which compiles away."""
    if sat:
        if v != v:
            return _F32_ZERO
        if v == _F32_INF:
            return _F32_MAX
        if v == -_F32_INF:
            return -_F32_MAX
    return v
