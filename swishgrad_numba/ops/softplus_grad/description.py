"""aclnnSoftplusBackward (SoftplusV2Grad), described once (:mod:`swishgrad_numba.ops.description`).

docs/model.md, "SoftplusBackward (aclnnSoftplusBackward)", gives the sources: the op_api
(``activation/softplus_v2_grad/op_api/aclnn_softplus_backward.cpp``: gradOutput and gradInput in {float32,
float16, float64, and bfloat16 on the A2, A3 and 950}, self also an integer or bool dtype; equal shapes, at
most 8 dims; where the two inputs differ in dtype or either is outside float32/float16/bfloat16, both are
Cast to float32 first and the result Cast to gradInput's dtype: the ``"float32"`` promotion) and the kernels
(:mod:`.kernel`: the A2's, experimental/; the 950's, its host in :mod:`.arch35`).
"""
from __future__ import annotations

from ..description import Attribute, Description, Input, describe
from .kernel import KERNELS, NAME, registry_host_tiling

__all__ = ["GRAD_DTYPES", "X_ONLY_DTYPES", "DESCRIPTION"]

_WITH_BF16 = ("float32", "float16", "float64", "bfloat16")
#: aclnnSoftplusBackward's lists for gradOutput and gradInput (self's too): bfloat16 on DAV_2201 and the 950.
GRAD_DTYPES = {"ascend910b": _WITH_BF16, "ascend910_93": _WITH_BF16, "ascend950": _WITH_BF16, "*": _WITH_BF16[:3]}
#: The dtypes ``self`` takes beyond :data:`GRAD_DTYPES`, on every SoC.
X_ONLY_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "bool")

DESCRIPTION = describe(Description(
    NAME, "grad_output * sigmoid(beta x), grad_output where beta x > threshold (A2: dy * (1 / (exp(-beta x) + 1)), "
          "950: dy / (exp(-beta x) + 1))", "SoftplusV2Grad", functional="softplus_backward",
    aclnn=("aclnnSoftplusBackwardGetWorkspaceSize", "aclnnSoftplusBackward"), out="gradInput",
    inputs=(Input("grad_output", "gradOutput", "grad"), Input("x", "self", "x", extra_dtypes=X_ONLY_DTYPES)),
    attributes=(Attribute("beta", "beta", 1.0), Attribute("threshold", "threshold", 20.0)),
    dtypes=GRAD_DTYPES, promotion="float32", kernels=KERNELS, host_tiling=registry_host_tiling, saturation=True,
    soc_checked=True))  # bfloat16 on DAV_2201 and the 950, not the 910E (issue 41)
