"""aclnnMishBackward (MishGrad), described once (:mod:`swishgrad_numba.ops.description`).

docs/model.md, "MishBackward", gives the sources: the op_api (``activation/mish_grad/op_api/
aclnn_mish_backward.cpp``: gradOutput, self and gradInput each in {float32, float16, and bfloat16 on NpuArch
DAV_2201 and DAV_3510} (``GetDtypeSupportListV2``), at most 8 dims; self and gradOutput broadcast, gradInput
of their broadcast shape; an empty input launches nothing; both inputs Cast to their promoted dtype and
BroadcastTo gradInput's shape, then MishGrad (the 950's ``MishGradWithTanhX(.., nullptr)``), a Cast to
gradInput's dtype and a ViewCopy) and the kernels (:mod:`.backward`, the 950's; :mod:`.backward_a2`, the A2's,
whose NaN guard gives x where x is NaN).
"""
from __future__ import annotations

from ..description import Description, Input, describe
from .backward import KERNELS, NAME, host_tiling
from .description import V2_DTYPES

__all__ = ["DESCRIPTION"]

DESCRIPTION = describe(Description(
    NAME, "grad_output * (t - (t * t - 1) * x / (e^-x + 1)), t = tanh(softplus(x)) by the Mish kernel's branch "
          "forms, in float32 (16-bit widened, narrowed CAST_RINT)", "MishGrad", functional="mish_backward",
    aclnn=("aclnnMishBackwardGetWorkspaceSize", "aclnnMishBackward"), out="gradInput",
    inputs=(Input("grad_output", "gradOutput", "grad"), Input("x", "self", "x")), dtypes=V2_DTYPES,
    promotion="promote", broadcast=True, broadcast_to=True, kernels=KERNELS, host_tiling=host_tiling,
    saturation=True, axpy=True, out_listed=True, soc_checked=True))
