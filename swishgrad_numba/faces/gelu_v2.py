"""The GeluV2 family's public functions: :func:`gelu_v2` (aclnnGeluV2) and :func:`gelu_backward_v2`
(aclnnGeluBackwardV2).

Plain Python that checks the arguments and decides; the kernels are the registered operators'
(:mod:`swishgrad_numba.ops.gelu_v2`, :mod:`swishgrad_numba.ops.gelu_grad_v2`). docs/model.md, "GeluV2
(aclnnGeluV2, 950 only)" and "GeluBackwardV2 (aclnnGeluBackwardV2)".
"""
from __future__ import annotations

import functools

import numpy as np

from ..arguments import check_array, check_out, check_platform_for
from .broadcast_pair import broadcast_pair
from ..dtypes import DTypeInfo, dtype_info
from ..ops import gelu_grad_v2 as grad_op
from ..ops import gelu_v2 as gelu_v2_op
from ..ops.call import host_tiling
from ..platform import Platform

__all__ = ["gelu_v2", "gelu_backward_v2"]


def _approximate(approximate) -> str:
    if not isinstance(approximate, str) or approximate not in gelu_v2_op.APPROXIMATIONS:
        raise ValueError(f"approximate must be one of {gelu_v2_op.APPROXIMATIONS}, got {approximate!r}")
    return approximate


def _finish(result, out):
    if out is not None and result is not out:
        out[...] = result
        return out
    return result


def gelu_v2(x, approximate: str = "none", *, out=None, platform: Platform | None = None):
    """GELU as the Ascend 950's GeluV2 kernel computes it (aclnnGeluV2).

    ``approximate="none"``: ``(erf(x * 0.707106781) + 1) * (x * 0.5)`` with asc-devkit's Erf (float32: the
    SUBSECTION algorithm; float16 and bfloat16, computed in float32: the Pade algorithm, whose error near
    x = -5.5 is large in relative terms). ``"tanh"``: the Ascend 950 Gelu kernel's function, bit for bit
    (its Axpy rounds as ``platform.axpy_rounding``).

    Parameters
    ----------
    x : numpy.ndarray
        float32, float16 or ``ml_dtypes.bfloat16``; any shape and strides.
    approximate : {"none", "tanh"}
    out : numpy.ndarray, optional
        Array of x's shape and dtype to write into; may be a non-contiguous view.
    platform : Platform, optional
        An Ascend 950 (the default: the only kernel).

    Returns
    -------
    numpy.ndarray
        ``out`` if given, else a new C-contiguous array.

    Raises
    ------
    TypeError, ValueError
        Naming the argument. An Atlas A2 platform is refused: ops-nn has no public A2 kernel for GeluV2.

    Notes
    -----
    ``gelu_v2(-inf)`` is NaN (``(-1 + 1) * -inf``); below about x = -5.9 (16-bit: -5.54) the result is -0.
    """
    approximate = _approximate(approximate)
    check_array(x, "x")
    info = dtype_info(x.dtype, argname="x.dtype")
    platform = check_platform_for(platform, gelu_v2_op.NAME, info)
    check_out(out, x)
    if x.size == 0:
        return np.empty(x.shape, dtype=x.dtype) if out is None else out
    tiling = host_tiling(gelu_v2_op.NAME, x.size, info, gelu_v2_op.approximate_code(approximate), platform)
    direct = out is not None and out.flags.c_contiguous and not np.shares_memory(out, x)
    result = out if direct else np.empty(x.shape, dtype=x.dtype)
    gelu_v2_op.run(None, np.ascontiguousarray(x).reshape(-1), result.reshape(-1), tiling, platform.axpy_rounding)
    return _finish(result, out)


@functools.lru_cache(maxsize=256)
def _grad_tiling(dy_shape, x_shape, info: DTypeInfo, approximate: str, platform: Platform):
    return grad_op.host_tiling(dy_shape, x_shape, info, approximate, platform)


def gelu_backward_v2(grad_output, x, approximate: str = "none", *, out=None, platform: Platform | None = None):
    """The gradient of GELU, ``grad_output * gelu'(x)``, as the GeluGradV2 kernel computes it
    (aclnnGeluBackwardV2).

    Atlas A2 (the default platform): ``"none"`` is the kernel's own erf (a rational polynomial on
    ``min(|x|, 30)``; x = +inf gives ``grad_output``, -inf ``-0 * grad_output``), ``"tanh"`` the A2 GeluGrad's
    formula with a NaN guard (0 where the product is NaN: below about x = -10.06 and at +-inf the result is
    ``grad_output * (0 + s)``). Ascend 950: ``approximate="none"``: ``(cdf + pdf * x) * grad_output`` with asc-devkit's Erf (as
    :func:`gelu_v2`; x = +-inf gives NaN, ``0 * inf``); ``"tanh"``: the Ascend 950 GeluGrad kernel's
    function, bit for bit (:func:`~swishgrad_numba.gelu_backward` on that platform).

    Parameters
    ----------
    grad_output, x : numpy.ndarray
        float32, float16 or ``ml_dtypes.bfloat16``; two different dtypes are both cast to float32 first
        (the op_api's promotion; the result is then float32). Shapes that broadcast against each other
        (the 950's kernel walks them as they are, at most 8 dimensions; the op_api broadcasts them for the A2).
    approximate : {"none", "tanh"}
    out : numpy.ndarray, optional
        Array of the broadcast shape and the dtype to write into; may be a non-contiguous view.
    platform : Platform, optional
        The device (the A2 reference platform by default): its SoC picks the kernel. The A2 computes in the
        saturation overflow mode where the platform is in it.

    Returns
    -------
    numpy.ndarray
        ``out`` if given, else a new C-contiguous array.

    Raises
    ------
    TypeError, ValueError
        For bad arrays, an unknown ``approximate``, shapes that do not broadcast, and as :func:`gelu_v2`
        does for the platform.
    """
    approximate = _approximate(approximate)
    pair = broadcast_pair(grad_output, x, grad_op.NAME, platform, out)
    if pair.dy is None:
        return np.empty(pair.shape, dtype=pair.info.numpy) if out is None else out
    direct = out is not None and out.flags.c_contiguous and not np.shares_memory(out, grad_output) \
        and not np.shares_memory(out, x)
    result = out if direct else np.empty(pair.shape, dtype=pair.info.numpy)
    tiling = _grad_tiling(pair.dy_shape, pair.x_shape, pair.info, approximate, pair.platform)
    if pair.on_950:
        grad_op.run_arch35(pair.dy, pair.x, result, tiling, pair.info, pair.platform.axpy_rounding)
    else:
        grad_op.a2.run(pair.dy, pair.x, result, tiling, pair.info, pair.platform.saturation)
    return _finish(result, out)
