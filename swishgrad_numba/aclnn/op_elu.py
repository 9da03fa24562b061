"""``aclnnElu`` and ``aclnnEluBackward`` (two-phase), as their op_apis write them.

docs/model.md, "Elu (aclnnElu, 950 only)" and "EluBackward (aclnnEluBackward)", gives the sources
(``activation/elu/op_api/aclnn_elu.cpp``, ``activation/elu_grad_v2/op_api/aclnn_elu_backward.cpp``).

aclnnElu(self, alpha, scale, inputScale, out), in the op_api's order: null pointers (161001); ``self``
in {float32, float16, float64, bfloat16}, each scalar castable to float (not complex), ``self``
castable to ``out`` (a float dtype) (161002); equal shapes, at most 8 dims (161002); empty: workspace
0. Alpha or inputScale inf or NaN (``aclScalar::ToFloat``): Threshold then Muls, no Elu kernel
(:mod:`swishgrad_numba.ops.elu`, variant ``"threshold"``) on ``self`` cast to float32, its float32
result Cast to ``out``'s dtype once; the kernel's result (in ``self``'s dtype) is Cast likewise.
float64 runs the AICPU kernel (``elu.cpp``: double is no AI Core dtype), on any SoC, modelled by
:func:`swishgrad_numba.ops.elu_api.aicpu_elu`; workspace 0. On the A2 no AI Core kernel registers op type
Elu: 561103 for the other dtypes, as a launcher returning nullptr.

aclnnEluBackward(gradOutput, alpha, scale, inputScale, isResult, selfOrResult, gradInput): null pointers
(161001); gradOutput and selfOrResult of one dtype, in {float32, float16} plus bfloat16 on NpuArch
DAV_2201 (the A2 and A3) or a regbase chip (the 950); scalars castable to float; gradOutput castable to
gradInput (161002); equal shapes, at most 8 dims; ``isResult`` with ``alpha < 0`` (161002). EluGradV2 on
the platform's kernel, then Cast to gradInput's dtype.

Casts between floating dtypes round to nearest even (NumPy's and ml_dtypes' ``astype``), as
:mod:`.op_sigmoid` assumes of CANN's Cast.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..dtypes import DTYPES, to_float32
from ..ops import OpTiling, get_operator
from ..ops import elu as elu_op
from ..ops.elu_api import elu_float64
from ..platform import ARCH_950, Platform
from .enums import (ACL_BF16, ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT16, ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID,
                    ACLNN_ERR_PARAM_NULLPTR, ACLNN_SUCCESS, MAX_DIM, _COMPLEX_DTYPES, _DTYPES, _PLAIN_FORMATS,
                    _dtype_name, _format_name)
from .state import get_platform
from .tensor import _check_addressable, _check_geometry, aclTensor
from .twophase import get_workspace_size, live_optional_scalar, live_tensor, queue_launch, tensor_view

__all__ = ["aclnnEluGetWorkspaceSize", "aclnnElu", "aclnnEluBackwardGetWorkspaceSize", "aclnnEluBackward"]

_FLOAT_OUT = (ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16)
_DAV_2201 = ("ascend910b", "ascend910_93")


@dataclass(eq=False)
class aclEluExecutor:
    """What phase one prepared (``tiling`` None for an empty launch); runs once."""

    op: str
    inputs: tuple          # (("gradOutput", t), ("selfOrResult", t)) or (("self", t),)
    out: aclTensor
    workspace_size: int
    tiling: OpTiling | AicpuElu | None
    used: bool = False


@dataclass(frozen=True)
class AicpuElu:
    """What a float64 Elu launches instead of an AI Core tiling: the AICPU kernel's attributes (float32)."""

    attrs: tuple   # (alpha, scale, inputScale)


def _scalars(named):
    for name, s in named:
        if s is None:
            return ACLNN_ERR_PARAM_NULLPTR, f"{name} is a null pointer (None)"
        bad = live_optional_scalar(s, name)
        if bad:
            return bad
    return None


