"""The forward operators: ``aclnnSwish`` and ``aclnnSilu`` (two-phase), as their op_api writes them.

docs/model.md, "Swish and Silu (forward)", section "aclnn (op_api)", gives
the sources. Phase one checks in the op_api's order (null pointers ->
161001; dtypes against the SoC's list, ``out`` of ``self``'s dtype, bfloat16
only on ASCEND910B..ASCEND910E, a ``betaOptional`` that cannot become a
float, more than 8 dimensions (Swish only), unequal shapes -> 161002), then
the emulator's own (views NumPy can address, inside their storage; a view
no larger than the larger storage; a writable ``out``; ND, NCHW or NHWC
storage -> 161002). Empty tensors succeed with workspace 0. A host tiling
that refuses (the A2 Swish host takes bfloat16 on ascend910b and ascend310b
only) fails the launcher, which the op_api reports as
``ACLNN_ERR_INNER_NULLPTR`` (561103). The platform's SoC picks the op_api:
the experimental one (Atlas A2 kernel) or, on an Ascend 950, the mainline
one (arch35 kernel); they differ in the Swish dtype list only. Phase one
stores the host tiling (an :class:`~swishgrad_numba.ops.OpTiling`) in the
executor; phase two runs that record through the registered kernel's
``run``, so a launch is exactly what phase one decided.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..dtypes import DTYPES, to_float32
from ..ops import OpTiling, get_operator
from ..arguments import block_size_refusal, bfloat16_refusal
from ..platform import ARCH_950, Platform
from .enums import (
    ACL_BF16,
    ACLNN_ERR_INNER_NULLPTR,
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_PARAM_NULLPTR,
    ACLNN_SUCCESS,
    MAX_DIM,
    COMPLEX_DTYPES,
    PLAIN_FORMATS,
    dtype_name,
    format_name,
)
from .state import get_platform
from .twophase import get_workspace_size, queue_launch, tensor_view as _view
from .twophase import live_optional_scalar, live_tensor as _live_tensor
from .tensor import check_addressable, check_tensor_geometry, aclTensor

__all__ = ["aclnnSwishGetWorkspaceSize", "aclnnSwish", "aclnnSiluGetWorkspaceSize", "aclnnSilu"]

# NpuArch DAV_2201: the Atlas A2 and A3 families (the dtype lists' "l1" chips).
_DAV_2201 = ("ascend910b", "ascend910_93")


@dataclass(eq=False)
class aclSwishExecutor:
    """What phase one prepared for aclnnSwish / aclnnSilu; runs once.

    ``tiling`` is the host tiling the launch runs (``None`` for an empty
    launch, which queues nothing).
    """

    op: str
    self_: aclTensor
    out: aclTensor
    scale: np.float32
    platform: Platform
    workspace_size: int
    tiling: OpTiling | None
    used: bool = False


def _dtype_list(platform: Platform) -> tuple:
    """The op_api's dtype list for the platform's SoC. Experimental Swish uses
    ``GetDtypeSupportListV1`` (bfloat16 on NpuArch DAV_2201: the A2 and A3),
    mainline Swish and both Silus ``GetDtypeSupportListV2`` (DAV_2201 or a
    regbase chip such as the 950); the experimental op_api never runs on a
    950, so on every platform the list has bfloat16 on the A2, the A3 and
    the 950, and is float32 and float16 elsewhere."""
    with_bf16 = platform.soc_family in _DAV_2201 or platform.architecture == ARCH_950
    return tuple(info.acl_data_type for info in DTYPES.values() if with_bf16 or info.acl_data_type != ACL_BF16)


def _phase_one(op: str, self_, beta, out, platform: Platform):
    """(status, message or executor), in the op_api's order."""
    for tensor, name in ((self_, "self"), (out, "out")):
        bad = _live_tensor(tensor, name)
        if bad:
            return bad
    bad = live_optional_scalar(beta, "betaOptional")
    if bad:
        return bad
    # CheckDtypeValidActivation: self, out in the list; out of self's dtype; the bfloat16 SoC rule.
    allowed = _dtype_list(platform)
    names = ", ".join(dtype_name(c) for c in allowed)
    for tensor, name in ((self_, "self"), (out, "out")):
        if tensor.data_type not in allowed:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} is {dtype_name(tensor.data_type)}; on SoC "
                                             f"{platform.soc_family} it must be one of {names}")
    if out.data_type != self_.data_type:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of out ({dtype_name(out.data_type)}) must equal dtype of self "
                                         f"({dtype_name(self_.data_type)})")
    if self_.data_type == ACL_BF16 and bfloat16_refusal(platform):
        return ACLNN_ERR_PARAM_INVALID, f"dtype ACL_BF16: {bfloat16_refusal(platform)}"
    if beta is not None and beta.data_type in COMPLEX_DTYPES:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of betaOptional is {dtype_name(beta.data_type)}, which cannot "
                                         f"be cast to ACL_FLOAT")
    if op == "swish":
        for tensor, name in ((self_, "self"), (out, "out")):
            if len(tensor.view_shape) > MAX_DIM:
                return ACLNN_ERR_PARAM_INVALID, (f"{name} has {len(tensor.view_shape)} dims; at most {MAX_DIM} "
                                                 f"are supported")
    if self_.view_shape != out.view_shape:
        return ACLNN_ERR_PARAM_INVALID, f"shape of self {self_.view_shape} must equal shape of out {out.view_shape}"
    # The emulator's own checks.
    for tensor, name in ((self_, "self"), (out, "out")):
        if tensor.format not in PLAIN_FORMATS:
            return ACLNN_ERR_PARAM_INVALID, (f"{name} is in {format_name(tensor.format)}; the emulated Swish "
                                             f"takes ND, NCHW or NHWC storage")
        message = check_addressable(tensor, name) or check_tensor_geometry(tensor, name)
        if message:
            return ACLNN_ERR_PARAM_INVALID, message
    largest = max(self_.storage.size, out.storage.size)
    if out.numel > largest:
        return ACLNN_ERR_PARAM_INVALID, (f"out's view {out.view_shape} has {out.numel} elements, more than the "
                                         f"larger storage of self and out ({largest} elements)")
    if not out.storage.flags.writeable:
        return ACLNN_ERR_PARAM_INVALID, "out's data is read-only"
    scale = np.float32(1.0) if beta is None else to_float32(beta.value, argname="betaOptional")
    if self_.numel == 0:
        return ACLNN_SUCCESS, aclSwishExecutor(op, self_, out, scale, platform, 0, None)
    # The host tilings' shared platform rule: a parameter error, naming the platform field.
    refusal = None if platform.architecture == ARCH_950 else block_size_refusal(platform.block_size, _info(self_))
    if refusal:
        return ACLNN_ERR_PARAM_INVALID, f"the host tiling fails on the platform set by set_platform: {refusal}"
    try:
        tiling = get_operator(op).host_tiling(self_.numel, _info(self_), scale if op == "swish" else None, platform)
    except ValueError as exc:
        return ACLNN_ERR_INNER_NULLPTR, f"the Swish launcher failed: its host tiling refused: {exc}"
    return ACLNN_SUCCESS, aclSwishExecutor(op, self_, out, scale, platform, tiling.workspace_size, tiling)


