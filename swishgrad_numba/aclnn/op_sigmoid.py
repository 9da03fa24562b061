"""aclnnSigmoid, aclnnInplaceSigmoid and aclnnSigmoidBackward (two-phase), as their op_apis write them.

docs/model.md, "Sigmoid" and "SigmoidBackward", give the sources
(``activation/sigmoid/op_api/aclnn_sigmoid.cpp``, ``activation/sigmoid_grad/op_api/aclnn_sigmoid_backward.cpp``).

Sigmoid, in the op_api's order: null pointers (161001); ``self`` in its list (float32, float16,
float64, the integers, bool, complex, bfloat16), ``out`` in {float32, float16, float64, complex64,
complex128, bfloat16}, a bfloat16 ``self`` only on ASCEND910B..ASCEND910E (161002); equal shapes,
at most 8 dims (161002). The kernel runs in ``self``'s dtype where ``out``'s list has it, else in
``out``'s; its result is Cast to ``out``'s dtype. The inplace form checks ``selfRef`` against
``out``'s list (bfloat16 on ASCEND910B..ASCEND910E only). The emulator refuses (161002, naming the
reason) what it does not model: a float64 or complex Sigmoid (an AICPU kernel ops-nn does not
publish) and an integer or bool ``self`` (the op_api's Cast of it is not modelled).

SigmoidBackward: null pointers (161001); the three dtypes in {float32, float16, float64, complex64,
complex128, bfloat16}, a bfloat16 ``gradOutput`` only on ASCEND910B..ASCEND910E (161002); at most 8
dims (161002); the promoted dtype of gradOutput and output castable to gradInput's (161002); the
broadcast shape equal to gradInput's (161002); empty: workspace 0. The launch broadcasts, widens both
inputs to the promoted dtype (exact), runs SigmoidGrad on it (the AI Core kernel of the platform, or
the AICPU kernel for float64 and complex) and Casts to gradInput's dtype.

Casts between floating dtypes round to nearest even (NumPy's and ml_dtypes' ``astype``): an
assumption about CANN's Cast operator, which is not read here.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..arguments import bfloat16_refusal, block_size_refusal
from ..dtypes import DTYPES
from ..ops import OpTiling, get_operator
from ..ops.sigmoid import aicpu
from ..platform import ARCH_950, Platform
from .enums import (
    ACL_BF16, ACL_BOOL, ACL_COMPLEX64, ACL_COMPLEX128, ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT16,
    ACL_INT32, ACL_INT64, ACL_UINT8, ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_SUCCESS, MAX_DIM,
    ACL_DTYPES, dtype_name,
)
from .state import get_platform
from .tensor import check_emulator_storage, aclTensor
from .twophase import get_workspace_size, live_tensor, queue_launch, tensor_view

__all__ = ["aclnnSigmoidGetWorkspaceSize", "aclnnSigmoid", "aclnnInplaceSigmoidGetWorkspaceSize",
           "aclnnInplaceSigmoid", "aclnnSigmoidBackwardGetWorkspaceSize", "aclnnSigmoidBackward"]

_FLOATS = (ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_COMPLEX64, ACL_COMPLEX128, ACL_BF16)
_SELF_LIST = _FLOATS + (ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_BOOL, ACL_UINT8)
_AI_CORE = (ACL_FLOAT, ACL_FLOAT16, ACL_BF16)
# op::PromoteType over the list, by (kind rank, width): bfloat16 with float16 gives float32.
_RANK = {ACL_FLOAT16: (0, 16), ACL_BF16: (0, 16), ACL_FLOAT: (0, 32), ACL_DOUBLE: (0, 64),
         ACL_COMPLEX64: (1, 64), ACL_COMPLEX128: (1, 128)}


def _promote(a: int, b: int) -> int:
    if a == b:
        return a
    (ka, wa), (kb, wb) = _RANK[a], _RANK[b]
    if ka == kb:
        return ACL_FLOAT if {a, b} == {ACL_FLOAT16, ACL_BF16} else (a if wa > wb else b)
    real, cplx = (a, b) if ka == 0 else (b, a)
    return ACL_COMPLEX128 if cplx == ACL_COMPLEX128 or _RANK[real][1] == 64 else ACL_COMPLEX64


@dataclass(eq=False)
class aclSigmoidExecutor:
    """What phase one prepared; runs once. ``tiling`` is the AI Core host tiling, ``"aicpu"`` for the
    AICPU kernel, None for an empty launch. ``compute`` is the aclDataType the kernel runs in."""

    op: str
    inputs: tuple
    out: aclTensor
    compute: int
    platform: Platform
    workspace_size: int
    tiling: OpTiling | str | None
    used: bool = False


def _numpy(acl_type: int) -> np.dtype:
    return ACL_DTYPES[acl_type][1]


def _bf16_rule(tensor: aclTensor, name: str, platform: Platform):
    if tensor.data_type == ACL_BF16 and bfloat16_refusal(platform):
        return ACLNN_ERR_PARAM_INVALID, f"dtype ACL_BF16 of {name}: {bfloat16_refusal(platform)}"
    return None


def _prepare(op: str, inputs: tuple, out: aclTensor, compute: int, platform: Platform):
    """The executor of a checked, non-empty launch: the host tiling of the kernel that runs it."""
    if compute not in _AI_CORE:
        return ACLNN_SUCCESS, aclSigmoidExecutor(op, inputs, out, compute, platform, 0, "aicpu")
    info = next(i for i in DTYPES.values() if i.acl_data_type == compute)
    refusal = None if platform.architecture == ARCH_950 else block_size_refusal(platform.block_size, info)
    if refusal:
        return ACLNN_ERR_PARAM_INVALID, f"the host tiling fails on the platform set by set_platform: {refusal}"
    try:
        tiling = get_operator(op).host_tiling(out.numel, info, None, platform)
    except ValueError as exc:
        return ACLNN_ERR_INNER_NULLPTR, f"the launcher failed: its host tiling refused: {exc}"
    return ACLNN_SUCCESS, aclSigmoidExecutor(op, inputs, out, compute, platform, tiling.workspace_size, tiling)

# ---------------------------------------------------------------- Sigmoid


def _sigmoid_phase_one(self_, out, platform: Platform, inplace: bool = False):
    for tensor, name in ((self_, "self"), (out, "out")):
        bad = live_tensor(tensor, name)
        if bad:
            return bad
    for tensor, name, allowed in ((self_, "self", _SELF_LIST), (out, "out", _FLOATS)):
        if tensor.data_type not in allowed:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} is {dtype_name(tensor.data_type)}; it must be one "
                                             f"of {', '.join(dtype_name(c) for c in allowed)}")
    bad = _bf16_rule(self_, "self", platform)
    if bad:
        return bad
    if self_.view_shape != out.view_shape:
        return ACLNN_ERR_PARAM_INVALID, f"shape of self {self_.view_shape} must equal shape of out {out.view_shape}"
    if len(self_.view_shape) > MAX_DIM:
        return ACLNN_ERR_PARAM_INVALID, f"self has {len(self_.view_shape)} dims; at most {MAX_DIM} are supported"
    bad = check_emulator_storage((("self", self_),) if inplace else (("self", self_), ("out", out)), out, "out")
    if bad:
        return bad
    if self_.numel == 0:
        return ACLNN_SUCCESS, aclSigmoidExecutor("sigmoid", (self_,), out, self_.data_type, platform, 0, None)
    compute = self_.data_type if self_.data_type in _FLOATS else out.data_type
    if self_.data_type not in _FLOATS:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of self {dtype_name(self_.data_type)}: the op_api's Cast of it to "
                                         f"out's dtype is not emulated; cast self to a floating dtype first")
    if compute not in _AI_CORE:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype {dtype_name(compute)} runs on an AICPU Sigmoid kernel that ops-nn "
                                         f"does not publish; it is not emulated")
    return _prepare("sigmoid", (self_,), out, compute, platform)


def aclnnSigmoidGetWorkspaceSize(self, out):
    """Phase one of aclnnSigmoid: ``(status, workspace_size, executor)``; on failure ``(status, 0, None)``
    and :func:`aclGetRecentErrMsg` names the argument and rule."""
    return get_workspace_size("aclnnSigmoidGetWorkspaceSize", _sigmoid_phase_one, self, out, get_platform())


def _inplace_phase_one(self_ref, platform: Platform):
    bad = live_tensor(self_ref, "selfRef")
    if bad:
        return bad
    allowed = tuple(c for c in _FLOATS if c != ACL_BF16 or not bfloat16_refusal(platform))
    if self_ref.data_type not in allowed:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of selfRef is {dtype_name(self_ref.data_type)}; on SoC "
                                         f"{platform.soc_family} it must be one of "
                                         f"{', '.join(dtype_name(c) for c in allowed)}")
    return _sigmoid_phase_one(self_ref, self_ref, platform, inplace=True)


def aclnnInplaceSigmoidGetWorkspaceSize(selfRef):
    """Phase one of aclnnInplaceSigmoid (``selfRef`` is both input and output)."""
    return get_workspace_size("aclnnInplaceSigmoidGetWorkspaceSize", _inplace_phase_one, selfRef, get_platform())

# ---------------------------------------------------------------- SigmoidBackward


def _backward_phase_one(grad_output, output, grad_input, platform: Platform):
    named = ((grad_output, "gradOutput"), (output, "output"), (grad_input, "gradInput"))
    for tensor, name in named:
        bad = live_tensor(tensor, name)
        if bad:
            return bad
    for tensor, name in named:
        if tensor.data_type not in _FLOATS:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} is {dtype_name(tensor.data_type)}; it must be one "
                                             f"of {', '.join(dtype_name(c) for c in _FLOATS)}")
    bad = _bf16_rule(grad_output, "gradOutput", platform)
    if bad:
        return bad
    for tensor, name in named[:2]:
        if len(tensor.view_shape) > MAX_DIM:
            return ACLNN_ERR_PARAM_INVALID, (f"{name} has {len(tensor.view_shape)} dims; at most {MAX_DIM} are "
                                             f"supported")
    promoted = _promote(grad_output.data_type, output.data_type)
    if _RANK[promoted][0] > _RANK[grad_input.data_type][0]:
        return ACLNN_ERR_PARAM_INVALID, (f"the promoted dtype {dtype_name(promoted)} of gradOutput and output cannot "
                                         f"be cast to gradInput's {dtype_name(grad_input.data_type)}")
    try:
        shape = tuple(np.broadcast_shapes(tuple(grad_output.view_shape), tuple(output.view_shape)))
    except ValueError:
        return ACLNN_ERR_PARAM_INVALID, (f"shapes of gradOutput {grad_output.view_shape} and output "
                                         f"{output.view_shape} cannot broadcast")
    if shape != tuple(grad_input.view_shape):
        return ACLNN_ERR_PARAM_INVALID, (f"broadcast shape {shape} of gradOutput and output must equal shape of "
                                         f"gradInput {tuple(grad_input.view_shape)}")
    bad = check_emulator_storage(((n, t) for t, n in named), grad_input, "gradInput")
    if bad:
        return bad
    if grad_output.numel == 0 or output.numel == 0:
        return ACLNN_SUCCESS, aclSigmoidExecutor("sigmoid_grad", (grad_output, output), grad_input, promoted,
                                                 platform, 0, None)
    return _prepare("sigmoid_grad", (grad_output, output), grad_input, promoted, platform)


def aclnnSigmoidBackwardGetWorkspaceSize(gradOutput, output, gradInput):
    """Phase one of aclnnSigmoidBackward: ``(status, workspace_size, executor)``. The workspace is the AI
    Core tiling's (0 for the AICPU kernel's dtypes)."""
    return get_workspace_size("aclnnSigmoidBackwardGetWorkspaceSize", _backward_phase_one, gradOutput, output,
                              gradInput, get_platform())

# ---------------------------------------------------------------- phase two


def _make_job(executor: aclSigmoidExecutor, stream=None):
    tiling, compute = executor.tiling, _numpy(executor.compute)
    saturation = stream.overflow_mode == "saturation"      # the device's mode when the stream was created

    def job():
        out_view = tensor_view(executor.out)
        ins = [np.ascontiguousarray(np.broadcast_to(tensor_view(t), out_view.shape)).astype(compute)
               for t in executor.inputs]                    # BroadcastTo, then Cast to the compute dtype (exact)
        result = np.empty(out_view.shape, dtype=compute)
        if tiling == "aicpu":
            result = aicpu.sigmoid_grad(*ins)
        else:
            kernel = get_operator(executor.op).kernels[tiling.architecture]
            flat = [a.reshape(-1) for a in ins]
            kernel.run(*(flat if len(flat) == 2 else [None] + flat), result.reshape(-1), tiling,
                       **({"saturation": True} if saturation else {}))
        with np.errstate(all="ignore"):
            out_view[...] = result.astype(out_view.dtype)   # Cast to the output's dtype, then ViewCopy

    return job


def _launch(where: str, op: str, workspace, workspaceSize, executor, stream) -> int:
    mine = isinstance(executor, aclSigmoidExecutor)
    tensors = {} if not mine else dict({f"input{i}": t for i, t in enumerate(executor.inputs)}, out=executor.out)
    return queue_launch(where, executor, lambda e: isinstance(e, aclSigmoidExecutor) and e.op == op, tensors,
                        _make_job, workspace, workspaceSize, stream, saturation=get_operator(op).saturation)


def aclnnSigmoid(workspace, workspaceSize, executor, stream) -> int:
    """Phase two: queue the launch on ``stream``; results are defined after ``aclrtSynchronizeStream``."""
    return _launch("aclnnSigmoid", "sigmoid", workspace, workspaceSize, executor, stream)


def aclnnInplaceSigmoid(workspace, workspaceSize, executor, stream) -> int:
    """Phase two of aclnnInplaceSigmoid, as :func:`aclnnSigmoid`."""
    return _launch("aclnnInplaceSigmoid", "sigmoid", workspace, workspaceSize, executor, stream)


def aclnnSigmoidBackward(workspace, workspaceSize, executor, stream) -> int:
    """Phase two of aclnnSigmoidBackward, as :func:`aclnnSigmoid`."""
    return _launch("aclnnSigmoidBackward", "sigmoid_grad", workspace, workspaceSize, executor, stream)
