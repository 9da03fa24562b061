"""The Gelu family's public functions: :func:`gelu` (aclnnGelu) and :func:`gelu_backward` (aclnnGeluBackward).

Plain Python that checks the arguments with the package's checkers and decides; the kernels are the
registered operators' (:mod:`swishgrad_numba.ops.gelu`, :mod:`swishgrad_numba.ops.gelu_grad`).
docs/model.md, "Gelu (aclnnGelu)" and "GeluBackward (aclnnGeluBackward)".
"""
from __future__ import annotations

import functools

import numpy as np

from .. import kernel, runtime
from ..arguments import check_array, check_out, check_platform_for
from .broadcast_pair import broadcast_pair
from ..dtypes import DTypeInfo, dtype_info
from ..ops import gelu as gelu_op
from ..ops import gelu_grad as gelu_grad_op
from ..platform import Platform

__all__ = ["gelu", "gelu_backward"]


@functools.lru_cache(maxsize=256)
def _gelu_plan(numel: int, info: DTypeInfo, platform: Platform, threads: int):
    tiling = gelu_op.host_tiling(numel, info, platform)
    plan = kernel.plan_launch(gelu_op.walk_fields(tiling), tiling.block_dim, kernel.arch_code(tiling.architecture),
                              numel, threads)
    plan.pieces.flags.writeable = False
    plan.bins.flags.writeable = False
    return tiling.architecture, plan


def _finish(result, out):
    if out is not None and result is not out:
        out[...] = result
        return out
    return result


def gelu(x, *, out=None, platform: Platform | None = None):
    """GELU as the NPU's Gelu kernel computes it (aclnnGelu).

    The Atlas A2 kernel computes ``x / (1 + exp(-1.595769122 (x + 0.0455399241 x^3)))`` (its cubic
    coefficient is not the tanh GELU's 0.044715); the Ascend 950's the tanh GELU, with an ``Axpy`` whose
    rounding is ``platform.axpy_rounding``.

    Parameters
    ----------
    x : numpy.ndarray
        float32, float16 or ``ml_dtypes.bfloat16``; any shape and strides.
    out : numpy.ndarray, optional
        Array of x's shape and dtype to write into; may be a non-contiguous view.
    platform : Platform, optional
        The device (the A2 reference platform by default): its SoC picks the kernel.

    Returns
    -------
    numpy.ndarray
        ``out`` if given, else a new C-contiguous array.

    Raises
    ------
    TypeError, ValueError
        For a bad ``x`` or ``out``, and as every operator does for the platform
        (:func:`~swishgrad_numba.arguments.check_platform_for`; the A2 kernel computes in the saturation
        overflow mode where the platform is in it); ValueError where the host tiling refuses.
    """
    check_array(x, "x")
    info = dtype_info(x.dtype, argname="x.dtype")
    platform = check_platform_for(platform, gelu_op.NAME, info)
    check_out(out, x)
    if x.size == 0:
        return np.empty(x.shape, dtype=x.dtype) if out is None else out
    architecture, plan = _gelu_plan(x.size, info, platform, runtime.num_threads())
    direct = out is not None and out.flags.c_contiguous and not np.shares_memory(out, x)
    result = out if direct else np.empty(x.shape, dtype=x.dtype)
    gelu_op.launch(np.ascontiguousarray(x).reshape(-1), result.reshape(-1), plan, info, architecture,
                   platform.saturation, platform.axpy_rounding)
    return _finish(result, out)


@functools.lru_cache(maxsize=256)
def _grad_tiling(dy_shape, x_shape, info: DTypeInfo, platform: Platform):
    return gelu_grad_op.host_tiling(dy_shape, x_shape, info, platform)


def gelu_backward(grad_output, x, *, out=None, platform: Platform | None = None):
    """The gradient of GELU, ``grad_output * gelu'(x)``, as the NPU's GeluGrad kernel computes it
    (aclnnGeluBackward).

    The Atlas A2 runs one of two formulas, chosen by the SoC (ascend310b: ``versionNum`` 1); the Ascend
    950 has two ``Axpy`` (rounding: ``platform.axpy_rounding``) and a NaN guard that gives
    ``grad_output`` at x = +inf and ``grad_output * 0`` at x = -inf (the A2 gives NaN there).

    Parameters
    ----------
    grad_output, x : numpy.ndarray
        float32, float16 or ``ml_dtypes.bfloat16``; two different dtypes are both cast to float32 first
        (the op_api's PromoteType; the result is then float32). Shapes that broadcast against each
        other: the op_api broadcasts them for the A2 (BroadcastTo), the 950's kernel walks them as
        they are (at most 8 dimensions then).
    out : numpy.ndarray, optional
        Array of the broadcast shape and the dtype to write into; may be a non-contiguous view.
    platform : Platform, optional
        The device (the A2 reference platform by default).

    Returns
    -------
    numpy.ndarray
        ``out`` if given, else a new C-contiguous array.

    Raises
    ------
    TypeError, ValueError
        For bad arrays, shapes that do not broadcast, and as :func:`gelu` does for the platform.
    """
    pair = broadcast_pair(grad_output, x, gelu_grad_op.NAME, platform, out)
    if pair.dy is None:
        return np.empty(pair.shape, dtype=pair.info.numpy) if out is None else out
    direct = out is not None and out.flags.c_contiguous and not np.shares_memory(out, grad_output) \
        and not np.shares_memory(out, x)
    result = out if direct else np.empty(pair.shape, dtype=pair.info.numpy)
    tiling = _grad_tiling(pair.dy_shape, pair.x_shape, pair.info, pair.platform)
    if pair.on_950:
        gelu_grad_op.run_arch35(pair.dy, pair.x, result, tiling, pair.info, pair.platform.axpy_rounding)
    else:
        gelu_grad_op.run_a2(pair.dy, pair.x, result, tiling, pair.info, pair.platform.saturation)
    return _finish(result, out)
