"""aclnnGelu (Gelu), described once (:mod:`swishgrad_numba.ops.description`): every face is generated from it,
the torch module too (``swishgrad_numba.torch.GELU`` runs Gelu, or GeluV2 where its ``approximate`` is given:
the ``torch_variant`` field; :mod:`swishgrad_numba.faces.torch`).

docs/model.md, "Gelu (aclnnGelu)", gives the sources: the op_api (self and out of one dtype in {float32,
float16}, bfloat16 too on a SoC in ASCEND910B..ASCEND910E; one shape; at most 8 dims) and the kernels
(:mod:`.kernel`: the A2's and the 950's, whose Axpy rounds as ``platform.axpy_rounding``). The op_api's own
checks, in its order, are :func:`op_api_checks` (GeluBackward's too).
"""
from __future__ import annotations

import numpy as np

from ...platform import BF16_SOC_VERSIONS
from ..description import Description, Input, describe
from .kernel import KERNELS, NAME, registry_host_tiling

__all__ = ["GELU_DTYPES", "dtype_and_rank_checks", "shape_checks", "op_api_checks", "gelu_second_derivative",
           "DESCRIPTION"]

_LIST = ("float32", "float16")
#: aclnnGelu's and aclnnGeluBackward's dtype lists: bfloat16 on the SoCs of ASCEND910B..ASCEND910E only.
GELU_DTYPES = {**{soc: _LIST + ("bfloat16",) for soc in BF16_SOC_VERSIONS}, "*": _LIST}


def dtype_and_rank_checks(named: tuple, out_name: str, out, platform):
    """The dtype and rank checks of :func:`op_api_checks` (GeluV2's and GeluBackwardV2's too): ``named`` the
    inputs ``((aclnn name, aclTensor), ...)``, one for a forward. A message for 161002, or None."""
    from ...aclnn.enums import ACL_BF16, ACL_FLOAT, KERNEL_DTYPES, MAX_DIM, dtype_name
    from ...arguments import bfloat16_refusal

    everything = named + ((out_name, out),)
    supported = ", ".join(dtype_name(c) for c in KERNEL_DTYPES)
    for name, tensor in everything:
        if tensor.data_type not in KERNEL_DTYPES:
            return f"dtype of {name} is {dtype_name(tensor.data_type)}; it must be one of {supported}"
    forward = len(named) == 1
    ins = [t for _, t in named]
    promoted = ins[0].data_type if forward or ins[0].data_type == ins[1].data_type else ACL_FLOAT
    for name, tensor in everything if forward else ((out_name, out),):
        if tensor.data_type != promoted:
            return (f"dtype of {name} ({dtype_name(tensor.data_type)}) must equal "
                    + (f"dtype of self ({dtype_name(promoted)})" if forward else
                       f"the inputs' promoted dtype ({dtype_name(promoted)}): the Cast of the result to another "
                       f"dtype is not emulated"))
    if ACL_BF16 in [t.data_type for _, t in everything] and bfloat16_refusal(platform):
        return f"dtype ACL_BF16: {bfloat16_refusal(platform)}"
    for name, tensor in everything:
        if len(tensor.view_shape) > MAX_DIM:
            return f"{name} has {len(tensor.view_shape)} dims; at most {MAX_DIM} are supported"
    return None


def op_api_checks(desc, named: tuple, out_name: str, out, platform, scalars=None):
    """aclnnGelu's and aclnnGeluBackward's checks in order: dtypes, bfloat16's SoC, 8 dims, shapes, blocks.

    After the null pointers (the description's ``op_api_checks``): every tensor's dtype a kernel dtype;
    Gelu's of one dtype, GeluBackward's output the inputs' promoted dtype (the Cast of the result to another is
    not emulated); bfloat16 only where the SoC takes it; at most 8 dims (:func:`dtype_and_rank_checks`);
    Gelu's shapes equal, GeluBackward's inputs broadcast to the output's; an A2 block holding whole elements
    (the host tiling's, on a non-empty launch). A message for 161002, or None."""
    from ...arguments import block_size_refusal
    from ...dtypes import DTYPES
    from ...platform import ARCH_950

    said = dtype_and_rank_checks(named, out_name, out, platform) or shape_checks(named, out_name, out)
    if said:
        return said
    if min(t.numel for _, t in named) and platform.architecture != ARCH_950:
        info = next(i for i in DTYPES.values() if i.acl_data_type == out.data_type)
        refusal = block_size_refusal(platform.block_size, info)
        if refusal:
            return f"the host tiling fails on the platform set by set_platform: {refusal}"
    return None


def shape_checks(named: tuple, out_name: str, out):
    """The shape check of :func:`op_api_checks` (GeluV2's too): a forward's input of the output's shape, a
    backward's inputs broadcasting to it. A message for 161002, or None."""
    forward = len(named) == 1
    shapes = [tuple(t.view_shape) for _, t in named]
    try:
        shape = tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        shape = None
    if (forward and shapes[0] != tuple(out.view_shape)) or shape != tuple(out.view_shape):
        return (f"shapes {', '.join(f'{n} {tuple(t.view_shape)}' for n, t in named)} must "
                f"{'equal' if forward else 'broadcast to'} the shape of {out_name} {tuple(out.view_shape)}")
    return None


def gelu_second_derivative(x, _attr=None, platform=None):
    """The torch module's second order (no kernel computes it), in float64: ``s''(x)`` of ``s(x) = x
    sigmoid(k(x))``, ``k = a x + b x^3`` with GeluGrad's float32 constants
    (:func:`swishgrad_numba.ops.gelu_grad.program.sigmoid_argument`; on the A2 not the forward kernel's own function,
    whose cubic coefficient differs): ``2 q k' + x q (1 - 2 sig) k'^2 + x q k''`` with ``q = sig(k) sig(-k)``
    and ``1 - 2 sig(k) = -tanh(k / 2)``."""
    import torch

    from ..gelu_grad.program import sigmoid_argument

    a, b = sigmoid_argument()
    x = x.double()
    k, k1, k2 = a * x + b * x ** 3, a + 3.0 * b * x * x, 6.0 * b * x
    q = torch.sigmoid(k) * torch.sigmoid(-k)
    return 2.0 * q * k1 - x * q * torch.tanh(0.5 * k) * k1 * k1 + x * q * k2


DESCRIPTION = describe(Description(
    NAME, "GELU: A2 x / (1 + exp(-1.595769122 (x + 0.0455399241 x^3))), 950 the tanh GELU with an Axpy", "Gelu",
    functional="gelu", aclnn=("aclnnGeluGetWorkspaceSize", "aclnnGelu"), inputs=(Input("x", "self", "x"),),
    dtypes=GELU_DTYPES, kernels=KERNELS, host_tiling=registry_host_tiling, saturation=True, axpy=True,
    op_api_checks=op_api_checks, backward="gelu_grad", torch_module="GELU",
    second_derivative=gelu_second_derivative, torch_variant=("approximate", "gelu_v2")))
