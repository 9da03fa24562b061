"""The functional and Dask faces of the row operators (a description with the "rows" kernel kind,
:class:`swishgrad_numba.ops.description.Rows`), generated (issue 40).

:func:`face` makes ``swishgrad_numba.<functional>`` (``(*inputs, *attributes=default, *, out=None,
platform=None)``, as :func:`swishgrad_numba.faces.signature.signature`). It checks, in this order: the inputs
are arrays of a listed dtype (TypeError) and of at most ``max_dims`` dimensions, the axis input of at least one;
the axis attribute (an integer, bool refused: TypeError; in ``[-x.ndim, x.ndim - 1]``: ValueError) and its own
rule (``Rows.axis_rule``); every other input of the axis input's dtype (TypeError) and of the shape
``Rows.shapes`` gives it (ValueError); a float attribute a C double (an integer or float, :func:`double_refusal`:
TypeError) and the description's rules; the platform (a Platform, TypeError; a modelled SoC family in the Inf/NaN
overflow mode, NotImplementedError, but any SoC for an empty input, which asks for no kernel: aclnn's order);
``out`` (its shape and dtype); an empty input (an empty result, or refused where ``Rows.empty`` says why). Then the
platform's host tiling and the kernel's launch. What the checks and the host gave is kept per the call's key
(:func:`~.plans.face_key`: each input's dtype, shape, strides and writeability, each attribute's and option's exact
value, the platform by identity; :data:`ROW_PLANS`), so a call of a form seen before checks ``out`` and launches.

:func:`dask_face` maps that face block by block with the axis whole in every block (every input's other axes
chunked as the axis input's), after every check has run on zero-strided arrays of the full shapes; an output
element reads only its own row, so the result is bit for bit the in-memory call's.
"""
from __future__ import annotations

import inspect
import numbers
import operator
from typing import NamedTuple

import numpy as np

from ..arguments import check_array, check_out_like, may_share
from ..ops.call_plans import KeptPlans
from ..platform import Platform, modelled_platform
from .plans import face_key
from .signature import binder, signature

__all__ = ["face", "checked", "axis_rules", "axis_input", "axis_attribute", "dask_face", "double_refusal"]


def axis_input(desc):
    """The input whose shape the axis attribute indexes (role ``"x"``)."""
    return next(i for i in desc.inputs if i.role == "x")


def axis_attribute(desc):
    """The axis attribute (``kind="int"``)."""
    return next(a for a in desc.attributes if a.kind == "int")


def outputs(desc) -> tuple:
    """The outputs: ``((functional name, aclnn name), ...)`` (``Rows.outputs``; one, ``("out", desc.out)``, by
    default)."""
    return tuple(desc.rows.outputs) or (("out", desc.out),)


def dtypes_with(desc, x_dtype: str) -> dict:
    """The dtypes each other tensor may have (inputs and outputs, by functional name) given the axis input's."""
    names = [i.name for i in desc.inputs if i is not axis_input(desc)] + [n for n, _ in outputs(desc)]
    given = desc.rows.dtypes_with(x_dtype) if desc.rows.dtypes_with is not None else {}
    return {n: tuple(given.get(n, (x_dtype,))) for n in names}


def _dtype_name(dtype) -> str:
    from ..dtypes import dtype_info

    try:
        return dtype_info(dtype).name
    except (TypeError, ValueError):
        return np.dtype(dtype).name


def _check_tensor(desc, name: str, a, at_least_one: bool) -> str:
    check_array(a, name)
    dt = _dtype_name(a.dtype)
    if dt not in desc.accepted_dtypes:
        raise ValueError(f"{name}.dtype must be one of {', '.join(desc.accepted_dtypes)}, got {a.dtype}")
    if desc.max_dims is not None and a.ndim > desc.max_dims:
        raise ValueError(f"{name} has at most {desc.max_dims} dimensions, got {a.ndim}")
    if at_least_one and a.ndim == 0:
        raise ValueError(f"{name} must have 1 to {desc.max_dims} dimensions, got 0")
    return dt


def axis_rules(desc, shape, dim) -> int:
    """The axis attribute ``dim`` of an axis input of ``shape``, checked (TypeError, ValueError naming it and the
    rule): normalised to ``[0, ndim)``."""
    a, x = axis_attribute(desc), axis_input(desc)
    if isinstance(dim, (bool, np.bool_)) or not isinstance(dim, numbers.Integral):
        raise TypeError(f"{a.name} must be an int64 (an integer), got {type(dim).__name__}")
    dim, ndim = operator.index(dim), len(shape)
    if not -ndim <= dim < ndim:
        raise ValueError(f"{a.name} {dim} must lie in [{-ndim}, {ndim - 1}] for {x.name} of {ndim} dimensions")
    why = desc.rows.axis_rule(tuple(shape), dim) if desc.rows.axis_rule is not None else None
    if why:
        raise ValueError(why)
    return dim % ndim


