"""SiluGrad's public function, :func:`silu_backward`, and :func:`host_tiling`, the host tiling of the
kernel the platform's SoC runs (cached per shapes, dtypes and platform for the public function)."""
from __future__ import annotations

import functools
import math

import numpy as np

from ...arguments import check_array, check_out_like, check_platform_for
from ...dtypes import dtype_info
from ...platform import ARCH_950, REFERENCE_PLATFORM, Platform
from .a2 import a2_host_tiling
from .arch35 import arch35_host_tiling, output_dtype
from .launch import run_a2, run_arch35
from .names import MAX_DIMS, NAME

__all__ = ["host_tiling", "silu_backward"]


def host_tiling(dy_shape, x_shape, dy_dtype, x_dtype, platform: Platform | None = None):
    """The host tiling of the kernel ``platform``'s SoC runs (A2 by default).

    The A2 kernel takes one dtype and one shape (its numel is ``dy``'s);
    the 950's takes any pair the op_api lets through.
    """
    platform = platform or REFERENCE_PLATFORM
    if platform.architecture == ARCH_950:
        return arch35_host_tiling(dy_shape, x_shape, dy_dtype, x_dtype, platform)
    return a2_host_tiling(math.prod(dy_shape), dy_dtype, platform)


@functools.lru_cache(maxsize=256)
def _cached_tiling(dy_shape, x_shape, dy_name, x_name, platform):
    return host_tiling(dy_shape, x_shape, dy_name, x_name, platform)


def silu_backward(grad_output, x, *, out=None, platform: Platform | None = None):
    """Gradient of SiLU, ``grad_output * z(x)``, exactly as the NPU's SiluGrad kernel computes it.

    Parameters
    ----------
    grad_output, x : numpy.ndarray
        float32, float16 or ``ml_dtypes.bfloat16``; any strides. On an Atlas
        A2 platform (the default) they share one shape and one dtype. On an
        Ascend 950 they may broadcast against each other (at most 8
        dimensions then) and may differ in dtype, as the mainline op_api
        allows; the result is then float32.
    out : numpy.ndarray, optional
        Array of the result's shape and dtype to write into; may be a
        non-contiguous view.
    platform : Platform, optional
        The device: its SoC picks the kernel and its tiling decomposes the
        work (the result does not depend on it).

    Returns
    -------
    numpy.ndarray
        ``out`` if given, else a new C-contiguous array.

    Raises
    ------
    TypeError, ValueError
        As :func:`~swishgrad_numba.swish_backward` does (the platform rules
        every operator shares; the A2 kernel computes in the saturation
        overflow mode where the platform is in it).
    """
    check_array(grad_output, "grad_output")
    check_array(x, "x")
    g_info = dtype_info(grad_output.dtype, argname="grad_output.dtype")
    x_info = dtype_info(x.dtype, argname="x.dtype")
    platform = check_platform_for(platform, NAME, g_info, x_info)
    on_950 = platform.architecture == ARCH_950
    if not on_950:
        if g_info is not x_info:
            raise TypeError(f"grad_output and x must have the same dtype, got {grad_output.dtype} and {x.dtype} "
                            f"(mixed dtypes need an Ascend 950 platform)")
        if grad_output.shape != x.shape:
            raise ValueError(f"grad_output and x must have the same shape, got {grad_output.shape} and {x.shape} "
                             f"(broadcasting needs an Ascend 950 platform)")
        shape = x.shape
    else:
        try:
            shape = tuple(np.broadcast_shapes(grad_output.shape, x.shape))
        except ValueError:
            raise ValueError(f"grad_output and x must broadcast against each other, got {grad_output.shape} "
                             f"and {x.shape}") from None
        if grad_output.shape != x.shape and max(grad_output.ndim, x.ndim) > MAX_DIMS:
            raise ValueError(f"broadcasting grad_output and x supports at most {MAX_DIMS} dimensions, got "
                             f"{grad_output.ndim} and {x.ndim}")
    o_info = output_dtype(g_info, x_info)
    check_out_like(out, shape, o_info.numpy)
    if grad_output.size == 0 or x.size == 0:
        return np.empty(shape, dtype=o_info.numpy) if out is None else out

    g_c = np.ascontiguousarray(grad_output)
    x_c = np.ascontiguousarray(x)
    if not on_950 or grad_output.shape == x.shape:
        # Equal shapes collapse to one axis on the 950 too: the flat tensor is its whole input.
        g_shape = x_shape = (x.size,)
    else:
        g_shape, x_shape = grad_output.shape, x.shape
    direct = out is not None and out.flags.c_contiguous and not np.shares_memory(out, grad_output) \
        and not np.shares_memory(out, x)
    result = out if direct else np.empty(shape, dtype=o_info.numpy)
    tiling = _cached_tiling(g_shape, x_shape, g_info.name, x_info.name, platform)
    if on_950:
        run_arch35(g_c, x_c, result, tiling)
    else:
        run_a2(g_c, x_c, result, tiling, saturation=platform.saturation)
    if out is not None and not direct:
        out[...] = result
        return out
    return result
