"""``aclnnHardswish``, ``aclnnInplaceHardswish`` and ``aclnnHardswishBackward`` (two-phase), as their
op_apis write them. docs/model.md, "Hardswish and HardswishBackward", gives the sources.

- aclnnHardswish(self, out) (``activation/hard_swish/op_host/op_api/aclnn_hardswish.cpp``): null tensors
  -> 161001; self and out each in {float32, float16, and bfloat16 on ASCEND910B..ASCEND910E}, self castable
  to out, equal shapes -> 161002; empty: workspace 0. Then ``HardSwish(self)`` and a ``Cast`` to out's
  dtype. aclnnInplaceHardswish(self) is aclnnHardswish(self, self). On the A2 no kernel registers op type
  HardSwish: 561103 at the launcher, naming the SoC.
- aclnnHardswishBackward(gradOutput, self, out) (``activation/hard_swish_grad/op_host/op_api/
  aclnn_hardswish_backward.cpp``, the experimental copy alike): null tensors -> 161001; self and
  gradOutput in {float32, float16, and bfloat16 on the A2, A3 and 950}, gradOutput and out of self's
  dtype; at most 8 dims, gradOutput's and out's shapes equal to self's -> 161002 (nothing broadcasts, no
  dtype is promoted); empty: workspace 0. Then ``HardSwishGrad(gradOutput, self)`` on the platform's
  kernel and a ViewCopy into out.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..dtypes import dtype_info
from ..ops import get_operator
from ..platform import ARCH_950, Platform
from .enums import (ACL_BF16, ACL_FLOAT, ACL_FLOAT16, ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_SUCCESS,
                    MAX_DIM, ACL_DTYPES, PLAIN_FORMATS, dtype_name, format_name)
from .state import get_platform
from .tensor import check_addressable, check_tensor_geometry
from .twophase import get_workspace_size, live_tensor, queue_launch, tensor_view

__all__ = ["aclnnHardswishGetWorkspaceSize", "aclnnHardswish", "aclnnInplaceHardswishGetWorkspaceSize",
           "aclnnInplaceHardswish", "aclnnHardswishBackwardGetWorkspaceSize", "aclnnHardswishBackward"]
#: Shared with :mod:`.op_mish` (the same op_api shape: checks, a kernel in self's dtype, a Cast or ViewCopy).
SHARED = ["aclHardswishExecutor", "v2_bfloat16", "live_and_listed", "check_geometry", "finish", "launch_op"]

_DAV_2201 = ("ascend910b", "ascend910_93")


@dataclass(eq=False)
class aclHardswishExecutor:
    """What phase one prepared (``tiling`` None for an empty launch); runs once."""

    op: str
    inputs: dict
    out: object
    workspace_size: int
    tiling: object | None
    platform: Platform | None = None
    kernel_dtype: np.dtype | None = None    # the dtype the kernel computes in (the op_api's Casts to it)
    used: bool = False


def live_tensors(named: dict):
    """The first of ``named``'s tensors that is null or destroyed, as ``(status, message)``, or None."""
    for name, tensor in named.items():
        bad = live_tensor(tensor, name)
        if bad:
            return bad
    return None


def v2_bfloat16(platform: Platform) -> bool:
    """bfloat16 in ``GetDtypeSupportListV2``'s list (NpuArch DAV_2201, the A2 and A3, or the 950's)."""
    return platform.soc_family in _DAV_2201 or platform.architecture == ARCH_950


def live_and_listed(named: dict, listed: tuple, with_bf16: bool, platform: Platform):
    """The op_api's first checks: every tensor live (161001), then each of ``listed`` in {float32, float16}
    and bfloat16 where ``with_bf16`` (161002); ``(status, message)`` or None."""
    bad = live_tensors(named)
    allowed = allowed_dtypes(with_bf16)
    for name in listed:
        bad = bad or dtype_refusal(name, named[name], allowed, platform)
    return bad


def allowed_dtypes(with_bf16: bool) -> tuple:
    return (ACL_FLOAT, ACL_FLOAT16) + ((ACL_BF16,) if with_bf16 else ())


def dtype_refusal(name, tensor, allowed, platform):
    if tensor.data_type in allowed:
        return None
    return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} is {dtype_name(tensor.data_type)}; on SoC "
                                     f"{platform.soc_family} it must be one of "
                                     f"{', '.join(dtype_name(c) for c in allowed)}")


def check_geometry(op: str, named: dict, out_name: str | None):
    first_name, first = next(iter(named.items()))
    for name, tensor in named.items():
        if tuple(tensor.view_shape) != tuple(first.view_shape):
            return ACLNN_ERR_PARAM_INVALID, (f"shape of {name} {tuple(tensor.view_shape)} must equal shape of "
                                             f"{first_name} {tuple(first.view_shape)}")
    for name, tensor in named.items():
        if len(tensor.view_shape) > MAX_DIM:
            return ACLNN_ERR_PARAM_INVALID, f"{name} has {len(tensor.view_shape)} dims; at most {MAX_DIM} are supported"
        if tensor.format not in PLAIN_FORMATS:
            return ACLNN_ERR_PARAM_INVALID, (f"{name} is in {format_name(tensor.format)}; the emulated {op} takes "
                                             f"ND, NCHW or NHWC storage")
        message = check_addressable(tensor, name) or check_tensor_geometry(tensor, name)
        if message:
            return ACLNN_ERR_PARAM_INVALID, message
    if out_name is not None and not named[out_name].storage.flags.writeable:
        return ACLNN_ERR_PARAM_INVALID, f"{out_name}'s data is read-only"
    return None


