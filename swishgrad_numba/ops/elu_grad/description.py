"""aclnnEluBackward (EluGradV2), described once (:mod:`swishgrad_numba.ops.description`).

docs/model.md, "EluBackward (aclnnEluBackward)", gives the sources: the op_api
(``activation/elu_grad_v2/op_api/aclnn_elu_backward.cpp``: ``(gradOutput, alpha, scale, inputScale,
isResult, selfOrResult, gradInput)``, null checks in that order; gradOutput and selfOrResult of one dtype
in {float32, float16}, bfloat16 on NpuArch DAV_2201 (the A2 and A3) or a regbase chip (the 950); no float64
(``aclnn_elu_backward.cpp:35-38``); equal shapes, at most 8 dims; ``isResult`` with ``alpha < 0`` refused,
``:107-115``) and the kernels (:mod:`.kernel`, the 950's; :mod:`.a2`, the A2's). The kernels read
``isResult`` (their DAG, their key).
"""
from __future__ import annotations

import numpy as np

from ..description import Attribute, Description, Input, Rule, describe
from .kernel import KERNELS, NAME, registry_host_tiling

__all__ = ["ELU_BACKWARD_DTYPES", "DESCRIPTION"]


def _negative_alpha(v) -> bool:
    """``isResult`` with alpha (as float) below 0 (alpha not converted where isResult is false: a call's cost)."""
    if not v["is_result"]:
        return False
    with np.errstate(over="ignore"):
        return bool(np.float32(v["alpha"]) < 0)

_WITH_BF16 = ("float32", "float16", "bfloat16")
#: aclnnEluBackward's dtype lists: bfloat16 on DAV_2201 and regbase chips only.
ELU_BACKWARD_DTYPES = {"ascend910b": _WITH_BF16, "ascend910_93": _WITH_BF16, "ascend950": _WITH_BF16,
                       "*": _WITH_BF16[:2]}

DESCRIPTION = describe(Description(
    NAME, "grad_output * (x > 0 ? scale : input_scale * alpha * scale * exp(x * input_scale)), or from the "
          "result (is_result)", "EluGradV2", functional="elu_backward",
    aclnn=("aclnnEluBackwardGetWorkspaceSize", "aclnnEluBackward"), out="gradInput",
    inputs=(Input("grad_output", "gradOutput", "grad"), Input("x_or_result", "selfOrResult", "x")),
    attributes=(Attribute("alpha", "alpha", 1.0), Attribute("scale", "scale", 1.0),
                Attribute("input_scale", "inputScale", 1.0),
                Attribute("is_result", "isResult", False, kind="bool", kernel=True)),
    acl_order=("gradOutput", "alpha", "scale", "inputScale", "isResult", "selfOrResult"),
    rules=(Rule(_negative_alpha,
                "{alpha} must be >= 0 when {is_result} is true, got {value} (aclnn_elu_backward.cpp:107-115: "
                "in-place elu backward with a negative slope is not supported)", "alpha"),),
    dtypes=ELU_BACKWARD_DTYPES,
    dtype_refusals={"float64": "aclnnEluBackward accepts float32, float16 and bfloat16 only "
                               "(aclnn_elu_backward.cpp:35-38); float64 is aclnnElu's alone"},
    kernels=KERNELS, host_tiling=registry_host_tiling, saturation=True,
    soc_checked=True))  # bfloat16 on DAV_2201 and the 950, not the 910E (issue 41)
