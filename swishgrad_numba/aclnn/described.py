"""The aclnn two-phase pairs of the described operators (:mod:`swishgrad_numba.ops.description`), generated.

:func:`faces` makes an operator's ``...GetWorkspaceSize`` and launch (and its in-place pair, where the
description names one) from its description, its arguments in the description's ``acl_arguments``
order. Phase one checks, in the op_apis' order: null pointers (in the signature's order where the
description gives ``acl_order``, else the tensors, then the float attributes' scalars: 161001); the
description's ``op_api_checks`` where it has them (161002: aclnnFastGelu's order); the input dtypes in
the description's list on the platform's SoC (with an input's ``extra_dtypes``), and a scalar's dtype in
its attribute's list where the op_api checks one; the ranks; the shapes (broadcast to the output's, or
equal to it); a bool attribute; the rules; the output a floating dtype the result can be
Cast to; ``ToFloat`` of the scalars (161002). Empty tensors succeed with workspace 0; an AICPU dtype (of
the promoted dtype) runs the description's plain model on any platform; the others the kernel, in the
promoted dtype (float32 where ``promotion="float32"`` Casts the inputs) or the dtype the description's
``path`` picks by attribute value if it picks one, whose host tiling is taken in phase one (a platform
with no kernel: 561103, naming the reason). Phase two Casts the inputs to that dtype, runs, and Casts
the result to the output's dtype (round to nearest even). Issue 41: ``out_listed`` checks the output's dtype
against the inputs' SoC list too; ``broadcast_to`` BroadcastTo's the inputs to the output's shape for the
element-wise kernel; a saturation stream runs the kernel in that mode, and a kernel with an Axpy rounds it as
phase one's platform says.
The description's optional fields also include ``acl_refusals`` (a listed dtype refused at the dtype check,
naming why) and ``out_dtypes`` (a complex output; a complex promoted dtype refused for a real one).
aclnnSwishBackward's (issue 40): ``storage_formats`` (private storage formats an architecture's kernel takes,
:mod:`.storage`), ``tiling_parameter_error`` (a platform that cannot be tiled: 161002, not 561103) and
``no_saturation_on`` (a kernel with no saturation mode: the launch fails at the synchronize). A contiguous output
of the kernel's dtype apart from the inputs takes the kernel's result directly.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np

from ..dtypes import DTYPES, to_float32
from ..ops import OpTiling, get_operator
from ..faces.functional import attr32_of as _attr32
from ..ops.call import host_tiling
from ..ops.description import complex_promotion
from ..arguments import block_size_refusal, may_share
from ..platform import ARCH_A2, Platform
from .enums import ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, ACLNN_SUCCESS, MAX_DIM
from .enums import ACL_DTYPES, dtype_name
from .state import get_platform
from .storage import check_storage, flat_arrays, kernel_format_refusal, tiled_numel
from .tensor import aclScalar, aclTensor
from .twophase import get_workspace_size, live_optional_scalar, live_tensor, queue_launch

__all__ = ["aclDescribedExecutor", "aclOpExecutor", "faces", "launcher"]

#: numpy dtype name -> aclDataType.
_CODE = {dtype.name: code for code, (_name, dtype) in ACL_DTYPES.items()}
#: aclDataType -> numpy dtype name (``dtype.name`` is built on every access), and -> the kernel dtype row.
_NAME_OF = {code: dtype.name for code, (_name, dtype) in ACL_DTYPES.items()}
_INFO_OF = {i.acl_data_type: i for i in DTYPES.values()}
#: The output dtypes whose Cast is emulated.
_FLOATS = tuple(_CODE[n] for n in ("float32", "float16", "float64", "bfloat16"))


@dataclass(eq=False)
class aclDescribedExecutor:
    """What phase one prepared; runs once. ``tiling``: the host tiling, ``"aicpu"``, or None (empty)."""

    op: str
    inputs: tuple
    out: aclTensor
    compute: np.dtype
    attrs: dict
    workspace_size: int
    tiling: OpTiling | str | None
    used: bool = False
    platform: Platform | None = None   # the kernel's (its Axpy rounding, where the description has ``axpy``)


#: The C type of an executor (``aclOpExecutor*``): what every generated pair's phase one prepares.
aclOpExecutor = aclDescribedExecutor


def _live_scalar(scalar, name):
    if scalar is None:
        return ACLNN_ERR_PARAM_NULLPTR, f"{name} is a null pointer (None)"
    if not isinstance(scalar, aclScalar) or scalar.destroyed:
        return ACLNN_ERR_PARAM_NULLPTR, f"{name} must be a live aclScalar, got {scalar!r}"
    return None


def _promoted(desc, codes) -> int:
    """The dtype the launch computes in: the promoted one (``"promote"``, ``"same"``), or for ``"float32"``
    the inputs' own where they agree and the kernel takes it, else float32."""
    names = [_NAME_OF[c] for c in codes]
    if desc.promotion == "float32":
        same = all(n == names[0] for n in names) and names[0] in ("float32", "float16", "bfloat16")
        return codes[0] if same else _CODE["float32"]
    if all(n == names[0] for n in names):
        return codes[0]
    cplx = complex_promotion(names)   # op::PromoteType with a complex input (aclnnSigmoidBackward's)
    if cplx is not None:
        return _CODE[cplx]
    return _CODE["float64"] if "float64" in names else _CODE["float32"]


