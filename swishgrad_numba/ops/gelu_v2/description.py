"""aclnnGeluV2 (GeluV2, Ascend 950 only), described once (:mod:`swishgrad_numba.ops.description`): every
face is generated from it; its torch module is Gelu's with ``approximate`` given
(``swishgrad_numba.torch.GELU(approximate=...)``: Gelu's ``torch_variant``).

docs/model.md, "GeluV2 (aclnnGeluV2, 950 only)", gives the sources: the op_api (``(x, approximate, y)``,
``approximate`` an integer: 1 tanh, any other none; Gelu's dtype lists and checks,
:func:`op_api_checks`) and the 950 kernel (:mod:`.kernel`; on an A2 the launcher fails, 561103). The
functional face takes ``approximate`` as torch does, ``"none"`` or ``"tanh"``.
"""
from __future__ import annotations

import dataclasses

from ...platform import ARCH_A2
from ..description import Attribute, Description, Input, describe
from ..gelu.description import GELU_DTYPES, dtype_and_rank_checks, gelu_second_derivative, shape_checks
from .kernel import APPROXIMATIONS, KERNELS, NAME, NO_A2_KERNEL, approximate_code, registry_host_tiling

__all__ = ["APPROXIMATE", "op_api_checks", "gelu_v2_second_derivative", "DESCRIPTION"]

#: The ``approximate`` attribute: "none" or "tanh", the host tiling taking :func:`approximate_code`.
APPROXIMATE = Attribute("approximate", "approximate", "none", kind="choice", choices=APPROXIMATIONS, kernel=True,
                        code=approximate_code)


def op_api_checks(desc, named: tuple, out_name: str, out, platform, scalars=None):
    """aclnnGeluV2's and aclnnGeluBackwardV2's checks in order: Gelu's dtypes, bfloat16's SoC, 8 dims, shapes.

    After the null pointers and ``approximate`` (the description's ``op_api_checks``):
    :func:`~swishgrad_numba.ops.gelu.description.dtype_and_rank_checks` and ``shape_checks`` (Gelu's, without
    the A2 block check: the host tiling refuses such a platform, 561103). A message for 161002, or None."""
    return dtype_and_rank_checks(named, out_name, out, platform) or shape_checks(named, out_name, out)


def gelu_v2_second_derivative(x, approximate, platform=None):
    """The torch module's second order in float64 (no kernel computes it): tanh, Gelu's
    (:func:`~swishgrad_numba.ops.gelu.description.gelu_second_derivative`); none, ``d2/dx2 (x Phi(x)) =
    phi(x) (2 - x^2)``."""
    import torch

    if approximate == "tanh":
        return gelu_second_derivative(x)
    x = x.double()
    return torch.exp(-0.5 * x * x) * (2.0 - x * x) * 0.3989422804014327


DESCRIPTION = describe(Description(
    NAME, "GELU, approximate none: (erf(x / sqrt 2) + 1) x / 2 (asc-devkit's Erf); tanh: the 950 Gelu's", "GeluV2",
    functional="gelu_v2", aclnn=("aclnnGeluV2GetWorkspaceSize", "aclnnGeluV2"), inputs=(Input("x", "x", "x"),),
    attributes=(dataclasses.replace(APPROXIMATE, acl_codes={1: "tanh"}),), out="y", dtypes=GELU_DTYPES,
    kernels=KERNELS, no_kernel={ARCH_A2: NO_A2_KERNEL}, host_tiling=registry_host_tiling, axpy=True,
    op_api_checks=op_api_checks, backward="gelu_grad_v2", second_derivative=gelu_v2_second_derivative))
