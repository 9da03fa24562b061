"""aclnnHardswishBackward (HardSwishGrad), described once (:mod:`swishgrad_numba.ops.description`).

docs/model.md, "Hardswish and HardswishBackward", gives the sources: the op_api
(``activation/hard_swish_grad/op_host/op_api/aclnn_hardswish_backward.cpp``, the experimental copy alike:
self and gradOutput in {float32, float16, and bfloat16 on NpuArch DAV_2201 (the A2 and A3) and the 950}
(``GetDtypeSupportListV2``), gradOutput and out of self's dtype, at most 8 dims, gradOutput's and out's shapes
equal to self's: nothing broadcasts, no dtype is promoted; an empty self launches nothing) and the kernels
(:mod:`.backward`: the A2's strict bounds at +-3, the 950's inclusive ones).
"""
from __future__ import annotations

from ..description import Description, Input, describe
from ..mish.description import V2_DTYPES
from .backward import KERNELS, NAME, host_tiling

__all__ = ["DESCRIPTION"]

DESCRIPTION = describe(Description(
    NAME, "grad_output * (x * 0.333333343f + 0.5) inside the kernel's bounds (the 950's inclusive, the A2's "
          "strict), grad_output * 0 below -3, grad_output * 1 above 3 and for NaN x", "HardSwishGrad",
    functional="hardswish_backward", aclnn=("aclnnHardswishBackwardGetWorkspaceSize", "aclnnHardswishBackward"),
    inputs=(Input("grad_output", "gradOutput", "grad"), Input("x", "self", "x")), dtypes=V2_DTYPES,
    kernels=KERNELS, host_tiling=host_tiling, saturation=True, out_same_dtype=True, soc_checked=True))