def _geometry(op, everything, first_name, first, out_name, out):
    for name, tensor in everything[1:]:
        if tensor.view_shape != first.view_shape:
            return ACLNN_ERR_PARAM_INVALID, (f"shape of {name} {tensor.view_shape} must equal shape of "
                                             f"{first_name} {first.view_shape}")
    if len(first.view_shape) > MAX_DIM:
        return ACLNN_ERR_PARAM_INVALID, (f"{first_name} has {len(first.view_shape)} dims; at most {MAX_DIM} are "
                                         f"supported")
    for name, tensor in everything:
        if tensor.format not in _PLAIN_FORMATS:
            return ACLNN_ERR_PARAM_INVALID, (f"{name} is in {_format_name(tensor.format)}; the emulated {op} "
                                             f"takes ND, NCHW or NHWC storage")
        message = _check_addressable(tensor, name) or _check_geometry(tensor, name)
        if message:
            return ACLNN_ERR_PARAM_INVALID, message
    if not out.storage.flags.writeable:
        return ACLNN_ERR_PARAM_INVALID, f"{out_name}'s data is read-only"
    return None


def _phase_one(op: str, named: tuple, scalars: tuple, is_result, out_name: str, out, platform: Platform):
    """(status, message or executor), in the op_api's order."""
    everything = named + ((out_name, out),)
    # CheckNotNull, in the signature's order: the first tensor, the scalars, the other tensors
    bad = live_tensor(*named[0][::-1]) or _scalars(scalars)
    for name, tensor in everything[1:]:
        bad = bad or live_tensor(tensor, name)
    if bad:
        return bad
    first_name, first = named[0]
    if op == elu_op.NAME:
        allowed = (ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16)
    else:
        if named[1][1].data_type != first.data_type:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {named[1][0]} ({_dtype_name(named[1][1].data_type)}) must "
                                             f"equal dtype of {first_name} ({_dtype_name(first.data_type)})")
        bf16 = platform.architecture == ARCH_950 or platform.soc_family in _DAV_2201
        allowed = (ACL_FLOAT, ACL_FLOAT16) + ((ACL_BF16,) if bf16 else ())
    if first.data_type not in allowed:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of {first_name} is {_dtype_name(first.data_type)}; on SoC "
                                         f"{platform.soc_family} it must be one of "
                                         f"{', '.join(_dtype_name(c) for c in allowed)}")
    for name, s in scalars:
        if s.data_type in _COMPLEX_DTYPES:
            return ACLNN_ERR_PARAM_INVALID, f"{name} dtype {_dtype_name(s.data_type)} can not cast to float32"
    if out.data_type not in _FLOAT_OUT:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of {first_name} ({_dtype_name(first.data_type)}) can not be cast to "
                                         f"dtype of {out_name} ({_dtype_name(out.data_type)})")
    bad = _geometry(op, everything, first_name, first, out_name, out)
    if bad:
        return bad
    values = tuple(to_float32(s.value, argname=name) for name, s in scalars)
    if op != elu_op.NAME:
        if not isinstance(is_result, (bool, np.bool_)):
            return ACLNN_ERR_PARAM_INVALID, f"isResult must be a bool, got {type(is_result).__name__}"
        if is_result and values[0] < 0:
            return ACLNN_ERR_PARAM_INVALID, (f"alpha is {float(values[0])!r}: with isResult true alpha must be >= 0 "
                                             f"(in-place elu backward with a negative slope is not supported)")
        values += (np.float32(bool(is_result)),)
    if first.numel == 0:
        return ACLNN_SUCCESS, aclEluExecutor(op, named, out, 0, None)
    if first.data_type == ACL_DOUBLE:
        return ACLNN_SUCCESS, aclEluExecutor(op, named, out, 0, AicpuElu(values))
    operator = get_operator(op)
    refusal = operator.kernel_refusal(platform)
    if refusal:
        return ACLNN_ERR_INNER_NULLPTR, f"the {operator.kernel_op} launcher failed: {refusal}"
    info = next(i for i in DTYPES.values() if i.acl_data_type == first.data_type)
    try:
        tiling = operator.host_tiling(first.numel, info, values, platform)
    except ValueError as exc:
        return ACLNN_ERR_INNER_NULLPTR, f"the {operator.kernel_op} launcher failed: its host tiling refused: {exc}"
    return ACLNN_SUCCESS, aclEluExecutor(op, named, out, tiling.workspace_size, tiling)


