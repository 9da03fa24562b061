"""``aclnnGelu`` and ``aclnnGeluBackward`` (two-phase), as their op_apis write them.

docs/model.md, "Gelu (aclnnGelu)" and "GeluBackward (aclnnGeluBackward)": null tensors -> 161001
(``ACLNN_ERR_PARAM_NULLPTR``); a dtype outside float32/float16/bfloat16 (bfloat16 only where the SoC
takes it), dtypes that differ, shapes that differ (Gelu) or do not broadcast to gradInput's
(GeluBackward), more than 8 dims -> 161002 (``ACLNN_ERR_PARAM_INVALID``); then the emulator's own view
and storage checks, as the other operators'. GeluBackward's op_api casts mixed inputs to their promoted
dtype (float32) and the result to gradInput's: emulated where gradInput is float32 (the last Cast then
changes nothing), else refused (161002, saying so). Phase one stores the host tiling; phase two runs it, with the
platform's Axpy rounding on the 950.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import kernel
from ..arguments import bfloat16_refusal, block_size_refusal
from ..dtypes import dtype_info
from ..ops import gelu as gelu_op
from ..ops import gelu_grad as grad_op
from ..ops import get_operator
from ..platform import ARCH_950, Platform
from .enums import (ACL_BF16, ACL_FLOAT, ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_SUCCESS, MAX_DIM,
                    KERNEL_DTYPES, dtype_name)
from .state import get_platform
from .tensor import check_emulator_storage
from .twophase import get_workspace_size, live_tensor, queue_launch, tensor_view

__all__ = ["aclnnGeluGetWorkspaceSize", "aclnnGelu", "aclnnGeluBackwardGetWorkspaceSize", "aclnnGeluBackward"]


@dataclass(eq=False)
class aclGeluExecutor:
    """What phase one prepared (``tiling`` None for an empty launch); runs once."""

    op: str
    inputs: dict
    out: object
    shape: tuple
    platform: Platform
    workspace_size: int
    tiling: object | None
    used: bool = False


def common_checks(op: str, named: dict, out_name: str, platform: Platform):
    """The checks both op_apis share, in their order: (status, message) or None."""
    for name, tensor in named.items():
        bad = live_tensor(tensor, name)
        if bad:
            return bad
    supported = ", ".join(dtype_name(c) for c in KERNEL_DTYPES)
    for name, tensor in named.items():
        if tensor.data_type not in KERNEL_DTYPES:
            return ACLNN_ERR_PARAM_INVALID, f"dtype of {name} is {dtype_name(tensor.data_type)}; it must be one of " \
                                            f"{supported}"
    out = named[out_name]
    ins = [t for name, t in named.items() if name != out_name]
    # GeluBackward: the op_api casts both inputs to PromoteType (float32 for two of ours that differ), runs
    # the kernel, then casts to gradInput's dtype; that last Cast is emulated only where it changes nothing
    promoted = ins[0].data_type if op == "gelu" or ins[0].data_type == ins[1].data_type else ACL_FLOAT
    for name, tensor in list(named.items()) if op == "gelu" else [(out_name, out)]:
        if tensor.data_type != promoted:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} ({dtype_name(tensor.data_type)}) must equal "
                                             + (f"dtype of self ({dtype_name(promoted)})" if op == "gelu" else
                                                f"the inputs' promoted dtype ({dtype_name(promoted)}): the Cast "
                                                f"of the result to another dtype is not emulated"))
    if ACL_BF16 in [t.data_type for t in named.values()] and bfloat16_refusal(platform):
        return ACLNN_ERR_PARAM_INVALID, f"dtype ACL_BF16: {bfloat16_refusal(platform)}"
    for name, tensor in named.items():
        if len(tensor.view_shape) > MAX_DIM:
            return ACLNN_ERR_PARAM_INVALID, f"{name} has {len(tensor.view_shape)} dims; at most {MAX_DIM} are supported"
    return None


def _phase_one(op: str, named: dict, out_name: str, platform: Platform):
    bad = common_checks(op, named, out_name, platform)
    if bad:
        return bad
    out = named[out_name]
    ins = {k: v for k, v in named.items() if k != out_name}
    shapes = [tuple(t.view_shape) for t in ins.values()]
    try:
        shape = tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        shape = None
    if (op == "gelu" and shapes[0] != tuple(out.view_shape)) or shape != tuple(out.view_shape):
        return ACLNN_ERR_PARAM_INVALID, (f"shapes {', '.join(f'{k} {tuple(t.view_shape)}' for k, t in ins.items())} "
                                         f"must {'equal' if op == 'gelu' else 'broadcast to'} the shape of {out_name} "
                                         f"{tuple(out.view_shape)}")
    bad = check_emulator_storage(named.items(), out, out_name)
    if bad:
        return bad
    info = dtype_info(out.dtype)
    if min(t.numel for t in ins.values()) == 0:
        return ACLNN_SUCCESS, aclGeluExecutor(op, ins, out, shape, platform, 0, None)
    refusal = None if platform.architecture == ARCH_950 else block_size_refusal(platform.block_size, info)
    if refusal:
        return ACLNN_ERR_PARAM_INVALID, f"the host tiling fails on the platform set by set_platform: {refusal}"
    try:
        if op == "gelu":
            tiling = gelu_op.host_tiling(out.numel, info, platform)
        elif platform.architecture == ARCH_950:
            tiling = grad_op.host_tiling(*shapes, info, platform)
        else:   # the op_api broadcasts both inputs to gradInput's shape first
            tiling = grad_op.host_tiling((out.numel,), (out.numel,), info, platform)
    except ValueError as exc:
        return ACLNN_ERR_INNER_NULLPTR, f"the launcher failed: its host tiling refused: {exc}"
    return ACLNN_SUCCESS, aclGeluExecutor(op, ins, out, shape, platform, tiling.workspace_size, tiling)


def aclnnGeluGetWorkspaceSize(self, out):
    """Phase one of aclnnGelu: ``(status, workspace_size, executor)``; on failure ``(status, 0, None)``."""
    return get_workspace_size("aclnnGeluGetWorkspaceSize", _phase_one, "gelu", {"self": self, "out": out}, "out",
                              get_platform())


def aclnnGeluBackwardGetWorkspaceSize(gradOutput, self, gradInput):
    """Phase one of aclnnGeluBackward, as :func:`aclnnGeluGetWorkspaceSize`."""
    return get_workspace_size("aclnnGeluBackwardGetWorkspaceSize", _phase_one, "gelu_grad",
                              {"gradOutput": gradOutput, "self": self, "gradInput": gradInput}, "gradInput",
                              get_platform())


def _make_job(e: aclGeluExecutor, stream=None):
    saturation = stream.overflow_mode == "saturation"
    tiling, platform, info = e.tiling, e.platform, dtype_info(e.out.dtype)

    def job():
        out_view = tensor_view(e.out)
        result = np.empty(out_view.shape, dtype=e.out.dtype)
        # the op_api's Casts to the promoted dtype: exact widenings
        views = [np.ascontiguousarray(tensor_view(t)).astype(info.numpy, copy=False) for t in e.inputs.values()]
        if e.op == "gelu":
            plan = kernel.plan_launch(gelu_op.walk_fields(tiling), tiling.block_dim,
                                      kernel.arch_code(tiling.architecture), result.size)
            gelu_op.launch(views[0].reshape(-1), result.reshape(-1), plan, info, tiling.architecture, saturation,
                           platform.axpy_rounding)
        elif tiling.architecture == ARCH_950:
            if views[0].shape == views[1].shape:
                views = [v.reshape(-1) for v in views]
            grad_op.run_arch35(*views, result, tiling, info, platform.axpy_rounding)
        else:
            views = [np.ascontiguousarray(np.broadcast_to(v, e.shape)) for v in views]
            grad_op.run_a2(*views, result, tiling, info, saturation)
        out_view[...] = result

    return job


def _launch(where: str, op: str, workspace, workspaceSize, executor, stream) -> int:
    tensors = {} if not isinstance(executor, aclGeluExecutor) else {**executor.inputs, "out": executor.out}
    return queue_launch(where, executor, lambda e: isinstance(e, aclGeluExecutor) and e.op == op, tensors,
                        _make_job, workspace, workspaceSize, stream, saturation=get_operator(op).saturation)


def aclnnGelu(workspace, workspaceSize, executor, stream) -> int:
    """Phase two: queue the launch on ``stream``; results are defined after ``aclrtSynchronizeStream``."""
    return _launch("aclnnGelu", "gelu", workspace, workspaceSize, executor, stream)


def aclnnGeluBackward(workspace, workspaceSize, executor, stream) -> int:
    """Phase two of aclnnGeluBackward, as :func:`aclnnGelu`."""
    return _launch("aclnnGeluBackward", "gelu_grad", workspace, workspaceSize, executor, stream)
