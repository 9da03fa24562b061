"""The functional and Dask faces of the row operators (a description with the "rows" kernel kind,
:class:`swishgrad_numba.ops.description.Rows`), generated (issue 40).

:func:`face` makes ``swishgrad_numba.<functional>`` (``(*inputs, *attributes=default, *, out=None,
platform=None)``, as :func:`swishgrad_numba.faces.functional.signature`). It checks, in this order: the inputs
are arrays of a listed dtype (TypeError) and of at most ``max_dims`` dimensions, the axis input of at least one;
the axis attribute (an integer, bool refused: TypeError; in ``[-x.ndim, x.ndim - 1]``: ValueError) and its own
rule (``Rows.axis_rule``); every other input of the axis input's dtype (TypeError) and of the shape
``Rows.shapes`` gives it (ValueError); the platform (a Platform, TypeError; a modelled SoC family in the Inf/NaN
overflow mode, NotImplementedError); ``out`` (its shape and dtype); an empty input (an empty result, or refused
where ``Rows.empty`` says why). Then the platform's host tiling and the kernel's launch.

:func:`dask_face` maps that face block by block with the axis whole in every block (every input's other axes
chunked as the axis input's), after every check has run on zero-strided arrays of the full shapes; an output
element reads only its own row, so the result is bit for bit the in-memory call's.
"""
from __future__ import annotations

import numbers
import operator

import numpy as np

from ..arguments import check_array, check_out_like
from ..platform import modelled_platform

__all__ = ["face", "checked", "axis_rules", "axis_input", "axis_attribute", "dask_face"]


def axis_input(desc):
    """The input whose shape the axis attribute indexes (role ``"x"``)."""
    return next(i for i in desc.inputs if i.role == "x")


def axis_attribute(desc):
    """The axis attribute (``kind="int"``)."""
    return next(a for a in desc.attributes if a.kind == "int")


def _dtype_name(dtype) -> str:
    from ..dtypes import dtype_info

    try:
        return dtype_info(dtype).name
    except (TypeError, ValueError):
        return np.dtype(dtype).name


def _check_tensor(desc, name: str, a, axis_input: bool) -> str:
    check_array(a, name)
    dt = _dtype_name(a.dtype)
    if dt not in desc.accepted_dtypes:
        raise TypeError(f"{name}.dtype must be one of {', '.join(desc.accepted_dtypes)}, got {a.dtype}")
    if desc.max_dims is not None and a.ndim > desc.max_dims:
        raise ValueError(f"{name} has at most {desc.max_dims} dimensions, got {a.ndim}")
    if axis_input and a.ndim == 0:
        raise ValueError(f"{name} must have 1 to {desc.max_dims} dimensions (an axis {axis_attribute(desc).name}), "
                         f"got 0")
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


def checked(desc, values: dict):
    """Every rule of a call (``values`` by the signature's names): ``(d, dtype name, shapes, platform)``, the
    shapes by functional name and ``"out"``."""
    x = axis_input(desc)
    name = None
    for i in desc.inputs:
        dt = _check_tensor(desc, i.name, values[i.name], i is x)
        name = dt if i is x else name
    for a in desc.attributes:
        if a.kind != "int":
            raise NotImplementedError(f"{desc.name}: the rows kind takes integer (axis) attributes only")
    xa = values[x.name]
    dim = values[axis_attribute(desc).name]
    d = axis_rules(desc, xa.shape, dim)
    shapes = desc.rows.shapes(tuple(xa.shape), d)
    for i in desc.inputs:
        a = values[i.name]
        if i is x:
            continue
        if a.dtype != xa.dtype:
            raise TypeError(f"{i.name}.dtype must be {x.name}'s ({xa.dtype}), got {a.dtype}")
        if tuple(a.shape) != tuple(shapes[i.name]):
            raise ValueError(f"{i.name}'s shape must be {tuple(shapes[i.name])} ({desc.rows.says.get(i.name, '')}: "
                             f"{x.name} {tuple(xa.shape)}, {axis_attribute(desc).name}={dim}); got {tuple(a.shape)}")
    platform = values["platform"]
    if platform is None:
        from ..ops.registry import get_operator

        platform = get_operator(desc.name).default_platform
    platform = modelled_platform(platform, desc.functional, desc.kernel_op, desc.rows.socs)
    return d, name, shapes, platform