def aclnnEluGetWorkspaceSize(self, alpha, scale, inputScale, out):
    """Phase one of aclnnElu: ``(status, workspace_size, executor)``; on failure ``(status, 0, None)`` and
    :func:`aclGetRecentErrMsg` names the argument and rule."""
    return get_workspace_size("aclnnEluGetWorkspaceSize", _phase_one, elu_op.NAME, (("self", self),),
                              (("alpha", alpha), ("scale", scale), ("inputScale", inputScale)), None, "out", out,
                              get_platform())


def aclnnEluBackwardGetWorkspaceSize(gradOutput, alpha, scale, inputScale, isResult, selfOrResult, gradInput):
    """Phase one of aclnnEluBackward, as :func:`aclnnEluGetWorkspaceSize`."""
    return get_workspace_size("aclnnEluBackwardGetWorkspaceSize", _phase_one, "elu_grad",
                              (("gradOutput", gradOutput), ("selfOrResult", selfOrResult)),
                              (("alpha", alpha), ("scale", scale), ("inputScale", inputScale)), isResult,
                              "gradInput", gradInput, get_platform())


def _make_job(executor: aclEluExecutor, stream=None):
    tiling = executor.tiling
    if isinstance(tiling, AicpuElu):
        def aicpu_job():
            x = np.ascontiguousarray(tensor_view(executor.inputs[0][1]))
            out_view = tensor_view(executor.out)
            with np.errstate(all="ignore"):
                out_view[...] = elu_float64(x, tiling.attrs).astype(_DTYPES[executor.out.data_type][1])
        return aicpu_job
    kernel = get_operator(executor.op).kernels[tiling.architecture]

    def job():
        flat = [np.ascontiguousarray(tensor_view(t)).reshape(-1) for _, t in executor.inputs]
        if executor.op == elu_op.NAME and elu_op.threshold_path(tiling["alpha"], tiling["inputScale"]):
            # the Threshold path casts self to float32 first and its float32 result is Cast to out's dtype once
            flat = [f.astype(np.float32) for f in flat]
        out_view = tensor_view(executor.out)
        result = np.empty(out_view.shape, dtype=flat[0].dtype)
        kernel.run(flat[0] if len(flat) == 2 else None, flat[-1], result.reshape(-1), tiling)
        with np.errstate(all="ignore"):
            out_view[...] = result.astype(_DTYPES[executor.out.data_type][1])

    return job


def _launch(where: str, op: str, workspace, workspaceSize, executor, stream) -> int:
    ours = isinstance(executor, aclEluExecutor) and executor.op == op
    tensors = dict(executor.inputs + (("out", executor.out),)) if ours else {}
    return queue_launch(where, executor, lambda e: isinstance(e, aclEluExecutor) and e.op == op, tensors,
                        _make_job, workspace, workspaceSize, stream, saturation=get_operator(op).saturation)


def aclnnElu(workspace, workspaceSize, executor, stream) -> int:
    """Phase two: queue the launch on ``stream``; results are defined after ``aclrtSynchronizeStream``."""
    return _launch("aclnnElu", elu_op.NAME, workspace, workspaceSize, executor, stream)


def aclnnEluBackward(workspace, workspaceSize, executor, stream) -> int:
    """Phase two of aclnnEluBackward, as :func:`aclnnElu`."""
    return _launch("aclnnEluBackward", "elu_grad", workspace, workspaceSize, executor, stream)

