"""aclnnFastGelu (FastGelu), described once (:mod:`swishgrad_numba.ops.description`): every face is generated
from it.

docs/model.md, "FastGelu and FastGeluBackward (Ascend 950 only)", gives the sources: the op_api
(``activation/fast_gelu/op_api/aclnn_fast_gelu.cpp``; ``aclnn_fast_gelu_backward.cpp`` likewise): its
``CheckDtypeValid`` (every tensor, out too, of one dtype, in {float32, float16, bfloat16} on a regbase chip
such as the 950 or on NpuArch DAV_2201, the A2 and A3; the list is empty elsewhere), ``CheckShape`` (one
shape), at most 8 dims and one storage format, in that order (:func:`op_api_checks`); on the A2 and A3 the
call passes the op_api and the launcher fails (561103: ops-nn publishes the 950's kernel only, :mod:`.kernel`).
"""
from __future__ import annotations

import numpy as np

from ...platform import ARCH_A2
from ..description import Description, Input, describe
from .kernel import FORWARD, KERNELS, NO_A2_KERNEL, SCALE, registry_host_tiling

__all__ = ["FAST_GELU_DTYPES", "TORCH_BETA", "op_api_checks", "fast_gelu_second_derivative", "DESCRIPTION"]

_FLOATS = ("float32", "float16", "bfloat16")
#: ``GetDtypeSupportList``: the three on DAV_2201 (the A2, A3) and the 950, an empty list on other SoCs.
FAST_GELU_DTYPES = {"ascend910b": _FLOATS, "ascend910_93": _FLOATS, "ascend950": _FLOATS, "*": ()}
#: The beta of FastGELU as ``x * sigmoid(beta x)``: the kernels' -1.702 (a double stored in a float), negated.
TORCH_BETA = -float(np.float32(float(SCALE)))


def op_api_checks(desc, named: tuple, out_name: str, out, platform, scalars=None):
    """aclnnFastGelu's checks in order: one dtype, out's listed; one shape; 8 dims; one storage format.

    The op_apis' own checks after the null pointers (the description's ``op_api_checks``):
    ``CheckDtypeValid`` (every tensor of the first one's dtype, then the output's in the SoC's list),
    ``CheckShape`` (the first one's shape), ``self`` at most 8 dims, every storage format ``self``'s.
    A message for 161002, or None."""
    from ...aclnn.enums import ACL_DTYPES, MAX_DIM, dtype_name, format_name

    everything = named + ((out_name, out),)
    first_name, first = everything[0]
    for name, tensor in everything[1:]:
        if tensor.data_type != first.data_type:
            return (f"dtype of {name} ({dtype_name(tensor.data_type)}) must equal dtype of {first_name} "
                    f"({dtype_name(first.data_type)})")
    listed = desc.dtypes_on(platform.soc_family)
    allowed = [code for code, (_n, dtype) in ACL_DTYPES.items() if dtype.name in listed]
    if out.data_type not in allowed:
        return (f"dtype of {out_name} is {dtype_name(out.data_type)}; on SoC {platform.soc_family} it must be one "
                f"of {', '.join(dtype_name(c) for c in allowed) or 'none (empty list)'}")
    for name, tensor in everything[1:]:
        if tensor.view_shape != first.view_shape:
            return f"shape of {name} {tensor.view_shape} must equal shape of {first_name} {first.view_shape}"
    self_ = dict(named)["self"]
    if len(self_.view_shape) > MAX_DIM:
        return f"self has {len(self_.view_shape)} dims; at most {MAX_DIM} are supported"
    for name, tensor in everything:
        if tensor.format != self_.format:
            return (f"format of {name} ({format_name(tensor.format)}) must equal format of self "
                    f"({format_name(self_.format)})")
    return None


def fast_gelu_second_derivative(x, attr, platform):
    """``s''(x)`` of ``x * sigmoid(beta x)`` at :data:`TORCH_BETA`, float64 (Swish's)."""
    from ...faces.torch_support import swish_second_derivative

    return swish_second_derivative(x, TORCH_BETA)


DESCRIPTION = describe(Description(
    FORWARD, "x / (exp(-1.702 x) + 1), every node float32 (16-bit widened, narrowed CAST_RINT)", "FastGelu",
    functional="fast_gelu", aclnn=("aclnnFastGeluGetWorkspaceSize", "aclnnFastGelu"),
    inputs=(Input("x", "self", "x"),), dtypes=FAST_GELU_DTYPES, kernels=KERNELS[FORWARD],
    no_kernel={ARCH_A2: NO_A2_KERNEL}, host_tiling=registry_host_tiling(FORWARD), out_same_dtype=True,
    op_api_checks=op_api_checks, backward="fast_gelu_grad", torch_module="FastGELU",
    second_derivative=fast_gelu_second_derivative))
