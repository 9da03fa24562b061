"""aclnnSwish and aclnnSilu, described once each (:mod:`swishgrad_numba.ops.description`): their functional
and aclnn faces are generated from them. Both run the Swish kernels (:mod:`.kernel`); Silu is Swish with
scale 1.0.

docs/model.md, "Swish and Silu (forward)", section "aclnn (op_api)", gives the sources: self and out in
the SoC's dtype list (``GetDtypeSupportListV2``, and the experimental Swish's V1: bfloat16 on NpuArch
DAV_2201, the A2 and A3, or a regbase chip, the 950), out of self's dtype and shape, a ``betaOptional``
that can become a float (a null pointer is scale 1.0), at most 8 dimensions (aclnnSwish only: aclnnSilu
checks no rank). The torch modules (``swishgrad_numba.torch.Swish``, ``SiLU``) and SiLU's functions
(``silu``, ``silu_backward_torch``) and Swish's (``swish``, ``swish_backward_torch``, ``SwishFunction``,
``SwishBackwardFunction``: ``faces/torch_beta.py``) are generated from them (:mod:`swishgrad_numba.faces.torch`): Swish's
backward is SwishGrad's hand-written ``swish_backward``, with its ``beta``; the second order is
:func:`swish_second_derivative` (beta 1 for SiLU).
"""
from __future__ import annotations

from ..description import Attribute, Description, Input, describe
from .kernel import KERNELS, silu_host_tiling, swish_host_tiling

__all__ = ["SWISH_DTYPES", "DESCRIPTION", "SILU_DESCRIPTION", "swish_second_derivative"]

_WITH_BF16 = ("float32", "float16", "bfloat16")
#: aclnnSwish's and aclnnSilu's dtype lists: bfloat16 on DAV_2201 (ascend910b, ascend910_93) and the 950.
SWISH_DTYPES = {"ascend910b": _WITH_BF16, "ascend910_93": _WITH_BF16, "ascend950": _WITH_BF16,
                "*": _WITH_BF16[:2]}



def swish_second_derivative(x, beta, platform=None):
    """``s''(x)`` of Swish in float64 (the torch modules' second order; no kernel computes it):
    :func:`swishgrad_numba.faces.torch_support.swish_second_derivative`."""
    from ...faces.torch_support import swish_second_derivative as second

    return second(x, beta)


def _silu_second_derivative(x, _attr=None, platform=None):
    """``silu''(x)``: Swish's at beta 1 (the torch row's constant is not SiLU's)."""
    return swish_second_derivative(x, 1.0)


DESCRIPTION = describe(Description(
    "swish", "x * sigmoid(beta * x) (float32; 16-bit widened, narrowed CAST_ROUND on the A2, CAST_RINT on the 950)",
    "Swish", functional="swish", aclnn=("aclnnSwishGetWorkspaceSize", "aclnnSwish"),
    inputs=(Input("x", "self", "x"),),
    attributes=(Attribute("beta", "betaOptional", 1.0, optional=True, record="scale"),),
    dtypes=SWISH_DTYPES, saturation=True, kernels=KERNELS, host_tiling=swish_host_tiling, out_same_dtype=True,
    has_beta=True, backward="swish_grad", torch_module="Swish", second_derivative=swish_second_derivative,
    torch_functions=("swish", "swish_backward_torch", "SwishFunction", "SwishBackwardFunction")))

SILU_DESCRIPTION = describe(Description(
    "silu", "x * sigmoid(x): the Swish kernel with scale 1.0", "Swish", functional="silu",
    aclnn=("aclnnSiluGetWorkspaceSize", "aclnnSilu"), inputs=(Input("x", "self", "x"),),
    dtypes=SWISH_DTYPES, max_dims=None, saturation=True, kernels=KERNELS, host_tiling=silu_host_tiling,
    out_same_dtype=True, backward="silu_grad", torch_module="SiLU", second_derivative=_silu_second_derivative,
    torch_functions=("silu", "silu_backward_torch")))
