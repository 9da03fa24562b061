"""aclnnMish and aclnnInplaceMish, described once (:mod:`swishgrad_numba.ops.description`): every face is
generated from it.

docs/model.md, "Mish", gives the sources: the op_api (``activation/mish/op_api/aclnn_mish.cpp``: self and out
each in {float32, float16, and bfloat16 on NpuArch DAV_2201 (the A2 and A3) or the 950}
(``GetDtypeSupportListV2``), out of self's dtype and shape, at most 8 dims; an empty self launches nothing;
aclnnInplaceMish(selfRef) is aclnnMish(selfRef, selfRef)) and the kernels (:mod:`.forward`: the A2's and the
950's, whose ``Axpy`` rounds as the platform's ``axpy_rounding`` says).

The torch module's second order is ``ggx * g * mish''(x)`` in float64, rounded once (no kernel computes it):
``mish'' = (1 - t^2) s (2 + x (1 - s - 2 t s))``, ``t = tanh(softplus(x))``, ``s = sigmoid(x)``.
"""
from __future__ import annotations

from ..description import Description, Input, describe
from .forward import KERNELS, NAME, host_tiling

__all__ = ["V2_DTYPES", "mish_second_derivative", "DESCRIPTION"]

#: ``GetDtypeSupportListV2``: float32 and float16, bfloat16 too on NpuArch DAV_2201 (the A2 and A3) and the 950
#: (aclnnMish, aclnnMishBackward, aclnnHardswishBackward).
V2_DTYPES = {**{soc: ("float32", "float16", "bfloat16") for soc in ("ascend910b", "ascend910_93", "ascend950")},
             "*": ("float32", "float16")}


def mish_second_derivative(x, _attr=None, _platform=None):
    """``mish''(x)`` in float64 by plain PyTorch ops (differentiable again); NaN at ``x = -inf``."""
    import torch

    x64 = x.double()
    t = torch.tanh(torch.nn.functional.softplus(x64))
    s = torch.sigmoid(x64)
    return (1.0 - t * t) * s * (2.0 + x64 * (torch.sigmoid(-x64) - 2.0 * t * s))


DESCRIPTION = describe(Description(
    NAME, "x * tanh(softplus(x)) in float32, by two branch forms picked by the sign of x (16-bit widened, "
          "narrowed CAST_RINT); mish(-inf) is NaN", "Mish", functional="mish",
    aclnn=("aclnnMishGetWorkspaceSize", "aclnnMish"),
    aclnn_inplace=("aclnnInplaceMishGetWorkspaceSize", "aclnnInplaceMish"),
    inputs=(Input("x", "self", "x"),), dtypes=V2_DTYPES, kernels=KERNELS, host_tiling=host_tiling,
    saturation=True, axpy=True, out_same_dtype=True, out_listed=True, soc_checked=True,
    backward="mish_grad", torch_module="Mish", second_derivative=mish_second_derivative,
    torch_functions=("mish", "mish_backward_torch")))
