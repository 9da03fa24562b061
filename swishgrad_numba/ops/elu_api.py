"""The public functions :func:`elu` and :func:`elu_backward`: the attributes checked and converted to float32
as the aclnn's ``aclScalar::ToFloat`` does, then the generic path (:func:`.call.call`) on the registered
operators (:mod:`.elu`, :mod:`.elu_grad`). float64 Elu runs the AICPU kernel, modelled here
(:func:`aicpu_elu`)."""
from __future__ import annotations

import math

import numpy as np

from ..arguments import check_out
from ..dtypes import to_float32
from ..platform import Platform
from . import elu as elu_op
from . import elu_grad as grad_op
from .call import call

__all__ = ["elu", "elu_backward", "aicpu_elu", "elu_float64"]

_FLOAT64_BACKWARD = ("aclnnEluBackward accepts float32, float16 and bfloat16 only (aclnn_elu_backward.cpp:35-38); "
                     "float64 is aclnnElu's alone")
_F64 = np.dtype(np.float64)
_FLT_EPSILON = np.float32(2.0 ** -23)
_ONE32 = np.float32(1.0)
def _libm_exp(v: float) -> float:
    try:
        return math.exp(v)
    except OverflowError:   # Python raises where C's exp returns +inf
        return math.inf


#: The C library's exp, one double at a time (the AICPU's ``std::exp``).
_LIBM_EXP = np.frompyfunc(_libm_exp, 1, 1)


def _near_one(v32) -> bool:
    """``std::fabs(v - 1.0F) < FLT_EPSILON`` in float: 1 and the float just below it (1 - 2^-24)."""
    return bool(np.abs(np.float32(v32) - _ONE32) < _FLT_EPSILON)


def _to_string_atof(v32) -> float:
    """``atof(std::to_string(v).c_str())``: the float printed with six decimals ("%f"), read back as a double
    (``TransType<double>``, elu_aicpu.cpp:31-35). 1.1f gives 1.1, not 1.10000002384; 1e-7f gives 0."""
    return float("%f" % float(v32))


def aicpu_elu(x: np.ndarray, alpha32, scale32, input_scale32) -> np.ndarray:
    """The float64 AICPU Elu (``activation/elu/op_kernel_aicpu/elu_aicpu.cpp``, ``EluDoCompute``), in binary64:

    - alpha, scale and inputScale all within FLT_EPSILON of 1 (the TF defaults): ``x >= 0 ? x : exp(x) - 1``;
    - scale and inputScale so: ``x >= 0 ? x : alpha * (exp(x) - 1)``;
    - else ``x >= 0 ? x * scale : alpha * scale * (exp(x * inputScale) - 1)``, left to right,

    each attribute as :func:`_to_string_atof` gives it. ``x >= 0`` (the AI Core's Elu tests ``x > 0``): -0
    keeps its sign through the first branch, NaN takes the exp branch. ``exp`` is this machine's C library
    ``exp`` (the AICPU's ``std::exp`` through ``Eigen::numext::exp``); NumPy's vectorised exp may differ from it
    by an ulp, so it is not used.
    """
    x = np.ascontiguousarray(x, dtype=_F64)
    out = np.empty_like(x)
    keep = x >= 0
    neg = ~keep
    if _near_one(alpha32) and _near_one(scale32) and _near_one(input_scale32):
        out[keep] = x[keep]
        out[neg] = _LIBM_EXP(x[neg]).astype(_F64) - 1.0
        return out
    alpha = _to_string_atof(alpha32)
    if _near_one(scale32) and _near_one(input_scale32):
        out[keep] = x[keep]
        out[neg] = alpha * (_LIBM_EXP(x[neg]).astype(_F64) - 1.0)
        return out
    scale, input_scale = _to_string_atof(scale32), _to_string_atof(input_scale32)
    out[keep] = x[keep] * scale
    out[neg] = alpha * scale * (_LIBM_EXP(x[neg] * input_scale).astype(_F64) - 1.0)
    return out


def _attrs(alpha, scale, input_scale) -> tuple:
    return tuple(to_float32(v, argname=n) for n, v in (("alpha", alpha), ("scale", scale),
                                                         ("input_scale", input_scale)))


def _refuse_float64(name: str, a) -> None:
    if isinstance(a, np.ndarray) and a.dtype == np.float64:
        raise TypeError(f"{name}.dtype float64 is not supported: {_FLOAT64_BACKWARD}")


def elu_float64(x: np.ndarray, attrs: tuple) -> np.ndarray:
    """aclnnElu on float64 (``aclnn_elu.cpp``): with alpha or inputScale inf or NaN the op_api casts x to
    float32 and takes its Threshold path, cast back to double; else the AICPU kernel (``elu.cpp``: double is
    not an AI Core dtype), on any SoC. ``attrs``: (alpha, scale, input_scale) as float32."""
    if elu_op.threshold_path(attrs[0], attrs[2]):
        with np.errstate(over="ignore"):
            x32 = x.astype(np.float32)
        return call(elu_op.NAME, (("x", x32),), attrs, None, None).astype(_F64)
    return aicpu_elu(x, *attrs).reshape(x.shape)


