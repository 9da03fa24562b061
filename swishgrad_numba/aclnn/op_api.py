"""The operator: ``aclnnSwishBackwardGetWorkspaceSize`` and ``aclnnSwishBackward`` (model sections 5 and 6).

CANN keeps this in the operator's ``op_api`` (``aclnn_swish_backward.cpp``),
one source for the Atlas A2 and the Ascend 950. Phase one checks the
arguments in the op_api's order, then the emulator's own rules, and prepares
an :class:`aclOpExecutor` holding the host tiling of the platform's kernel;
phase two queues the launch on a stream. Where the two kernels differ:

- the 950's op definition lists ``ACL_FORMAT_ND`` only, so on a 950 a
  tensor stored as NC1HWC0 or FRACTAL_NZ is refused (161002), while
  NCHW and NHWC, stored like ND, are accepted;
- the tiling, the workspace size (the tiling's) and the kernel launched
  are the platform's (:func:`~swishgrad_numba.tiling.compute_tiling`; the
  record's layout picks the kernel in :func:`~swishgrad_numba.run_tiling`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..faces.swish_grad import run_tiling
from ..dtypes import to_float32
from ..arguments import bfloat16_refusal
from ..ops import get_operator
from ..ops.swish_grad import NAME as SWISH_GRAD
from ..platform import ARCH_950, Platform
from ..tiling import Tiling, compute_tiling
from .enums import (
    ACL_BF16,
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_PARAM_NULLPTR,
    ACLNN_SUCCESS,
    MAX_DIM,
    COMPLEX_DTYPES,
    KERNEL_DTYPES,
    PLAIN_FORMATS,
    dtype_name,
    format_name,
)
from .state import get_platform
from .twophase import get_workspace_size, queue_launch, tensor_view as _view
from .twophase import live_optional_scalar, live_tensor as _live_tensor
from .tensor import aclTensor, check_addressable, check_tensor_geometry

__all__ = ["aclOpExecutor", "aclnnSwishBackwardGetWorkspaceSize", "aclnnSwishBackward"]


@dataclass(eq=False)
class aclOpExecutor:
    """What phase one prepared: the tensors, beta, the storage tiling and the workspace size.

    ``tiling`` is ``None`` for an empty launch (nothing runs). An executor
    runs once.
    """

    grad_output: aclTensor
    self_: aclTensor
    grad_input: aclTensor
    beta: np.float32
    platform: Platform
    workspace_size: int
    tiling: Tiling | None
    used: bool = False


def _check_copy_size(grad_output: aclTensor, self_: aclTensor, grad_input: aclTensor):
    """None if the buffers a plain-format launch allocates stay within the caller's largest storage, else a message.

    The launch makes non-contiguous inputs contiguous and computes into a
    fresh buffer, so it allocates up to three buffers of the view's size. A
    view may have more elements than its storage (stride 0 broadcasts), so
    without this bound a view over a few bytes could make the emulator
    allocate any amount. The rule: the view has at most as many elements as
    the largest of the three storages (all three share one dtype).
    """
    largest = max(t.storage.size for t in (grad_output, self_, grad_input))
    if grad_input.numel > largest:
        return (f"gradInput's view {grad_input.view_shape} has {grad_input.numel} elements, more than the largest "
                f"storage of gradOutput, self and gradInput ({largest} elements); the emulator allocates up to three "
                f"view-sized buffers and bounds them by the caller's largest storage")
    return None


def _check_kernel_format(grad_output: aclTensor, platform: Platform):
    """None if the platform's kernel takes the tensors' storage format, else a message.

    Called once the three tensors are known to share one format. The Ascend
    950's op definition (``swish_grad_def.cpp``) lists ``ACL_FORMAT_ND``
    only; NCHW and NHWC store their elements as ND does, so they pass. The
    A2's also lists NC1HWC0 and FRACTAL_NZ.
    """
    if platform.architecture != ARCH_950 or grad_output.format in PLAIN_FORMATS:
        return None
    return (f"gradOutput, self and gradInput are in {format_name(grad_output.format)}; the Ascend 950 kernel "
            f"(platform soc_version {platform.soc_version!r}) takes ACL_FORMAT_ND storage only (or NCHW / NHWC, "
            f"stored as ND)")


def _phase_one(grad_output, self_, beta, grad_input, platform: Platform):
    """Return (status, message or executor) following model section 5's order."""
    # 1. Null (and, emulator only, dangling or wrong-type) pointers.
    for tensor, name in ((grad_output, "gradOutput"), (self_, "self"), (grad_input, "gradInput")):
        bad = _live_tensor(tensor, name)
        if bad:
            return bad
    bad = live_optional_scalar(beta, "betaOptional")
    if bad:
        return bad

    # 2. Data types.
    supported = ", ".join(dtype_name(c) for c in KERNEL_DTYPES)
    for tensor, name in ((grad_output, "gradOutput"), (self_, "self")):
        if tensor.data_type not in KERNEL_DTYPES:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} is {dtype_name(tensor.data_type)}; it must be one "
                                             f"of {supported}")
    if beta is not None and beta.data_type in COMPLEX_DTYPES:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of betaOptional is {dtype_name(beta.data_type)}, which cannot "
                                         f"be cast to ACL_FLOAT")
    for tensor, name in ((self_, "self"), (grad_input, "gradInput")):
        if tensor.data_type != grad_output.data_type:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} ({dtype_name(tensor.data_type)}) must equal "
                                             f"dtype of gradOutput ({dtype_name(grad_output.data_type)})")
    if grad_output.data_type == ACL_BF16 and bfloat16_refusal(platform):
        return ACLNN_ERR_PARAM_INVALID, f"dtype ACL_BF16: {bfloat16_refusal(platform)}"

    # 3. Ranks and shapes.
    for tensor, name in ((grad_output, "gradOutput"), (self_, "self"), (grad_input, "gradInput")):
        if len(tensor.view_shape) > MAX_DIM:
            return ACLNN_ERR_PARAM_INVALID, (f"{name} has {len(tensor.view_shape)} dims; at most {MAX_DIM} "
                                             f"are supported")
    for tensor, name in ((grad_output, "gradOutput"), (self_, "self")):
        if tensor.view_shape != grad_input.view_shape:
            return ACLNN_ERR_PARAM_INVALID, (f"shape of {name} {tensor.view_shape} must equal shape of gradInput "
                                             f"{grad_input.view_shape}")

    # 4. Emulator checks: one storage format, views NumPy can address and inside their storage, launch buffers
    #    bounded by the caller's storage, writable output.
    private = [t.format for t in (grad_output, self_, grad_input) if t.format not in PLAIN_FORMATS]
    if private and (len(private) != 3 or len(set(private)) != 1):
        fmts = ", ".join(format_name(t.format) for t in (grad_output, self_, grad_input))
        return ACLNN_ERR_PARAM_INVALID, (f"gradOutput, self and gradInput must share one storage format, got "
                                         f"{fmts}")
    for tensor, name in ((grad_output, "gradOutput"), (self_, "self"), (grad_input, "gradInput")):
        message = check_addressable(tensor, name) or check_tensor_geometry(tensor, name)
        if message:
            return ACLNN_ERR_PARAM_INVALID, message
    if private and not (grad_output.storage_shape == self_.storage_shape == grad_input.storage_shape):
        return ACLNN_ERR_PARAM_INVALID, (
            f"storage shapes must be equal, got gradOutput {grad_output.storage_shape}, self "
            f"{self_.storage_shape}, gradInput {grad_input.storage_shape}")
    if not private:
        message = _check_copy_size(grad_output, self_, grad_input)
        if message:
            return ACLNN_ERR_PARAM_INVALID, message
    if not grad_input.storage.flags.writeable:
        return ACLNN_ERR_PARAM_INVALID, "gradInput's data is read-only"

    beta32 = np.float32(1.0) if beta is None else to_float32(beta.value, argname="betaOptional")
    if grad_output.numel == 0 or self_.numel == 0:
        executor = aclOpExecutor(grad_output, self_, grad_input, beta32, platform, 0, None)
        return ACLNN_SUCCESS, executor
    # 5. A launch: the platform's kernel must take the storage format (an empty launch chooses no kernel).
    message = _check_kernel_format(grad_output, platform)
    if message:
        return ACLNN_ERR_PARAM_INVALID, message
    # The tiling counts storage elements: the view's for plain formats (made
    # contiguous), the padded storage's for NC1HWC0 / FRACTAL_NZ.
    numel = grad_output.numel if not private else grad_output.storage.size
    try:
        tiling = compute_tiling(numel, grad_output.dtype, beta32, platform=platform)
    except ValueError as exc:
        # The user's platform (set_platform) or the tensor's size cannot be tiled: a parameter error, whose
        # message names the platform field (platform.ub_size, platform.block_size, ...) or numel.
        return ACLNN_ERR_PARAM_INVALID, (f"the host tiling of {numel} {dtype_name(grad_output.data_type)} "
                                         f"elements for the platform set by set_platform (soc_version "
                                         f"{platform.soc_version!r}) failed: {exc}")
    executor = aclOpExecutor(grad_output, self_, grad_input, beta32, platform, tiling.workspace_size, tiling)
    return ACLNN_SUCCESS, executor