def finish(op: str, named: dict, out_name: str, kernel_info, platform: Platform):
    """Phase one's end: an empty launch, the launcher's refusal, or the host tiling of the kernel in
    ``kernel_info``'s dtype over out's elements."""
    out = named[out_name]
    ins = {k: v for k, v in named.items() if k != out_name}
    if min(t.numel for t in ins.values()) == 0 or out.numel == 0:
        return ACLNN_SUCCESS, aclHardswishExecutor(op, ins, out, 0, None)
    operator = get_operator(op)
    refusal = operator.kernel_refusal(platform)
    if refusal:
        return ACLNN_ERR_INNER_NULLPTR, f"the {operator.kernel_op} launcher failed: {refusal}"
    try:
        tiling = operator.host_tiling(out.numel, kernel_info, None, platform)
    except ValueError as exc:
        return ACLNN_ERR_INNER_NULLPTR, f"the {operator.kernel_op} launcher failed: its host tiling refused: {exc}"
    return ACLNN_SUCCESS, aclHardswishExecutor(op, ins, out, tiling.workspace_size, tiling, platform,
                                               kernel_info.numpy)


def _forward(self_, out, platform: Platform):
    named = {"self": self_, "out": out}
    # CheckSocVersionGe910B: bfloat16 on ASCEND910B..ASCEND910E
    bad = live_and_listed(named, ("self", "out"), platform.supports_bfloat16, platform)
    if bad:
        return bad
    bad = check_geometry("Hardswish", named, "out")
    return bad or finish("hardswish", named, "out", dtype_info(self_.dtype), platform)


def _backward(grad_output, self_, out, platform: Platform):
    named = {"gradOutput": grad_output, "self": self_, "out": out}
    bad = live_and_listed(named, ("self", "gradOutput"), v2_bfloat16(platform), platform)
    if bad:
        return bad
    for name, tensor in (("gradOutput", grad_output), ("out", out)):
        if tensor.data_type != self_.data_type:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} ({dtype_name(tensor.data_type)}) must equal dtype "
                                             f"of self ({dtype_name(self_.data_type)})")
    bad = check_geometry("HardswishBackward", {"self": self_, "gradOutput": grad_output, "out": out}, "out")
    return bad or finish("hardswish_grad", named, "out", dtype_info(self_.dtype), platform)


def aclnnHardswishGetWorkspaceSize(self, out):
    """Phase one of aclnnHardswish: ``(status, workspace_size, executor)``; on failure ``(status, 0, None)``
    and :func:`aclGetRecentErrMsg` names the argument and rule."""
    return get_workspace_size("aclnnHardswishGetWorkspaceSize", _forward, self, out, get_platform())


def aclnnInplaceHardswishGetWorkspaceSize(self):
    """Phase one of aclnnInplaceHardswish: aclnnHardswish with ``out`` = ``self``."""
    return get_workspace_size("aclnnInplaceHardswishGetWorkspaceSize", _forward, self, self, get_platform())


def aclnnHardswishBackwardGetWorkspaceSize(gradOutput, self, out):
    """Phase one of aclnnHardswishBackward, as :func:`aclnnHardswishGetWorkspaceSize`."""
    return get_workspace_size("aclnnHardswishBackwardGetWorkspaceSize", _backward, gradOutput, self, out,
                              get_platform())


def _make_job(e: aclHardswishExecutor, stream=None):
    saturation = stream is not None and stream.overflow_mode == "saturation"
    kernel = get_operator(e.op).kernels[e.tiling.architecture]

    def job():
        out_view = tensor_view(e.out)
        # the op_api's Casts to the kernel's dtype and BroadcastTo the output's shape (none for most)
        flat = [np.ascontiguousarray(np.broadcast_to(tensor_view(t).astype(e.kernel_dtype, copy=False),
                                                     out_view.shape)).reshape(-1) for t in e.inputs.values()]
        result = np.empty(out_view.size, dtype=e.kernel_dtype)
        extra = {"saturation": True} if saturation else {}
        if get_operator(e.op).axpy:
            extra["axpy_rounding"] = e.platform.axpy_rounding
        kernel.run(flat[0] if len(flat) == 2 else None, flat[-1], result, e.tiling, **extra)
        with np.errstate(all="ignore"):
            out_view[...] = result.reshape(out_view.shape).astype(ACL_DTYPES[e.out.data_type][1])   # Cast / ViewCopy

    return job


def launch_op(where: str, op: str, workspace, workspaceSize, executor, stream) -> int:
    ours = isinstance(executor, aclHardswishExecutor) and executor.op == op
    tensors = {**executor.inputs, "out": executor.out} if ours else {}
    return queue_launch(where, executor, lambda e: isinstance(e, aclHardswishExecutor) and e.op == op, tensors,
                        _make_job, workspace, workspaceSize, stream, saturation=get_operator(op).saturation)


def aclnnHardswish(workspace, workspaceSize, executor, stream) -> int:
    """Phase two: queue the launch on ``stream``; results are defined after ``aclrtSynchronizeStream``."""
    return launch_op("aclnnHardswish", "hardswish", workspace, workspaceSize, executor, stream)


def aclnnInplaceHardswish(workspace, workspaceSize, executor, stream) -> int:
    """Phase two of aclnnInplaceHardswish, as :func:`aclnnHardswish`."""
    return launch_op("aclnnInplaceHardswish", "hardswish", workspace, workspaceSize, executor, stream)


def aclnnHardswishBackward(workspace, workspaceSize, executor, stream) -> int:
    """Phase two of aclnnHardswishBackward, as :func:`aclnnHardswish`."""
    return launch_op("aclnnHardswishBackward", "hardswish_grad", workspace, workspaceSize, executor, stream)
