"""The argument checks every public function shares: arrays, (grad_output, x) pairs, ``out``.

Each raises a TypeError or ValueError that names the argument and the rule.
"""
from __future__ import annotations

import numpy as np

from .dtypes import dtype_info

__all__ = ["check_array", "check_out", "check_pair"]


def check_array(value, argname: str) -> np.ndarray:
    """``value`` if it is a plain ``numpy.ndarray``, else the TypeError naming ``argname``."""
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{argname} must be a numpy.ndarray, got {type(value).__name__}")
    if isinstance(value, np.ma.MaskedArray):
        raise TypeError(f"{argname} must be a plain numpy.ndarray, not a masked array (the kernel has no "
                        f"mask and would compute masked elements too); pass {argname}.filled(...) or .data")
    return value


def check_pair(grad_output, x):
    """The dtype row of a (grad_output, x) pair of one dtype and shape, or the error naming the argument."""
    check_array(grad_output, "grad_output")
    check_array(x, "x")
    dtype_info(grad_output.dtype, argname="grad_output.dtype")
    info = dtype_info(x.dtype, argname="x.dtype")
    if grad_output.dtype != x.dtype:
        raise TypeError(f"grad_output and x must have the same dtype, got {grad_output.dtype} and {x.dtype}")
    if grad_output.shape != x.shape:
        raise ValueError(f"grad_output and x must have the same shape, got {grad_output.shape} and {x.shape}")
    return info


def check_out(out, x) -> None:
    """``out`` (when given) must be a writeable array of ``x``'s dtype and shape."""
    if out is None:
        return
    check_array(out, "out")
    if out.dtype != x.dtype:
        raise TypeError(f"out must have dtype {x.dtype}, got {out.dtype}")
    if out.shape != x.shape:
        raise ValueError(f"out must have shape {x.shape}, got {out.shape}")
    if not out.flags.writeable:
        raise ValueError("out must be writeable")
