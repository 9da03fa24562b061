"""aclnnLeakyReluBackward (LeakyReluGrad), described once (:mod:`swishgrad_numba.ops.description`).

docs/model.md, "LeakyRelu, LeakyReluBackward (950 only)", gives the sources: the op_api
(``activation/leaky_relu_grad/op_api/aclnn_leaky_relu_backward.cpp``: gradOutput and self in the
dtype list, ``negativeSlope``'s dtype in the scalar list; at most 8 dims each (``:30``), their broadcast
shape gradInput's; ``selfIsResult`` with ``negativeSlope < 0`` (the double) refused; the two dtypes cast to
their promoted type; float64 to the AICPU kernel, ``leaky_relu_grad.cpp:40-49``) and the kernel
(:mod:`.kernel`, the 950's only).
"""
from __future__ import annotations

import numpy as np

from ..description import Attribute, Description, Input, Rule, describe
from ..leaky_relu.description import LEAKY_RELU_DTYPES
from ..leaky_relu.kernel import DEFAULT_SLOPE
from .kernel import KERNELS, NAME, NO_A2_KERNEL, host_tiling, shaped_launch, shaped_tiling
from ...platform import ARCH_A2

__all__ = ["aicpu_leaky_relu_grad", "DESCRIPTION"]

#: GetScalarSupportList: the floats, the integers and bool (bfloat16 where the tensors take it).
_SCALARS = ("float32", "float16", "float64", "int32", "int64", "int8", "uint8", "bool", "int16", "bfloat16")


def aicpu_leaky_relu_grad(dy: np.ndarray, x: np.ndarray, slope32) -> np.ndarray:
    """The float64 AICPU LeakyReluGrad (not in ops-nn), modelled plainly: ``x > 0 ? dy : dy * alpha`` in
    binary64, broadcast, the ``alpha`` attribute (a float) widened exactly."""
    with np.errstate(all="ignore"):
        return np.where(x > 0, dy, dy * np.float64(slope32))


DESCRIPTION = describe(Description(
    NAME, "x > 0 ? grad_output : grad_output * negative_slope (float32; 16-bit widened, narrowed CAST_RINT)",
    "LeakyReluGrad", functional="leaky_relu_backward",
    aclnn=("aclnnLeakyReluBackwardGetWorkspaceSize", "aclnnLeakyReluBackward"), out="gradInput",
    inputs=(Input("grad_output", "gradOutput", "grad"), Input("x", "self", "x")),
    attributes=(Attribute("negative_slope", "negativeSlope", DEFAULT_SLOPE, scalar_dtypes=_SCALARS),
                Attribute("self_is_result", "selfIsResult", False, kind="bool")),
    rules=(Rule(lambda v: v["self_is_result"] and float(v["negative_slope"]) < 0,
                "{self_is_result}=True needs {negative_slope} >= 0, got {value} (the op_api refuses an in-place "
                "forward's result with a negative slope: x is then not invertible)", "negative_slope"),),
    dtypes=LEAKY_RELU_DTYPES, aicpu_dtypes=("float64",), aicpu=aicpu_leaky_relu_grad, promotion="promote",
    broadcast=True, kernels=KERNELS, no_kernel={ARCH_A2: NO_A2_KERNEL},
    host_tiling=lambda numel, info, slope32, platform: host_tiling((numel,), (numel,), info, slope32, platform),
    shaped_tiling=shaped_tiling, shaped_launch=shaped_launch))
