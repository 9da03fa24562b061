"""``aclnnSoftplus`` and ``aclnnSoftplusBackward`` (two-phase), as their op_apis write them.

docs/model.md, "Softplus (aclnnSoftplus, 950 only)" and "SoftplusBackward (aclnnSoftplusBackward)".

- aclnnSoftplus(self, beta, threshold, out) (``activation/softplus_v2/op_api/aclnn_softplus.cpp:57-140``):
  null tensors or scalars -> 161001; self's dtype outside the SoC's list (float32, float16, and bfloat16
  on the A2, the A3 and the 950), a scalar that cannot be cast to self's dtype (complex), self that
  cannot be cast to out's (an integer or bool out), more than 8 dims, shapes that differ -> 161002.
  Then ``SoftplusV2(self, beta.ToFloat(), threshold.ToFloat())`` and a ``Cast`` to out's dtype. On a
  SoC without the kernel (the A2) the launcher fails: 561103, naming the SoC.
- aclnnSoftplusBackward(gradOutput, self, beta, threshold, gradInput)
  (``activation/softplus_v2_grad/op_api/aclnn_softplus_backward.cpp``): gradOutput and gradInput in
  {float32, float16, float64, and bfloat16 on the A2, A3 and 950}, self also an integer or bool dtype;
  shapes equal. Where the two inputs differ in dtype or either is outside float32/float16/bfloat16, both
  are cast to float32 first; the result is cast to gradInput's dtype. (The op_api dereferences beta and
  threshold without a null check; the emulator answers 161001.)

Casts the op_api inserts are modelled as IEEE conversions (round to nearest even; exact widenings):
the ``Cast`` kernel is outside this tier. Complex outputs are refused (161002) as not emulated.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..arguments import bfloat16_refusal
from ..dtypes import dtype_info, to_float32
from ..ops import get_operator
from ..ops import softplus_grad as softplus_grad_op
from ..platform import ARCH_950, Platform
from .enums import (ACL_BF16, ACL_BOOL, ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT16, ACL_INT32,
                    ACL_INT64, ACL_UINT8, ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR,
                    ACLNN_SUCCESS, MAX_DIM, _COMPLEX_DTYPES, _DTYPES, _KERNEL_DTYPES, _PLAIN_FORMATS, _dtype_name,
                    _format_name)
from .state import get_platform
from .tensor import _check_addressable, _check_geometry
from .twophase import get_workspace_size, live_optional_scalar, live_tensor, queue_launch, tensor_view

__all__ = ["aclnnSoftplusGetWorkspaceSize", "aclnnSoftplus", "aclnnSoftplusBackwardGetWorkspaceSize",
           "aclnnSoftplusBackward"]

_DAV_2201 = ("ascend910b", "ascend910_93")
_FLOATS = (ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE)
_INTEGERS = (ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_UINT8, ACL_BOOL)


@dataclass(eq=False)
class aclSoftplusExecutor:
    """What phase one prepared (``tiling`` None for an empty launch); runs once."""

    op: str
    inputs: dict
    out: object
    kernel_dtype: object     # the DTypeInfo the kernel computes in
    workspace_size: int
    tiling: object | None
    used: bool = False


def _with_bf16(platform: Platform) -> bool:
    return platform.soc_family in _DAV_2201 or platform.architecture == ARCH_950


def _scalars(named: dict):
    for name, scalar in named.items():
        if scalar is None:
            return ACLNN_ERR_PARAM_NULLPTR, f"{name} is a null pointer (None)"
        bad = live_optional_scalar(scalar, name)
        if bad:
            return bad
    return None


def _emulator_checks(op: str, named: dict, out, out_name: str):
    for name, tensor in named.items():
        if len(tensor.view_shape) > MAX_DIM:
            return ACLNN_ERR_PARAM_INVALID, f"{name} has {len(tensor.view_shape)} dims; at most {MAX_DIM} are supported"
    first_name, first = next(iter(named.items()))
    for name, tensor in named.items():
        if tuple(tensor.view_shape) != tuple(first.view_shape):
            return ACLNN_ERR_PARAM_INVALID, (f"shape of {name} {tuple(tensor.view_shape)} must equal shape of "
                                             f"{first_name} {tuple(first.view_shape)}")
    if out.data_type in _COMPLEX_DTYPES:
        return ACLNN_ERR_PARAM_INVALID, f"{out_name} is {_dtype_name(out.data_type)}: a complex result is not emulated"
    for name, tensor in named.items():
        if tensor.format not in _PLAIN_FORMATS:
            return ACLNN_ERR_PARAM_INVALID, (f"{name} is in {_format_name(tensor.format)}; the emulated {op} takes "
                                             f"ND, NCHW or NHWC storage")
        message = _check_addressable(tensor, name) or _check_geometry(tensor, name)
        if message:
            return ACLNN_ERR_PARAM_INVALID, message
    if not out.storage.flags.writeable:
        return ACLNN_ERR_PARAM_INVALID, f"{out_name}'s data is read-only"
    return None


def _finish(op: str, named: dict, out, kernel_dtype, attrs, platform: Platform):
    ins = {k: v for k, v in named.items() if v is not out}
    if min(t.numel for t in ins.values()) == 0:
        return ACLNN_SUCCESS, aclSoftplusExecutor(op, ins, out, kernel_dtype, 0, None)
    operator = get_operator(op)
    refusal = operator.kernel_refusal(platform)
    if refusal:
        return ACLNN_ERR_INNER_NULLPTR, f"the {operator.kernel_op} launcher failed: {refusal}"
    try:
        tiling = operator.host_tiling(out.numel, kernel_dtype, attrs, platform)
    except ValueError as exc:
        return ACLNN_ERR_INNER_NULLPTR, f"the {operator.kernel_op} launcher failed: its host tiling refused: {exc}"
    return ACLNN_SUCCESS, aclSoftplusExecutor(op, ins, out, kernel_dtype, tiling.workspace_size, tiling)


def _forward(self_, beta, threshold, out, platform: Platform):
    named = {"self": self_, "out": out}
    for name, tensor in named.items():
        bad = live_tensor(tensor, name)
        if bad:
            return bad
    bad = _scalars({"beta": beta, "threshold": threshold})
    if bad:
        return bad
    allowed = tuple(c for c in _KERNEL_DTYPES if _with_bf16(platform) or c != ACL_BF16)
    if self_.data_type not in allowed:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of self is {_dtype_name(self_.data_type)}; on SoC "
                                         f"{platform.soc_family} it must be one of "
                                         f"{', '.join(_dtype_name(c) for c in allowed)}")
    for name, scalar in (("beta", beta), ("threshold", threshold)):
        if scalar.data_type in _COMPLEX_DTYPES:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} is {_dtype_name(scalar.data_type)}, which cannot be "
                                             f"cast to self's {_dtype_name(self_.data_type)}")
    if out.data_type not in _FLOATS + _COMPLEX_DTYPES:
        return ACLNN_ERR_PARAM_INVALID, (f"self's {_dtype_name(self_.data_type)} cannot be cast to out's "
                                         f"{_dtype_name(out.data_type)}")
    bad = _emulator_checks("Softplus", named, out, "out")
    if bad:
        return bad
    attrs = (to_float32(beta.value, argname="beta"), to_float32(threshold.value, argname="threshold"))
    return _finish("softplus", named, out, dtype_info(self_.dtype), attrs, platform)


def _backward(grad_output, self_, beta, threshold, grad_input, platform: Platform):
    named = {"gradOutput": grad_output, "self": self_, "gradInput": grad_input}
    for name, tensor in named.items():
        bad = live_tensor(tensor, name)
        if bad:
            return bad
    floats = tuple(c for c in _FLOATS if _with_bf16(platform) or c != ACL_BF16)
    for name, tensor in named.items():
        allowed = floats + (_INTEGERS if name == "self" else ())
        if tensor.data_type not in allowed:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} is {_dtype_name(tensor.data_type)}; on SoC "
                                             f"{platform.soc_family} it must be one of "
                                             f"{', '.join(_dtype_name(c) for c in allowed)}")
    bad = _emulator_checks("SoftplusBackward", named, grad_input, "gradInput")
    if bad:
        return bad
    bad = _scalars({"beta": beta, "threshold": threshold})
    if bad:
        return bad
    info = softplus_grad_op.kernel_dtype(grad_output.dtype, self_.dtype)   # the rule the functional face uses
    if info.acl_data_type == ACL_BF16 and bfloat16_refusal(platform):
        return ACLNN_ERR_PARAM_INVALID, f"dtype ACL_BF16: {bfloat16_refusal(platform)}"
    attrs = tuple(to_float32(s.value.real if s.data_type in _COMPLEX_DTYPES else s.value, argname=n)
                  for n, s in (("beta", beta), ("threshold", threshold)))
    return _finish("softplus_grad", named, grad_input, info, attrs, platform)


def aclnnSoftplusGetWorkspaceSize(self, beta, threshold, out):
    """Phase one of aclnnSoftplus: ``(status, workspace_size, executor)``; on failure ``(status, 0, None)``
    and :func:`aclGetRecentErrMsg` names the argument and rule."""
    return get_workspace_size("aclnnSoftplusGetWorkspaceSize", _forward, self, beta, threshold, out, get_platform())


def aclnnSoftplusBackwardGetWorkspaceSize(gradOutput, self, beta, threshold, gradInput):
    """Phase one of aclnnSoftplusBackward, as :func:`aclnnSoftplusGetWorkspaceSize`."""
    return get_workspace_size("aclnnSoftplusBackwardGetWorkspaceSize", _backward, gradOutput, self, beta, threshold,
                              gradInput, get_platform())


def _make_job(e: aclSoftplusExecutor, stream=None):
    saturation = stream is not None and stream.overflow_mode == "saturation"
    kernel = get_operator(e.op).kernels[e.tiling.architecture]
    numpy_dtype = e.kernel_dtype.numpy

    def job():
        out_view = tensor_view(e.out)
        # the op_api's Casts to the kernel's dtype (exact, or round to nearest even from float64 / int64)
        flat = [np.ascontiguousarray(tensor_view(t)).reshape(-1).astype(numpy_dtype, copy=False)
                for t in e.inputs.values()]
        result = np.empty(out_view.size, dtype=numpy_dtype)
        extra = {"saturation": True} if saturation else {}
        kernel.run(flat[0] if len(flat) == 2 else None, flat[-1], result, e.tiling, **extra)
        out_view[...] = result.reshape(out_view.shape).astype(_DTYPES[e.out.data_type][1])   # the Cast to out

    return job


def _launch(where: str, op: str, workspace, workspaceSize, executor, stream) -> int:
    ours = isinstance(executor, aclSoftplusExecutor) and executor.op == op
    tensors = {**executor.inputs, "out": executor.out} if ours else {}
    return queue_launch(where, executor, lambda e: isinstance(e, aclSoftplusExecutor) and e.op == op, tensors,
                        _make_job, workspace, workspaceSize, stream, saturation=get_operator(op).saturation)


def aclnnSoftplus(workspace, workspaceSize, executor, stream) -> int:
    """Phase two: queue the launch on ``stream``; results are defined after ``aclrtSynchronizeStream``."""
    return _launch("aclnnSoftplus", "softplus", workspace, workspaceSize, executor, stream)


def aclnnSoftplusBackward(workspace, workspaceSize, executor, stream) -> int:
    """Phase two of aclnnSoftplusBackward, as :func:`aclnnSoftplus`."""
    return _launch("aclnnSoftplusBackward", "softplus_grad", workspace, workspaceSize, executor, stream)
