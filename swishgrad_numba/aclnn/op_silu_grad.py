"""The operator SiluGrad: ``aclnnSiluBackwardGetWorkspaceSize`` and ``aclnnSiluBackward`` (model "SiluBackward").

CANN's ``op_api/aclnn_silu_backward.cpp`` (mainline and experimental are the
same text) checks, in order: null pointers (161001); dtypes (161002):
gradOutput, self and gradInput each float16, float32 or bfloat16; on a
regbase arch (the Ascend 950) with differing input dtypes gradInput must be
float32, otherwise all three agree; bfloat16 inputs only on the DAV_2201
arch (Atlas A2/A3) or a regbase one; shapes (161002): gradOutput and self at
most 8 dims; without regbase both shapes equal gradInput's, with it their
broadcast must. Then the emulator's own rules (ND-type storage, as both op
definitions list; addressable views; bounded buffers; writable output).
Empty inputs succeed with workspace 0. The executor holds the host tiling
of the platform's kernel (:mod:`swishgrad_numba.ops.silu_grad`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..arguments import block_size_refusal
from ..dtypes import dtype_info
from ..ops import get_operator
from ..ops import silu_grad as op
from ..platform import ARCH_950, Platform
from .enums import (
    ACL_BF16,
    ACL_FLOAT,
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_SUCCESS,
    MAX_DIM,
    KERNEL_DTYPES,
    PLAIN_FORMATS,
    dtype_name,
    format_name,
)
from .twophase import get_workspace_size, queue_launch, tensor_view as _view
from .twophase import live_tensor as _live_tensor
from .state import get_platform
from .tensor import aclTensor, check_emulator_storage

__all__ = ["aclnnSiluBackwardGetWorkspaceSize", "aclnnSiluBackward"]

# The SoC families whose NpuArch is DAV_2201 (Atlas A2 and A3), which the
# op_api's bfloat16 gate names; the 950 passes it as a regbase arch.
_DAV_2201_FAMILIES = ("ascend910b", "ascend910_93")


def _regbase(platform: Platform) -> bool:
    """``Ops::NN::AclnnUtil::IsRegbase()``: the Ascend 950's arch35."""
    return platform.architecture == ARCH_950


@dataclass(eq=False)
class aclSiluBackwardExecutor:
    """What phase one prepared: the tensors, the platform, the host tiling and the workspace size.

    ``tiling`` is ``None`` for an empty launch. An executor runs once.
    """

    grad_output: aclTensor
    self_: aclTensor
    grad_input: aclTensor
    platform: Platform
    workspace_size: int
    tiling: object | None
    used: bool = False