def _trailing_axis(desc, values) -> int:
    """``Rows.axis_from``: the row is the last ``g.ndim`` axes of x, ``g`` that input (RmsNorm's gamma)."""
    x, g = axis_input(desc).name, desc.rows.axis_from
    xs, gs = tuple(values[x].shape), tuple(values[g].shape)
    if len(gs) > len(xs) or xs[len(xs) - len(gs):] != gs:
        raise ValueError(f"{g}'s shape {gs} must be the last {len(gs)} axes of {x}'s {xs}")
    d = len(xs) - len(gs)
    why = desc.rows.axis_rule(xs, d) if desc.rows.axis_rule is not None else None
    if why:
        raise ValueError(why)
    return d


def double_refusal(name: str, value) -> str | None:
    """Why ``value`` is no C double (a row operator's float attribute: aclnnRmsNorm's ``double epsilon``), or None:
    a Python or NumPy integer, float or bool (a bool as its C cast, 1.0 or 0.0: the one rule for a bool given
    for a float attribute, tests/test_bool_attributes.py); a complex, string, None or array refused (both
    faces' rule)."""
    if not isinstance(value, (int, float, np.floating, np.integer, np.bool_)):
        return f"{name} must be a double, got {type(value).__name__}"
    return None


def _attributes(desc, values) -> dict:
    """The float attributes (C doubles: :func:`double_refusal`) as float32 (ToFloat), the description's rules
    checked."""
    from ..dtypes import to_float32

    for a in (a for a in desc.attributes if a.kind == "float"):
        why = double_refusal(a.name, values[a.name])
        if why:
            raise TypeError(why)
    attrs = {a.name: to_float32(values[a.name], argname=a.name) for a in desc.attributes if a.kind == "float"}
    for rule in desc.rules:
        if rule.refuses(values):
            raise ValueError(rule.says.format(value=repr(values.get(rule.value_of)),
                                              **{a.name: a.name for a in desc.attributes}))
    return attrs


def checked(desc, values: dict):
    """Every rule of a call (``values`` by the signature's names): ``(d, dtypes, shapes, attrs, platform)``: the
    axis, the inputs' and outputs' (numpy) dtypes and shapes by functional name, the float attributes as float32."""
    x = axis_input(desc)
    named = {}
    for i in desc.inputs:
        named[i.name] = _check_tensor(desc, i.name, values[i.name], i is x or i.name == desc.rows.axis_from)
    allowed = dtypes_with(desc, named[x.name])
    for i in desc.inputs:
        if i is not x and named[i.name] not in allowed[i.name]:
            raise TypeError(f"{i.name}.dtype must be {' or '.join(allowed[i.name])} with {x.name}.dtype "
                            f"{named[x.name]}, got {values[i.name].dtype}")
    xa = values[x.name]
    if desc.rows.axis_from:
        d, said = _trailing_axis(desc, values), ""
    else:
        dim = values[axis_attribute(desc).name]
        d, said = axis_rules(desc, xa.shape, dim), f", {axis_attribute(desc).name}={dim}"
    shapes = desc.rows.shapes(tuple(xa.shape), d)
    for i in desc.inputs:
        a = values[i.name]
        if i is not x and tuple(a.shape) != tuple(shapes[i.name]):
            raise ValueError(f"{i.name}'s shape must be {tuple(shapes[i.name])} ({desc.rows.says.get(i.name, '')}: "
                             f"{x.name} {tuple(xa.shape)}{said}); got {tuple(a.shape)}")
    attrs = _attributes(desc, values)
    platform = values["platform"]
    if platform is None:
        from ..ops.registry import get_operator

        platform = get_operator(desc.name).default_platform
    empty = any(values[i.name].size == 0 for i in desc.inputs)
    if not (empty and isinstance(platform, Platform) and platform.overflow_mode == "infnan"):
        # an empty input asks for no kernel (aclnn phase one's early return), so any SoC takes it
        platform = modelled_platform(platform, desc.functional, desc.kernel_op, desc.rows.socs)
    dtypes = {i.name: values[i.name].dtype for i in desc.inputs}   # numpy dtypes (bfloat16: ml_dtypes')
    dtypes.update({n: xa.dtype if allowed[n][0] == named[x.name] else np.dtype(allowed[n][0])
                   for n, _ in outputs(desc)})
    return d, dtypes, shapes, attrs, platform


def _check_out(desc, out, shapes, dtypes):
    outs = outputs(desc)
    if len(outs) == 1 or out is None:
        if out is not None:
            check_out_like(out, shapes[outs[0][0]], dtypes[outs[0][0]])
        return
    if not isinstance(out, tuple) or len(out) != len(outs):
        raise TypeError(f"out must be a tuple ({', '.join(n for n, _ in outs)})")
    for (name, _), o in zip(outs, out):
        check_out_like(o, shapes[name], dtypes[name])


