"""``aclnnSwiGlu`` (two-phase), as ops-nn's page ``activation/swi_glu/docs/aclnnSwiGlu.md`` describes it (the
op_api source is not in ops-nn; issue 41).

Phase one, in this order: null pointers (161001); the page's dtypes (161002): x float32, float16 or bfloat16,
out x's dtype; dim in ``[-x.dim(), x.dim() - 1]`` (161002); then the shape rules (a model choice, 161002:
the page lists no code for them): x of 1 to 8 dims, ``x.shape[dim]`` even (the infershape's rule), out of
x's shape with ``dim`` halved. An empty x succeeds with workspace 0 and launches nothing (the page: empty
tensors are supported). The workspace is the host's 16 MiB (``WORKSPACE_BUFFER``). The platform's kernel
runs (:mod:`swishgrad_numba.ops.swi_glu`): the Atlas A2's (ascend910b, ascend910_93) or the Ascend 950's;
another SoC's kernel is not modelled (561103).

``aclnnSwiGluGrad(yGrad, x, dim, out)`` (``activation/swi_glu_grad/docs/aclnnSwiGluGrad.md``): the Atlas A2's
kernel or the Ascend 950's (its regbase tiling; workspace 16 MiB + 32 bytes a core, ``PostTiling``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ops.swi_glu.api import grad_tiling, out_shape, run_grad_any, socs_refusal
from ..ops.swi_glu.host import SwiGluTiling, swiglu_tiling
from ..ops.swi_glu.kernel import run
from ..dtypes import dtype_info
from ..platform import Platform
from .enums import (ACL_BF16, ACL_FLOAT, ACL_FLOAT16, ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID,
                    ACLNN_SUCCESS, MAX_DIM, ACL_DTYPES, dtype_name)
from .state import get_platform
from .tensor import check_emulator_storage, aclTensor
from .twophase import get_workspace_size, live_tensor, queue_launch, tensor_view

__all__ = ["aclnnSwiGluGetWorkspaceSize", "aclnnSwiGlu", "aclnnSwiGluGradGetWorkspaceSize", "aclnnSwiGluGrad"]

_WORKSPACE = 16 * 1024 * 1024
_X = (ACL_FLOAT, ACL_FLOAT16, ACL_BF16)


@dataclass(eq=False)
class aclSwiGluExecutor:
    """What phase one prepared; runs once. ``tiling`` None: an empty launch."""

    x: aclTensor
    out: aclTensor
    workspace_size: int
    tiling: SwiGluTiling | None
    used: bool = False


def _split_axis(xs: tuple, dim):
    """x's rank and ``dim`` as both phases check them: the axis split into halves, or why not (a message)."""
    if not 1 <= len(xs) <= MAX_DIM:
        return f"x has {len(xs)} dims; it must have 1 to {MAX_DIM}"
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        return f"dim must be an int64, got {type(dim).__name__}"
    if not -len(xs) <= int(dim) < len(xs):
        return f"dim {int(dim)} must lie in [{-len(xs)}, {len(xs) - 1}] for x {xs}"
    d = int(dim) % len(xs)
    if xs[d] % 2:
        return f"x {xs} must have an even length at dim {int(dim)} (split into halves)"
    return d


def _phase_one(x, dim, out, platform: Platform):
    for name, tensor in (("x", x), ("out", out)):
        bad = live_tensor(tensor, name)
        if bad:
            return bad
    if x.data_type not in _X:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of x is {dtype_name(x.data_type)}; it must be one of "
                                         f"{', '.join(dtype_name(c) for c in _X)}")
    if out.data_type != x.data_type:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of out is {dtype_name(out.data_type)}; it must be x's "
                                         f"({dtype_name(x.data_type)})")
    xs, os_ = tuple(x.view_shape), tuple(out.view_shape)
    d = _split_axis(xs, dim)
    if isinstance(d, str):
        return ACLNN_ERR_PARAM_INVALID, d
    if os_ != out_shape(xs, d):
        return ACLNN_ERR_PARAM_INVALID, f"shape of out {os_} must be x's {xs} with dim {int(dim)} halved"
    bad = check_emulator_storage((("x", x), ("out", out)), out, "out")
    if bad:
        return bad
    if x.numel == 0:
        return ACLNN_SUCCESS, aclSwiGluExecutor(x, out, 0, None)
    if socs_refusal(platform):
        return ACLNN_ERR_INNER_NULLPTR, f"the SwiGlu launcher failed: {socs_refusal(platform)}"
    tiling = swiglu_tiling(xs, d, dtype_info(ACL_DTYPES[x.data_type][1]).name, platform.ub_size, platform.core_num)
    return ACLNN_SUCCESS, aclSwiGluExecutor(x, out, _WORKSPACE, tiling)


def aclnnSwiGluGetWorkspaceSize(x, dim, out):
    """Phase one of aclnnSwiGlu: ``(status, workspace_size, executor)``; on failure ``(status, 0, None)`` and
    :func:`aclGetRecentErrMsg` names the argument and rule."""
    return get_workspace_size("aclnnSwiGluGetWorkspaceSize", _phase_one, x, dim, out, get_platform())


