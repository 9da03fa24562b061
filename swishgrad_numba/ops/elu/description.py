"""aclnnElu, described once (:mod:`swishgrad_numba.ops.description`): every face is generated from it.

docs/model.md, "Elu (aclnnElu, 950 only)", gives the sources: the op_api
(``activation/elu/op_api/aclnn_elu.cpp``: self in {float32, float16, float64, bfloat16} on every SoC; at
most 8 dims; each scalar ``ToFloat``, complex refused; alpha or inputScale inf or NaN: no Elu kernel but
``Threshold`` then ``Muls`` in float32 on self cast to float32, the result Cast to out's dtype once
(:func:`threshold_path`, variant ``"threshold"`` of :mod:`.kernel`); float64 to the AICPU kernel,
``elu.cpp``, modelled by :func:`aicpu_elu`) and the kernel (:mod:`.kernel`, the 950's only).
"""
from __future__ import annotations

import math

import numpy as np

from ..description import Attribute, Description, Input, describe
from .kernel import KERNELS, NAME, NO_A2_KERNEL, host_tiling, threshold_path
from ...platform import ARCH_A2

__all__ = ["aicpu_elu", "elu_float64", "DESCRIPTION"]

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


def elu_float64(x: np.ndarray, attrs: tuple) -> np.ndarray:
    """aclnnElu on float64: the Threshold path (float32) where :func:`threshold_path`, else the AICPU kernel.
    ``attrs``: (alpha, scale, input_scale) as float32. The functional face, on a float64 ``x``."""
    from ...faces.functional import face

    return face(NAME)(x, *attrs)


def _threshold(attrs: dict, dtype: np.dtype):
    """The op_api's path by attribute value: float32 (Threshold, Muls) where alpha or inputScale is not finite."""
    return np.dtype(np.float32) if threshold_path(attrs["alpha"], attrs["input_scale"]) else None


def _elu_second_derivative(x, alpha, platform):
    """``s''(x) = alpha * exp(x)`` where ``x <= 0``, 0 elsewhere (float64; NaN takes the positive branch, as
    the kernels' ``x <= 0`` test does)."""
    import torch

    x = x.double()
    return torch.where(x <= 0, alpha * torch.exp(x), torch.zeros_like(x))


_ALL = ("float32", "float16", "float64", "bfloat16")

DESCRIPTION = describe(Description(
    NAME, "scale * (x > 0 ? x : alpha * (exp(input_scale * x) - 1)) (the 950's Taylor expm1 near 0)", "Elu",
    functional="elu", aclnn=("aclnnEluGetWorkspaceSize", "aclnnElu"),
    inputs=(Input("x", "self", "x"),),
    attributes=(Attribute("alpha", "alpha", 1.0), Attribute("scale", "scale", 1.0),
                Attribute("input_scale", "inputScale", 1.0)),
    acl_order=("self", "alpha", "scale", "inputScale"),
    dtypes={"*": _ALL}, aicpu_dtypes=("float64",), aicpu=aicpu_elu, path=_threshold,
    kernels=KERNELS, no_kernel={ARCH_A2: NO_A2_KERNEL}, host_tiling=host_tiling,
    backward="elu_grad", torch_module="ELU", torch_attributes=("alpha",),
    second_derivative=_elu_second_derivative))