def _prepare(desc, ins: tuple, out, compute: int, attrs, platform: Platform):
    """The executor of a checked launch: the kernel that runs it and its host tiling."""
    dtype = ACL_DTYPES[compute][1]
    if min(t.numel for _, t in ins) == 0:
        return ACLNN_SUCCESS, aclDescribedExecutor(desc.name, ins, out, dtype, attrs, 0, None)
    if _NAME_OF[compute] in desc.aicpu_dtypes:
        return ACLNN_SUCCESS, aclDescribedExecutor(desc.name, ins, out, dtype, attrs, 0, "aicpu")
    if _NAME_OF[compute] in desc.exact_dtypes:   # an integer dtype: the exact host model (issue 41)
        return ACLNN_SUCCESS, aclDescribedExecutor(desc.name, ins, out, dtype, attrs, 0, ("exact", platform))
    operator = get_operator(desc.name)
    if operator.kernel_refusal(platform):
        return ACLNN_ERR_INNER_NULLPTR, f"the {operator.kernel_op} launcher failed: {operator.kernel_refusal(platform)}"
    said = kernel_format_refusal(desc, ins + ((desc.out, out),), platform) if desc.storage_formats else None
    if said:   # a private storage format the platform's kernel does not take (storage_formats)
        return ACLNN_ERR_PARAM_INVALID, said
    info, numel = _INFO_OF[compute], tiled_numel(out)
    refusal = block_size_refusal(platform.block_size, info) if platform.architecture == ARCH_A2 else None
    if refusal and not desc.tiling_parameter_error:   # the functional face's rule: the A2 hosts count in blocks
        return ACLNN_ERR_PARAM_INVALID, f"the host tiling fails on the platform set by set_platform: {refusal}"
    shapes = tuple(tuple(t.view_shape) for _, t in ins)
    try:
        if refusal:
            raise ValueError(refusal)
        if len(set(shapes)) == 1 or desc.broadcast_to:
            tiling = host_tiling(desc.name, numel, info, _attr32(desc, attrs), platform)
        else:
            tiling = desc.shaped_tiling(shapes, info, _attr32(desc, attrs), platform)
    except ValueError as exc:
        if desc.tiling_parameter_error:   # the platform set by set_platform cannot be tiled: a parameter error
            return ACLNN_ERR_PARAM_INVALID, (f"the host tiling of {numel} {dtype_name(compute)} elements for the "
                                             f"platform set by set_platform (soc_version {platform.soc_version!r}) "
                                             f"failed: {exc}")
        return ACLNN_ERR_INNER_NULLPTR, f"the {operator.kernel_op} launcher failed: its host tiling refused: {exc}"
    return ACLNN_SUCCESS, aclDescribedExecutor(desc.name, ins, out, dtype, attrs, tiling.workspace_size, tiling,
                                               platform=platform)


