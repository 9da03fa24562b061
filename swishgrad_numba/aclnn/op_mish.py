"""``aclnnMish`` and ``aclnnInplaceMish`` (two-phase), as the op_api writes them
(``activation/mish/op_api/aclnn_mish.cpp``; docs/model.md, "Mish").

aclnnMish(self, out): null tensors -> 161001; self and out each in {float32, float16, and bfloat16 on the A2,
A3 and 950} (``GetDtypeSupportListV2``), out of self's dtype, at most 8 dims each, equal shapes -> 161002;
empty: workspace 0. Then ``Mish(self)`` on the platform's kernel and a ViewCopy into out.
aclnnInplaceMish(selfRef) is aclnnMish(selfRef, selfRef).
"""
from __future__ import annotations

from ..platform import ARCH_950, Platform
from .enums import ACLNN_ERR_PARAM_INVALID, _dtype_name
from .op_hardswish import allowed_dtypes, check_geometry, dtype_refusal, finish, launch_op, live_tensors
from .state import get_platform
from .twophase import get_workspace_size

__all__ = ["aclnnMishGetWorkspaceSize", "aclnnMish", "aclnnInplaceMishGetWorkspaceSize", "aclnnInplaceMish"]

_DAV_2201 = ("ascend910b", "ascend910_93")


def _phase_one(self_, out, platform: Platform):
    named = {"self": self_, "out": out}
    bad = live_tensors(named)
    if bad:
        return bad
    allowed = allowed_dtypes(platform.soc_family in _DAV_2201 or platform.architecture == ARCH_950)
    bad = dtype_refusal("self", self_, allowed, platform) or dtype_refusal("out", out, allowed, platform)
    if bad:
        return bad
    if out.data_type != self_.data_type:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of out ({_dtype_name(out.data_type)}) must equal dtype of self "
                                         f"({_dtype_name(self_.data_type)})")
    bad = check_geometry("Mish", named, "out")
    return bad or finish("mish", named, "out", self_, platform)


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
