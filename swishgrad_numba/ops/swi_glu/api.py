"""``swiglu(x, dim=-1, *, out=None, platform=None)``: the device's SwiGlu, bit for bit (issue 41; docs/model.md,
"SwiGlu").

x is split along ``dim`` into halves a (first) and b (second); out = a * sigmoid(a) * b as the kernel
computes it (:mod:`.kernel`), with x's dtype and x's shape halved at ``dim``. The host tiling
(:mod:`.host`) is the platform's cores and UB; the arithmetic is the same on the Atlas A2 and the 950.
"""
from __future__ import annotations

import numbers
import operator

import numpy as np

from ...arguments import check_array, check_out_like
from ...dtypes import dtype_info
from ...platform import Platform, modelled_platform, unmodelled_soc
from .host import SwiGluTiling, swiglu_tiling
from .kernel import run
from .kernel_grad import run_grad
from .host_950 import GluBaseTiling, swiglu_grad_tiling_950
from .kernel_grad_950 import run_grad_950

__all__ = ["swiglu", "swiglu_backward", "check_inputs", "out_shape", "tiling_for", "grad_tiling", "run_grad_any",
           "MODELLED_SOCS", "socs_refusal"]

_FLOATS = ("float32", "float16", "bfloat16")
#: The SoC families whose SwiGlu kernel is modelled: the A2 and A3 (swi_glu.cpp) and the 950
#: (swi_glu_apt.cpp). Not ascend310p (its 64-byte rule and no bfloat16), nor the Kirin parts.
MODELLED_SOCS = ("ascend910b", "ascend910_93", "ascend950")


def check_inputs(x, dim) -> tuple[int, str]:
    """The argument rules (the aclnn page's and the infershape's): ``(dim normalised, dtype name)``."""
    check_array(x, "x")
    return _rules(x.shape, x.dtype, dim)


def _rules(shape, dtype, dim) -> tuple[int, str]:
    name = dtype_info(dtype, argname="x.dtype").name
    if name not in _FLOATS:
        raise TypeError(f"x.dtype must be one of {', '.join(_FLOATS)}, got {np.dtype(dtype)}")
    ndim = len(shape)
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
        raise TypeError(f"dim must be an int, got {type(dim).__name__}")
    dim = operator.index(dim)
    if not 1 <= ndim <= 8:
        raise ValueError(f"x must have 1 to 8 dimensions, got {ndim}")
    if not -ndim <= dim < ndim:
        raise ValueError(f"dim must lie in [{-ndim}, {ndim - 1}] for x of {ndim} dimensions, got {dim}")
    d = dim % ndim
    if shape[d] % 2:
        raise ValueError(f"x's axis dim={dim} must have an even length (it is split into halves), x has shape "
                         f"{tuple(shape)}")
    return d, name


def out_shape(shape, d: int) -> tuple:
    return tuple(shape[:d]) + (shape[d] // 2,) + tuple(shape[d + 1:])


def socs_refusal(platform: Platform) -> str | None:
    """Why the platform's SwiGlu kernel is not modelled, or None."""
    return unmodelled_soc(platform, "SwiGlu", MODELLED_SOCS)


def _platform(platform) -> Platform:
    return modelled_platform(platform, "swiglu", "SwiGlu", MODELLED_SOCS)


def tiling_for(x_shape, dim: int, dtype, platform=None) -> SwiGluTiling:
    """The host tiling of a non-empty x of this shape and dtype on the platform, for tools."""
    platform = _platform(platform)
    d, name = _rules(tuple(x_shape), dtype, dim)
    if 0 in tuple(x_shape):
        raise ValueError(f"x {tuple(x_shape)} is empty: nothing is launched (no tiling)")
    return swiglu_tiling(tuple(x_shape), d, name, platform.ub_size, platform.core_num)


def grad_tiling(x_shape, d: int, name: str, platform: Platform):
    """SwiGluGrad's host tiling of a non-empty x (``d`` normalised) on a modelled platform: the A2's
    :class:`~.host.SwiGluTiling`, or the 950's :class:`~.host_950.GluBaseTiling`."""
    if platform.architecture == "a2":
        return swiglu_tiling(tuple(x_shape), d, name, platform.ub_size, platform.core_num, grad=True)
    return swiglu_grad_tiling_950(tuple(x_shape), d, name, platform.ub_size, platform.core_num)


def run_grad_any(grad_output, x, t):
    """grad_x (flat) of the kernel the tiling is for."""
    return run_grad_950(grad_output, x, t) if isinstance(t, GluBaseTiling) else run_grad(grad_output, x, t)


def swiglu(x, dim=-1, *, out=None, platform: Platform | None = None):
    """SwiGlu as the device computes it.

    Parameters
    ----------
    x : numpy.ndarray
        float32, float16 or bfloat16, 1 to 8 dimensions, ``x.shape[dim]`` even.
    dim : int
        The axis split into halves a, b; in ``[-x.ndim, x.ndim - 1]``.
    out : numpy.ndarray, optional
        x's dtype, x's shape with ``dim`` halved.
    platform : Platform, optional
        The Atlas A2 (ASCEND910B) by default; an Ascend 950 runs its kernel (the same arithmetic).

    Returns
    -------
    numpy.ndarray
    """
    d, name = check_inputs(x, dim)
    platform = _platform(platform)
    shape = out_shape(x.shape, d)
    check_out_like(out, shape, x.dtype)
    if x.size == 0:
        y = np.empty(shape, x.dtype)
    else:
        y = run(x, swiglu_tiling(x.shape, d, name, platform.ub_size, platform.core_num)).reshape(shape)
    if out is None:
        return y
    out[...] = y
    return out


def swiglu_backward(grad_output, x, dim=-1, *, out=None, platform: Platform | None = None):
    """SwiGluGrad as the device computes it: grad_x of x's shape and dtype, its a half
    ``grad_output * d(a * sigmoid(a) * b)/da``, its b half ``grad_output * a * sigmoid(a)``.

    grad_output has x's dtype and x's shape with ``dim`` halved. The Atlas A2's kernel (:mod:`.kernel_grad`)
    or the Ascend 950's (:mod:`.kernel_grad_950`: the regbase tiling of ``swi_glu_grad_tiling_regbase.cpp``,
    ``arch35/swi_glu_grad_base.h``'s Compute, another order of the same formula).
    """
    d, name = check_inputs(x, dim)
    check_array(grad_output, "grad_output")
    if grad_output.dtype != x.dtype:
        raise TypeError(f"grad_output.dtype must be x's ({x.dtype}), got {grad_output.dtype}")
    if grad_output.shape != out_shape(x.shape, d):
        raise ValueError(f"grad_output's shape must be x's {x.shape} with dim={dim} halved, "
                         f"{out_shape(x.shape, d)}; got {grad_output.shape}")
    platform = _platform(platform)
    check_out_like(out, x.shape, x.dtype)
    if x.size == 0:
        raise ValueError(f"x {x.shape} is empty: aclnnSwiGluGrad does not take empty tensors (its page; the A2 "
                         f"host finds no tile)")
    g = run_grad_any(grad_output, x, grad_tiling(x.shape, d, name, platform)).reshape(x.shape)
    if out is None:
        return g
    out[...] = g
    return out
