"""``rms_norm(x, gamma, epsilon=1e-6, *, out=None, platform=None) -> (y, rstd)``: the device's RmsNorm, bit for
bit (issue 42; docs/model.md, "RmsNorm").

y = (x * rstd) * gamma and rstd = 1 / sqrt(mean(x**2) + epsilon) over the row made of x's last ``gamma.ndim``
axes; y has x's dtype, rstd is float32 of x's shape with those axes 1. The platform's kernel runs on the
engine's row machine in the mode its host picks: the Atlas A2's (:mod:`.host_a2`, :mod:`.kernel_a2`) or the
Ascend 950's (:mod:`.kernel_950` full_load, :mod:`.kernel_950_split`).
"""
from __future__ import annotations


import numpy as np

from ...arguments import check_array, check_out_like
from ...dtypes import dtype_info, to_float32
from ...engine.opcodes import REDUCE_ORDERS
from ...platform import Platform, modelled_platform, unmodelled_soc
from .host_a2 import A2Tiling, a2_tiling
from .kernel_950 import arch35_tiling, row_program_950
from .kernel_a2 import run_a2, run_program

__all__ = ["rms_norm", "rstd_shape", "check_inputs", "tiling_for", "MODELLED_SOCS", "socs_refusal"]

_FLOATS = ("float32", "float16", "bfloat16")


def rstd_shape(x_shape, gamma_ndim: int) -> tuple:
    return tuple(x_shape[:len(x_shape) - gamma_ndim]) + (1,) * gamma_ndim


def check_inputs(x, gamma, epsilon) -> np.float32:
    """The argument rules (the A2 host's and the op definition's); epsilon as its float32."""
    check_array(x, "x")
    check_array(gamma, "gamma")
    for a, name in ((x, "x"), (gamma, "gamma")):
        if dtype_info(a.dtype, argname=f"{name}.dtype").name not in _FLOATS:
            raise TypeError(f"{name}.dtype must be one of {', '.join(_FLOATS)}, got {a.dtype}")
    if gamma.dtype != x.dtype and gamma.dtype != np.float32:
        raise TypeError(f"gamma.dtype must be x's ({x.dtype}) or float32 with a 16-bit x, got {gamma.dtype}")
    if not 1 <= x.ndim <= 8 or not 1 <= gamma.ndim <= 8:
        raise ValueError(f"x and gamma must have 1 to 8 dimensions, got {x.ndim} and {gamma.ndim}")
    if gamma.ndim > x.ndim or x.shape[x.ndim - gamma.ndim:] != gamma.shape:
        raise ValueError(f"gamma's shape {gamma.shape} must be the last {gamma.ndim} axes of x's {x.shape}")
    if 0 in gamma.shape:
        raise ValueError("gamma must not be empty")
    eps = to_float32(epsilon, argname="epsilon")   # the one attribute rule (a bool is 1.0 / 0.0)
    if not eps >= 0:
        raise ValueError(f"epsilon must be >= 0 (the host refuses less), got {epsilon}")
    return eps


#: The SoC families whose RmsNorm kernel is modelled: the A2 and A3 (the AIV kernel of rms_norm.cpp) and the
#: 950. Not: ascend910 (its WholeReduceSum kernel), ascend310p (merge_n by other rules, Brcb), the rest.
MODELLED_SOCS = ("ascend910b", "ascend910_93", "ascend950")


def socs_refusal(platform: Platform) -> str | None:
    """Why the platform's RmsNorm kernel is not modelled, or None."""
    return unmodelled_soc(platform, "RmsNorm", MODELLED_SOCS)


def checked_platform(platform) -> Platform:
    return modelled_platform(platform, "rms_norm", "RmsNorm", MODELLED_SOCS)


def tiling_for(x_shape, gamma, epsilon, x_dtype, platform=None):
    """The host tiling of these shapes on the platform's kernel (:class:`.host_a2.A2Tiling` or
    :class:`.kernel_950.Arch35Tiling`), for tools."""
    platform = checked_platform(platform)
    n = int(np.prod(gamma.shape))
    rows = int(np.prod(x_shape)) // n
    tiling = a2_tiling if platform.architecture == "a2" else arch35_tiling
    return tiling(rows, n, x_dtype, gamma.dtype, np.float32(epsilon), platform)


def rms_norm(x, gamma, epsilon=1e-6, *, out=None, platform: Platform | None = None, order: str = "tree",
             scalar_fused: bool = False, mula_fused: bool = True, scalar_sqrt: str = "float"):
    """RmsNorm as the device computes it.

    Parameters
    ----------
    x : numpy.ndarray
        float32, float16 or bfloat16, 1 to 8 dimensions.
    gamma : numpy.ndarray
        x's last ``gamma.ndim`` axes (1 to 8); x's dtype, or float32 with a 16-bit x.
    epsilon : float
        Rounded to float32; at least 0.
    out : tuple of numpy.ndarray, optional
        ``(y, rstd)`` to write into.
    platform : Platform, optional
        The Atlas A2 (ASCEND910B: merge_n for rows padded to at most 2000 elements) by default; an Ascend 950
        runs its full_load or split kernel.
    order, scalar_fused, scalar_sqrt, mula_fused
        Model choices (docs/model.md "RmsNorm"): the order inside one 64-lane repeat (``"tree"``,
        ``"sequential"``, ``"block8"``), whether the A2 scalar unit's ``s * avg + eps`` rounds once, whether
        its ``1 / sqrt`` is float32 (``"float"``) or double rounded once (``"double"``), and whether the 950's
        ``Mula`` rounds once (the default) or twice.

    Returns
    -------
    (y, rstd)
    """
    eps = check_inputs(x, gamma, epsilon)
    platform = checked_platform(platform)
    if order not in REDUCE_ORDERS:
        raise ValueError(f"order must be one of {', '.join(REDUCE_ORDERS)}, got {order!r}")
    if scalar_sqrt not in ("float", "double"):
        raise ValueError(f"scalar_sqrt must be 'float' or 'double', got {scalar_sqrt!r}")
    shape_r = rstd_shape(x.shape, gamma.ndim)
    if out is not None:
        if not isinstance(out, tuple) or len(out) != 2:
            raise TypeError("out must be a tuple (y, rstd)")
        check_out_like(out[0], x.shape, x.dtype)
        check_out_like(out[1], shape_r, np.float32)
    n = gamma.size
    rows = x.size // n
    if rows == 0:
        y, rstd = np.empty(x.shape, x.dtype), np.empty(shape_r, np.float32)
    else:
        x2d, g = np.ascontiguousarray(x).reshape(rows, n), np.ascontiguousarray(gamma)
        if platform.architecture == "a2":
            y, rstd = run_a2(x2d, g, a2_tiling(rows, n, x.dtype, gamma.dtype, eps, platform), order, scalar_fused,
                             scalar_sqrt)
        else:
            t = arch35_tiling(rows, n, x.dtype, gamma.dtype, eps, platform)
            y, rstd = run_program(x2d, g, t, row_program_950(t, x.dtype, order, mula_fused))
        y, rstd = y.reshape(x.shape), rstd.reshape(shape_r)
    if out is None:
        return y, rstd
    out[0][...] = y
    out[1][...] = rstd
    return out