def _elu_float64(x: np.ndarray, attrs: tuple, out, platform) -> np.ndarray:
    if platform is not None and not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    check_out(out, x)
    if x.ndim > 8:
        raise ValueError(f"x has at most 8 dimensions, got {x.ndim}")
    result = elu_float64(x, attrs)
    if out is None:
        return result
    out[...] = result
    return out


def elu(x, alpha=1.0, scale=1.0, input_scale=1.0, *, out=None, platform: Platform | None = None):
    """ELU, ``scale * (x if x > 0 else alpha * (exp(input_scale * x) - 1))``, exactly as the Ascend 950's Elu
    kernel computes it (aclnnElu).

    Parameters
    ----------
    x : numpy.ndarray
        float32, float16 or ``ml_dtypes.bfloat16`` (the 950 kernel), or float64 (the AICPU kernel, modelled by
        :func:`aicpu_elu`, on any platform); any shape and strides.
    alpha, scale, input_scale : real
        The aclnn's ``aclScalar`` attributes, each rounded once to float32. Where alpha or input_scale is
        inf or NaN the op_api runs no Elu kernel but ``Threshold(x, 0, -alpha)`` and ``Muls(scale)`` in
        float32: ``(x if x > 0 else -alpha) * scale`` (``aclnn_elu.cpp:109-150``).
    out : numpy.ndarray, optional
        Array of x's shape and dtype to write into; may be a non-contiguous view.
    platform : Platform, optional
        An Ascend 950 (the default: :data:`~swishgrad_numba.ASCEND950_PLATFORM`, the only kernel).

    Returns
    -------
    numpy.ndarray
        ``out`` if given, else a new C-contiguous array.

    Raises
    ------
    TypeError, ValueError
        Naming the argument. An Atlas A2 platform is refused for the AI Core dtypes (no public A2 kernel
        registers op type Elu).

    Notes
    -----
    docs/model.md, "Elu (aclnnElu, 950 only)": for ``|input_scale * x| < 0.1`` the kernel takes a Taylor
    polynomial for expm1 (degree 5 for float32, 4 for 16-bit), else ``exp(z) - 1``; NaN gives NaN and
    ``elu(-inf) = -alpha * scale``.
    """
    attrs = _attrs(alpha, scale, input_scale)
    if isinstance(x, np.ndarray) and x.dtype == _F64:
        return _elu_float64(x, attrs, out, platform)
    return call(elu_op.NAME, (("x", x),), attrs, out, platform)


def elu_backward(grad_output, x_or_result, alpha=1.0, scale=1.0, input_scale=1.0, is_result=False, *, out=None,
                 platform: Platform | None = None):
    """The gradient of :func:`elu` (aclnnEluBackward, op type EluGradV2), exactly as the kernel computes it:
    ``grad_output * scale`` where ``x_or_result > 0`` (or is NaN), else
    ``grad_output * input_scale * alpha * scale * exp(x * input_scale)`` (``is_result`` false: x is the
    input) or ``grad_output * input_scale * (result + alpha * scale)`` (``is_result`` true: the forward's
    output), each in its kernel's order of float32 operations.

    Parameters
    ----------
    grad_output, x_or_result : numpy.ndarray
        One dtype (float32, float16 or ``ml_dtypes.bfloat16``) and one shape; any strides.
    alpha, scale, input_scale : real
        Rounded once to float32 each; with ``is_result`` alpha must be >= 0 (the aclnn and the host
        refuse a negative one).
    is_result : bool
        Whether ``x_or_result`` is the forward's result (the kernel's other DAG).
    out, platform
        As :func:`elu`, but both kernels run EluGradV2: the A2 reference platform is the default. The A2
        kernel leaves out a ``Muls`` whose factor lies in (0.999, 1.001) in some of its classes, chosen by the
        host from the size and alignment (docs/model.md, "EluBackward").

    Returns, errors as :func:`elu` (TypeError for differing dtypes, ValueError for differing shapes).
    """
    if not isinstance(is_result, (bool, np.bool_)):
        raise TypeError(f"is_result must be a bool, got {type(is_result).__name__}")
    _refuse_float64("grad_output", grad_output)
    _refuse_float64("x_or_result", x_or_result)
    attrs = _attrs(alpha, scale, input_scale)
    if is_result and attrs[0] < 0:
        raise ValueError(f"alpha must be >= 0 when is_result is true, got {float(attrs[0])!r} "
                         f"(aclnn_elu_backward.cpp:107-115)")
    return call(grad_op.NAME, (("grad_output", grad_output), ("x_or_result", x_or_result)),
                attrs + (np.float32(bool(is_result)),), out, platform)
