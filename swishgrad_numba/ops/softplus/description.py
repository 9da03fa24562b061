"""aclnnSoftplus (SoftplusV2), described once (:mod:`swishgrad_numba.ops.description`): every face is generated
from it.

docs/model.md, "Softplus (aclnnSoftplus, 950 only)", gives the sources: the op_api
(``activation/softplus_v2/op_api/aclnn_softplus.cpp:57-140``: self in {float32, float16}, bfloat16 too on
the A2, the A3 and the 950; each scalar ``ToFloat``, complex refused; at most 8 dims; out of self's shape,
the result Cast to out's dtype) and the kernel (:mod:`.kernel`, the 950's only: on a SoC without it the
launcher fails, 561103).
"""
from __future__ import annotations

from ..description import Attribute, Description, Input, describe
from .kernel import KERNELS, NAME, NO_A2_KERNEL, registry_host_tiling
from ...platform import ARCH_A2

__all__ = ["SOFTPLUS_DTYPES", "DESCRIPTION"]

_WITH_BF16 = ("float32", "float16", "bfloat16")
#: aclnnSoftplus's dtype lists (and aclnnSoftplusBackward's floats): bfloat16 on DAV_2201 (the A2, A3) and the 950.
SOFTPLUS_DTYPES = {"ascend910b": _WITH_BF16, "ascend910_93": _WITH_BF16, "ascend950": _WITH_BF16,
                   "*": _WITH_BF16[:2]}


def _softplus_second_derivative(x, attrs, platform):
    """``s''(x) = beta sig(beta x) sig(-beta x)`` (0 where ``beta x > threshold``), float64; ``attrs`` the
    module's ``(beta, threshold)``."""
    import torch

    beta, threshold = attrs
    bx = beta * x.double()
    s2 = beta * torch.sigmoid(bx) * torch.sigmoid(-bx)
    return torch.where(bx > threshold, torch.zeros_like(s2), s2)


DESCRIPTION = describe(Description(
    NAME, "log(1 + exp(beta x)) / beta, x where beta x > threshold (the 950's SoftplusV2; 16-bit narrowed "
          "CAST_ROUND)", "SoftplusV2", functional="softplus", aclnn=("aclnnSoftplusGetWorkspaceSize", "aclnnSoftplus"),
    inputs=(Input("x", "self", "x"),),
    attributes=(Attribute("beta", "beta", 1.0), Attribute("threshold", "threshold", 20.0)),
    dtypes=SOFTPLUS_DTYPES, kernels=KERNELS, no_kernel={ARCH_A2: NO_A2_KERNEL}, host_tiling=registry_host_tiling,
    backward="softplus_grad", torch_module="Softplus", torch_attributes=("beta", "threshold"),
    torch_shows_platform=True, second_derivative=_softplus_second_derivative))
