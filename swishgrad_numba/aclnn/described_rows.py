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

from ..dtypes import to_float32
from ..faces.rows import axis_attribute, axis_input, double_refusal, dtypes_with, outputs
from ..ops.registry import get_operator
from .enums import (ACL_DTYPES, ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_SUCCESS, MAX_DIM,
                    dtype_name)
from .state import get_platform
from .tensor import check_emulator_storage
from .described import launcher
from .twophase import get_workspace_size, live_tensor, tensor_view

__all__ = ["aclRowsExecutor", "faces", "ACLNN_ERR_INNER_TILING_ERROR"]

#: aclnnRmsNorm's page's code for a shape or attribute its host tiling refuses (``Rows.status``).
ACLNN_ERR_INNER_TILING_ERROR = 561002

_CODE = {dtype.name: code for code, (_name, dtype) in ACL_DTYPES.items()}


@dataclass(eq=False)
class aclRowsExecutor:
    """What phase one prepared; runs once. ``tiling`` None: an empty launch."""

    op: str
    inputs: tuple
    outs: tuple              # ((aclnn name, aclTensor), ...): the outputs
    workspace_size: int
    tiling: object
    used: bool = False


def _axis_rules_acl(desc, xs: tuple, dim):
    """The axis ``dim`` of an axis input of shape ``xs``: normalised, or ``(status, message)``."""
    a, x = axis_attribute(desc), axis_input(desc)
    if isinstance(dim, (bool, np.bool_)) or not isinstance(dim, (int, np.integer)):
        return ACLNN_ERR_PARAM_INVALID, f"{a.acl} must be an int64 (an integer), got {type(dim).__name__}"
    if not -len(xs) <= int(dim) < len(xs):
        return desc.rows.status, (f"{a.acl} {int(dim)} must lie in [{-len(xs)}, {len(xs) - 1}] for {x.acl} of "
                                  f"{len(xs)} dimensions")
    why = desc.rows.axis_rule(xs, int(dim)) if desc.rows.axis_rule is not None else None
    return (desc.rows.status, why) if why else int(dim) % len(xs)


def _trailing_axis_acl(desc, named: dict, xs: tuple):
    """``Rows.axis_from``: the row is x's last axes, that input's shape; ``d``, or ``(status, message)``."""
    g = next(i for i in desc.inputs if i.name == desc.rows.axis_from)
    gs = tuple(named[g.acl].view_shape)
    if len(gs) > len(xs) or xs[len(xs) - len(gs):] != gs:
        return desc.rows.status, f"shape of {g.acl} {gs} must be the last {len(gs)} axes of {axis_input(desc).acl} {xs}"
    d = len(xs) - len(gs)
    why = desc.rows.axis_rule(xs, d) if desc.rows.axis_rule is not None else None
    return (desc.rows.status, why) if why else d


def _dtypes(desc, named: dict, outs: dict, platform):
    """The dtype rules: the axis input in the SoC's list, every other tensor as ``dtypes_with`` says; or a refusal."""
    x = axis_input(desc)
    xt = named[x.acl]
    allowed = tuple(_CODE[n] for n in desc.dtypes_on(platform.soc_family))
    if xt.data_type not in allowed:
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of {x.acl} is {dtype_name(xt.data_type)}; on SoC "
                                         f"{platform.soc_family} it must be one of "
                                         f"{', '.join(dtype_name(c) for c in allowed)}")
    others = dtypes_with(desc, ACL_DTYPES[xt.data_type][1].name)
    acl_of = {**{i.name: i.acl for i in desc.inputs}, **dict(outputs(desc))}
    tensors = {**named, **outs}
    for name, ok in others.items():
        t = tensors[acl_of[name]]
        codes = tuple(_CODE[n] for n in ok)
        if t.data_type not in codes:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {acl_of[name]} is {dtype_name(t.data_type)}; with {x.acl} "
                                             f"{dtype_name(xt.data_type)} it must be "
                                             f"{' or '.join(dtype_name(c) for c in codes)}")
    return None


