"""aclnnLeakyRelu, described once (:mod:`swishgrad_numba.ops.description`): every face is generated from it.

docs/model.md, "LeakyRelu, LeakyReluBackward (950 only)", gives the sources: the op_api
(``activation/leaky_relu/op_api/aclnn_leaky_relu.cpp``: self in {float32, float16, float64, bfloat16},
bfloat16 on NpuArch DAV_2201 (the A2 and A3) or a regbase chip (the 950) only; at most 8 dims; the slope
``negativeSlope->ToFloat()``; float64 to the AICPU kernel, ``leaky_relu.cpp:39-48``) and the kernel
(:mod:`.kernel`, the 950's only: no public A2 kernel registers the op type LeakyRelu).
"""
from __future__ import annotations

import numpy as np

from ..description import Attribute, Description, Input, describe
from .kernel import DEFAULT_SLOPE, KERNELS, NAME, NO_A2_KERNEL, host_tiling
from ...platform import ARCH_A2

__all__ = ["LEAKY_RELU_DTYPES", "aicpu_leaky_relu", "DESCRIPTION"]

#: aclnnLeakyRelu's (and aclnnLeakyReluBackward's) dtype lists: bfloat16 on DAV_2201 and regbase chips only.
_WITH_BF16 = ("float32", "float16", "float64", "bfloat16")
LEAKY_RELU_DTYPES = {"ascend910b": _WITH_BF16, "ascend910_93": _WITH_BF16, "ascend950": _WITH_BF16,
                     "*": _WITH_BF16[:3]}


def aicpu_leaky_relu(x: np.ndarray, slope32) -> np.ndarray:
    """The float64 AICPU LeakyRelu (ops-nn does not contain it), modelled plainly: ``x > 0 ? x : x * alpha``
    in binary64, the ``alpha`` attribute (a float) widened exactly."""
    with np.errstate(all="ignore"):
        return np.where(x > 0, x, x * np.float64(slope32))


def _zero_second_derivative(x, slope, platform):
    """``s''(x) = 0`` (float64, x's shape): LeakyReLU is linear on each side of 0 (torch needs it)."""
    import torch

    return torch.zeros_like(x, dtype=torch.float64)


DESCRIPTION = describe(Description(
    NAME, "x > 0 ? x : x * negative_slope (float32; 16-bit widened, narrowed CAST_RINT)", "LeakyRelu",
    functional="leaky_relu", aclnn=("aclnnLeakyReluGetWorkspaceSize", "aclnnLeakyRelu"),
    aclnn_inplace=("aclnnInplaceLeakyReluGetWorkspaceSize", "aclnnInplaceLeakyRelu"),
    inputs=(Input("x", "self", "x"),),
    attributes=(Attribute("negative_slope", "negativeSlope", DEFAULT_SLOPE),),
    dtypes=LEAKY_RELU_DTYPES, aicpu_dtypes=("float64",), aicpu=aicpu_leaky_relu,
    kernels=KERNELS, no_kernel={ARCH_A2: NO_A2_KERNEL}, host_tiling=host_tiling,
    backward="leaky_relu_grad", torch_module="LeakyReLU", second_derivative=_zero_second_derivative))
