"""``aclnnGeluV2`` and ``aclnnGeluBackwardV2`` (two-phase), as their op_apis write them.

docs/model.md, "GeluV2 (aclnnGeluV2, 950 only)" and "GeluBackwardV2 (aclnnGeluBackwardV2)".

- ``aclnnGeluV2GetWorkspaceSize(x, approximate, y, ...)``: ``approximate`` an int64, 1 tanh and every
  other value none (``GetApproximateStr``, ``aclnn_gelu_v2.cpp:25-32``, no check); null -> 161001; dtypes
  differ, bfloat16 outside ASCEND910B..E, a dtype outside the list, shapes differ -> 161002. On the A2 the
  op_api lets the call through to ``l0op::GeluV2``, whose kernel ops-nn does not publish: the emulator
  answers as a launcher that returns nullptr (561103), naming the SoC and the reason.
- ``aclnnGeluBackwardV2GetWorkspaceSize(gradOutput, self, approximate, gradInput, ...)``: ``approximate`` a
  ``char*`` (a Python str here): null -> 161001, anything but "none"/"tanh" -> 161002
  (``aclnn_gelu_backward_v2.cpp:37-41, 77-86``); the other checks as aclnnGeluBackward's
  (:mod:`.op_gelu`).

Then the emulator's own view and storage checks; phase two runs phase one's record.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..dtypes import dtype_info
from ..ops import gelu_grad_v2 as grad_op
from ..ops import gelu_v2 as gelu_v2_op
from ..ops import get_operator
from ..platform import ARCH_950, Platform
from .enums import ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, ACLNN_SUCCESS
from ..ops.gelu.description import dtype_and_rank_checks
from .tensor import check_emulator_storage
from .state import get_platform
from .twophase import get_workspace_size, live_tensor, queue_launch, tensor_view

__all__ = ["aclnnGeluV2GetWorkspaceSize", "aclnnGeluV2", "aclnnGeluBackwardV2GetWorkspaceSize",
           "aclnnGeluBackwardV2"]


def common_checks(op: str, named: dict, out_name: str, platform: Platform):
    """The checks GeluV2's op_apis share with Gelu's, in their order: the null pointers, then
    :func:`~swishgrad_numba.ops.gelu.description.dtype_and_rank_checks`; (status, message) or None."""
    for name, tensor in named.items():
        bad = live_tensor(tensor, name)
        if bad:
            return bad
    ins = tuple((k, v) for k, v in named.items() if k != out_name)
    said = dtype_and_rank_checks(ins, out_name, named[out_name], platform)
    return (ACLNN_ERR_PARAM_INVALID, said) if said else None


@dataclass(eq=False)
class aclGeluV2Executor:
    """What phase one prepared (``tiling`` None for an empty launch); runs once."""

    op: str
    inputs: dict
    out: object
    shape: tuple
    approximate: str
    platform: Platform
    workspace_size: int
    tiling: object | None
    used: bool = False


def _phase_one(op: str, named: dict, out_name: str, approximate, platform: Platform):
    forward = op == gelu_v2_op.NAME
    if not forward:
        if approximate is None:
            return ACLNN_ERR_PARAM_NULLPTR, "approximate is a null pointer"
        if approximate not in gelu_v2_op.APPROXIMATIONS:
            return ACLNN_ERR_PARAM_INVALID, f"approximate is {approximate!r}; it must be 'none' or 'tanh'"
    bad = common_checks("gelu" if forward else "gelu_grad", named, out_name, platform)
    if bad:
        return bad
    out = named[out_name]
    ins = {k: v for k, v in named.items() if k != out_name}
    shapes = [tuple(t.view_shape) for t in ins.values()]
    try:
        shape = tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        shape = None
    if (forward and shapes[0] != tuple(out.view_shape)) or shape != tuple(out.view_shape):
        return ACLNN_ERR_PARAM_INVALID, (f"shapes {', '.join(f'{k} {tuple(t.view_shape)}' for k, t in ins.items())} "
                                         f"must {'equal' if forward else 'broadcast to'} the shape of {out_name} "
                                         f"{tuple(out.view_shape)}")
    bad = check_emulator_storage(named.items(), out, out_name)
    if bad:
        return bad
    info = dtype_info(out.dtype)
    if min(t.numel for t in ins.values()) == 0:
        return ACLNN_SUCCESS, aclGeluV2Executor(op, ins, out, shape, approximate, platform, 0, None)
    operator = get_operator(op)
    refusal = operator.kernel_refusal(platform)
    if refusal:
        return ACLNN_ERR_INNER_NULLPTR, f"the {operator.kernel_op} launcher failed: {refusal}"
    try:
        if forward:
            tiling = gelu_v2_op.host_tiling(out.numel, info, approximate, platform)
        elif platform.architecture == ARCH_950:
            tiling = grad_op.host_tiling(*shapes, info, approximate, platform)
        else:   # the op_api broadcasts both inputs to gradInput's shape first
            tiling = grad_op.host_tiling((out.numel,), (out.numel,), info, approximate, platform)
    except ValueError as exc:
        return ACLNN_ERR_INNER_NULLPTR, f"the launcher failed: its host tiling refused: {exc}"
    return ACLNN_SUCCESS, aclGeluV2Executor(op, ins, out, shape, approximate, platform, tiling.workspace_size, tiling)


def aclnnGeluV2GetWorkspaceSize(x, approximate, y):
    """Phase one of aclnnGeluV2 (``approximate``: an int, 1 tanh, else none):
    ``(status, workspace_size, executor)``; on failure ``(status, 0, None)``."""
    word = "tanh" if int(approximate) == 1 else "none"
    return get_workspace_size("aclnnGeluV2GetWorkspaceSize", _phase_one, gelu_v2_op.NAME, {"x": x, "y": y}, "y",
                              word, get_platform())


def aclnnGeluBackwardV2GetWorkspaceSize(gradOutput, self, approximate, gradInput):
    """Phase one of aclnnGeluBackwardV2 (``approximate``: "none" or "tanh"), as
    :func:`aclnnGeluV2GetWorkspaceSize`."""
    return get_workspace_size("aclnnGeluBackwardV2GetWorkspaceSize", _phase_one, grad_op.NAME,
                              {"gradOutput": gradOutput, "self": self, "gradInput": gradInput}, "gradInput",
                              approximate, get_platform())


def _make_job(e: aclGeluV2Executor, stream=None):
    saturation = stream.overflow_mode == "saturation"
    tiling, platform, info = e.tiling, e.platform, dtype_info(e.out.dtype)

    def job():
        out_view = tensor_view(e.out)
        result = np.empty(out_view.shape, dtype=e.out.dtype)
        # the op_api's Casts to the promoted dtype: exact widenings
        views = [np.ascontiguousarray(tensor_view(t)).astype(info.numpy, copy=False) for t in e.inputs.values()]
        if e.op == gelu_v2_op.NAME:
            gelu_v2_op.run(None, views[0].reshape(-1), result.reshape(-1), tiling, platform.axpy_rounding)
        elif tiling.architecture == ARCH_950:
            if views[0].shape == views[1].shape:
                views = [v.reshape(-1) for v in views]
            grad_op.run_arch35(*views, result, tiling, info, platform.axpy_rounding)
        else:
            views = [np.ascontiguousarray(np.broadcast_to(v, e.shape)) for v in views]
            grad_op.a2.run(*views, result, tiling, info, saturation)
        out_view[...] = result

    return job


def _launch(where: str, op: str, workspace, workspaceSize, executor, stream) -> int:
    tensors = {} if not isinstance(executor, aclGeluV2Executor) else {**executor.inputs, "out": executor.out}
    return queue_launch(where, executor, lambda e: isinstance(e, aclGeluV2Executor) and e.op == op, tensors,
                        _make_job, workspace, workspaceSize, stream, saturation=get_operator(op).saturation)


def aclnnGeluV2(workspace, workspaceSize, executor, stream) -> int:
    """Phase two: queue the launch on ``stream``; results are defined after ``aclrtSynchronizeStream``."""
    return _launch("aclnnGeluV2", gelu_v2_op.NAME, workspace, workspaceSize, executor, stream)


def aclnnGeluBackwardV2(workspace, workspaceSize, executor, stream) -> int:
    """Phase two of aclnnGeluBackwardV2, as :func:`aclnnGeluV2`."""
    return _launch("aclnnGeluBackwardV2", grad_op.NAME, workspace, workspaceSize, executor, stream)
