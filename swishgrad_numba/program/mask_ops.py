"""And and Or on masks (issue 43; :data:`.isa.MASK_BIT_OPS`): opbase's ``Vec::And<uint8_t>`` and
``Vec::Or<uint8_t>`` of two Compare masks. The device combines the packed bits; the form holds one 0 or 1 per
element (:data:`.isa.MASK_DTYPE`), and the bit of an element is the same either way."""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["and_mask", "or_mask", "not_mask"]


@njit(cache=True, error_model="numpy", inline="always")
def and_mask(src0, src1):
    return np.uint8(np.uint8(src0) & np.uint8(src1))


@njit(cache=True, error_model="numpy", inline="always")
def or_mask(src0, src1):
    return np.uint8(np.uint8(src0) | np.uint8(src1))


@njit(cache=True, error_model="numpy", inline="always")
def not_mask(src):
    """Not of a mask's element (its bit flipped): the A2's ``Not`` on the mask's words (issue 43)."""
    return np.uint8(np.uint8(src) ^ np.uint8(1))