class RowPlan(NamedTuple):
    """What a row face's checks gave for a call's key (:func:`~.plans.face_key`): every rule but ``out``'s
    passed, the platform resolved and the host tiling made (None for an empty input)."""
    desc: object         # the description it was made for (one registered anew is planned anew)
    platform: object     # as given, held so that its id in the key stays its own
    dtypes: dict
    shapes: dict
    options: dict
    tiling: object


#: The row faces' plans by call key: a call of a form seen before goes straight to its launch.
ROW_PLANS = KeptPlans()


def _forms(desc) -> tuple:
    """``(name, is an input, is the platform)`` of every argument of the face but ``out``."""
    return tuple((i.name, True, False) for i in desc.inputs) + tuple(
        (n, False, False) for n in [a.name for a in desc.attributes] + list(desc.rows.options)) + (
        ("platform", False, True),)


def _plan(desc, values: dict) -> RowPlan:
    """Every rule of the call but ``out``'s (:func:`checked`, the options), and its host tiling."""
    d, dtypes, shapes, attrs, platform = checked(desc, values)
    options = {k: values[k] for k in desc.rows.options}
    if desc.rows.check_options is not None:
        desc.rows.check_options(options)
    x = values[axis_input(desc).name]
    empty = any(values[i.name].size == 0 for i in desc.inputs)
    tiling = None if empty else desc.rows.tiling(tuple(x.shape), d, dtypes, attrs, platform)
    return RowPlan(desc, values["platform"], dtypes, shapes, options, tiling)


def _run(desc, values: dict, forms: tuple):
    key = face_key(desc.name, values, forms)
    plan = ROW_PLANS.get(key) if key is not None else None
    if plan is None or plan.desc is not desc or plan.platform is not values["platform"]:
        plan = _plan(desc, values)
        if key is not None:
            ROW_PLANS.keep(key, plan)
    out, names = values["out"], [n for n, _ in outputs(desc)]
    _check_out(desc, out, plan.shapes, plan.dtypes)
    if plan.tiling is None:          # an empty input: no kernel
        if desc.rows.empty:
            raise ValueError(desc.rows.empty.format(x=tuple(values[axis_input(desc).name].shape)))
        results = [np.empty(plan.shapes[n], plan.dtypes[n]) for n in names]
    else:
        inputs = tuple(values[i.name] for i in desc.inputs)
        if _into(desc, out, inputs):
            flat = tuple(o.reshape(-1) for o in out) if isinstance(out, tuple) else out.reshape(-1)
            desc.rows.launch(inputs, plan.tiling, out=flat, **plan.options)
            return out
        got = desc.rows.launch(inputs, plan.tiling, **plan.options)
        results = [r.reshape(plan.shapes[n]) for r, n in zip(got if len(names) > 1 else (got,), names)]
    if out is None:
        return results[0] if len(names) == 1 else tuple(results)
    for o, r in zip(out if len(names) > 1 else (out,), results):
        o[...] = r
    return out


def _into(desc, out, inputs) -> bool:
    """Whether the launch writes ``out`` itself (:attr:`Rows.into`): each output C-contiguous, apart from every
    input and from one another."""
    outs = out if isinstance(out, tuple) else (out,)
    if not desc.rows.into or not all(isinstance(o, np.ndarray) and o.flags.c_contiguous for o in outs):
        return False
    return not any(may_share(o, a) for i, o in enumerate(outs) for a in inputs + outs[i + 1:])


def _docstring(desc) -> str:
    x = axis_input(desc)
    outs = outputs(desc)
    lines = [f"{desc.summary}: operator ``{desc.name}`` ({desc.aclnn[1]}), generated from its description.", "",
             "Parameters", "----------"]
    for i in desc.inputs:
        rule = desc.rows.says.get(i.name, f"1 to {desc.max_dims} dimensions")
        lines += [f"{i.name} : numpy.ndarray", f"    dtypes {', '.join(desc.accepted_dtypes)}; {rule}."]
    for a in desc.attributes:
        lines += [f"{a.name} : int, default {a.default!r}", f"    The axis of {x.name}, in [-{x.name}.ndim, "
                  f"{x.name}.ndim - 1]."] if a.kind == "int" else [
                  f"{a.name} : real number, default {a.default!r}", "    Rounded once to float32 (ToFloat)."]
    shown = ", ".join(f"{n} ({desc.rows.says.get(n, 'the result')})" for n, _ in outs)
    lines += [f"out : {'tuple of ' if len(outs) > 1 else ''}numpy.ndarray, optional", f"    {shown}.",
              "platform : Platform, optional",
              f"    A modelled SoC ({', '.join(desc.rows.socs)}); the operator's default platform by default."]
    lines += [f"{n} : keyword, default {v!r}" for n, v in desc.rows.options.items()]
    lines += ["    Model choices (the functional face only)."] if desc.rows.options else []
    lines += ["", "Returns", "-------", "numpy.ndarray" + (f" tuple ({', '.join(n for n, _ in outs)})"
                                                            if len(outs) > 1 else ""),
              "", "Raises", "------", "TypeError, ValueError", "    Naming the argument and the rule.",
              "NotImplementedError", "    A platform whose kernel is not modelled.", "",
              f"Run ``swishgrad ops show {desc.name}`` for the whole description."]
    return "\n".join(lines)