def _phase_one(desc, tensors: tuple, scalars: tuple, out, platform: Platform, inplace: bool = False):
    """``tensors``: the inputs in order; ``scalars``: the attributes' values in order (aclScalars for the
    float ones); ``out``: the output tensor."""
    named = tuple((i.acl, t) for i, t in zip(desc.inputs, tensors))
    values = dict(zip((a.name for a in desc.attributes), scalars))
    nullable = {**dict(named), desc.out: out, **{a.acl: values[a.name] for a in desc.float_attributes}}
    order = desc.acl_arguments if desc.acl_order else [n for n, _ in named] + [desc.out] + [
        a.acl for a in desc.float_attributes]
    optional = {a.acl for a in desc.float_attributes if a.optional}
    for name in (n for n in order if n in nullable and not (n in optional and nullable[n] is None)):
        is_scalar = name not in dict(named) and name != desc.out
        check = (live_optional_scalar if name in optional else _live_scalar) if is_scalar else live_tensor
        bad = check(nullable[name], name)
        if bad:
            return bad
    for a in (a for a in desc.attributes if a.kind == "choice"):   # a string of a fixed set (GeluV2's approximate)
        if values[a.name] is None:
            return ACLNN_ERR_PARAM_NULLPTR, f"{a.acl} is a null pointer"
        if a.acl_codes is not None:   # an integer code in the aclnn signature (aclnnGeluV2's): its choice
            if not isinstance(values[a.name], (int, np.integer)) or isinstance(values[a.name], (bool, np.bool_)):
                return ACLNN_ERR_PARAM_INVALID, (f"{a.acl} must be an integer (its code), got "
                                                 f"{type(values[a.name]).__name__}")
            values[a.name] = a.acl_codes.get(int(values[a.name]), a.default)
        if not isinstance(values[a.name], str) or values[a.name] not in a.choices:
            return ACLNN_ERR_PARAM_INVALID, (f"{a.acl} is {values[a.name]!r}; it must be "
                                             f"{' or '.join(map(repr, a.choices))}")
    if desc.op_api_checks is not None:   # the op_api's own checks, in its order (aclnnFastGelu's)
        said = desc.op_api_checks(desc, named, desc.out, out, platform,
                                  scalars={a.acl: values[a.name] for a in desc.attributes})
        if said:
            return ACLNN_ERR_PARAM_INVALID, said
    allowed = _allowed_codes(desc, platform.soc_family)
    checks = [(name, t.data_type, allowed + tuple(_CODE[n] for n in i.extra_dtypes))
              for i, (name, t) in zip(desc.inputs, named)]
    for a in desc.float_attributes:
        if a.scalar_dtypes is not None and values[a.name] is not None:
            scalars_ok = tuple(_CODE[n] for n in a.scalar_dtypes if n != "bfloat16" or _CODE[n] in allowed)
            checks.append((a.acl, values[a.name].data_type, scalars_ok))
    if desc.out_listed:   # the output in the inputs' SoC list too (aclnnHardswish, aclnnMishBackward)
        checks.append((desc.out, out.data_type, allowed))
    for name, code, ok in checks:
        why = desc.acl_refusals.get(ACL_DTYPES[code][1].name) if code not in ok and code in ACL_DTYPES else None
        if why:   # in the op_api's list, its run not modelled (aclnnSigmoid's float64, complex, integers)
            return ACLNN_ERR_PARAM_INVALID, f"dtype of {name} is {dtype_name(code)}: {why}"
        if code not in ok:
            return ACLNN_ERR_PARAM_INVALID, (f"dtype of {name} is {dtype_name(code)}; on SoC {platform.soc_family} "
                                             f"it must be one of {', '.join(dtype_name(c) for c in ok)}")
    for name, tensor in named if desc.max_dims is not None else ():
        if len(tensor.view_shape) > min(MAX_DIM, desc.max_dims):
            return ACLNN_ERR_PARAM_INVALID, (f"{name} has {len(tensor.view_shape)} dims; at most "
                                             f"{min(MAX_DIM, desc.max_dims)} are supported")
    shapes = tuple(tuple(t.view_shape) for _, t in named)
    one_shape = desc.one_shape(platform)   # aclnnSiluBackward without regbase: one dtype, one shape
    if one_shape and any(t.data_type != out.data_type for _, t in named):
        return ACLNN_ERR_PARAM_INVALID, (f"dtypes of {', '.join(n for n, _ in named)} must equal dtype of {desc.out} "
                                         f"({dtype_name(out.data_type)}) on a {platform.architecture} platform")
    if desc.broadcast and len(named) > 1 and not one_shape:
        try:
            shape = tuple(np.broadcast_shapes(*shapes))
        except ValueError:
            listed = " and ".join(f"{n} {s}" for (n, _), s in zip(named, shapes))
            return ACLNN_ERR_PARAM_INVALID, f"shapes of {listed} do not broadcast"
        if shape != tuple(out.view_shape):
            return ACLNN_ERR_PARAM_INVALID, (f"broadcast shape {shape} of {' and '.join(n for n, _ in named)} must "
                                             f"equal shape of {desc.out} {tuple(out.view_shape)}")
    else:
        for name, s in zip((n for n, _ in named), shapes):
            if s != tuple(out.view_shape):
                return ACLNN_ERR_PARAM_INVALID, f"shape of {desc.out} {out.view_shape} must equal shape of {name} {s}"
    for a in desc.attributes:
        if a.kind == "bool" and not isinstance(values[a.name], (bool, np.bool_)):
            return ACLNN_ERR_PARAM_INVALID, f"{a.acl} must be a bool, got {type(values[a.name]).__name__}"
    raw = {a.name: (a.default if values[a.name] is None else values[a.name].value) if a.kind == "float"
           else values[a.name] for a in desc.attributes}
    for rule in desc.rules:
        if rule.refuses(raw):
            return ACLNN_ERR_PARAM_INVALID, rule.says.format(value=repr(raw.get(rule.value_of)),
                                                             **{a.name: a.acl for a in desc.attributes})
    promoted = _promoted(desc, [t.data_type for _, t in named])
    if desc.promotion == "same" and any(t.data_type != promoted for _, t in named):
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of {named[0][0]} ({dtype_name(named[0][1].data_type)}) must equal "
                                         f"dtype of {named[-1][0]} ({dtype_name(named[-1][1].data_type)})")
    compute = promoted
    if desc.out_same_dtype and out.data_type != promoted:
        whose = (f"dtype of {named[-1][0]}" if named[-1][1].data_type == promoted
                 else f"the promoted dtype of {' and '.join(n for n, _ in named)}")
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of {desc.out} ({dtype_name(out.data_type)}) must equal {whose} "
                                         f"({dtype_name(promoted)})")
    also = tuple(_CODE[n] for n in desc.out_dtypes)   # out_dtypes: a complex output (aclnnSigmoid's)
    if ACL_DTYPES[promoted][1].kind == "c" and out.data_type not in also:
        return ACLNN_ERR_PARAM_INVALID, (f"the promoted dtype {dtype_name(promoted)} of "
                                         f"{' and '.join(n for n, _ in named)} cannot be Cast to {desc.out}'s "
                                         f"{dtype_name(out.data_type)}")
    if out.data_type not in _FLOATS + also and not (_NAME_OF[promoted] in desc.exact_dtypes
                                                    and out.data_type == promoted):
        return ACLNN_ERR_PARAM_INVALID, (f"dtype of {desc.out} is {dtype_name(out.data_type)}: the Cast of the "
                                         f"{dtype_name(promoted)} result to it is not emulated (floating only)")
    attrs = dict(raw)
    for a in desc.float_attributes:
        try:
            attrs[a.name] = to_float32(raw[a.name], argname=a.acl)
        except TypeError as exc:
            return ACLNN_ERR_PARAM_INVALID, f"{exc} (ToFloat of a complex scalar is not emulated)"
    if desc.path is not None:
        picked = desc.path(attrs, ACL_DTYPES[promoted][1])
        compute = promoted if picked is None else _CODE[np.dtype(picked).name]
    bad = check_storage(desc, named if inplace else named + ((desc.out, out),), out, desc.out)
    return bad or _prepare(desc, named, out, compute, attrs, platform)


