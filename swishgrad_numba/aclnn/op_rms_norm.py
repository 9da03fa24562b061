"""``aclnnRmsNorm`` (two-phase), as ops-nn's page ``norm/rms_norm/docs/aclnnRmsNorm.md`` describes it (the op_api
source is not in ops-nn; issue 42).

Phase one, in this order: null pointers (161001); the dtype rows of the page's table (161002): x float32,
float16 or bfloat16, gamma x's dtype or float32 with a 16-bit x, yOut x's dtype, rstdOut float32; then what
the host tiling checks (``CheckInputShape4RmsNorm``, refused with 561002, ACLNN_ERR_INNER_TILING_ERROR): 1 to
8 dims, gamma the last axes of x and not empty, yOut of x's shape, rstdOut of x's rank with each axis x's
or 1, epsilon >= 0. An empty x succeeds with workspace 0 and launches nothing. The workspace is the host's
256 bytes plus the 16 MiB system workspace. The platform's kernel runs (:mod:`swishgrad_numba.ops.rms_norm`):
the Atlas A2's (ascend910b, ascend910_93), or the Ascend 950's (full_load or split); another SoC's kernel is
not modelled (561103).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ops.rms_norm.api import socs_refusal
from ..ops.rms_norm.host_a2 import A2Tiling, a2_tiling
from ..ops.rms_norm.kernel_950 import Arch35Tiling, arch35_tiling, row_program_950
from ..ops.rms_norm.kernel_a2 import run_a2, run_program
from ..platform import Platform
from .enums import (ACL_BF16, ACL_FLOAT, ACL_FLOAT16, ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID,
                    ACLNN_SUCCESS, MAX_DIM, ACL_DTYPES, dtype_name)
from .state import get_platform
from .tensor import check_emulator_storage, aclTensor
from .twophase import get_workspace_size, live_tensor, queue_launch, tensor_view

__all__ = ["ACLNN_ERR_INNER_TILING_ERROR", "aclnnRmsNormGetWorkspaceSize", "aclnnRmsNorm"]

#: The page's code for a shape or attribute the host tiling refuses.
ACLNN_ERR_INNER_TILING_ERROR = 561002
_WORKSPACE = 256 + 16 * 1024 * 1024
_X = (ACL_FLOAT, ACL_FLOAT16, ACL_BF16)


@dataclass(eq=False)
class aclRmsNormExecutor:
    """What phase one prepared; runs once. ``tiling`` None: an empty launch."""

    x: aclTensor
    gamma: aclTensor
    y: aclTensor
    rstd: aclTensor
    workspace_size: int
    tiling: A2Tiling | Arch35Tiling | None
    used: bool = False


def _shapes(x, gamma, y, rstd, epsilon):
    xs, gs, ys, rs = (tuple(t.view_shape) for t in (x, gamma, y, rstd))
    for name, s in (("x", xs), ("gamma", gs)):
        if not 1 <= len(s) <= MAX_DIM:
            return f"{name} has {len(s)} dims; it must have 1 to {MAX_DIM}"
    if len(gs) > len(xs) or xs[len(xs) - len(gs):] != gs:
        return f"shape of gamma {gs} must be the last {len(gs)} axes of x {xs}"
    if 0 in gs:
        return f"gamma {gs} must not be empty"
    if ys != xs:
        return f"shape of yOut {ys} must equal shape of x {xs}"
    if len(rs) != len(xs) or any(r not in (1, a) for r, a in zip(rs, xs)):
        return f"rstdOut {rs} must have x's {len(xs)} dims, each x's axis or 1"
    if np.prod(rs, dtype=np.int64) != np.prod(xs[:len(xs) - len(gs)], dtype=np.int64) and 0 not in xs:
        return f"rstdOut {rs} must hold one value per row of x {xs} (x's leading axes, the gamma axes 1)"
    if not float(epsilon) >= 0.0:
        return f"epsilon {epsilon!r} is less than zero"
    return None


def _phase_one(x, gamma, epsilon, y, rstd, platform: Platform):
    for name, tensor in (("x", x), ("gamma", gamma), ("yOut", y), ("rstdOut", rstd)):
        bad = live_tensor(tensor, name)
        if bad:
            return bad
    if x.data_type not in _X:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of x is {dtype_name(x.data_type)}; it must be one of "
                                         f"{', '.join(dtype_name(c) for c in _X)}")
    if gamma.data_type != x.data_type and not (gamma.data_type == ACL_FLOAT and x.data_type != ACL_FLOAT):
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of gamma is {dtype_name(gamma.data_type)}; with x "
                                         f"{dtype_name(x.data_type)} it must be {dtype_name(x.data_type)}"
                                         f"{' or FLOAT' if x.data_type != ACL_FLOAT else ''}")
    if y.data_type != x.data_type:
        return ACLNN_ERR_PARAM_INVALID, f"dtype of yOut is {dtype_name(y.data_type)}; it must be x's"
    if rstd.data_type != ACL_FLOAT:
        return ACLNN_ERR_PARAM_INVALID, f"dtype of rstdOut is {dtype_name(rstd.data_type)}; it must be FLOAT"
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, np.floating, np.integer)):
        return ACLNN_ERR_PARAM_INVALID, f"epsilon must be a double, got {type(epsilon).__name__}"
    message = _shapes(x, gamma, y, rstd, epsilon)
    if message:
        return ACLNN_ERR_INNER_TILING_ERROR, message
    bad = check_emulator_storage((("x", x), ("gamma", gamma), ("yOut", y), ("rstdOut", rstd)), y, "yOut")
    if bad:
        return bad
    if x.numel == 0:
        return ACLNN_SUCCESS, aclRmsNormExecutor(x, gamma, y, rstd, 0, None)
    if socs_refusal(platform):
        return ACLNN_ERR_INNER_NULLPTR, f"the RmsNorm launcher failed: {socs_refusal(platform)}"
    n = gamma.numel
    args = (x.numel // n, n, ACL_DTYPES[x.data_type][1], ACL_DTYPES[gamma.data_type][1], np.float32(epsilon), platform)
    tiling = a2_tiling(*args) if platform.architecture == "a2" else arch35_tiling(*args)
    return ACLNN_SUCCESS, aclRmsNormExecutor(x, gamma, y, rstd, _WORKSPACE, tiling)


def aclnnRmsNormGetWorkspaceSize(x, gamma, epsilon, yOut, rstdOut):
    """Phase one of aclnnRmsNorm: ``(status, workspace_size, executor)``; on failure ``(status, 0, None)`` and
    :func:`aclGetRecentErrMsg` names the argument and rule."""
    return get_workspace_size("aclnnRmsNormGetWorkspaceSize", _phase_one, x, gamma, epsilon, yOut, rstdOut,
                              get_platform())


def _make_job(e: aclRmsNormExecutor, stream=None):
    def job():
        t = e.tiling
        x = np.ascontiguousarray(tensor_view(e.x)).reshape(t.num_row, t.num_col)
        gamma = np.ascontiguousarray(tensor_view(e.gamma))
        if isinstance(t, A2Tiling):
            y, rstd = run_a2(x, gamma, t)
        else:
            y, rstd = run_program(x, gamma, t, row_program_950(t, x.dtype))
        tensor_view(e.y)[...] = y.reshape(tensor_view(e.y).shape)
        tensor_view(e.rstd)[...] = rstd.reshape(tensor_view(e.rstd).shape)

    return job


def aclnnRmsNorm(workspace, workspaceSize, executor, stream) -> int:
    """Phase two: queue the launch on ``stream``; results are defined after ``aclrtSynchronizeStream``."""
    tensors = ({"x": executor.x, "gamma": executor.gamma, "yOut": executor.y, "rstdOut": executor.rstd}
               if isinstance(executor, aclRmsNormExecutor) else {})
    return queue_launch("aclnnRmsNorm", executor, lambda e: isinstance(e, aclRmsNormExecutor), tensors, _make_job,
                        workspace, workspaceSize, stream, saturation=False)