def _phase_one(desc, tensors: tuple, attrs: dict, outs: tuple, platform):
    named = tuple((i.acl, t) for i, t in zip(desc.inputs, tensors))
    out_named = tuple((acl, t) for (_, acl), t in zip(outputs(desc), outs))
    for name, tensor in named + out_named:
        bad = live_tensor(tensor, name)
        if bad:
            return bad
    bad = _dtypes(desc, dict(named), dict(out_named), platform)
    if bad:
        return bad
    for a in (a for a in desc.attributes if a.kind == "float"):   # a C double (aclnnRmsNorm's epsilon)
        why = double_refusal(a.acl, attrs[a.name])
        if why:
            return ACLNN_ERR_PARAM_INVALID, why
    x_acl = axis_input(desc).acl
    limit = min(MAX_DIM, desc.max_dims or MAX_DIM)
    for name, tensor in named:
        if len(tensor.view_shape) > limit:
            return desc.rows.status, f"{name} has {len(tensor.view_shape)} dims; at most {limit} are supported"
        if not tensor.view_shape and (name == x_acl or name in (i.acl for i in desc.inputs
                                                              if i.name == desc.rows.axis_from)):
            return desc.rows.status, f"{name} has 0 dims; it must have 1 to {limit}"
    xs = tuple(dict(named)[x_acl].view_shape)
    d = (_trailing_axis_acl(desc, dict(named), xs) if desc.rows.axis_from
         else _axis_rules_acl(desc, xs, attrs[axis_attribute(desc).name]))
    if isinstance(d, tuple):
        return d
    shapes = desc.rows.shapes(xs, d)
    acl_name = {**{i.acl: i.name for i in desc.inputs}, **{acl: n for n, acl in outputs(desc)}}
    for name, tensor in tuple((n, t) for n, t in named if n != x_acl) + out_named:
        want, got = tuple(shapes[acl_name[name]]), tuple(tensor.view_shape)
        ok = desc.rows.acl_shape_ok.get(acl_name[name])
        if got != want and not (ok is not None and ok(got, xs, d)):
            return desc.rows.status, (f"shape of {name} {got} must be {want} ({desc.rows.says.get(acl_name[name], '')}"
                                      f": {x_acl} {xs})")
    for rule in desc.rules:
        if rule.refuses(attrs):
            return desc.rows.status, rule.says.format(value=repr(attrs.get(rule.value_of)),
                                                      **{a.name: a.acl for a in desc.attributes})
    empty = any(t.numel == 0 for _, t in named)
    if empty and desc.rows.empty:
        return ACLNN_ERR_PARAM_INVALID, desc.rows.empty.format(x=xs)
    bad = check_emulator_storage(named + out_named, out_named[0][1], out_named[0][0])
    if bad:
        return bad
    if empty:
        return ACLNN_SUCCESS, aclRowsExecutor(desc.name, named, out_named, 0, None)
    operator = get_operator(desc.name)
    if operator.kernel_refusal(platform):
        return ACLNN_ERR_INNER_NULLPTR, f"the {desc.kernel_op} launcher failed: {operator.kernel_refusal(platform)}"
    dtypes = {i.name: ACL_DTYPES[t.data_type][1] for i, (_, t) in zip(desc.inputs, named)}
    floats = {a.name: to_float32(attrs[a.name], argname=a.acl) for a in desc.attributes if a.kind == "float"}
    try:
        tiling = desc.rows.tiling(xs, d, dtypes, floats, platform)
    except ValueError as exc:
        return ACLNN_ERR_INNER_NULLPTR, f"the {desc.kernel_op} launcher failed: its host tiling refused: {exc}"
    return ACLNN_SUCCESS, aclRowsExecutor(desc.name, named, out_named, desc.rows.workspace(tiling), tiling)


def _make_job(desc):
    def make_job(e: aclRowsExecutor, stream=None):
        def job():
            arrays = tuple(np.ascontiguousarray(tensor_view(t)) for _, t in e.inputs)
            got = desc.rows.launch(arrays, e.tiling)
            for (_, t), r in zip(e.outs, got if len(e.outs) > 1 else (got,)):
                view = tensor_view(t)
                view[...] = r.reshape(view.shape)

        return job

    return make_job


def faces(name: str) -> dict:
    """Row operator ``name``'s aclnn entry points, by their C names (generated from its description)."""
    desc = get_operator(name).described_by
    ws_name, launch_name = desc.aclnn
    outs = outputs(desc)
    order = tuple(desc.acl_order or [i.acl for i in desc.inputs] + [a.acl for a in desc.attributes]) + tuple(
        acl for _, acl in outs)
    n = len(order)

    def get_ws(*args):
        if len(args) != n:
            raise TypeError(f"{ws_name} takes {n} arguments, got {len(args)}")
        by = dict(zip(order, args))
        return get_workspace_size(ws_name, _phase_one, desc, tuple(by[i.acl] for i in desc.inputs),
                                  {a.name: by[a.acl] for a in desc.attributes}, tuple(by[acl] for _, acl in outs),
                                  get_platform())

    get_ws.__name__ = get_ws.__qualname__ = ws_name
    get_ws.__signature__ = inspect.Signature([inspect.Parameter(a, inspect.Parameter.POSITIONAL_ONLY) for a in order])
    get_ws.__doc__ = (f"Phase one of {launch_name}({', '.join(order)}): ``(status, workspace_size, executor)``; on "
                      f"failure ``(status, 0, None)`` and ``aclGetRecentErrMsg`` names the argument and rule.")
    return {ws_name: get_ws, launch_name: launcher(desc, launch_name, _make_job(desc), aclRowsExecutor)}