def _make_job(desc):
    def make_job(e: aclDescribedExecutor, stream=None):
        def job():
            arrays, out_view = flat_arrays(e.inputs, e.out)   # a private format's storages (storage_formats)
            # the op_api's Casts to the promoted dtype: exact widenings
            with np.errstate(over="ignore"):   # a path's float32 narrows a float64 self
                ins = [a.astype(e.compute, copy=False) for a in arrays]
            if desc.broadcast_to:   # the op_api's BroadcastTo the output's shape (aclnnMishBackward)
                shapes = [tuple(t.view_shape) for _, t in e.inputs]   # ascontiguousarray made a 0-d one 1-d
                ins = [np.broadcast_to(a.reshape(s), out_view.shape) for a, s in zip(ins, shapes)]
            if isinstance(e.tiling, tuple) and e.tiling[0] == "exact":
                shape = np.broadcast_shapes(*(a.shape for a in ins))
                result = desc.exact([np.broadcast_to(a, shape) for a in ins],
                                    [e.attrs[a.name] for a in desc.float_attributes], e.tiling[1])
            elif e.tiling == "aicpu":
                result = desc.aicpu(*ins, *(e.attrs[a.name] for a in desc.float_attributes))
            else:
                info = next(i for i in DTYPES.values() if i.numpy == e.compute)
                options = _run_options(e, stream)
                if len({a.shape for a in ins}) == 1:
                    # contiguous: a BroadcastTo view of one element reshapes to a stride-0 view
                    flat = [np.ascontiguousarray(a).reshape(-1) for a in ins]
                    # an output of the kernel's dtype, contiguous and apart from the inputs, takes the result
                    # directly (no output-sized buffer); else the result is computed aside, Cast and copied
                    direct = (out_view.dtype == e.compute and out_view.flags.c_contiguous
                              and not any(may_share(out_view, a) for a in flat))
                    result = out_view if direct else np.empty(out_view.shape, dtype=e.compute)
                    grad = flat[0] if len(flat) == 2 else None
                    get_operator(desc.name).kernels[e.tiling.architecture].run(grad, flat[-1], result.reshape(-1),
                                                                               e.tiling, **options)
                    if direct:
                        return
                else:
                    # the broadcast walks of the operators with an Axpy take the same options (GeluGrad's)
                    result = np.empty(out_view.shape, dtype=e.compute)
                    desc.shaped_launch(tuple(ins), result, e.tiling, info, **(options if desc.axpy else {}))
            with np.errstate(all="ignore"):
                out_view[...] = result.astype(out_view.dtype)   # Cast to the output's dtype, then ViewCopy

        return job

    return make_job


