"""Sigmoid (aclnnSigmoid, aclnnInplaceSigmoid) and SigmoidGrad (aclnnSigmoidBackward), described once
(:mod:`swishgrad_numba.ops.description`): every face is generated from these two descriptions.

docs/model.md, "Sigmoid (aclnnSigmoid, aclnnInplaceSigmoid)" and "SigmoidBackward (aclnnSigmoidBackward)",
gives the sources (``activation/sigmoid/op_api/aclnn_sigmoid.cpp``,
``activation/sigmoid_grad/op_api/aclnn_sigmoid_backward.cpp``):

- aclnnSigmoid: ``self`` in {float32, float16, float64, the integers, bool, complex64, complex128, and bfloat16
  on ASCEND910B..ASCEND910E}, ``out`` in {float32, float16, float64, complex64, complex128, bfloat16}; one
  shape, at most 8 dims; the kernel in ``self``'s dtype, the result Cast to ``out``'s. The emulator runs the
  AI Core kernels (float32, float16, bfloat16): a float64 or complex ``self`` goes to an AICPU Sigmoid
  kernel ops-nn does not publish, and an integer or bool ``self`` is Cast first by the op_api (its compute
  dtype then picked by ``out``), which is not modelled: both faces refuse them, naming why
  (``dtype_refusals``, ``acl_refusals``). aclnnInplaceSigmoid is the pair with ``selfRef`` as ``out``.
- aclnnSigmoidBackward: gradOutput, output and gradInput in {float32, float16, float64, complex64,
  complex128, bfloat16}, the bfloat16 gate on gradOutput only (SoCs ASCEND910B..ASCEND910E); at most 8
  dims; the two inputs ``op::PromoteType``'d (complex included) and broadcast to gradInput's shape
  (BroadcastTo, then the equal-shape kernel); the promoted dtype Cast to gradInput's (a complex one only to
  a complex gradInput). float64, complex64 and complex128 run the AICPU kernel (:mod:`.aicpu`), any platform.

SigmoidGrad reads the forward's *result* ``y`` (its ``output``, role ``"y"``): the torch module's autograd
Function saves the output, and the second order with respect to ``y`` is ``ggx * g * (1 - 2 y)`` in float64,
rounded once (:func:`_backward_factor_derivative`).
"""
from __future__ import annotations

import numpy as np

from ...platform import BF16_SOC_VERSIONS
from ..description import Description, Input, describe
from . import aicpu, backward, forward

__all__ = ["SIGMOID_DTYPES", "GRAD_DTYPES", "AICPU_DTYPES", "aicpu_sigmoid_grad", "DESCRIPTION", "GRAD_DESCRIPTION"]

_AI_CORE = ("float32", "float16")
#: The AICPU SigmoidGrad kernel's dtypes (:data:`.aicpu.DTYPES`).
AICPU_DTYPES = tuple(d.name for d in aicpu.DTYPES)
#: The dtypes aclnnSigmoid runs on the AI Core kernels, by SoC: bfloat16 on ASCEND910B..ASCEND910E only.
SIGMOID_DTYPES = {**{soc: _AI_CORE + ("bfloat16",) for soc in BF16_SOC_VERSIONS}, "*": _AI_CORE}
#: aclnnSigmoidBackward's gradOutput list, by SoC (its output's is this with bfloat16 everywhere).
GRAD_DTYPES = {**{soc: _AI_CORE + AICPU_DTYPES + ("bfloat16",) for soc in BF16_SOC_VERSIONS},
               "*": _AI_CORE + AICPU_DTYPES}
_COMPLEX = ("complex64", "complex128")

_NO_AICPU_SIGMOID = ("aclnnSigmoid sends it to an AICPU Sigmoid kernel that ops-nn does not publish; float32, "
                     "float16 and bfloat16 run on the AI Core kernels")
_NO_INTEGER_CAST = ("the op_api Casts an integer or bool self to out's dtype first, which is not emulated; cast "
                    "self to a floating dtype first")


def aicpu_sigmoid_grad(dy, y) -> np.ndarray:
    """The AICPU SigmoidGrad kernel (:func:`.aicpu.sigmoid_grad`) on inputs of one dtype, broadcast to one shape
    first (the op_api's BroadcastTo)."""
    shape = np.broadcast_shapes(dy.shape, y.shape)
    flat = (np.ascontiguousarray(np.broadcast_to(a, shape)).reshape(-1) for a in (dy, y))
    return aicpu.sigmoid_grad(*flat).reshape(shape)


def _backward_factor_derivative(y, attr, platform):
    """``d(y (1 - y))/dy = 1 - 2 y`` in float64: SigmoidGrad is ``g * y (1 - y)``, so its derivative with
    respect to its ``y`` input is ``g * (1 - 2 y)`` (the torch backward's second order; no kernel computes it)."""
    return 1.0 - 2.0 * y.double()


DESCRIPTION = describe(Description(
    forward.NAME, "1 / (exp(-x) + 1) (the A2's and the 950's Sigmoid: Muls, Exp, Adds, Div; narrowed CAST_RINT)",
    "Sigmoid", functional="sigmoid", aclnn=("aclnnSigmoidGetWorkspaceSize", "aclnnSigmoid"),
    aclnn_inplace=("aclnnInplaceSigmoidGetWorkspaceSize", "aclnnInplaceSigmoid"),
    inputs=(Input("x", "self", "x"),), dtypes=SIGMOID_DTYPES,
    dtype_refusals={d: _NO_AICPU_SIGMOID for d in AICPU_DTYPES},
    acl_refusals={**{d: _NO_AICPU_SIGMOID for d in AICPU_DTYPES},
                  **{d: _NO_INTEGER_CAST for d in ("int8", "int16", "int32", "int64", "uint8", "bool")}},
    out_dtypes=_COMPLEX, kernels=forward.KERNELS, host_tiling=forward.registry_host_tiling, saturation=True,
    backward=backward.NAME, torch_module="Sigmoid", second_derivative=_backward_factor_derivative,
    torch_functions=("sigmoid", "sigmoid_backward_torch", "SigmoidFunction", "SigmoidBackwardFunction")))

GRAD_DESCRIPTION = describe(Description(
    backward.NAME, "grad_output * output * (1 - output), output the forward's result (A2: dy * ((1 - y) * y); "
                   "950: (dy * (1 - y)) * y; AICPU for float64 and complex)",
    "SigmoidGrad", functional="sigmoid_backward",
    aclnn=("aclnnSigmoidBackwardGetWorkspaceSize", "aclnnSigmoidBackward"), out="gradInput",
    inputs=(Input("grad_output", "gradOutput", "grad"), Input("output", "output", "y", extra_dtypes=("bfloat16",))),
    dtypes=GRAD_DTYPES, aicpu_dtypes=AICPU_DTYPES, aicpu=aicpu_sigmoid_grad, promotion="promote", broadcast=True,
    broadcast_to=True, out_dtypes=_COMPLEX, kernels=backward.KERNELS, host_tiling=backward.registry_host_tiling,
    saturation=True))