def _run(desc, values: dict):
    d, name, shapes, platform = checked(desc, values)
    x = values[axis_input(desc).name]
    out = values["out"]
    check_out_like(out, shapes["out"], x.dtype)
    if any(values[i.name].size == 0 for i in desc.inputs):
        if desc.rows.empty:
            raise ValueError(desc.rows.empty.format(x=tuple(x.shape)))
        result = np.empty(shapes["out"], x.dtype)
    else:
        tiling = desc.rows.tiling(tuple(x.shape), d, name, platform)
        result = desc.rows.launch(tuple(values[i.name] for i in desc.inputs), tiling).reshape(shapes["out"])
    if out is None:
        return result
    out[...] = result
    return out


def _docstring(desc) -> str:
    x, a = axis_input(desc), axis_attribute(desc)
    lines = [f"{desc.summary}: operator ``{desc.name}`` ({desc.aclnn[1]}), generated from its description.", "",
             "Parameters", "----------"]
    for i in desc.inputs:
        rule = desc.rows.says.get(i.name, f"1 to {desc.max_dims} dimensions")
        lines += [f"{i.name} : numpy.ndarray", f"    dtypes {', '.join(desc.accepted_dtypes)}; {rule}."]
    lines += [f"{a.name} : int, default {a.default!r}", f"    The axis of {x.name}, in [-{x.name}.ndim, "
              f"{x.name}.ndim - 1].", "out : numpy.ndarray, optional",
              f"    {desc.rows.says.get('out', 'the result')}, {x.name}'s dtype.", "platform : Platform, optional",
              f"    A modelled SoC ({', '.join(desc.rows.socs)}); the operator's default platform by default.", "",
              "Returns", "-------", "numpy.ndarray", "", "Raises", "------", "TypeError, ValueError",
              "    Naming the argument and the rule.", "NotImplementedError", "    A platform whose kernel is not "
              "modelled.", "", f"Run ``swishgrad ops show {desc.name}`` for the whole description."]
    return "\n".join(lines)


def face(desc):
    """The public function of row operator ``desc`` (see the module docstring)."""
    from .functional import signature

    sig = signature(desc)

    def fn(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        return _run(desc, bound.arguments)

    fn.__name__ = fn.__qualname__ = desc.functional
    fn.__module__ = "swishgrad_numba"
    fn.__doc__ = _docstring(desc)
    fn.__signature__ = sig
    return fn


def dask_face(desc, numpy_fn):
    """Row operator ``desc``'s Dask function: ``numpy_fn`` (its functional face) block by block, the axis whole
    in every block (see the module docstring)."""
    from .dask_support import as_dask, da, known_shape, require_dask
    from .functional import signature

    sig = signature(desc).replace(parameters=[p for p in signature(desc).parameters.values() if p.name != "out"])
    x, axis = axis_input(desc), axis_attribute(desc)

    def block(*blocks, d, platform):
        return numpy_fn(*(np.asarray(b) for b in blocks), d, platform=platform)

    def fn(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        values = dict(bound.arguments)
        require_dask()
        lazy = {}
        for i in desc.inputs:
            lazy[i.name] = as_dask(values[i.name], i.name, "auto")
            known_shape(lazy[i.name], i.name)
        # every rule, on zero-strided arrays of the full shapes (the in-memory messages, no launch)
        probes = {n: np.broadcast_to(np.zeros((), a.dtype), a.shape) for n, a in lazy.items()}
        d, _, shapes, _ = checked(desc, {**values, **probes})
        if any(a.size == 0 for a in lazy.values()) and desc.rows.empty:
            raise ValueError(desc.rows.empty.format(x=tuple(lazy[x.name].shape)))
        xs = lazy[x.name].rechunk({d: -1})
        chunks = tuple(-1 if k == d else c for k, c in enumerate(xs.chunks))
        ins = [xs if i is x else lazy[i.name].rechunk(chunks) for i in desc.inputs]
        out_chunks = tuple((shapes["out"][d],) if k == d else c for k, c in enumerate(xs.chunks))
        return da.map_blocks(block, *ins, d=d, platform=values["platform"], dtype=xs.dtype, chunks=out_chunks,
                             meta=np.empty((0,) * xs.ndim, xs.dtype), token=desc.functional)

    fn.__name__ = fn.__qualname__ = desc.functional
    fn.__signature__ = sig
    fn.__doc__ = (f"{desc.summary}, block by block over Dask arrays with {axis.name} whole in every block: "
                  f":func:`swishgrad_numba.{desc.functional}` bit for bit.")
    return fn