def _phase_two(desc, where: str):
    return launcher(desc, where, _make_job(desc), aclDescribedExecutor)


def launcher(desc, where: str, make_job, executor_type):
    """Phase two of a described operator's pair: ``where(workspace, workspaceSize, executor, stream)`` queues
    ``make_job(executor, stream)`` for an executor of ``executor_type`` made for ``desc`` (its ``op``, its
    ``inputs``, its ``out``); the row operators' pairs share it (:mod:`.described_rows`)."""
    def is_ours(e):
        return isinstance(e, executor_type) and e.op == desc.name

    def launch(workspace, workspaceSize, executor, stream) -> int:
        if is_ours(executor):   # the outputs: one, or a row operator's several (``outs``)
            outs = executor.outs if hasattr(executor, "outs") else ((desc.out, executor.out),)
            tensors = dict(executor.inputs + tuple(outs))
        else:
            tensors = {}
        return queue_launch(where, executor, is_ours, tensors, make_job, workspace, workspaceSize, stream,
                            saturation=get_operator(desc.name).saturation)

    launch.__name__ = launch.__qualname__ = where
    launch.__doc__ = (f"Phase two of {where}: queue the launch on ``stream``; results are defined after "
                      f"``aclrtSynchronizeStream``.")
    return launch


def _signature(names) -> inspect.Signature:
    return inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_ONLY) for n in names])


