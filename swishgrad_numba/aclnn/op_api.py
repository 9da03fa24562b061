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

from ..api import run_tiling
from ..dtypes import to_float32
from ..platform import ARCH_950, BF16_SOC_VERSIONS, Platform
from ..tiling import Tiling, compute_tiling
from .device import _resolve_stream
from .enums import (
    ACL_BF16,
    ACLNN_ERR_INNER,
    ACLNN_ERR_INNER_EXECUTOR_REUSED,
    ACLNN_ERR_INNER_TENSOR_DESTROYED,
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_PARAM_NULLPTR,
    ACLNN_ERR_RUNTIME_ERROR,
    ACLNN_SUCCESS,
    MAX_DIM,
    _COMPLEX_DTYPES,
    _KERNEL_DTYPES,
    _PLAIN_FORMATS,
    _dtype_name,
    _format_name,
    _is_int,
)
from .state import _fail, get_platform
from .tensor import aclScalar, aclTensor, _check_addressable, _check_geometry

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


def _live_tensor(tensor, argname: str):
    """None if ``tensor`` is a live aclTensor, else (status, message)."""
    if tensor is None:
        return ACLNN_ERR_PARAM_NULLPTR, f"{argname} is a null pointer (None)"
    if not isinstance(tensor, aclTensor):
        return ACLNN_ERR_PARAM_NULLPTR, f"{argname} must be an aclTensor, got {type(tensor).__name__}"
    if tensor.destroyed:
        return ACLNN_ERR_PARAM_NULLPTR, f"{argname} was destroyed by aclDestroyTensor (dangling pointer)"
    return None


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
    if platform.architecture != ARCH_950 or grad_output.format in _PLAIN_FORMATS:
        return None
    return (f"gradOutput, self and gradInput are in {_format_name(grad_output.format)}; the Ascend 950 kernel "
            f"(platform soc_version {platform.soc_version!r}) takes ACL_FORMAT_ND storage only (or NCHW / NHWC, "
            f"stored as ND)")


