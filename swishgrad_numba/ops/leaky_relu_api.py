"""The public :func:`leaky_relu` (aclnnLeakyRelu) and :func:`leaky_relu_backward` (aclnnLeakyReluBackward).

Plain Python that checks the arguments as the op_api does and decides: float32, float16 and bfloat16 run
the registered Ascend 950 kernels (:mod:`.leaky_relu`, :mod:`.leaky_relu_grad`); float64 runs the AICPU
kernels (op_api ``leaky_relu.cpp:39-48``, ``leaky_relu_grad.cpp:40-49``), which ops-nn does not contain:
they are modelled plainly here (:func:`aicpu_leaky_relu`, :func:`aicpu_leaky_relu_grad`), whatever the
platform, as the AICPU SigmoidGrad is. docs/model.md, "LeakyRelu, LeakyReluBackward (950 only)".
"""
from __future__ import annotations

import numpy as np

from ..arguments import check_array, check_out_like, check_platform_for
from ..dtypes import dtype_info, to_float32
from ..platform import Platform
from . import leaky_relu as fwd
from . import leaky_relu_grad as grad_op
from .call import call

__all__ = ["leaky_relu", "leaky_relu_backward", "aicpu_leaky_relu", "aicpu_leaky_relu_grad", "promoted_dtype",
           "MAX_DIMS"]

#: aclnnLeakyReluBackward's rank limit (``aclnn_leaky_relu_backward.cpp:30``) and aclnnLeakyRelu's
#: (``MAX_SUPPORT_DIMS_NUMS``).
MAX_DIMS = 8
_F64 = np.dtype(np.float64)


def _slope(negative_slope) -> np.float32:
    """``negativeSlope->ToFloat()``: one rounding to float32 (past its range +-inf, as a C cast; a bool
    1.0 or 0.0, the rule of every float attribute: :func:`swishgrad_numba.dtypes.to_float32`)."""
    return to_float32(negative_slope, argname="negative_slope")


def aicpu_leaky_relu(x: np.ndarray, slope32) -> np.ndarray:
    """The float64 AICPU LeakyRelu (not public), modelled plainly: ``x > 0 ? x : x * alpha`` in binary64,
    the ``alpha`` attribute (a float) widened exactly."""
    with np.errstate(all="ignore"):
        return np.where(x > 0, x, x * np.float64(slope32))


def aicpu_leaky_relu_grad(dy: np.ndarray, x: np.ndarray, slope32) -> np.ndarray:
    """The float64 AICPU LeakyReluGrad (not public), modelled plainly: ``x > 0 ? dy : dy * alpha`` in
    binary64, broadcast, the ``alpha`` attribute (a float) widened exactly."""
    with np.errstate(all="ignore"):
        return np.where(x > 0, dy, dy * np.float64(slope32))


def _check_dtype(a: np.ndarray, argname: str) -> None:
    """The op_api's list: the AI Core dtypes and float64."""
    if a.dtype != _F64:
        try:
            dtype_info(a.dtype, argname=f"{argname}.dtype")
        except (TypeError, ValueError):
            raise ValueError(f"{argname}.dtype must be one of float32, float16, bfloat16, float64 (the aclnn "
                             f"API's list), got {a.dtype}") from None


def _check_rank(shape, argname):
    if len(shape) > MAX_DIMS:
        raise ValueError(f"{argname} has at most {MAX_DIMS} dimensions, got {len(shape)}")


def _aicpu_platform(platform):
    if platform is not None and not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")


def _finish(result, out):
    if out is None or result is out:
        return result
    out[...] = result
    return out


def leaky_relu(x, negative_slope=0.01, *, out=None, platform: Platform | None = None):
    """LeakyReLU, ``x > 0 ? x : x * negative_slope``, exactly as the Ascend 950's LeakyRelu kernel computes
    it (aclnnLeakyRelu).

    Parameters
    ----------
    x : numpy.ndarray
        float32, float16 or ``ml_dtypes.bfloat16`` (the 950 kernel), or float64 (the AICPU kernel, on any
        platform); at most 8 dimensions; any strides.
    negative_slope : real number
        Rounded once to float32 (``aclScalar::ToFloat``).
    out : numpy.ndarray, optional
        Array of x's shape and dtype to write into; may be a non-contiguous view or ``x`` itself
        (aclnnInplaceLeakyRelu).
    platform : Platform, optional
        An Ascend 950 (the default): the only public kernel.

    Returns
    -------
    numpy.ndarray
        ``out`` if given, else a new C-contiguous array.

    Raises
    ------
    TypeError, ValueError
        Naming the argument and the rule. An Atlas A2 platform is refused for the AI Core dtypes: no
        public A2 kernel registers the op type LeakyRelu.

    Notes
    -----
    The kernel computes ``x * slope`` for every element and selects x where ``x > 0`` (float32, 16-bit
    widened and the result narrowed with CAST_RINT): ``-0`` gives ``-0 * slope``, NaN gives NaN, and a
    slope of 0 gives NaN at ``x = -inf``.
    """
    check_array(x, "x")
    _check_dtype(x, "x")
    slope32 = _slope(negative_slope)
    _check_rank(x.shape, "x")
    if x.dtype == _F64:
        _aicpu_platform(platform)
        check_out_like(out, x.shape, x.dtype)
        return _finish(aicpu_leaky_relu(x, slope32), out)
    return call(fwd.NAME, (("x", x),), slope32, out, platform)


