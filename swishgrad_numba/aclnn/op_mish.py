"""``aclnnMish`` and ``aclnnInplaceMish`` (two-phase), as the op_api writes them
(``activation/mish/op_api/aclnn_mish.cpp``; docs/model.md, "Mish").

aclnnMish(self, out): null tensors -> 161001; self and out each in {float32, float16, and bfloat16 on the A2,
A3 and 950} (``GetDtypeSupportListV2``), out of self's dtype, at most 8 dims each, equal shapes -> 161002;
empty: workspace 0. Then ``Mish(self)`` on the platform's kernel and a ViewCopy into out.
aclnnInplaceMish(selfRef) is aclnnMish(selfRef, selfRef).

aclnnMishBackward(gradOutput, self, gradInput) (``activation/mish_grad/op_api/aclnn_mish_backward.cpp``): null
tensors -> 161001; self castable to gradInput, all three in {float32, float16, and bfloat16 on NpuArch DAV_2201
and DAV_3510}; at most 8 dims; self and gradOutput broadcast, gradInput of the broadcast shape -> 161002;
empty: workspace 0. Both inputs Cast to their promoted dtype and BroadcastTo the shape, then MishGrad (the 950's
``MishGradWithTanhX(.., nullptr)``), a Cast to gradInput's dtype and a ViewCopy.
"""
from __future__ import annotations

import numpy as np

from ..dtypes import dtype_info, promoted_float_dtype
from ..platform import Platform
from .enums import ACLNN_ERR_PARAM_INVALID, MAX_DIM, dtype_name
from .op_hardswish import check_geometry, finish, launch_op, live_and_listed, v2_bfloat16
from .state import get_platform
from .twophase import get_workspace_size

__all__ = ["aclnnMishGetWorkspaceSize", "aclnnMish", "aclnnInplaceMishGetWorkspaceSize", "aclnnInplaceMish",
           "aclnnMishBackwardGetWorkspaceSize", "aclnnMishBackward"]


def _phase_one(self_, out, platform: Platform):
    named = {"self": self_, "out": out}
    bad = live_and_listed(named, ("self", "out"), v2_bfloat16(platform), platform)
    if bad:
        return bad
    if out.data_type != self_.data_type:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of out ({dtype_name(out.data_type)}) must equal dtype of self "
                                         f"({dtype_name(self_.data_type)})")
    bad = check_geometry("Mish", named, "out")
    return bad or finish("mish", named, "out", dtype_info(self_.dtype), platform)


def aclnnMishGetWorkspaceSize(self, out):
    """Phase one of aclnnMish: ``(status, workspace_size, executor)``; on failure ``(status, 0, None)`` and
    :func:`aclGetRecentErrMsg` names the argument and rule."""
    return get_workspace_size("aclnnMishGetWorkspaceSize", _phase_one, self, out, get_platform())


def aclnnInplaceMishGetWorkspaceSize(selfRef):
    """Phase one of aclnnInplaceMish: aclnnMish with ``out`` = ``selfRef``."""
    return get_workspace_size("aclnnInplaceMishGetWorkspaceSize", _phase_one, selfRef, selfRef, get_platform())


def aclnnMish(workspace, workspaceSize, executor, stream) -> int:
    """Phase two: queue the launch on ``stream``; results are defined after ``aclrtSynchronizeStream``."""
    return launch_op("aclnnMish", "mish", workspace, workspaceSize, executor, stream)


def aclnnInplaceMish(workspace, workspaceSize, executor, stream) -> int:
    """Phase two of aclnnInplaceMish, as :func:`aclnnMish`."""
    return launch_op("aclnnInplaceMish", "mish", workspace, workspaceSize, executor, stream)


def _backward(grad_output, self_, grad_input, platform: Platform):
    named = {"gradOutput": grad_output, "self": self_, "gradInput": grad_input}
    bad = live_and_listed(named, ("gradOutput", "self", "gradInput"), v2_bfloat16(platform), platform)
    if bad:
        return bad
    for name, tensor in named.items():
        if len(tensor.view_shape) > MAX_DIM:
            return ACLNN_ERR_PARAM_INVALID, f"{name} has {len(tensor.view_shape)} dims; at most {MAX_DIM} are supported"
    try:
        shape = np.broadcast_shapes(tuple(self_.view_shape), tuple(grad_output.view_shape))
    except ValueError:
        return ACLNN_ERR_PARAM_INVALID, (f"shapes of self {tuple(self_.view_shape)} and gradOutput "
                                         f"{tuple(grad_output.view_shape)} do not broadcast")
    if tuple(grad_input.view_shape) != shape:
        return ACLNN_ERR_PARAM_INVALID, (f"shape of gradInput {tuple(grad_input.view_shape)} must be the broadcast "
                                         f"shape {shape}")
    for name, tensor in named.items():    # formats and addresses, each tensor alone; a writable gradInput
        bad = check_geometry("MishBackward", {name: tensor}, "gradInput" if tensor is grad_input else None)
        if bad:
            return bad
    info = dtype_info(promoted_float_dtype(self_.dtype, grad_output.dtype))
    return finish("mish_grad", named, "gradInput", info, platform)


def aclnnMishBackwardGetWorkspaceSize(gradOutput, self, gradInput):
    """Phase one of aclnnMishBackward, as :func:`aclnnMishGetWorkspaceSize`."""
    return get_workspace_size("aclnnMishBackwardGetWorkspaceSize", _backward, gradOutput, self, gradInput,
                              get_platform())


def aclnnMishBackward(workspace, workspaceSize, executor, stream) -> int:
    """Phase two of aclnnMishBackward, as :func:`aclnnMish`."""
    return launch_op("aclnnMishBackward", "mish_grad", workspace, workspaceSize, executor, stream)