def _phase_one(grad_output, self_, beta, grad_input, platform: Platform):
    """Return (status, message or executor) following model section 5's order."""
    # 1. Null (and, emulator only, dangling or wrong-type) pointers.
    for tensor, name in ((grad_output, "gradOutput"), (self_, "self"), (grad_input, "gradInput")):
        bad = _live_tensor(tensor, name)
        if bad:
            return bad
    if beta is not None:
        if not isinstance(beta, aclScalar):
            return ACLNN_ERR_PARAM_NULLPTR, f"betaOptional must be an aclScalar or None, got {type(beta).__name__}"
        if beta.destroyed:
            return ACLNN_ERR_PARAM_NULLPTR, "betaOptional was destroyed by aclDestroyScalar (dangling pointer)"

    # 2. Data types.
    supported = ", ".join(_dtype_name(c) for c in _KERNEL_DTYPES)
    for tensor, name in ((grad_output, "gradOutput"), (self_, "self")):
        if tensor.data_type not in _KERNEL_DTYPES:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} is {_dtype_name(tensor.data_type)}; it must be one "
                                             f"of {supported}")
    if beta is not None and beta.data_type in _COMPLEX_DTYPES:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of betaOptional is {_dtype_name(beta.data_type)}, which cannot "
                                         f"be cast to ACL_FLOAT")
    for tensor, name in ((self_, "self"), (grad_input, "gradInput")):
        if tensor.data_type != grad_output.data_type:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} ({_dtype_name(tensor.data_type)}) must equal "
                                             f"dtype of gradOutput ({_dtype_name(grad_output.data_type)})")
    if grad_output.data_type == ACL_BF16 and not platform.supports_bfloat16:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype ACL_BF16 is only supported on ASCEND910B..ASCEND910E "
                                         f"({', '.join(BF16_SOC_VERSIONS)}); the platform's soc_version "
                                         f"{platform.soc_version!r} is family {platform.soc_family}")

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
    private = [t.format for t in (grad_output, self_, grad_input) if t.format not in _PLAIN_FORMATS]
    if private and (len(private) != 3 or len(set(private)) != 1):
        fmts = ", ".join(_format_name(t.format) for t in (grad_output, self_, grad_input))
        return ACLNN_ERR_PARAM_INVALID, (f"gradOutput, self and gradInput must share one storage format, got "
                                         f"{fmts}")
    for tensor, name in ((grad_output, "gradOutput"), (self_, "self"), (grad_input, "gradInput")):
        message = _check_addressable(tensor, name) or _check_geometry(tensor, name)
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
        return ACLNN_ERR_PARAM_INVALID, (f"the host tiling of {numel} {_dtype_name(grad_output.data_type)} "
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
    platform = get_platform()
    try:
        status, result = _phase_one(gradOutput, self, betaOptional, gradInput, platform)
    except Exception as exc:  # a bug here must still not crash the caller
        return _fail(ACLNN_ERR_INNER, f"aclnnSwishBackwardGetWorkspaceSize: internal error: {exc!r}"), 0, None
    if status != ACLNN_SUCCESS:
        return _fail(status, f"aclnnSwishBackwardGetWorkspaceSize: {result}"), 0, None
    return ACLNN_SUCCESS, result.workspace_size, result


def _view(tensor: aclTensor) -> np.ndarray:
    """The tensor's view over its storage (bounds were checked in phase one)."""
    itemsize = tensor.storage.itemsize
    base = tensor.storage[tensor.offset:]
    return np.lib.stride_tricks.as_strided(
        base, shape=tensor.view_shape, strides=tuple(s * itemsize for s in tensor.moving_strides))


def _make_job(executor: aclOpExecutor, overflow_mode: str = "infnan"):
    go, x, gi, tiling = executor.grad_output, executor.self_, executor.grad_input, executor.tiling
    private = go.format not in _PLAIN_FORMATS

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
            run_tiling(flat_g, flat_x, out_view.reshape(-1), tiling)
            return
        result = np.empty(flat_x.size, dtype=flat_x.dtype)
        run_tiling(flat_g, flat_x, result, tiling, overflow_mode=overflow_mode)   # the stream's overflow mode
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
    try:
        return _phase_two(workspace, workspaceSize, executor, stream)
    except Exception as exc:  # a bug here must still not crash the caller
        return _fail(ACLNN_ERR_INNER, f"aclnnSwishBackward: internal error: {exc!r}")


def _phase_two(workspace, workspaceSize, executor, stream) -> int:
    where = "aclnnSwishBackward"
    if executor is None:
        return _fail(ACLNN_ERR_PARAM_NULLPTR, f"{where}: executor is a null pointer (None)")
    if not isinstance(executor, aclOpExecutor):
        return _fail(ACLNN_ERR_PARAM_INVALID, f"{where}: executor must be an aclOpExecutor, "
                                              f"got {type(executor).__name__}")
    if executor.used:
        return _fail(ACLNN_ERR_INNER_EXECUTOR_REUSED, f"{where}: executor was already run; an executor runs once "
                                                      f"(call aclnnSwishBackwardGetWorkspaceSize again)")
    if not _is_int(workspaceSize) or workspaceSize < 0:
        return _fail(ACLNN_ERR_PARAM_INVALID, f"{where}: workspaceSize must be an integer >= 0, got {workspaceSize!r}")
    if workspaceSize < executor.workspace_size:
        return _fail(ACLNN_ERR_PARAM_INVALID, f"{where}: workspaceSize {workspaceSize} is smaller than the "
                                              f"{executor.workspace_size} bytes phase one reported")
    if workspaceSize > 0:
        if workspace is None:
            return _fail(ACLNN_ERR_PARAM_NULLPTR, f"{where}: workspace is a null pointer but workspaceSize is "
                                                  f"{workspaceSize}")
        if not isinstance(workspace, np.ndarray):
            return _fail(ACLNN_ERR_PARAM_INVALID, f"{where}: workspace must be a numpy.ndarray, "
                                                  f"got {type(workspace).__name__}")
        if workspace.nbytes < workspaceSize:
            return _fail(ACLNN_ERR_PARAM_INVALID, f"{where}: workspace holds {workspace.nbytes} bytes, fewer than "
                                                  f"workspaceSize {workspaceSize}")
    for tensor, name in ((executor.grad_output, "gradOutput"), (executor.self_, "self"),
                         (executor.grad_input, "gradInput")):
        if tensor.destroyed:
            return _fail(ACLNN_ERR_INNER_TENSOR_DESTROYED, f"{where}: {name} was destroyed after "
                                                           f"aclnnSwishBackwardGetWorkspaceSize")
    s = _resolve_stream(stream)
    if isinstance(s, str):
        return _fail(ACLNN_ERR_RUNTIME_ERROR, f"{where}: {s}")
    executor.used = True
    if executor.tiling is not None:
        s._submit(_make_job(executor, s.overflow_mode))
    return ACLNN_SUCCESS
