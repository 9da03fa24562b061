"""aclnnSwishBackward (SwishGrad, the project's flagship), described once
(:mod:`swishgrad_numba.ops.description`): every face is generated from it (issue 40).

docs/model.md, sections 5 and 6, gives the op_api (``aclnn_swish_backward.cpp``, one source for the A2
and the 950): gradOutput, self and gradInput float32, float16 or bfloat16 (bfloat16 on ASCEND910B..ASCEND910E
only), one dtype and one shape, at most 8 dims; ``betaOptional`` a scalar that can become a float, a null
pointer meaning 1.0 (:func:`op_api_checks`, in its order). The kernels and host tiling: :mod:`.kernel`,
:mod:`.host`. Its storage rules: the A2's op definition also takes NC1HWC0 and FRACTAL_NZ storage (the kernel
walks the storage, padding included), the 950's ND only (``storage_formats``); a platform set by set_platform
that cannot be tiled is a parameter error (``tiling_parameter_error``); the 950 kernel has no saturation mode
(``no_saturation_on``).

The faces: ``swish_backward`` (beta also as ``scale=``/``sconf=``, the attribute's ``aliases``; :func:`run_tiling`
stays in :mod:`swishgrad_numba.faces.swish_grad`), the aclnn pair (:mod:`swishgrad_numba.aclnn.described`; its
executor holds the platform kernel's :class:`~swishgrad_numba.tiling.Tiling`), its Dask face
(``dask.described``), and its torch faces (``swish_backward_torch``, ``SwishBackwardFunction``) from Swish's
description, whose ``torch_functions`` name them and whose ``second_derivative`` is the second order (the torch
row is the forward's).
"""
from __future__ import annotations

from ...platform import ARCH_950, ARCH_A2, BF16_SOC_VERSIONS
from ..description import Attribute, Description, Input, describe
from .host import host_tiling
from .kernel import KERNELS, NAME

__all__ = ["SWISH_GRAD_DTYPES", "DESCRIPTION", "op_api_checks"]

_LIST = ("float32", "float16")
#: aclnnSwishBackward's dtype lists: bfloat16 on the SoCs of ASCEND910B..ASCEND910E only.
SWISH_GRAD_DTYPES = {**{soc: _LIST + ("bfloat16",) for soc in BF16_SOC_VERSIONS}, "*": _LIST}


def op_api_checks(desc, named: tuple, out_name: str, out, platform, scalars=None):
    """aclnnSwishBackward's checks in order (model section 5): dtypes, beta, one dtype, bfloat16's SoC, 8 dims,
    one shape.

    After the null pointers (the description's ``op_api_checks``): gradOutput's and self's dtypes kernel dtypes
    (float32, float16, bfloat16); ``betaOptional`` not complex (it cannot be cast to ACL_FLOAT); self and
    gradInput of gradOutput's dtype; bfloat16 only where the SoC takes it; at most 8 dims on every tensor;
    gradOutput's and self's shapes gradInput's. A message for 161002, or None."""
    from ...aclnn.enums import ACL_BF16, COMPLEX_DTYPES, KERNEL_DTYPES, MAX_DIM, dtype_name
    from ...arguments import bfloat16_refusal

    (go_name, go), _ = named
    supported = ", ".join(dtype_name(c) for c in KERNEL_DTYPES)
    for name, tensor in named:
        if tensor.data_type not in KERNEL_DTYPES:
            return f"dtype of {name} is {dtype_name(tensor.data_type)}; it must be one of {supported}"
    beta = (scalars or {}).get("betaOptional")
    if beta is not None and beta.data_type in COMPLEX_DTYPES:
        return f"dtype of betaOptional is {dtype_name(beta.data_type)}, which cannot be cast to ACL_FLOAT"
    for name, tensor in named[1:] + ((out_name, out),):
        if tensor.data_type != go.data_type:
            return (f"dtype of {name} ({dtype_name(tensor.data_type)}) must equal dtype of {go_name} "
                    f"({dtype_name(go.data_type)})")
    if go.data_type == ACL_BF16 and bfloat16_refusal(platform):
        return f"dtype ACL_BF16: {bfloat16_refusal(platform)}"
    for name, tensor in named + ((out_name, out),):
        if len(tensor.view_shape) > MAX_DIM:
            return f"{name} has {len(tensor.view_shape)} dims; at most {MAX_DIM} are supported"
    for name, tensor in named:
        if tensor.view_shape != out.view_shape:
            return f"shape of {name} {tensor.view_shape} must equal shape of {out_name} {out.view_shape}"
    return None


DESCRIPTION = describe(Description(
    NAME, "grad_output * s'(x), s(x) = x * sigmoid(beta * x) (float32; 16-bit widened, narrowed CAST_RINT)",
    "SwishGrad", functional="swish_backward", aclnn=("aclnnSwishBackwardGetWorkspaceSize", "aclnnSwishBackward"),
    out="gradInput", inputs=(Input("grad_output", "gradOutput", "grad"), Input("x", "self", "x")),
    attributes=(Attribute("beta", "betaOptional", 1.0, optional=True, record="sconf",
                          aliases=("scale", "sconf")),),
    dtypes=SWISH_GRAD_DTYPES, saturation=True, kernels=KERNELS, host_tiling=host_tiling, out_same_dtype=True,
    has_beta=True, op_api_checks=op_api_checks,
    storage_formats={ARCH_A2: ("ACL_FORMAT_NC1HWC0", "ACL_FORMAT_FRACTAL_NZ")}, tiling_parameter_error=True,
    no_saturation_on={ARCH_950: "Ascend 950"}))
