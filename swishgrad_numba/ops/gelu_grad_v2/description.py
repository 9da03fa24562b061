"""aclnnGeluBackwardV2 (GeluGradV2), described once (:mod:`swishgrad_numba.ops.description`).

docs/model.md, "GeluBackwardV2 (aclnnGeluBackwardV2)", gives the sources: the op_api (``(gradOutput, self,
approximate, gradInput)``, ``approximate`` the string "none" or "tanh"; GeluBackward's dtype, promotion and
broadcast rules, :func:`swishgrad_numba.ops.gelu_v2.description.op_api_checks`) and the kernels
(:mod:`.kernel`: the 950's on the broadcast walk; :mod:`.a2`, the A2's, over both inputs broadcast first).
"""
from __future__ import annotations

from ..description import Description, Input, describe
from ..gelu.description import GELU_DTYPES
from ..gelu_v2.description import APPROXIMATE, op_api_checks
from .kernel import KERNELS, NAME, registry_host_tiling, shaped_launch, shaped_tiling

__all__ = ["DESCRIPTION"]

DESCRIPTION = describe(Description(
    NAME, "grad_output * gelu'(x), approximate none (the erf's) or tanh (A2: GeluGrad's with a NaN guard; 950: "
          "the 950 GeluGrad's)", "GeluGradV2", functional="gelu_backward_v2",
    aclnn=("aclnnGeluBackwardV2GetWorkspaceSize", "aclnnGeluBackwardV2"), out="gradInput",
    inputs=(Input("grad_output", "gradOutput", "grad"), Input("x", "self", "x")), attributes=(APPROXIMATE,),
    dtypes=GELU_DTYPES, promotion="promote", broadcast=True, kernels=KERNELS, host_tiling=registry_host_tiling,
    shaped_tiling=shaped_tiling, shaped_launch=shaped_launch, saturation=True, axpy=True,
    op_api_checks=op_api_checks))
