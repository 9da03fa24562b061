"""aclnnFastGeluBackward (FastGeluGrad), described once (:mod:`swishgrad_numba.ops.description`).

docs/model.md, "FastGelu and FastGeluBackward (Ascend 950 only)", gives the sources: the op_api
(``activation/fast_gelu_grad/op_api/aclnn_fast_gelu_backward.cpp``: ``(gradOutput, self, gradInput)``, its
checks FastGelu's, :func:`swishgrad_numba.ops.fast_gelu.description.op_api_checks`) and the 950 kernel
(:mod:`swishgrad_numba.ops.fast_gelu.kernel`, with FastGelu's).
"""
from __future__ import annotations

from ...platform import ARCH_A2
from ..description import Description, Input, describe
from ..fast_gelu.description import FAST_GELU_DTYPES, op_api_checks
from ..fast_gelu.kernel import BACKWARD, KERNELS, NO_A2_KERNEL, registry_host_tiling

__all__ = ["DESCRIPTION"]

DESCRIPTION = describe(Description(
    BACKWARD, "dy * (((s - 1) m + 1) s), s = 1 / (exp(m) + 1), m = -1.702 x, every node float32",
    "FastGeluGrad", functional="fast_gelu_backward",
    aclnn=("aclnnFastGeluBackwardGetWorkspaceSize", "aclnnFastGeluBackward"), out="gradInput",
    inputs=(Input("grad_output", "gradOutput", "grad"), Input("x", "self", "x")), dtypes=FAST_GELU_DTYPES,
    kernels=KERNELS[BACKWARD], no_kernel={ARCH_A2: NO_A2_KERNEL}, host_tiling=registry_host_tiling(BACKWARD),
    out_same_dtype=True, op_api_checks=op_api_checks))