def _make_job(e: aclSwiGluExecutor, stream=None):
    def job():
        y = run(np.ascontiguousarray(tensor_view(e.x)), e.tiling)
        tensor_view(e.out)[...] = y.reshape(tensor_view(e.out).shape)

    return job


def aclnnSwiGlu(workspace, workspaceSize, executor, stream) -> int:
    """Phase two: queue the launch on ``stream``; results are defined after ``aclrtSynchronizeStream``."""
    tensors = {"x": executor.x, "out": executor.out} if isinstance(executor, aclSwiGluExecutor) else {}
    return queue_launch("aclnnSwiGlu", executor, lambda e: isinstance(e, aclSwiGluExecutor), tensors, _make_job,
                        workspace, workspaceSize, stream, saturation=False)


# ---------------------------------------------------------------- aclnnSwiGluGrad (the A2 and 950 kernels)
@dataclass(eq=False)
class aclSwiGluGradExecutor:
    """What phase one prepared; runs once."""

    y_grad: aclTensor
    x: aclTensor
    out: aclTensor
    workspace_size: int
    tiling: object           # SwiGluTiling (A2) or GluBaseTiling (950)
    used: bool = False


def _grad_phase_one(y_grad, x, dim, out, platform: Platform):
    """``docs/aclnnSwiGluGrad.md``: 161001 for a null tensor, 161002 for a dtype or dim; the shape rules and
    an empty tensor (the page: not supported) 161002 too (a model choice). The A2's and the 950's kernels are
    modelled (561103 elsewhere)."""
    for name, tensor in (("yGrad", y_grad), ("x", x), ("out", out)):
        bad = live_tensor(tensor, name)
        if bad:
            return bad
    for name, tensor in (("yGrad", y_grad), ("x", x), ("out", out)):
        if tensor.data_type not in _X:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} is {dtype_name(tensor.data_type)}; it must be one "
                                             f"of {', '.join(dtype_name(c) for c in _X)}")
        if tensor.data_type != x.data_type:
            return ACLNN_ERR_PARAM_INVALID, f"dtype of {name} is {dtype_name(tensor.data_type)}; it must be x's"
    xs, gs, os_ = tuple(x.view_shape), tuple(y_grad.view_shape), tuple(out.view_shape)
    d = _split_axis(xs, dim)
    if isinstance(d, str):
        return ACLNN_ERR_PARAM_INVALID, d
    if gs != out_shape(xs, d):
        return ACLNN_ERR_PARAM_INVALID, f"shape of yGrad {gs} must be x's {xs} with dim {int(dim)} halved"
    if os_ != xs:
        return ACLNN_ERR_PARAM_INVALID, f"shape of out {os_} must equal shape of x {xs}"
    if x.numel == 0:
        return ACLNN_ERR_PARAM_INVALID, f"x {xs} is empty; aclnnSwiGluGrad does not take empty tensors"
    bad = check_emulator_storage((("yGrad", y_grad), ("x", x), ("out", out)), out, "out")
    if bad:
        return bad
    if socs_refusal(platform):
        return ACLNN_ERR_INNER_NULLPTR, f"the SwiGluGrad launcher failed: {socs_refusal(platform)}"
    tiling = grad_tiling(xs, d, dtype_info(ACL_DTYPES[x.data_type][1]).name, platform)
    workspace = _WORKSPACE if isinstance(tiling, SwiGluTiling) else tiling.workspace
    return ACLNN_SUCCESS, aclSwiGluGradExecutor(y_grad, x, out, workspace, tiling)


def aclnnSwiGluGradGetWorkspaceSize(yGrad, x, dim, out):
    """Phase one of aclnnSwiGluGrad: ``(status, workspace_size, executor)``."""
    return get_workspace_size("aclnnSwiGluGradGetWorkspaceSize", _grad_phase_one, yGrad, x, dim, out,
                              get_platform())


def _make_grad_job(e: aclSwiGluGradExecutor, stream=None):
    def job():
        g = run_grad_any(np.ascontiguousarray(tensor_view(e.y_grad)), np.ascontiguousarray(tensor_view(e.x)),
                         e.tiling)
        tensor_view(e.out)[...] = g.reshape(tensor_view(e.out).shape)

    return job


def aclnnSwiGluGrad(workspace, workspaceSize, executor, stream) -> int:
    """Phase two: queue the launch on ``stream``; results are defined after ``aclrtSynchronizeStream``."""
    tensors = ({"yGrad": executor.y_grad, "x": executor.x, "out": executor.out}
               if isinstance(executor, aclSwiGluGradExecutor) else {})
    return queue_launch("aclnnSwiGluGrad", executor, lambda e: isinstance(e, aclSwiGluGradExecutor), tensors,
                        _make_grad_job, workspace, workspaceSize, stream, saturation=False)
