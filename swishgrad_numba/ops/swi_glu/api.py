"""SwiGlu's helpers for the tools (issue 41; issue 40 moved the functional faces to the generated ones,
:mod:`swishgrad_numba.faces.rows`, from :mod:`.description`): the argument rules on a shape, the host tilings of
a shape on a platform, and SwiGluGrad's launch of either kernel.
"""
from __future__ import annotations

from ...dtypes import dtype_info
from ...platform import Platform, modelled_platform, unmodelled_soc
from .description import FORWARD, MODELLED_SOCS, grad_tiling, out_shape, run_grad_any
from .host import SwiGluTiling, swiglu_tiling

__all__ = ["check_inputs", "out_shape", "tiling_for", "grad_tiling", "run_grad_any", "MODELLED_SOCS",
           "socs_refusal"]


def check_inputs(x, dim) -> tuple[int, str]:
    """The functional face's rules on x and ``dim`` (its messages): ``(dim normalised, dtype name)``."""
    from ...faces.rows import checked

    d, *_ = checked(FORWARD, {"x": x, "dim": dim, "platform": None})
    return d, dtype_info(x.dtype).name


def socs_refusal(platform: Platform) -> str | None:
    """Why the platform's SwiGlu kernel is not modelled, or None."""
    return unmodelled_soc(platform, "SwiGlu", MODELLED_SOCS)


def tiling_for(x_shape, dim: int, dtype, platform=None) -> SwiGluTiling:
    """The host tiling of a non-empty x of this shape and dtype on the platform, for tools."""
    import numpy as np

    platform = modelled_platform(platform, "swiglu", "SwiGlu", MODELLED_SOCS)
    d, name = check_inputs(np.broadcast_to(np.zeros((), dtype), tuple(x_shape)), dim)
    if 0 in tuple(x_shape):
        raise ValueError(f"x {tuple(x_shape)} is empty: nothing is launched (no tiling)")
    return swiglu_tiling(tuple(x_shape), d, name, platform.ub_size, platform.core_num)