def face(desc):
    """The public function of row operator ``desc`` (see the module docstring): ``signature(desc)``, then the
    description's keyword-only options (``Rows.options``: model choices the functional face alone takes)."""
    base = signature(desc)
    kw = inspect.Parameter.KEYWORD_ONLY
    sig = base.replace(parameters=[*base.parameters.values(),
                                   *(inspect.Parameter(n, kw, default=v) for n, v in desc.rows.options.items())])

    bind, forms = binder(sig), _forms(desc)

    def fn(*args, **kwargs):
        return _run(desc, bind(args, kwargs), forms)

    fn.__name__ = fn.__qualname__ = desc.functional
    fn.__module__ = "swishgrad_numba"
    fn.__doc__ = _docstring(desc)
    fn.__signature__ = sig
    return fn


def dask_face(desc, numpy_fn):
    """Row operator ``desc``'s Dask function: ``numpy_fn`` (its functional face) block by block, the row's axes
    whole in every block (see the module docstring); an output each, a tuple of them for several."""
    from .dask_support import as_dask, da, known_shape, require_dask

    sig = signature(desc).replace(parameters=[p for p in signature(desc).parameters.values() if p.name != "out"])
    x, names = axis_input(desc), [n for n, _ in outputs(desc)]

    def block(*blocks, k, fixed, attrs, platform):
        it = iter(blocks)
        ins = [fixed[i.name] if i.name in fixed else np.asarray(next(it)) for i in desc.inputs]
        got = numpy_fn(*ins, **attrs, platform=platform)
        return got if len(names) == 1 else got[k]

    def fn(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        values = dict(bound.arguments)
        require_dask()
        xs = as_dask(values[x.name], x.name, "auto")
        known_shape(xs, x.name)
        lazy = {x.name: xs}
        for i in desc.inputs:   # an input of x's rank is chunked as x; another (a whole row: gamma) stays whole
            v = values[i.name]
            if i is not x and isinstance(v, (np.ndarray, da.Array)) and v.ndim == xs.ndim:
                lazy[i.name] = as_dask(v, i.name, "auto")
                known_shape(lazy[i.name], i.name)
        # every rule, on zero-strided arrays of the full shapes (the in-memory messages, no launch)
        probes = {n: np.broadcast_to(np.zeros((), a.dtype), a.shape) for n, a in lazy.items()}
        d, dtypes, shapes, _, _ = checked(desc, {**values, **probes})
        if any(a.size == 0 for a in lazy.values()) and desc.rows.empty:
            raise ValueError(desc.rows.empty.format(x=tuple(xs.shape)))
        whole = set(range(d, xs.ndim)) if desc.rows.trailing else {d}
        chunks = tuple(-1 if k in whole else c for k, c in enumerate(xs.chunks))
        lazy = {n: a.rechunk(chunks) for n, a in lazy.items()}
        xs = lazy[x.name]
        ins = [lazy[i.name] for i in desc.inputs if i.name in lazy]
        fixed = {i.name: values[i.name] for i in desc.inputs if i.name not in lazy}
        attrs = {a.name: (d if a.kind == "int" else values[a.name]) for a in desc.attributes}
        got = [da.map_blocks(block, *ins, k=k, fixed=fixed, attrs=attrs, platform=values["platform"],
                             dtype=dtypes[n], meta=np.empty((0,) * xs.ndim, dtypes[n]),
                             chunks=tuple((shapes[n][a],) if a in whole else c for a, c in enumerate(xs.chunks)),
                             token=desc.functional if len(names) == 1 else f"{desc.functional}_{n}")
               for k, n in enumerate(names)]
        return got[0] if len(names) == 1 else tuple(got)

    fn.__name__ = fn.__qualname__ = desc.functional
    fn.__module__ = "swishgrad_numba.dask"
    fn.__signature__ = sig
    fn.__doc__ = (f"{desc.summary}, block by block over Dask arrays with the row whole in every block: "
                  f":func:`swishgrad_numba.{desc.functional}` bit for bit.")
    return fn
