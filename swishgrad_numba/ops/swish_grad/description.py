"""aclnnSwishBackward (SwishGrad, the project's flagship), described once
(:mod:`swishgrad_numba.ops.description`).

docs/model.md, sections 5 and 6, gives the op_api (``aclnn_swish_backward.cpp``, one source for the A2
and the 950): gradOutput, self and gradInput float32, float16 or bfloat16 (bfloat16 on ASCEND910B..ASCEND910E
only), one dtype and one shape, at most 8 dims; ``betaOptional`` a scalar that can become a float, a null
pointer meaning 1.0. The kernels and host tiling: :mod:`.kernel`, :mod:`.host`.

Its aclnn pair stays hand-written (``hand_written``): :mod:`swishgrad_numba.aclnn.op_api` keeps the op_api's
storage-format rules and its executor holds SwishGrad's own tiling record, which the generated pair
(:mod:`swishgrad_numba.aclnn.described`) has no description fields for yet; the generated tests
(tests/test_described.py) check it against this description all the same. Every other face is generated:
``swish_backward`` (beta also as ``scale=``/``sconf=``, the attribute's ``aliases``; :func:`run_tiling`
stays in :mod:`swishgrad_numba.faces.swish_grad`), its Dask face (``dask.described``), and its torch faces
(``swish_backward_torch``, ``SwishBackwardFunction``) from Swish's description, whose ``torch_functions``
name them and whose ``second_derivative`` is the second order (the torch row is the forward's).
"""
from __future__ import annotations

from ...platform import BF16_SOC_VERSIONS
from ..description import Attribute, Description, Input, describe
from .host import host_tiling
from .kernel import KERNELS, NAME

__all__ = ["SWISH_GRAD_DTYPES", "DESCRIPTION"]

_LIST = ("float32", "float16")
#: aclnnSwishBackward's dtype lists: bfloat16 on the SoCs of ASCEND910B..ASCEND910E only.
SWISH_GRAD_DTYPES = {**{soc: _LIST + ("bfloat16",) for soc in BF16_SOC_VERSIONS}, "*": _LIST}

DESCRIPTION = describe(Description(
    NAME, "grad_output * s'(x), s(x) = x * sigmoid(beta * x) (float32; 16-bit widened, narrowed CAST_RINT)",
    "SwishGrad", functional="swish_backward", aclnn=("aclnnSwishBackwardGetWorkspaceSize", "aclnnSwishBackward"),
    out="gradInput", inputs=(Input("grad_output", "gradOutput", "grad"), Input("x", "self", "x")),
    attributes=(Attribute("beta", "betaOptional", 1.0, optional=True, record="sconf",
                          aliases=("scale", "sconf")),),
    dtypes=SWISH_GRAD_DTYPES, saturation=True, kernels=KERNELS, host_tiling=host_tiling, out_same_dtype=True,
    has_beta=True, hand_written=("aclnn",)))