def _phase_one(grad_output, self_, grad_input, platform: Platform):
    """Return (status, message or executor) in the op_api's order."""
    # 1. Null (and, emulator only, dangling or wrong-type) pointers.
    for tensor, name in ((grad_output, "gradOutput"), (self_, "self"), (grad_input, "gradInput")):
        bad = _live_tensor(tensor, name)
        if bad:
            return bad

    # 2. Data types.
    regbase = _regbase(platform)
    supported = ", ".join(dtype_name(c) for c in KERNEL_DTYPES)
    for tensor, name in ((grad_output, "gradOutput"), (self_, "self"), (grad_input, "gradInput")):
        if tensor.data_type not in KERNEL_DTYPES:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} is {dtype_name(tensor.data_type)}; it must be one "
                                             f"of {supported}")
    if regbase and grad_output.data_type != self_.data_type:
        if grad_input.data_type != ACL_FLOAT:
            return ACLNN_ERR_PARAM_INVALID, (f"gradOutput ({dtype_name(grad_output.data_type)}) and self "
                                             f"({dtype_name(self_.data_type)}) differ, so gradInput must be "
                                             f"ACL_FLOAT, got {dtype_name(grad_input.data_type)}")
    else:
        for tensor, name in ((grad_output, "gradOutput"), (self_, "self")):
            if tensor.data_type != grad_input.data_type:
                return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} ({dtype_name(tensor.data_type)}) must equal "
                                                 f"dtype of gradInput ({dtype_name(grad_input.data_type)})")
    if ACL_BF16 in (self_.data_type, grad_output.data_type) and not (
            regbase or platform.soc_family in _DAV_2201_FAMILIES):
        return ACLNN_ERR_PARAM_INVALID, (f"dtype ACL_BF16 of self or gradOutput is only supported on the DAV_2201 "
                                         f"arch ({', '.join(_DAV_2201_FAMILIES)}) or a regbase one (ascend950); the "
                                         f"platform's soc_version {platform.soc_version!r} is family "
                                         f"{platform.soc_family}")

    # 3. Ranks and shapes.
    for tensor, name in ((grad_output, "gradOutput"), (self_, "self")):
        if len(tensor.view_shape) > MAX_DIM:
            return ACLNN_ERR_PARAM_INVALID, (f"{name} has {len(tensor.view_shape)} dims; at most {MAX_DIM} "
                                             f"are supported")
    if not regbase:
        for tensor, name in ((grad_output, "gradOutput"), (self_, "self")):
            if tensor.view_shape != grad_input.view_shape:
                return ACLNN_ERR_PARAM_INVALID, (f"shape of {name} {tensor.view_shape} must equal shape of "
                                                 f"gradInput {grad_input.view_shape}")
    else:
        try:
            shape = tuple(np.broadcast_shapes(tuple(grad_output.view_shape), tuple(self_.view_shape)))
        except ValueError:
            return ACLNN_ERR_PARAM_INVALID, (f"shapes of gradOutput {grad_output.view_shape} and self "
                                             f"{self_.view_shape} cannot broadcast")
        if shape != tuple(grad_input.view_shape):
            return ACLNN_ERR_PARAM_INVALID, (f"broadcast shape of gradOutput and self {shape} must equal shape of "
                                             f"gradInput {tuple(grad_input.view_shape)}")

    # 4. Emulator checks: ND-type storage (the op definitions list FORMAT_ND only), addressable views inside
    #    their storage, launch buffers bounded by the caller's storage, writable output.
    bad = check_emulator_storage((("gradOutput", grad_output), ("self", self_), ("gradInput", grad_input)),
                                  grad_input, "gradInput", "SiluGrad's kernels")
    if bad:
        return bad

    if grad_output.numel == 0 or self_.numel == 0:
        return ACLNN_SUCCESS, aclSiluBackwardExecutor(grad_output, self_, grad_input, platform, 0, None)
    # The A2 host tilings' shared platform rule: a parameter error, naming the platform field.
    refusal = None if regbase else block_size_refusal(platform.block_size, dtype_info(grad_output.dtype))
    if refusal:
        return ACLNN_ERR_PARAM_INVALID, f"the host tiling fails on the platform set by set_platform: {refusal}"
    try:
        tiling = op.host_tiling(tuple(grad_output.view_shape), tuple(self_.view_shape), grad_output.dtype,
                                self_.dtype, platform)
    except ValueError as exc:
        return ACLNN_ERR_PARAM_INVALID, f"the host tiling fails: {exc}"
    if tiling.fields.get("tileDataNum", 1) < 1:
        return ACLNN_ERR_PARAM_INVALID, "the host tiling's tileDataNum is 0: the platform's UB holds no tile"
    return ACLNN_SUCCESS, aclSiluBackwardExecutor(grad_output, self_, grad_input, platform, tiling.workspace_size,
                                                  tiling)


def aclnnSiluBackwardGetWorkspaceSize(gradOutput, self, gradInput):
    """Phase one: check the arguments in the op_api's order and prepare a launch.

    Returns
    -------
    (int, int, aclSiluBackwardExecutor or None)
        ``(status, workspace_size, executor)``; on failure ``(status, 0,
        None)`` and :func:`aclGetRecentErrMsg` names the argument and rule.
        The workspace is the tiling's: the A2 platform's library workspace,
        the 950 host's 32 bytes.
    """
    return get_workspace_size("aclnnSiluBackwardGetWorkspaceSize", _phase_one, gradOutput, self, gradInput,
                              get_platform())


def _make_job(executor: aclSiluBackwardExecutor, stream=None):
    go, x, gi, tiling = executor.grad_output, executor.self_, executor.grad_input, executor.tiling
    on_950 = _regbase(executor.platform)
    saturation = stream.overflow_mode == "saturation"   # the device's mode when the stream was created

    def job():
        # Non-contiguous inputs are made contiguous (in-bounds reads only);
        # the result is then copied into the gradInput view.
        g = np.ascontiguousarray(_view(go))
        xv = np.ascontiguousarray(_view(x))
        out_view = _view(gi)
        result = np.empty(out_view.shape, dtype=gi.dtype)
        if on_950:
            op.run_arch35(g, xv, result, tiling)
        else:
            op.run_a2(g, xv, result, tiling, saturation=saturation)
        out_view[...] = result

    return job


def aclnnSiluBackward(workspace, workspaceSize, executor, stream) -> int:
    """Phase two: queue the launch prepared by phase one on ``stream`` (see ``aclnnSwishBackward``)."""
    tensors = {} if not isinstance(executor, aclSiluBackwardExecutor) else \
        {"gradOutput": executor.grad_output, "self": executor.self_, "gradInput": executor.grad_input}
    return queue_launch("aclnnSiluBackward", executor, lambda e: isinstance(e, aclSiluBackwardExecutor), tensors,
                        _make_job, workspace, workspaceSize, stream,
                        saturation=get_operator(op.NAME).saturation)
