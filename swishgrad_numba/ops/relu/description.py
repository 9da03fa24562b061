"""aclnnRelu and aclnnInplaceRelu, described once (:mod:`swishgrad_numba.ops.description`): every face is
generated from it.

docs/model.md, "Relu and ThresholdBackward", gives the sources: the op_api
(``activation/relu/op_api/aclnn_relu.cpp``: self in {float32, float16, int8, uint8, int32, int64}, bfloat16
too on a SoC in ``ASCEND910B..ASCEND910E`` (``CheckSocVersionIsSupportBf16``); out of self's dtype and shape;
at most 8 dims; an empty self, or a uint8 self that is its own out, launches nothing; any other uint8 self is
copied to out, no kernel) and the kernels (:mod:`.kernel`).

The integer dtypes run on the host (:func:`integer_relu`), not on the engine, whose arena holds float32: an
int32 or int64 beyond 2^24 has no exact float32. The kernels compute them exactly (``Relu`` on int32;
int8 widened to half, whose Relu and narrowing are exact; int64 ``value > 0 ? value : 0`` on the scalar
unit, or the 950's ``Maxs(x, 0)``), so the model is ``max(x, 0)``; uint8 is a copy. A model choice.
"""
from __future__ import annotations

import numpy as np

from ...platform import BF16_SOC_VERSIONS
from ..description import Description, Input, describe
from .kernel import KERNELS, NAME, host_tiling

__all__ = ["RELU_DTYPES", "INTEGER_DTYPES", "integer_relu", "DESCRIPTION"]

#: The integer dtypes aclnnRelu takes, run by :func:`integer_relu`.
INTEGER_DTYPES = ("int8", "uint8", "int32", "int64")
_LIST = ("float32", "float16") + INTEGER_DTYPES
#: aclnnRelu's dtype lists: bfloat16 on the SoCs of ASCEND910B..ASCEND910E only (``aclnn_relu.cpp:29-36``).
RELU_DTYPES = {**{soc: _LIST + ("bfloat16",) for soc in BF16_SOC_VERSIONS}, "*": _LIST}


def integer_relu(inputs, attrs, platform) -> np.ndarray:
    """Relu of an integer tensor, exactly: ``max(x, 0)`` (int8, int32, int64), a copy for uint8 (no kernel)."""
    (x,) = inputs
    if x.dtype == np.uint8:
        return np.array(x, copy=True)
    return np.maximum(x, x.dtype.type(0))


def _zero_second_derivative(x, attr, platform):
    """``relu''(x) = 0`` (float64, x's shape): ReLU is linear on each side of 0."""
    import torch

    return torch.zeros_like(x, dtype=torch.float64)


DESCRIPTION = describe(Description(
    NAME, "max(x, 0): NaN stays NaN, -0 gives +0 (the Relu instruction; bfloat16 widened, narrowed CAST_RINT)",
    "Relu", functional="relu", aclnn=("aclnnReluGetWorkspaceSize", "aclnnRelu"),
    aclnn_inplace=("aclnnInplaceReluGetWorkspaceSize", "aclnnInplaceRelu"),
    inputs=(Input("x", "self", "x"),), dtypes=RELU_DTYPES, kernels=KERNELS, host_tiling=host_tiling,
    saturation=True, exact_dtypes=INTEGER_DTYPES, exact=integer_relu, out_same_dtype=True,
    backward="threshold_backward", torch_module="ReLU", second_derivative=_zero_second_derivative))