def _info(tensor: aclTensor):
    return next(info for info in DTYPES.values() if info.acl_data_type == tensor.data_type)


def _get_workspace_size(op: str, where: str, self_, beta, out):
    return get_workspace_size(where, _phase_one, op, self_, beta, out, get_platform())


def aclnnSwishGetWorkspaceSize(self, betaOptional, out):
    """Phase one of aclnnSwish: ``(status, workspace_size, executor)``; on failure
    ``(status, 0, None)`` and :func:`aclGetRecentErrMsg` names the argument and rule."""
    return _get_workspace_size("swish", "aclnnSwishGetWorkspaceSize", self, betaOptional, out)


def aclnnSiluGetWorkspaceSize(self, out):
    """Phase one of aclnnSilu (the Swish kernel with scale 1.0): as :func:`aclnnSwishGetWorkspaceSize`."""
    return _get_workspace_size("silu", "aclnnSiluGetWorkspaceSize", self, None, out)


def _make_job(executor: aclSwishExecutor, stream=None):
    # The launch runs the record phase one stored (executor.tiling), on the
    # kernel that record is for; nothing is re-derived here.
    tiling = executor.tiling
    kernel = get_operator(executor.op).kernels[tiling.architecture]
    overflow_mode = stream.overflow_mode   # the stream took the device's mode when it was created

    def job():
        # x is made contiguous (in-bounds reads only); the flat result is then
        # copied into the out view.
        x = np.ascontiguousarray(_view(executor.self_)).reshape(-1)
        out_view = _view(executor.out)
        result = np.empty(out_view.shape, dtype=executor.out.dtype)
        kernel.run(None, x, result.reshape(-1), tiling, saturation=overflow_mode == "saturation")
        out_view[...] = result

    return job


def _launch(where: str, expected_op: str, workspace, workspaceSize, executor, stream) -> int:
    tensors = {} if not isinstance(executor, aclSwishExecutor) else {"self": executor.self_, "out": executor.out}
    return queue_launch(where, executor, lambda e: isinstance(e, aclSwishExecutor) and e.op == expected_op, tensors,
                        _make_job, workspace, workspaceSize, stream,
                        saturation=get_operator(expected_op).saturation)


def aclnnSwish(workspace, workspaceSize, executor, stream) -> int:
    """Phase two: queue the launch on ``stream``; results are defined after ``aclrtSynchronizeStream``."""
    return _launch("aclnnSwish", "swish", workspace, workspaceSize, executor, stream)


def aclnnSilu(workspace, workspaceSize, executor, stream) -> int:
    """Phase two of aclnnSilu, as :func:`aclnnSwish`."""
    return _launch("aclnnSilu", "silu", workspace, workspaceSize, executor, stream)
