"""The public functions :func:`elu` and :func:`elu_backward`: the attributes checked and converted to float32
as the aclnn's ``aclScalar::ToFloat`` does, then the generic path (:func:`.call.call`) on the registered
operators (:mod:`.elu`, :mod:`.elu_grad`)."""
from __future__ import annotations

import numpy as np

from ..dtypes import to_float32
from ..platform import Platform
from . import elu as elu_op
from . import elu_grad as grad_op
from .call import call

__all__ = ["elu", "elu_backward"]

_FLOAT64 = ("float64 runs on an AICPU kernel (activation/elu/op_kernel_aicpu/elu_aicpu.cpp: x >= 0 keeps x, else "
            "exp(x) - 1 in double, with special cases near attributes of 1) that this emulator does not model; "
            "pass float32, float16 or bfloat16")


def _attrs(alpha, scale, input_scale) -> tuple:
    return tuple(to_float32(v, argname=n) for n, v in (("alpha", alpha), ("scale", scale),
                                                         ("input_scale", input_scale)))


def _refuse_float64(name: str, a) -> None:
    if isinstance(a, np.ndarray) and a.dtype == np.float64:
        raise TypeError(f"{name}.dtype float64 is not supported: {_FLOAT64}")


def elu(x, alpha=1.0, scale=1.0, input_scale=1.0, *, out=None, platform: Platform | None = None):
    """ELU, ``scale * (x if x > 0 else alpha * (exp(input_scale * x) - 1))``, exactly as the Ascend 950's Elu
    kernel computes it (aclnnElu).

    Parameters
    ----------
    x : numpy.ndarray
        float32, float16 or ``ml_dtypes.bfloat16``; any shape and strides.
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
        Naming the argument. float64 is refused (its AICPU kernel is not modelled); an Atlas A2 platform is
        refused (no public A2 kernel registers op type Elu).

    Notes
    -----
    docs/model.md, "Elu (aclnnElu, 950 only)": for ``|input_scale * x| < 0.1`` the kernel takes a Taylor
    polynomial for expm1 (degree 5 for float32, 4 for 16-bit), else ``exp(z) - 1``; NaN gives NaN and
    ``elu(-inf) = -alpha * scale``.
    """
    _refuse_float64("x", x)
    return call(elu_op.NAME, (("x", x),), _attrs(alpha, scale, input_scale), out, platform)


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
