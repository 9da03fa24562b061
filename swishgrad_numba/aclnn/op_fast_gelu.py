"""``aclnnFastGelu`` and ``aclnnFastGeluBackward`` (two-phase), as their op_api writes them.

docs/model.md, "FastGelu and FastGeluBackward (Ascend 950 only)", gives the
sources. Phase one checks in the op_api's order
(``activation/fast_gelu/op_api/aclnn_fast_gelu.cpp``,
``activation/fast_gelu_grad/op_api/aclnn_fast_gelu_backward.cpp``): null
pointers -> 161001; dtypes differ, a dtype outside the list (float32,
float16, bfloat16 on a regbase chip such as the 950 or on NpuArch DAV_2201,
the A2 and A3; empty elsewhere), shapes differ, more than 8 dimensions,
storage formats differ -> 161002; then the emulator's own geometry checks
(as :mod:`.op_swish`). Empty tensors succeed with workspace 0. On the A2 and
the A3 the op_api lets the call through to ``l0op::FastGelu``, whose kernel
ops-nn does not publish (its op definitions register the 950 only): the
emulator answers as a launcher that returns nullptr, ``ACLNN_ERR_INNER_NULLPTR``
(561103), naming the SoC and the reason. Phase two runs phase one's record
through the registered kernel.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..dtypes import DTYPES
from ..ops import OpTiling, get_operator
from ..ops import fast_gelu as fg
from ..platform import ARCH_950, Platform
from .enums import (ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_SUCCESS, MAX_DIM,
                    dtype_name, format_name)
from .state import get_platform
from .tensor import check_emulator_storage, aclTensor
from .twophase import get_workspace_size, live_tensor, queue_launch, tensor_view

__all__ = ["aclnnFastGeluGetWorkspaceSize", "aclnnFastGelu", "aclnnFastGeluBackwardGetWorkspaceSize",
           "aclnnFastGeluBackward"]

# NpuArch DAV_2201: the Atlas A2 and A3 families, where GetDtypeSupportList gives the three dtypes.
_DAV_2201 = ("ascend910b", "ascend910_93")


@dataclass(eq=False)
class aclFastGeluExecutor:
    """What phase one prepared (``tiling`` None for an empty launch); runs once."""

    op: str
    inputs: tuple          # (("gradOutput", t), ("self", t)) or (("self", t),)
    out: aclTensor
    workspace_size: int
    tiling: OpTiling | None
    used: bool = False


def _phase_one(op: str, named: tuple, out_name: str, out, platform: Platform):
    """(status, message or executor), in the op_api's order; ``named``: the inputs ``((name, tensor), ...)``."""
    everything = named + ((out_name, out),)
    for name, tensor in everything:
        bad = live_tensor(tensor, name)
        if bad:
            return bad
    # CheckDtypeValid: the inputs' and the output's dtypes the same, then in the SoC's list.
    first_name, first = everything[0]
    for name, tensor in everything[1:]:
        if tensor.data_type != first.data_type:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} ({dtype_name(tensor.data_type)}) must equal dtype "
                                             f"of {first_name} ({dtype_name(first.data_type)})")
    allowed = tuple(info.acl_data_type for info in DTYPES.values()) \
        if platform.architecture == ARCH_950 or platform.soc_family in _DAV_2201 else ()
    if out.data_type not in allowed:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of {out_name} is {dtype_name(out.data_type)}; on SoC "
                                         f"{platform.soc_family} it must be one of "
                                         f"{', '.join(dtype_name(c) for c in allowed) or 'none (empty list)'}")
    for name, tensor in everything[1:]:
        if tensor.view_shape != first.view_shape:
            return ACLNN_ERR_PARAM_INVALID, (f"shape of {name} {tensor.view_shape} must equal shape of "
                                             f"{first_name} {first.view_shape}")
    self_ = dict(named)["self"]
    if len(self_.view_shape) > MAX_DIM:
        return ACLNN_ERR_PARAM_INVALID, f"self has {len(self_.view_shape)} dims; at most {MAX_DIM} are supported"
    for name, tensor in everything:
        if tensor.format != self_.format:
            return ACLNN_ERR_PARAM_INVALID, (f"format of {name} ({format_name(tensor.format)}) must equal format "
                                             f"of self ({format_name(self_.format)})")
    # The emulator's own checks.
    bad = check_emulator_storage(everything, out, out_name)
    if bad:
        return bad
    if self_.numel == 0:
        return ACLNN_SUCCESS, aclFastGeluExecutor(op, named, out, 0, None)
    operator = get_operator(op)
    refusal = operator.kernel_refusal(platform)
    if refusal:
        return ACLNN_ERR_INNER_NULLPTR, f"the {operator.kernel_op} launcher failed: {refusal}"
    info = next(i for i in DTYPES.values() if i.acl_data_type == out.data_type)
    try:
        tiling = operator.host_tiling(self_.numel, info, None, platform)
    except ValueError as exc:
        return ACLNN_ERR_INNER_NULLPTR, f"the {operator.kernel_op} launcher failed: its host tiling refused: {exc}"
    return ACLNN_SUCCESS, aclFastGeluExecutor(op, named, out, tiling.workspace_size, tiling)


def aclnnFastGeluGetWorkspaceSize(self, out):
    """Phase one of aclnnFastGelu: ``(status, workspace_size, executor)``; on failure ``(status, 0, None)``
    and :func:`aclGetRecentErrMsg` names the argument and rule."""
    return get_workspace_size("aclnnFastGeluGetWorkspaceSize", _phase_one, fg.FORWARD, (("self", self),), "out",
                              out, get_platform())


def aclnnFastGeluBackwardGetWorkspaceSize(gradOutput, self, gradInput):
    """Phase one of aclnnFastGeluBackward, as :func:`aclnnFastGeluGetWorkspaceSize`."""
    return get_workspace_size("aclnnFastGeluBackwardGetWorkspaceSize", _phase_one, fg.BACKWARD,
                              (("gradOutput", gradOutput), ("self", self)), "gradInput", gradInput, get_platform())


def _make_job(executor: aclFastGeluExecutor, stream=None):
    tiling = executor.tiling
    kernel = get_operator(executor.op).kernels[tiling.architecture]

    def job():
        flat = [np.ascontiguousarray(tensor_view(t)).reshape(-1) for _, t in executor.inputs]
        out_view = tensor_view(executor.out)
        result = np.empty(out_view.shape, dtype=executor.out.dtype)
        kernel.run(flat[0] if len(flat) == 2 else None, flat[-1], result.reshape(-1), tiling)
        out_view[...] = result

    return job


def _launch(where: str, op: str, workspace, workspaceSize, executor, stream) -> int:
    ours = isinstance(executor, aclFastGeluExecutor) and executor.op == op
    tensors = dict(executor.inputs + (("out", executor.out),)) if ours else {}
    return queue_launch(where, executor, lambda e: isinstance(e, aclFastGeluExecutor) and e.op == op, tensors,
                        _make_job, workspace, workspaceSize, stream, saturation=get_operator(op).saturation)


def aclnnFastGelu(workspace, workspaceSize, executor, stream) -> int:
    """Phase two: queue the launch on ``stream``; results are defined after ``aclrtSynchronizeStream``."""
    return _launch("aclnnFastGelu", fg.FORWARD, workspace, workspaceSize, executor, stream)


def aclnnFastGeluBackward(workspace, workspaceSize, executor, stream) -> int:
    """Phase two of aclnnFastGeluBackward, as :func:`aclnnFastGelu`."""
    return _launch("aclnnFastGeluBackward", fg.BACKWARD, workspace, workspaceSize, executor, stream)