def promoted_dtype(a_dtype, b_dtype) -> np.dtype:
    """The op_api's ``PromoteType`` for two of the accepted dtypes: the dtype where they agree, float64
    where either is, else float32 (float16 with bfloat16 too)."""
    if a_dtype == b_dtype:
        return a_dtype
    return _F64 if _F64 in (a_dtype, b_dtype) else np.dtype(np.float32)


def leaky_relu_backward(grad_output, x, negative_slope=0.01, self_is_result=False, *, out=None,
                        platform: Platform | None = None):
    """The gradient of LeakyReLU, ``x > 0 ? grad_output : grad_output * negative_slope``, exactly as the
    Ascend 950's LeakyReluGrad kernel computes it (aclnnLeakyReluBackward).

    Parameters
    ----------
    grad_output, x : numpy.ndarray
        float32, float16, ``ml_dtypes.bfloat16`` or float64; two different dtypes are both cast to their
        promoted type first (float64 where either is, else float32), as the op_api does. Shapes that
        broadcast against each other (at most 8 dimensions): the 950 kernel walks them as they are.
        float64 runs the AICPU kernel (modelled plainly), on any platform.
    negative_slope : real number
        Rounded once to float32 (``ToFloat``).
    self_is_result : bool
        Whether ``x`` is the forward's result (aclnnLeakyReluBackward's ``selfIsResult``): refused with a
        negative slope (the op_api's check, 161002); the kernel computes the same either way.
    out : numpy.ndarray, optional
        Array of the broadcast shape and the promoted dtype; may be a non-contiguous view.
    platform : Platform, optional
        An Ascend 950 (the default).

    Returns
    -------
    numpy.ndarray
        ``out`` if given, else a new C-contiguous array.

    Raises
    ------
    TypeError, ValueError
        Naming the argument and the rule, as :func:`leaky_relu`. A NaN ``x`` takes the slope branch.
    """
    check_array(grad_output, "grad_output")
    check_array(x, "x")
    slope32 = _slope(negative_slope)
    if not isinstance(self_is_result, (bool, np.bool_)):
        raise TypeError(f"self_is_result must be a bool, got {type(self_is_result).__name__}")
    if self_is_result and negative_slope < 0:
        raise ValueError(f"self_is_result=True needs negative_slope >= 0, got {negative_slope!r} (the op_api "
                         f"refuses an in-place forward's result with a negative slope: x is then not invertible)")
    for a, argname in ((grad_output, "grad_output"), (x, "x")):
        _check_dtype(a, argname)
        _check_rank(a.shape, argname)
    try:
        shape = tuple(np.broadcast_shapes(grad_output.shape, x.shape))
    except ValueError:
        raise ValueError(f"grad_output and x must broadcast against each other, got {grad_output.shape} and "
                         f"{x.shape}") from None
    dtype = promoted_dtype(grad_output.dtype, x.dtype)
    if dtype == _F64:
        _aicpu_platform(platform)
        check_out_like(out, shape, dtype)
        return _finish(aicpu_leaky_relu_grad(grad_output.astype(dtype), x.astype(dtype), slope32), out)
    info = dtype_info(dtype)
    platform = check_platform_for(platform, grad_op.NAME, info)
    check_out_like(out, shape, dtype)
    if grad_output.size == 0 or x.size == 0:
        return np.empty(shape, dtype=dtype) if out is None else out
    if grad_output.dtype != dtype or x.dtype != dtype:
        grad_output, x = grad_output.astype(dtype), x.astype(dtype)   # the op_api's Cast: exact widenings
    if grad_output.shape == x.shape:
        dy_c, x_c = np.ascontiguousarray(grad_output).reshape(-1), np.ascontiguousarray(x).reshape(-1)
    else:
        dy_c, x_c = np.ascontiguousarray(grad_output), np.ascontiguousarray(x)
    # the walk takes its inputs as one tuple: both read-only or neither
    if dy_c.flags.writeable != x_c.flags.writeable:
        dy_c, x_c = (a if a.flags.writeable else a.copy() for a in (dy_c, x_c))
    direct = out is not None and out.flags.c_contiguous and not np.shares_memory(out, grad_output) \
        and not np.shares_memory(out, x)
    result = out if direct else np.empty(shape, dtype=dtype)
    tiling = grad_op.cached_tiling(dy_c.shape, x_c.shape, info, slope32, platform)
    grad_op.launch(dy_c, x_c, result, tiling, info)
    return _finish(result, out)