def faces(name: str) -> dict:
    """Operator ``name``'s aclnn entry points, by their C names (generated from its description)."""
    desc = get_operator(name).described_by
    n_in, n_attr = len(desc.inputs), len(desc.attributes)
    ws_name, launch_name = desc.aclnn
    order = desc.acl_arguments

    def get_ws(*args):
        if len(args) != n_in + n_attr + 1:
            raise TypeError(f"{ws_name} takes {n_in + n_attr + 1} arguments, got {len(args)}")
        by = dict(zip(order, args))
        return get_workspace_size(ws_name, _phase_one, desc, tuple(by[i.acl] for i in desc.inputs),
                                  tuple(by[a.acl] for a in desc.attributes), by[desc.out], get_platform())

    acl_args = ", ".join(order)
    get_ws.__name__ = get_ws.__qualname__ = ws_name
    get_ws.__signature__ = _signature(order)
    get_ws.__doc__ = (f"Phase one of {launch_name}({acl_args}): ``(status, workspace_size, executor)``; on "
                      f"failure ``(status, 0, None)`` and ``aclGetRecentErrMsg`` names the argument and rule.")
    out = {ws_name: get_ws, launch_name: _phase_two(desc, launch_name)}
    if desc.aclnn_inplace:
        ip_ws, ip_launch = desc.aclnn_inplace

        def get_ws_inplace(*args):
            if len(args) != n_in + n_attr:
                raise TypeError(f"{ip_ws} takes {n_in + n_attr} arguments, got {len(args)}")
            return get_workspace_size(ip_ws, _phase_one, desc, args[:n_in], args[n_in:], args[0], get_platform(),
                                      True)

        get_ws_inplace.__name__ = get_ws_inplace.__qualname__ = ip_ws
        get_ws_inplace.__signature__ = _signature([desc.inputs[0].acl + "Ref"] + [i.acl for i in desc.inputs[1:]]
                                                  + [a.acl for a in desc.attributes])
        get_ws_inplace.__doc__ = f"Phase one of {ip_launch} (the first input both input and output)."
        out[ip_ws] = get_ws_inplace
        out[ip_launch] = _phase_two(desc, ip_launch)
    return out


def _run_options(e: aclDescribedExecutor, stream) -> dict:
    """The kernel's ``run`` options: ``saturation=True`` on a saturation stream (only an operator that computes
    in that mode gets there: :func:`~.twophase.queue_launch`), the platform's ``axpy_rounding`` where a kernel
    has an Axpy (Mish, MishGrad, Gelu, GeluGrad); a broadcast walk takes them where the operator has an Axpy."""
    options = {"saturation": True} if stream is not None and stream.overflow_mode == "saturation" else {}
    desc = get_operator(e.op).described_by
    kernel = desc.no_saturation_on.get(e.tiling.architecture) if options else None
    if kernel:   # a kernel with no such mode (no_saturation_on): the launch fails, at the synchronize
        raise ValueError(f"overflow_mode 'saturation' is not supported by the {kernel} kernel (Inf/NaN mode only)")
    if get_operator(e.op).axpy:
        options["axpy_rounding"] = e.platform.axpy_rounding
    return options


_ALLOWED: dict = {}


def _allowed_codes(desc, soc_family: str) -> tuple:
    """The aclDataTypes of ``desc``'s dtype list on ``soc_family``, made once per description and SoC family."""
    key = (desc.name, soc_family)
    hit = _ALLOWED.get(key)
    if hit is None or hit[0] is not desc:
        hit = _ALLOWED[key] = (desc, tuple(_CODE[n] for n in desc.dtypes_on(soc_family)))
    return hit[1]