def aclnnSwishBackwardGetWorkspaceSize(gradOutput, self, betaOptional, gradInput):
    """Phase one: check the arguments and prepare a launch.

    Applies model section 5's checks in its order (null pointers -> 161001;
    dtypes, then ranks and shapes -> 161002), then the emulator's own
    (storage formats agree; views NumPy can address, inside their storage;
    a plain-format view no larger than the largest of the three storages;
    writable output -> 161002). Empty tensors succeed with workspace 0 and
    launch nothing. Otherwise the platform's kernel must take the storage
    format (the Ascend 950: ND, NCHW or NHWC -> else 161002), and the
    workspace size is its tiling's.

    Returns
    -------
    (int, int, aclOpExecutor or None)
        ``(status, workspace_size, executor)``; on failure ``(status, 0,
        None)`` and :func:`aclGetRecentErrMsg` names the argument and rule.
    """
    return get_workspace_size("aclnnSwishBackwardGetWorkspaceSize", _phase_one, gradOutput, self, betaOptional,
                              gradInput, get_platform())


def _make_job(executor: aclOpExecutor, stream):
    overflow_mode = stream.overflow_mode   # the stream took the device's mode when it was created
    go, x, gi, tiling = executor.grad_output, executor.self_, executor.grad_input, executor.tiling
    private = go.format not in PLAIN_FORMATS

    def job():
        if private:
            flat_g, flat_x, out_view = go.storage, x.storage, gi.storage
        else:
            # Non-contiguous inputs are made contiguous (a copy that reads
            # only in-bounds elements).
            flat_g = np.ascontiguousarray(_view(go)).reshape(-1)
            flat_x = np.ascontiguousarray(_view(x)).reshape(-1)
            out_view = _view(gi)
        # A contiguous gradInput apart from the inputs takes the result
        # directly; otherwise (a strided view, or memory shared with an input)
        # the result is computed aside and copied into the view.
        if out_view.flags.c_contiguous and not np.may_share_memory(out_view, flat_g) \
                and not np.may_share_memory(out_view, flat_x):
            run_tiling(flat_g, flat_x, out_view.reshape(-1), tiling, overflow_mode=overflow_mode)
            return
        result = np.empty(flat_x.size, dtype=flat_x.dtype)
        run_tiling(flat_g, flat_x, result, tiling, overflow_mode=overflow_mode)
        out_view[...] = result.reshape(out_view.shape)

    return job


def aclnnSwishBackward(workspace, workspaceSize, executor, stream) -> int:
    """Phase two: queue the launch prepared by phase one on ``stream``.

    Parameters
    ----------
    workspace : numpy.ndarray or None
        At least ``workspaceSize`` bytes (``None`` when it is 0).
    workspaceSize : int
        Must be at least what phase one reported.
    executor : aclOpExecutor
        From :func:`aclnnSwishBackwardGetWorkspaceSize`; runs once.
    stream : aclrtStream or None
        ``None`` is the default stream.

    Returns
    -------
    int
        ``ACLNN_SUCCESS`` once queued; results are defined after
        :func:`aclrtSynchronizeStream`. A failed check leaves the executor
        unused, so the call can be repeated with corrected arguments.
    """
    tensors = {} if not isinstance(executor, aclOpExecutor) else \
        {"gradOutput": executor.grad_output, "self": executor.self_, "gradInput": executor.grad_input}
    return queue_launch("aclnnSwishBackward", executor, lambda e: isinstance(e, aclOpExecutor), tensors, _make_job,
                        workspace, workspaceSize, stream, saturation=get_operator(SWISH_GRAD).saturation)
