"""aclnnGeluBackward (GeluGrad), described once (:mod:`swishgrad_numba.ops.description`).

docs/model.md, "GeluBackward (aclnnGeluBackward)", gives the sources: the op_api (gradOutput and self in
Gelu's lists, Cast to their promoted dtype (float32 where they differ), broadcast to gradInput's shape, the
result Cast to gradInput's dtype: emulated where that is the promoted dtype; its checks are
:func:`swishgrad_numba.ops.gelu.description.op_api_checks`) and the kernels (:mod:`.kernel`: the A2's, two
formulas by SoC, over both inputs broadcast first; the 950's on the broadcast walk, two Axpys and a NaN
guard).
"""
from __future__ import annotations

from ..description import Description, Input, describe
from ..gelu.description import GELU_DTYPES, op_api_checks
from .kernel import KERNELS, NAME, registry_host_tiling, shaped_launch, shaped_tiling

__all__ = ["DESCRIPTION"]

DESCRIPTION = describe(Description(
    NAME, "grad_output * gelu'(x) (A2: two formulas by SoC; 950: two Axpys, x = +-inf guarded)", "GeluGrad",
    functional="gelu_backward", aclnn=("aclnnGeluBackwardGetWorkspaceSize", "aclnnGeluBackward"), out="gradInput",
    inputs=(Input("grad_output", "gradOutput", "grad"), Input("x", "self", "x")), dtypes=GELU_DTYPES,
    promotion="promote", broadcast=True, kernels=KERNELS, host_tiling=registry_host_tiling,
    shaped_tiling=shaped_tiling, shaped_launch=shaped_launch, saturation=True, axpy=True,
    op_api_checks=op_api_checks))
