"""``aclnnLeakyRelu``, ``aclnnInplaceLeakyRelu`` and ``aclnnLeakyReluBackward`` (two-phase), as their op_apis
write them.

docs/model.md, "LeakyRelu, LeakyReluBackward (950 only)", gives the sources
(``activation/leaky_relu/op_api/aclnn_leaky_relu.cpp``,
``activation/leaky_relu_grad/op_api/aclnn_leaky_relu_backward.cpp``). In the op_apis' order:

- LeakyRelu: null pointers (161001); ``self`` in {float32, float16, float64, bfloat16} (bfloat16 on NpuArch
  DAV_2201, the A2 and A3, or a regbase chip such as the 950; not elsewhere), ``self``'s dtype castable to
  ``out``'s; at most 8 dims, ``out`` of ``self``'s shape (161002). The inplace form is the same call with
  ``out = selfRef``.
- LeakyReluBackward: null pointers (161001); gradOutput and self in the list, ``negativeSlope``'s dtype in
  the scalar list (the floats, the integers, bool); at most 8 dims each, their broadcast shape equal to
  gradInput's; ``selfIsResult`` with ``negativeSlope < 0`` (the double) refused; their promoted dtype
  castable to gradInput's (161002).

Empty tensors succeed with workspace 0. The slope is ``negativeSlope->ToFloat()``. float64 (LeakyRelu) or a
float64 promoted dtype (LeakyReluBackward) runs the AICPU kernel, modelled plainly
(:mod:`swishgrad_numba.ops.leaky_relu_api`); the other dtypes the Ascend 950 kernel; on the A2 the op_api
lets the call through to a kernel ops-nn does not publish: the launcher fails (561103, naming the reason).
The result is Cast to the output's dtype (round to nearest even, as the other operators' Casts: CANN's
Cast operator is not read here); an output that is not a floating dtype is refused (161002; its Cast is
not emulated).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..dtypes import DTYPES, to_float32
from ..ops import OpTiling, get_operator
from ..ops import leaky_relu as fwd
from ..ops import leaky_relu_api as api
from ..ops import leaky_relu_grad as grad_op
from ..platform import ARCH_950, Platform
from .enums import (ACL_BF16, ACL_BOOL, ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT16, ACL_INT32,
                    ACL_INT64, ACL_UINT8, ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR,
                    ACLNN_SUCCESS, MAX_DIM, _DTYPES, _PLAIN_FORMATS, _dtype_name, _format_name)
from .state import get_platform
from .tensor import _check_addressable, _check_geometry, aclScalar, aclTensor
from .twophase import get_workspace_size, live_tensor, queue_launch, tensor_view

__all__ = ["aclnnLeakyReluGetWorkspaceSize", "aclnnLeakyRelu", "aclnnInplaceLeakyReluGetWorkspaceSize",
           "aclnnInplaceLeakyRelu", "aclnnLeakyReluBackwardGetWorkspaceSize", "aclnnLeakyReluBackward"]

# NpuArch DAV_2201 (the A2 and A3 families): the list with bfloat16, as on a regbase chip (the 950).
_DAV_2201 = ("ascend910b", "ascend910_93")
_FLOATS = (ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16)
_SCALARS = (ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_INT32, ACL_INT64, ACL_INT8, ACL_UINT8, ACL_BOOL, ACL_INT16,
            ACL_BF16)


def _lists(platform: Platform):
    """GetDtypeSupportList and GetScalarSupportList: bfloat16 only on DAV_2201 or a regbase chip."""
    bf16 = platform.architecture == ARCH_950 or platform.soc_family in _DAV_2201
    return tuple(c for c in _FLOATS if bf16 or c != ACL_BF16), tuple(c for c in _SCALARS if bf16 or c != ACL_BF16)


@dataclass(eq=False)
class aclLeakyReluExecutor:
    """What phase one prepared; runs once. ``tiling``: the 950 host tiling, ``"aicpu"``, or None (empty)."""

    op: str
    inputs: tuple
    out: aclTensor
    compute: np.dtype
    slope32: np.float32
    workspace_size: int
    tiling: OpTiling | str | None
    used: bool = False


def _live_scalar(scalar, name):
    if scalar is None:
        return ACLNN_ERR_PARAM_NULLPTR, f"{name} is a null pointer (None)"
    if not isinstance(scalar, aclScalar) or scalar.destroyed:
        return ACLNN_ERR_PARAM_NULLPTR, f"{name} must be a live aclScalar, got {scalar!r}"
    return None


def _emulator_checks(named: tuple, out: aclTensor, out_name: str):
    for name, tensor in named:
        if tensor.format not in _PLAIN_FORMATS:
            return ACLNN_ERR_PARAM_INVALID, f"{name} is in {_format_name(tensor.format)}; ND, NCHW or NHWC only"
        message = _check_addressable(tensor, name) or _check_geometry(tensor, name)
        if message:
            return ACLNN_ERR_PARAM_INVALID, message
    largest = max(t.storage.size for _, t in named)
    if out.numel > largest:
        return ACLNN_ERR_PARAM_INVALID, (f"{out_name}'s view {out.view_shape} has {out.numel} elements, more than "
                                         f"the largest storage of the tensors ({largest} elements)")
    if not out.storage.flags.writeable:
        return ACLNN_ERR_PARAM_INVALID, f"{out_name}'s data is read-only"
    return None


def _out_cast(promoted: int, out: aclTensor, out_name: str):
    if out.data_type not in _FLOATS:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of {out_name} is {_dtype_name(out.data_type)}: the Cast of the "
                                         f"{_dtype_name(promoted)} result to it is not emulated (floating only)")
    return None


def _prepare(op, ins: tuple, out, compute: int, slope32, shapes, platform: Platform):
    """The executor of a checked launch: the kernel that runs it and its host tiling."""
    dtype = _DTYPES[compute][1]
    if min(t.numel for _, t in ins) == 0:
        return ACLNN_SUCCESS, aclLeakyReluExecutor(op, ins, out, dtype, slope32, 0, None)
    if compute == ACL_DOUBLE:
        return ACLNN_SUCCESS, aclLeakyReluExecutor(op, ins, out, dtype, slope32, 0, "aicpu")
    operator = get_operator(op)
    if operator.kernel_refusal(platform):
        return ACLNN_ERR_INNER_NULLPTR, f"the {operator.kernel_op} launcher failed: {operator.kernel_refusal(platform)}"
    info = next(i for i in DTYPES.values() if i.acl_data_type == compute)
    try:
        if op == fwd.NAME:
            tiling = fwd.host_tiling(out.numel, info, slope32, platform)
        else:
            tiling = grad_op.host_tiling(*shapes, info, slope32, platform)
    except ValueError as exc:
        return ACLNN_ERR_INNER_NULLPTR, f"the {operator.kernel_op} launcher failed: its host tiling refused: {exc}"
    return ACLNN_SUCCESS, aclLeakyReluExecutor(op, ins, out, dtype, slope32, tiling.workspace_size, tiling)

# ---------------------------------------------------------------- LeakyRelu


def _forward_phase_one(self_, slope, out, platform: Platform, inplace: bool = False):
    for name, tensor in (("self", self_), ("out", out)):
        bad = live_tensor(tensor, name)
        if bad:
            return bad
    bad = _live_scalar(slope, "negativeSlope")
    if bad:
        return bad
    tensors, _ = _lists(platform)
    if self_.data_type not in tensors:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of self is {_dtype_name(self_.data_type)}; on SoC "
                                         f"{platform.soc_family} it must be one of "
                                         f"{', '.join(_dtype_name(c) for c in tensors)}")
    bad = _out_cast(self_.data_type, out, "out")
    if bad:
        return bad
    if len(self_.view_shape) > MAX_DIM:
        return ACLNN_ERR_PARAM_INVALID, f"self has {len(self_.view_shape)} dims; at most {MAX_DIM} are supported"
    if tuple(out.view_shape) != tuple(self_.view_shape):
        return ACLNN_ERR_PARAM_INVALID, f"shape of out {out.view_shape} must equal shape of self {self_.view_shape}"
    try:
        slope32 = to_float32(slope.value, argname="negativeSlope")
    except TypeError as exc:
        return ACLNN_ERR_PARAM_INVALID, f"{exc} (ToFloat of a complex scalar is not emulated)"
    bad = _emulator_checks((("self", self_),) if inplace else (("self", self_), ("out", out)), out, "out")
    return bad or _prepare(fwd.NAME, (("self", self_),), out, self_.data_type, slope32, None, platform)


def aclnnLeakyReluGetWorkspaceSize(self, negativeSlope, out):
    """Phase one of aclnnLeakyRelu: ``(status, workspace_size, executor)``; on failure ``(status, 0, None)``
    and :func:`aclGetRecentErrMsg` names the argument and rule."""
    return get_workspace_size("aclnnLeakyReluGetWorkspaceSize", _forward_phase_one, self, negativeSlope, out,
                              get_platform())


def aclnnInplaceLeakyReluGetWorkspaceSize(selfRef, negativeSlope):
    """Phase one of aclnnInplaceLeakyRelu (``selfRef`` both input and output)."""
    return get_workspace_size("aclnnInplaceLeakyReluGetWorkspaceSize", _forward_phase_one, selfRef, negativeSlope,
                              selfRef, get_platform(), True)

# ---------------------------------------------------------------- LeakyReluBackward


def _backward_phase_one(grad_output, self_, slope, self_is_result, grad_input, platform: Platform):
    for name, tensor in (("gradOutput", grad_output), ("self", self_), ("gradInput", grad_input)):
        bad = live_tensor(tensor, name)
        if bad:
            return bad
    bad = _live_scalar(slope, "negativeSlope")
    if bad:
        return bad
    tensors, scalars = _lists(platform)
    for name, code in (("gradOutput", grad_output.data_type), ("self", self_.data_type),
                       ("negativeSlope", slope.data_type)):
        allowed = scalars if name == "negativeSlope" else tensors
        if code not in allowed:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} is {_dtype_name(code)}; on SoC {platform.soc_family} "
                                             f"it must be one of {', '.join(_dtype_name(c) for c in allowed)}")
    for name, tensor in (("gradOutput", grad_output), ("self", self_)):
        if len(tensor.view_shape) > MAX_DIM:
            return ACLNN_ERR_PARAM_INVALID, f"{name} has {len(tensor.view_shape)} dims; at most {MAX_DIM} are supported"
    shapes = (tuple(grad_output.view_shape), tuple(self_.view_shape))
    try:
        shape = tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return ACLNN_ERR_PARAM_INVALID, f"shapes of gradOutput {shapes[0]} and self {shapes[1]} cannot broadcast"
    if shape != tuple(grad_input.view_shape):
        return ACLNN_ERR_PARAM_INVALID, (f"broadcast shape {shape} of gradOutput and self must equal shape of "
                                         f"gradInput {tuple(grad_input.view_shape)}")
    if not isinstance(self_is_result, (bool, np.bool_)):
        return ACLNN_ERR_PARAM_INVALID, f"selfIsResult must be a bool, got {type(self_is_result).__name__}"
    if self_is_result and float(slope.value) < 0.0:
        return ACLNN_ERR_PARAM_INVALID, (f"selfIsResult is true with negativeSlope {slope.value!r} < 0: the "
                                         f"in-place forward's result cannot be differentiated; use the out-of-place "
                                         f"forward")
    dtypes = [_DTYPES[t.data_type][1] for t in (grad_output, self_)]
    promoted = next(c for c in _FLOATS if _DTYPES[c][1] == api.promoted_dtype(*dtypes))
    bad = _out_cast(promoted, grad_input, "gradInput")
    if bad:
        return bad
    named = (("gradOutput", grad_output), ("self", self_))
    bad = _emulator_checks(named + (("gradInput", grad_input),), grad_input, "gradInput")
    if bad:
        return bad
    if shapes[0] == shapes[1]:
        shapes = ((grad_input.numel,),) * 2
    return _prepare(grad_op.NAME, named, grad_input, promoted, to_float32(slope.value, "negativeSlope"), shapes,
                    platform)


def aclnnLeakyReluBackwardGetWorkspaceSize(gradOutput, self, negativeSlope, selfIsResult, gradInput):
    """Phase one of aclnnLeakyReluBackward, as :func:`aclnnLeakyReluGetWorkspaceSize`."""
    return get_workspace_size("aclnnLeakyReluBackwardGetWorkspaceSize", _backward_phase_one, gradOutput, self,
                              negativeSlope, selfIsResult, gradInput, get_platform())

# ---------------------------------------------------------------- phase two


def _make_job(e: aclLeakyReluExecutor, stream=None):
    def job():
        out_view = tensor_view(e.out)
        # the op_api's Casts to the promoted dtype: exact widenings
        ins = [np.ascontiguousarray(tensor_view(t)).astype(e.compute, copy=False) for _, t in e.inputs]
        if e.tiling == "aicpu":
            result = api.aicpu_leaky_relu(ins[0], e.slope32) if e.op == fwd.NAME else \
                api.aicpu_leaky_relu_grad(*ins, e.slope32)
        else:
            result = np.empty(out_view.shape, dtype=e.compute)
            info = next(i for i in DTYPES.values() if i.numpy == e.compute)
            if e.op == fwd.NAME:
                fwd.launch(ins[0].reshape(-1), result.reshape(-1), e.tiling, info)
            else:
                if ins[0].shape == ins[1].shape:
                    ins = [a.reshape(-1) for a in ins]
                grad_op.launch(*ins, result, e.tiling, info)
        with np.errstate(all="ignore"):
            out_view[...] = result.astype(out_view.dtype)   # Cast to the output's dtype, then ViewCopy

    return job


def _launch(where: str, op: str, workspace, workspaceSize, executor, stream) -> int:
    ours = isinstance(executor, aclLeakyReluExecutor) and executor.op == op
    tensors = dict(executor.inputs + (("out", executor.out),)) if ours else {}
    return queue_launch(where, executor, lambda e: isinstance(e, aclLeakyReluExecutor) and e.op == op, tensors,
                        _make_job, workspace, workspaceSize, stream, saturation=get_operator(op).saturation)


def aclnnLeakyRelu(workspace, workspaceSize, executor, stream) -> int:
    """Phase two: queue the launch on ``stream``; results are defined after ``aclrtSynchronizeStream``."""
    return _launch("aclnnLeakyRelu", fwd.NAME, workspace, workspaceSize, executor, stream)


def aclnnInplaceLeakyRelu(workspace, workspaceSize, executor, stream) -> int:
    """Phase two of aclnnInplaceLeakyRelu, as :func:`aclnnLeakyRelu`."""
    return _launch("aclnnInplaceLeakyRelu", fwd.NAME, workspace, workspaceSize, executor, stream)


def aclnnLeakyReluBackward(workspace, workspaceSize, executor, stream) -> int:
    """Phase two of aclnnLeakyReluBackward, as :func:`aclnnLeakyRelu`."""
    return _launch("aclnnLeakyReluBackward", grad_op.NAME, workspace, workspaceSize, executor, stream)
