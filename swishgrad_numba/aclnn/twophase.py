"""The two-phase plumbing every operator's aclnn shares, written once.

An operator module (:mod:`.op_api` for SwishGrad, :mod:`.op_sigmoid`;
:mod:`.described` for the described operators) writes only its own phase-one checks, in its op_api's
order, and how its launch runs. What is the same for all of them lives here:

- :func:`live_tensor`, :func:`live_optional_scalar`: a null, foreign or
  destroyed pointer;
- :func:`tensor_view`: a tensor's view over its storage;
- :func:`get_workspace_size`: phase one's frame (a bug never escapes as an
  exception; a failure records its message and returns ``(status, 0, None)``);
- :func:`queue_launch`: phase two: the executor, the workspace and the
  stream checked, the job queued once.
"""
from __future__ import annotations

import numpy as np

from .device import resolve_stream
from .enums import (
    ACLNN_ERR_INNER,
    ACLNN_ERR_INNER_EXECUTOR_REUSED,
    ACLNN_ERR_INNER_TENSOR_DESTROYED,
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_PARAM_NULLPTR,
    ACLNN_ERR_RUNTIME_ERROR,
    ACLNN_SUCCESS,
    is_int,
)
from .state import fail
from .tensor import aclScalar, aclTensor

__all__ = []   # private to the aclnn package


def live_tensor(tensor, argname: str):
    """None if ``tensor`` is a live aclTensor, else (status, message)."""
    if tensor is None:
        return ACLNN_ERR_PARAM_NULLPTR, f"{argname} is a null pointer (None)"
    if not isinstance(tensor, aclTensor):
        return ACLNN_ERR_PARAM_NULLPTR, f"{argname} must be an aclTensor, got {type(tensor).__name__}"
    if tensor.destroyed:
        return ACLNN_ERR_PARAM_NULLPTR, f"{argname} was destroyed by aclDestroyTensor (dangling pointer)"
    return None


def live_optional_scalar(scalar, argname: str):
    """None if ``scalar`` is None or a live aclScalar, else (status, message)."""
    if scalar is None:
        return None
    if not isinstance(scalar, aclScalar):
        return ACLNN_ERR_PARAM_NULLPTR, f"{argname} must be an aclScalar or None, got {type(scalar).__name__}"
    if scalar.destroyed:
        return ACLNN_ERR_PARAM_NULLPTR, f"{argname} was destroyed by aclDestroyScalar (dangling pointer)"
    return None


def tensor_view(tensor: aclTensor) -> np.ndarray:
    """The tensor's view over its storage (bounds were checked in phase one).

    Strides of size-1 dimensions never move (``moving_strides``), so a huge
    one is harmless."""
    itemsize = tensor.storage.itemsize
    base = tensor.storage[tensor.offset:]
    return np.lib.stride_tricks.as_strided(
        base, shape=tensor.view_shape, strides=tuple(s * itemsize for s in tensor.moving_strides))


def get_workspace_size(where: str, phase_one, *args):
    """Run ``phase_one(*args) -> (status, message or executor)`` as phase one:
    ``(status, workspace_size, executor)``, or ``(status, 0, None)`` with the
    message recorded for ``aclGetRecentErrMsg``."""
    try:
        status, result = phase_one(*args)
    except Exception as exc:  # a bug here must still not crash the caller
        return fail(ACLNN_ERR_INNER, f"{where}: internal error: {exc!r}"), 0, None
    if status != ACLNN_SUCCESS:
        return fail(status, f"{where}: {result}"), 0, None
    return ACLNN_SUCCESS, result.workspace_size, result


def queue_launch(where: str, executor, is_ours, tensors: dict, make_job, workspace, workspaceSize, stream,
                 saturation: bool) -> int:
    """Phase two: check and queue the launch phase one prepared.

    ``is_ours(executor)`` says whether the executor came from this
    operator's phase one; ``tensors`` names the executor's tensors (a
    destroyed one is refused); ``make_job(executor, stream)`` returns what
    the stream runs. The executor runs once; an empty launch (no tiling)
    queues nothing. An operator whose saturation mode is not emulated
    (``saturation=False``: its registry entry's ``Operator.saturation``) is
    refused on a stream in that mode rather than computed in the other.
    Never raises.
    """
    try:
        return _queue_launch(where, executor, is_ours, tensors, make_job, workspace, workspaceSize, stream,
                             saturation)
    except Exception as exc:  # a bug here must still not crash the caller
        return fail(ACLNN_ERR_INNER, f"{where}: internal error: {exc!r}")


def _queue_launch(where, executor, is_ours, tensors, make_job, workspace, workspaceSize, stream, saturation) -> int:
    if executor is None:
        return fail(ACLNN_ERR_PARAM_NULLPTR, f"{where}: executor is a null pointer (None)")
    if not is_ours(executor):
        return fail(ACLNN_ERR_PARAM_INVALID, f"{where}: executor must come from {where}GetWorkspaceSize, "
                                              f"got {type(executor).__name__}")
    if executor.used:
        return fail(ACLNN_ERR_INNER_EXECUTOR_REUSED, f"{where}: executor was already run; an executor runs once "
                                                      f"(call {where}GetWorkspaceSize again)")
    if not is_int(workspaceSize) or workspaceSize < 0:
        return fail(ACLNN_ERR_PARAM_INVALID, f"{where}: workspaceSize must be an integer >= 0, got {workspaceSize!r}")
    if workspaceSize < executor.workspace_size:
        return fail(ACLNN_ERR_PARAM_INVALID, f"{where}: workspaceSize {workspaceSize} is smaller than the "
                                              f"{executor.workspace_size} bytes phase one reported")
    if workspaceSize > 0:
        if workspace is None:
            return fail(ACLNN_ERR_PARAM_NULLPTR, f"{where}: workspace is a null pointer but workspaceSize is "
                                                  f"{workspaceSize}")
        if not isinstance(workspace, np.ndarray):
            return fail(ACLNN_ERR_PARAM_INVALID, f"{where}: workspace must be a numpy.ndarray, "
                                                  f"got {type(workspace).__name__}")
        if workspace.nbytes < workspaceSize:
            return fail(ACLNN_ERR_PARAM_INVALID, f"{where}: workspace holds {workspace.nbytes} bytes, fewer than "
                                                  f"workspaceSize {workspaceSize}")
    for name, tensor in tensors.items():
        if tensor.destroyed:
            return fail(ACLNN_ERR_INNER_TENSOR_DESTROYED, f"{where}: {name} was destroyed after "
                                                           f"{where}GetWorkspaceSize")
    s = resolve_stream(stream)
    if isinstance(s, str):
        return fail(ACLNN_ERR_RUNTIME_ERROR, f"{where}: {s}")
    if not saturation and s.overflow_mode == "saturation":
        return fail(ACLNN_ERR_PARAM_INVALID, f"{where}: the stream is in the saturation overflow mode, which the "
                                              f"emulator does not model for this operator (overflow_mode "
                                              f"'saturation'; only 'infnan')")
    executor.used = True
    if executor.tiling is not None:
        s._submit(make_job(executor, s))
    return ACLNN_SUCCESS
