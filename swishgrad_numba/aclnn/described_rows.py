"""The aclnn two-phase pairs of the row operators (a description with the "rows" kernel kind,
:class:`swishgrad_numba.ops.description.Rows`), generated (issue 40): aclnnSwiGlu and aclnnSwiGluGrad.

Phase one checks, in this order: null pointers (the inputs, then the output: 161001); each input's dtype in the
description's list on the platform's SoC, then every tensor (the output too) of the axis input's dtype (161002);
the ranks (the axis input at least 1); the axis (an integer, ``[-x.dim(), x.dim() - 1]``, ``Rows.axis_rule``);
every other tensor's shape as ``Rows.shapes`` gives it (161002); an empty input refused where the description
says so (161002); the emulator's storage checks; an empty input then succeeds with workspace 0 and launches
nothing; a SoC whose kernel is not modelled answers 561103; else the platform's host tiling is taken and the
workspace is the description's (``Rows.workspace``). Phase two runs the kernel into the output's view.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np

from ..faces.rows import axis_attribute, axis_input
from ..ops.registry import get_operator
from .enums import (ACL_DTYPES, ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_SUCCESS, MAX_DIM,
                    dtype_name)
from .state import get_platform
from .tensor import aclTensor, check_emulator_storage
from .described import launcher
from .twophase import get_workspace_size, live_tensor, tensor_view

__all__ = ["aclRowsExecutor", "faces"]

_CODE = {dtype.name: code for code, (_name, dtype) in ACL_DTYPES.items()}


@dataclass(eq=False)
class aclRowsExecutor:
    """What phase one prepared; runs once. ``tiling`` None: an empty launch."""

    op: str
    inputs: tuple
    out: aclTensor
    workspace_size: int
    tiling: object
    used: bool = False


def _axis_rules_acl(desc, xs: tuple, dim):
    """The axis ``dim`` of an axis input of shape ``xs``: normalised, or why not (a message)."""
    a, x = axis_attribute(desc), axis_input(desc)
    if isinstance(dim, (bool, np.bool_)) or not isinstance(dim, (int, np.integer)):
        return f"{a.acl} must be an int64 (an integer), got {type(dim).__name__}"
    if not -len(xs) <= int(dim) < len(xs):
        return f"{a.acl} {int(dim)} must lie in [{-len(xs)}, {len(xs) - 1}] for {x.acl} of {len(xs)} dimensions"
    why = desc.rows.axis_rule(xs, int(dim)) if desc.rows.axis_rule is not None else None
    return why or int(dim) % len(xs)


def _phase_one(desc, tensors: tuple, dim, out, platform):
    named = tuple((i.acl, t) for i, t in zip(desc.inputs, tensors))
    for name, tensor in named + ((desc.out, out),):
        bad = live_tensor(tensor, name)
        if bad:
            return bad
    x_acl = axis_input(desc).acl
    x = dict(named)[x_acl]
    allowed = tuple(_CODE[n] for n in desc.dtypes_on(platform.soc_family))
    for name, tensor in named:
        if tensor.data_type not in allowed:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} is {dtype_name(tensor.data_type)}; on SoC "
                                             f"{platform.soc_family} it must be one of "
                                             f"{', '.join(dtype_name(c) for c in allowed)}")
    for name, tensor in named + ((desc.out, out),):
        if tensor.data_type != x.data_type:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} is {dtype_name(tensor.data_type)}; it must be "
                                             f"{x_acl}'s ({dtype_name(x.data_type)})")
    limit = min(MAX_DIM, desc.max_dims or MAX_DIM)
    for name, tensor in named:
        if len(tensor.view_shape) > limit:
            return ACLNN_ERR_PARAM_INVALID, f"{name} has {len(tensor.view_shape)} dims; at most {limit} are supported"
    xs = tuple(x.view_shape)
    if not xs:
        return ACLNN_ERR_PARAM_INVALID, f"{x_acl} has 0 dims; it must have 1 to {limit}"
    d = _axis_rules_acl(desc, xs, dim)
    if isinstance(d, str):
        return ACLNN_ERR_PARAM_INVALID, d
    shapes = desc.rows.shapes(xs, d)
    by_acl = {i.acl: shapes[i.name] for i in desc.inputs}
    for name, tensor in tuple((n, t) for n, t in named if n != x_acl) + ((desc.out, out),):
        want = tuple(by_acl.get(name, shapes["out"]))
        if tuple(tensor.view_shape) != want:
            says = desc.rows.says.get("out" if name == desc.out else next(i.name for i in desc.inputs
                                                                          if i.acl == name), "")
            return ACLNN_ERR_PARAM_INVALID, (f"shape of {name} {tuple(tensor.view_shape)} must be {want} ({says}: "
                                             f"{x_acl} {xs}, {axis_attribute(desc).acl} {int(dim)})")
    empty = any(t.numel == 0 for _, t in named)
    if empty and desc.rows.empty:
        return ACLNN_ERR_PARAM_INVALID, desc.rows.empty.format(x=xs)
    bad = check_emulator_storage(named + ((desc.out, out),), out, desc.out)
    if bad:
        return bad
    if empty:
        return ACLNN_SUCCESS, aclRowsExecutor(desc.name, named, out, 0, None)
    operator = get_operator(desc.name)
    if operator.kernel_refusal(platform):
        return ACLNN_ERR_INNER_NULLPTR, f"the {desc.kernel_op} launcher failed: {operator.kernel_refusal(platform)}"
    try:
        tiling = desc.rows.tiling(xs, d, ACL_DTYPES[x.data_type][1].name, platform)
    except ValueError as exc:
        return ACLNN_ERR_INNER_NULLPTR, f"the {desc.kernel_op} launcher failed: its host tiling refused: {exc}"
    return ACLNN_SUCCESS, aclRowsExecutor(desc.name, named, out, desc.rows.workspace(tiling), tiling)


def _make_job(desc):
    def make_job(e: aclRowsExecutor, stream=None):
        def job():
            arrays = tuple(np.ascontiguousarray(tensor_view(t)) for _, t in e.inputs)
            out_view = tensor_view(e.out)
            out_view[...] = desc.rows.launch(arrays, e.tiling).reshape(out_view.shape)

        return job

    return make_job


def faces(name: str) -> dict:
    """Row operator ``name``'s aclnn entry points, by their C names (generated from its description)."""
    desc = get_operator(name).described_by
    ws_name, launch_name = desc.aclnn
    order = desc.acl_arguments
    n = len(order)

    def get_ws(*args):
        if len(args) != n:
            raise TypeError(f"{ws_name} takes {n} arguments, got {len(args)}")
        by = dict(zip(order, args))
        return get_workspace_size(ws_name, _phase_one, desc, tuple(by[i.acl] for i in desc.inputs),
                                  by[axis_attribute(desc).acl], by[desc.out], get_platform())

    get_ws.__name__ = get_ws.__qualname__ = ws_name
    get_ws.__signature__ = inspect.Signature([inspect.Parameter(a, inspect.Parameter.POSITIONAL_ONLY) for a in order])
    get_ws.__doc__ = (f"Phase one of {launch_name}({', '.join(order)}): ``(status, workspace_size, executor)``; on "
                      f"failure ``(status, 0, None)`` and ``aclGetRecentErrMsg`` names the argument and rule.")
    return {ws_name: get_ws, launch_name: launcher(desc, launch_name, _make_job(desc), aclRowsExecutor)}
