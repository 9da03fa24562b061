"""aclnnHardswish and aclnnInplaceHardswish, described once (:mod:`swishgrad_numba.ops.description`): every
face is generated from it.

docs/model.md, "Hardswish and HardswishBackward", gives the sources: the op_api
(``activation/hard_swish/op_host/op_api/aclnn_hardswish.cpp``: self and out each in {float32, float16, and
bfloat16 on ASCEND910B..ASCEND910E} (``CheckSocVersionGe910B``), self castable to out, equal shapes; an empty
self launches nothing; ``HardSwish(self)`` then a Cast to out's dtype; aclnnInplaceHardswish(self) is
aclnnHardswish(self, self)) and the kernel (:mod:`.forward`, the Ascend 950's only: no kernel registers op type
HardSwish on the A2, whose launcher fails with 561103, naming the SoC).

The torch module's second order is ``ggx * g * hardswish''(x)`` in float64, rounded once: 1/3 inside
``(-3, 3)``, 0 elsewhere (torch's).
"""
from __future__ import annotations

from ...platform import ARCH_A2, BF16_SOC_VERSIONS
from ..description import Description, Input, describe
from .forward import KERNELS, NAME, NO_A2_KERNEL, host_tiling

__all__ = ["HARDSWISH_DTYPES", "hardswish_second_derivative", "DESCRIPTION"]

#: aclnnHardswish's lists: bfloat16 on ASCEND910B..ASCEND910E only.
HARDSWISH_DTYPES = {**{soc: ("float32", "float16", "bfloat16") for soc in BF16_SOC_VERSIONS},
                    "*": ("float32", "float16")}


def hardswish_second_derivative(x, _attr=None, _platform=None):
    """``hardswish''(x)``: 1/3 inside (-3, 3), 0 outside (and for NaN), float64."""
    import torch

    x64 = x.double()
    inside = (x64 > -3.0) & (x64 < 3.0)
    return torch.where(inside, torch.full_like(x64, 1.0 / 3.0), torch.zeros_like(x64))


DESCRIPTION = describe(Description(
    NAME, "max(x, -3) * min(max(x + 3, 0), 6) * (1.0f / 6.0f) in float32 (16-bit widened, narrowed CAST_ROUND: "
          "ties away); x = -inf gives -0", "HardSwish", functional="hardswish",
    aclnn=("aclnnHardswishGetWorkspaceSize", "aclnnHardswish"),
    aclnn_inplace=("aclnnInplaceHardswishGetWorkspaceSize", "aclnnInplaceHardswish"),
    inputs=(Input("x", "self", "x"),), dtypes=HARDSWISH_DTYPES, kernels=KERNELS, no_kernel={ARCH_A2: NO_A2_KERNEL},
    host_tiling=host_tiling, out_listed=True, backward="hardswish_grad", torch_module="Hardswish",
    second_derivative=hardswish_second_derivative, torch_functions=("hardswish", "hardswish_backward_torch")))
