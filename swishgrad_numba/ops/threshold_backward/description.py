"""aclnnThresholdBackward, described once (:mod:`swishgrad_numba.ops.description`).

docs/model.md, "Relu and ThresholdBackward", gives the sources: the op_api
(``activation/threshold_grad_v2_d/op_api/aclnn_threshold_backward.cpp``: ``(gradOutput, self, threshold,
out)``; gradOutput, self and out of one dtype in {float32, int32, float16, int8, uint8}, bfloat16 too on
NpuArch DAV_2201 (the A2 and A3) or a regbase chip (the 950); int64 only on a regbase chip with a zero
threshold, not modelled here; at most 8 dims; gradOutput and self broadcast to out's shape; ReluGrad where
``|threshold->ToFloat()| <= FLT_EPSILON``, ThresholdGradV2D otherwise) and the kernels (:mod:`.kernel`).

The integer dtypes run on the host (:func:`integer_threshold_backward`), exactly as the kernels compute them:
ReluGrad gives ``self > 0 ? grad : 0`` in integers (the A2's Min/Max/Mul masks, the 950's Mul by 0 or 1);
ThresholdGradV2D compares ``(float)self`` with the float threshold (the A2 ``>``, the 950 ``!(<=)``: they
differ for a NaN threshold only) and, for int32, passes grad through float32 (int32 -> float32 to nearest
even, back exactly; a value that rounds to 2^31 is taken as INT32_MAX, the device's is not public).
"""
from __future__ import annotations

import numpy as np

from ...platform import ARCH_950
from ..description import Attribute, Description, Input, describe
from .kernel import KERNELS, NAME, host_tiling, shaped_launch, shaped_tiling, variant_of

__all__ = ["THRESHOLD_BACKWARD_DTYPES", "INTEGER_DTYPES", "integer_threshold_backward", "DESCRIPTION"]

INTEGER_DTYPES = ("int32", "int8", "uint8")
_LIST = ("float32", "int32", "float16", "int8", "uint8")
#: aclnnThresholdBackward's dtype lists (op_api order): bfloat16 on DAV_2201 and regbase chips.
THRESHOLD_BACKWARD_DTYPES = {"ascend910b": _LIST + ("bfloat16",), "ascend910_93": _LIST + ("bfloat16",),
                             "ascend950": _LIST + ("bfloat16",), "*": _LIST}


def integer_threshold_backward(inputs, attrs, platform) -> np.ndarray:
    """ThresholdBackward of integer ``grad``, ``self`` (one dtype, one shape) with float32 ``threshold``."""
    grad, x = inputs
    (t,) = attrs
    zero = grad.dtype.type(0)
    if variant_of(t) == "relu_grad":
        return np.where(x > 0, grad, zero)
    with np.errstate(invalid="ignore"):
        xf = x.astype(np.float32)
        keep = ~(xf <= t) if platform.architecture == ARCH_950 else xf > t
    if grad.dtype != np.int32:
        return np.where(keep, grad, zero)
    g = grad.astype(np.float32).astype(np.float64)          # to nearest even, then exact
    g = np.clip(g, np.iinfo(np.int32).min, np.iinfo(np.int32).max).astype(np.int32)
    return np.where(keep, g, zero)


DESCRIPTION = describe(Description(
    NAME, "grad_output where x > threshold, else 0 (ReluGrad where |threshold| <= FLT_EPSILON, else "
          "ThresholdGradV2D)", "ReluGrad / ThresholdGradV2D", functional="threshold_backward",
    aclnn=("aclnnThresholdBackwardGetWorkspaceSize", "aclnnThresholdBackward"),
    inputs=(Input("grad_output", "gradOutput", "grad"), Input("x", "self", "x")),
    attributes=(Attribute("threshold", "threshold", 0.0),),
    dtypes=THRESHOLD_BACKWARD_DTYPES, broadcast=True, kernels=KERNELS, host_tiling=host_tiling,
    shaped_tiling=shaped_tiling, shaped_launch=shaped_launch, saturation=True,
    exact_dtypes=INTEGER_DTYPES, exact=integer_threshold_backward, out_same_dtype=True,
    soc_checked=True))  # bfloat16 on DAV_2201 and the 950, not the 910E (issue 41)
