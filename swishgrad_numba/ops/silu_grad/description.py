"""aclnnSiluBackward (SiluGrad), described once (:mod:`swishgrad_numba.ops.description`): its functional,
aclnn and Dask faces are generated from it.

docs/model.md, "SiluBackward", gives the sources: CANN's ``op_api/aclnn_silu_backward.cpp`` (mainline and
experimental the same text): gradOutput, self and gradInput each float16, float32 or bfloat16, bfloat16 on
the DAV_2201 arch (the A2 and A3) or a regbase one (the 950) only; at most 8 dims on each input. Without
regbase (the A2) all three share one dtype and one shape; on the 950 the inputs broadcast to gradInput's
shape, and differing dtypes need a float32 gradInput (the 950 kernel widens each input exactly, so the
result is the float32 kernel's on the inputs Cast to float32: the description's ``promote``). The torch
module (``swishgrad_numba.torch.SiLU``) stays hand-written beside Swish's.
"""
from __future__ import annotations

from ...platform import ARCH_A2
from ..description import Description, Input, describe
from .host import KERNELS, registry_host_tiling, shaped_launch, shaped_tiling
from .names import ACLNN_NAME, MAX_DIMS, NAME, OP_TYPE

__all__ = ["SILU_GRAD_DTYPES", "DESCRIPTION"]

_WITH_BF16 = ("float32", "float16", "bfloat16")
#: aclnnSiluBackward's dtype lists: bfloat16 on DAV_2201 (ascend910b, ascend910_93) and the 950.
SILU_GRAD_DTYPES = {"ascend910b": _WITH_BF16, "ascend910_93": _WITH_BF16, "ascend950": _WITH_BF16,
                    "*": _WITH_BF16[:2]}

DESCRIPTION = describe(Description(
    NAME, "grad_output * s * (1 + x * (1 - s)), s = sigmoid(x) (float32; 16-bit widened, narrowed CAST_RINT)",
    OP_TYPE, functional="silu_backward", aclnn=(ACLNN_NAME + "GetWorkspaceSize", ACLNN_NAME), out="gradInput",
    inputs=(Input("grad_output", "gradOutput", "grad"), Input("x", "self", "x")),
    dtypes=SILU_GRAD_DTYPES, promotion="promote", broadcast=True, one_shape_on=(ARCH_A2,), max_dims=MAX_DIMS,
    saturation=True, kernels=KERNELS, host_tiling=registry_host_tiling, shaped_tiling=shaped_tiling,
    shaped_launch=shaped_launch, out_same_dtype=True,
    soc_checked=True))  # bfloat16 on DAV_2201 and the 950, not the 910E (issue 41)
