"""The functional API of a described operator (:mod:`swishgrad_numba.ops.description`), generated.

:func:`face` makes ``swishgrad_numba.<functional>`` from the description, once per operator: the inputs
and attributes in the description's order (attributes with their defaults), then ``out=`` and
``platform=``. It checks, in this order: the inputs are arrays; their dtypes are in the aclnn API's list
(AI Core and AICPU dtypes, any SoC: the platform then rules) and their ranks within ``max_dims``; each
attribute's conversion (``"float"``: :func:`~swishgrad_numba.dtypes.to_float32`; ``"bool"``: a bool);
the rules; the shapes (broadcast, or one shape); the dtype (promoted, or one; inputs the op_api Casts in
their own dtype on the platform's SoC list, as phase one checks them). An AICPU dtype runs the
description's plain model on any platform; the others the platform's kernel (:func:`swishgrad_numba.ops.call.call`
for inputs of one shape, the description's broadcast walk otherwise). Issue 41: ``soc_checked`` checks every
input's dtype on the SoC's list, Cast or not; ``broadcast_to`` broadcasts the inputs to their common shape and
runs the element-wise kernel over it (the op_api's BroadcastTo). Complex inputs promote as ``op::PromoteType``
(:func:`swishgrad_numba.ops.description.complex_promotion`). A repeated call goes by its plan
(:mod:`.plans`, issue 39) straight to ``call``.
"""
from __future__ import annotations

import functools

import numpy as np

from ..arguments import bfloat16_refusal, check_array, check_out_like, check_platform_for
from ..dtypes import dtype_info, promoted_float_dtype, to_float32
from ..ops.call import overlap
from ..ops.registry import get_operator
from ..platform import Platform
from .plans import face_key, found, planned, recorded_call, replayed
from .signature import binder, dtype_order, face_docstring, signature

__all__ = ["face", "checked_attributes", "promoted_dtype", "kernel_dtype", "attr32_of", "run"]

_FACES: dict = {}
_F64 = np.dtype(np.float64)


def _dtype_name(dtype) -> str | None:
    """The dtype's name where it is a kernel dtype (any byte order :func:`dtype_info` takes) or a native one."""
    try:
        return _dtype_name_of(dtype)
    except TypeError:   # an unhashable dtype-like
        return _dtype_name_uncached(dtype)


@functools.lru_cache(maxsize=256)
def _dtype_name_of(dtype) -> str | None:
    return _dtype_name_uncached(dtype)


def _dtype_name_uncached(dtype) -> str | None:
    try:
        return dtype_info(dtype).name
    except (TypeError, ValueError):
        return dtype.name if dtype.isnative else None


def checked_attributes(desc, values: dict, names=None) -> dict:
    """The attributes converted (``name -> float32`` or bool), the rules checked; ``values`` by functional
    name, errors named by ``names`` (functional name -> the face's name; the functional names by default)."""
    names = names or {}
    out = {}
    for a in desc.attributes:
        argname = names.get(a.name, a.name)
        value = values[a.name]
        if value is None and a.optional:   # an optional scalar left out: its default
            value = a.default
        if a.kind == "float":
            out[a.name] = to_float32(value, argname=argname)
        elif a.kind == "choice":
            if not isinstance(value, str) or value not in a.choices:
                raise ValueError(f"{argname} must be one of {a.choices}, got {value!r}")
            out[a.name] = value
        elif not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{argname} must be a bool, got {type(value).__name__}")
        else:
            out[a.name] = bool(value)
    for rule in desc.rules:
        if rule.refuses(values):
            shown = {a.name: names.get(a.name, a.name) for a in desc.attributes}
            raise ValueError(rule.says.format(value=repr(values.get(rule.value_of)), **shown))
    return out


def promoted_dtype(desc, dtypes) -> np.dtype:
    """The op_api's ``PromoteType`` of the inputs' dtypes (``promotion="promote"``): the dtype where they
    agree, float64 where any is, else float32 (float16 with bfloat16 too). ``promotion="float32"``: PyTorch's
    floating promotion (:func:`~swishgrad_numba.dtypes.promoted_float_dtype`: float32 for integers)."""
    first = dtypes[0]
    if desc.promotion == "float32":
        return promoted_float_dtype(*dtypes)
    if all(d == first for d in dtypes):
        return first
    if desc.promotion != "promote":
        raise AssertionError("unreachable: one dtype was checked")
    from ..ops.description import complex_promotion

    cplx = complex_promotion(_dtype_name(d) for d in dtypes)   # a complex input (aclnnSigmoidBackward's)
    if cplx is not None:
        return np.dtype(cplx)
    return _F64 if _F64 in dtypes else np.dtype(np.float32)


def kernel_dtype(desc, dtypes) -> np.dtype:
    """The dtype the kernel runs in: the promoted one, but for ``promotion="float32"`` the inputs' own where
    they agree and it is a kernel dtype (float32, float16, bfloat16), else float32."""
    if desc.promotion != "float32":
        return promoted_dtype(desc, dtypes)
    first = dtypes[0]
    return first if all(d == first for d in dtypes) and _dtype_name(first) in _KERNEL else np.dtype(np.float32)


_KERNEL = ("float32", "float16", "bfloat16")


def _check_soc_dtypes(desc, arrays, platform):
    """Inputs about to be Cast: their own dtypes must be in the aclnn lists on the platform's SoC (the
    operator's default platform for None), as phase one checks them."""
    platform = _platform_or_default(desc, platform)
    if not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    listed = _soc_listed(desc, platform.soc_family)
    for i, (name, a) in zip(desc.inputs, arrays):
        dt = _dtype_name(a.dtype)
        if dt not in listed[i.name]:
            reason = bfloat16_refusal(platform) if dt == "bfloat16" else None
            raise ValueError(f"dtype {reason}" if reason else f"{name}.dtype {dt} is not in the aclnn list on SoC "
                                                              f"{platform.soc_family}")


_SOC_LISTED: dict = {}


def _soc_listed(desc, soc_family: str) -> dict:
    """Per input name, the dtypes it may have on ``soc_family`` (a frozenset), made once per description."""
    key = (desc.name, soc_family)
    hit = _SOC_LISTED.get(key)
    if hit is None or hit[0] is not desc:
        common = desc.dtypes_on(soc_family) + tuple(desc.aicpu_dtypes)
        hit = _SOC_LISTED[key] = (desc, {i.name: frozenset(common + i.extra_dtypes) for i in desc.inputs})
    return hit[1]


def attr32_of(desc, attrs: dict):
    """What the registry's host tiling takes: the kernel's attributes (:attr:`~.Description.kernel_attributes`,
    a bool as float32 1.0 or 0.0), one alone, several as a tuple, None for none."""
    vals = [attrs[a.name] if a.kind == "float" else np.float32(a.code(attrs[a.name])) if a.kind == "choice"
            else np.float32(bool(attrs[a.name])) for a in _kernel_attributes(desc)]
    return None if not vals else vals[0] if len(vals) == 1 else tuple(vals)


def _finish(result, out):
    if out is None or result is out:
        return result
    out[...] = result
    return out


def run(desc, arrays, attrs: dict, out, platform):
    """The operator over checked ``arrays`` (``((name, array), ...)``) and converted ``attrs``: the shape
    and dtype rules, then the AICPU model or the platform's kernel."""
    shapes = [a.shape for _, a in arrays]
    if desc.one_shape_on:
        _check_one_shape(desc, arrays, platform)
    if desc.broadcast and not (desc.one_shape_on and desc.one_shape(_platform_or_default(desc, platform))):
        try:   # equal shapes broadcast to themselves (the common case, without NumPy's machinery)
            shape = tuple(shapes[0]) if shapes.count(shapes[0]) == len(shapes) else tuple(np.broadcast_shapes(*shapes))
        except ValueError:
            raise ValueError(f"{' and '.join(n for n, _ in arrays)} must broadcast against each other, got "
                             f"{' and '.join(str(s) for s in shapes)}") from None
        if desc.broadcast_to:   # the op_api's BroadcastTo: the equal-shape kernel on the broadcast inputs
            arrays = tuple((n, _broadcast_to(a, shape)) for n, a in arrays)
    else:
        shape = tuple(shapes[0])
        for name, a in arrays[1:]:
            if a.shape != shape:
                raise ValueError(f"{arrays[0][0]} and {name} must have the same shape, got {shape} and {a.shape}")
    dtypes = [a.dtype for _, a in arrays]
    if desc.promotion == "same":
        for name, a in arrays[1:]:
            if a.dtype != dtypes[0]:
                raise TypeError(f"{arrays[0][0]} and {name} must have the same dtype, got {dtypes[0]} and {a.dtype}")
    dtype = promoted_dtype(desc, dtypes)
    cast = dtypes.count(dtype) != len(dtypes)   # an input of another dtype: the op_api Casts it
    if cast:
        _check_soc_dtypes(desc, arrays, platform)   # inputs the op_api Casts: their own dtypes on the SoC first
    if desc.soc_checked:
        _check_soc_dtypes(desc, arrays, platform)   # a SoC list narrower than the bfloat16 gate (issue 41)
    compute = kernel_dtype(desc, dtypes) if desc.promotion == "float32" else dtype
    if compute != dtype:
        # ``promotion="float32"``: the op_api's Casts to float32 (round to nearest even), the result Cast back once
        check_out_like(out, shape, dtype)
        with np.errstate(over="ignore"):
            narrowed = tuple((n, a.astype(compute)) for n, a in arrays)
        with np.errstate(all="ignore"):
            return _finish(run(desc, narrowed, attrs, None, platform).astype(dtype), out)
    picked = desc.path(attrs, dtype) if desc.path is not None else None
    if picked is not None and picked != dtype:
        # the op_api's path by attribute value: the inputs Cast to ``picked``, the result Cast back once
        check_out_like(out, shape, dtype)
        with np.errstate(over="ignore"):
            narrowed = tuple((n, a.astype(picked)) for n, a in arrays)
        result = run(desc, narrowed, attrs, None, platform)
        with np.errstate(all="ignore"):
            return _finish(result.astype(dtype), out)
    attr32 = attr32_of(desc, attrs)
    if _plain_name(dtype) in desc.exact_dtypes:   # an integer dtype: the description's exact host model (issue 41)
        return _exact(desc, arrays, attrs, dtype, shape, out, platform)
    if _plain_name(dtype) in desc.aicpu_dtypes:
        if platform is not None and not isinstance(platform, Platform):
            raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
        check_out_like(out, shape, dtype)
        ins = [a.astype(dtype, copy=False) for _, a in arrays]
        return _finish(desc.aicpu(*ins, *[attrs[a.name] for a in desc.float_attributes]), out)
    if cast:
        arrays = tuple((n, a.astype(dtype)) for n, a in arrays)   # the op_api's Casts: exact widenings
    if desc.broadcast_to:   # the op_api's BroadcastTo, then the element-wise kernel (aclnnMishBackward)
        arrays = tuple((n, _broadcast_to(a, shape)) for n, a in arrays)
    if any(a.size == 0 for _, a in arrays):   # phase one's early return: no kernel is asked for (issue 40)
        _check_empty_platform(desc, arrays, platform)
        check_out_like(out, shape, dtype)
        return np.empty(shape, dtype=dtype) if out is None else out
    if all(a.shape == shape for _, a in arrays):
        return recorded_call(desc.name, tuple(arrays), attr32, out, platform)
    info = dtype_info(dtype)
    platform = check_platform_for(platform, desc.name, info)
    check_out_like(out, shape, dtype)
    flat = [np.ascontiguousarray(a) for _, a in arrays]
    # the walk takes its inputs as one tuple: all read-only or all writeable
    if len({a.flags.writeable for a in flat}) > 1:
        flat = [a if a.flags.writeable else a.copy() for a in flat]
    direct = out is not None and out.flags.c_contiguous and not any(overlap(out, a) for _, a in arrays)
    result = out if direct else np.empty(shape, dtype=dtype)
    tiling = desc.shaped_tiling(tuple(a.shape for a in flat), info, attr32, platform)
    modes = {"saturation": platform.saturation, "axpy_rounding": platform.axpy_rounding} if desc.axpy else {}
    desc.shaped_launch(tuple(flat), result, tiling, info, **modes)
    return _finish(result, out)


def _check_empty_platform(desc, arrays, platform) -> None:
    """The platform rules an empty launch keeps (aclnn phase one returns success for empty tensors before it
    asks for a kernel or a host tiling, so neither the kernel's architecture nor an A2 block size is checked):
    a Platform, the dtypes in the SoC's aclnn list, the overflow mode the operator computes in."""
    from ..arguments import overflow_mode_refusal

    _check_soc_dtypes(desc, arrays, platform)
    reason = overflow_mode_refusal(_platform_or_default(desc, platform), desc.name)
    if reason is not None:
        raise ValueError(reason)


@functools.lru_cache(maxsize=256)
def _plain_name(dtype: np.dtype) -> str:
    """``dtype.name`` (NumPy builds it on every access)."""
    return dtype.name


def _exact(desc, arrays, attrs: dict, dtype, shape, out, platform):
    """An exact dtype's run: the inputs broadcast to ``shape``, the description's plain model."""
    platform = _platform_or_default(desc, platform)
    if not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    check_out_like(out, shape, dtype)
    ins = [np.broadcast_to(a, shape) for _, a in arrays]
    return _finish(desc.exact(ins, [attrs[a.name] for a in desc.float_attributes], platform), out)


def _check_input(desc, a, argname: str, extra: tuple = ()) -> None:
    check_array(a, argname)
    name = _dtype_name(a.dtype)
    if name in desc.dtype_refusals:
        raise TypeError(f"{argname}.dtype {name} is not supported: {desc.dtype_refusals[name]}")
    if name not in desc.accepted_dtypes + extra:
        _check_byte_order(a.dtype, argname, desc.accepted_dtypes + extra)
        listed = sorted(desc.accepted_dtypes, key=dtype_order) + list(extra)
        raise ValueError(f"{argname}.dtype must be one of {', '.join(listed)}; got {a.dtype} (the aclnn API's list)")
    if desc.max_dims is not None and a.ndim > desc.max_dims:
        raise ValueError(f"{argname} has at most {desc.max_dims} dimensions, got {a.ndim}")


def _check_byte_order(dtype, argname: str, accepted) -> None:
    """An accepted dtype in the other byte order: refused as such (issue 40: ``swish_backward``'s message)."""
    if not dtype.isnative and _dtype_name(dtype.newbyteorder("=")) in accepted:
        order = "big" if dtype.byteorder == ">" else "little"
        raise ValueError(f"{argname}.dtype must be in the machine's byte order; got {order}-endian "
                         f"{dtype.newbyteorder('=').name} (convert with .astype(arr.dtype.newbyteorder('=')))")


def face(name: str):
    """The public function of described operator ``name`` (made once)."""
    if name in _FACES:
        return _FACES[name]
    from ..ops.registry import get_operator

    desc = get_operator(name).described_by
    if desc is None:
        raise ValueError(f"operator {name!r} is not in the described form (it has a hand-written face)")
    if desc.rows is not None:   # the "rows" kernel kind: its own generator (issue 40)
        from .rows import face as rows_face

        _FACES[name] = rows_face(desc)
        return _FACES[name]
    from .aliases import aliased_signature, resolve_aliases

    sig = aliased_signature(desc, signature(desc))   # aliases: SwishGrad's scale=, sconf= (issue 40)
    aliased = any(a.aliases for a in desc.attributes)
    bind = binder(sig)
    accepted = frozenset(desc.accepted_dtypes)
    input_names = tuple(i.name for i in desc.inputs)
    checks = tuple((i.name, accepted.union(i.extra_dtypes), i.extra_dtypes) for i in desc.inputs)
    forms = tuple((n, n in input_names, n == "platform") for n in sig.parameters if n != "out")

    def fn(*args, **kwargs):
        values = bind(args, kwargs)
        key = face_key(desc.name, values, forms)   # the face's plan (faces.plans): its checks passed before
        kept = found(key, values["platform"])
        if kept is not None:
            return replayed(desc.name, kept, values, input_names, _broadcast_to)
        return planned(key, values, input_names, checked)

    def checked(values):
        for i in desc.inputs:
            check_array(values[i.name], i.name)
        for name, takes, extra in checks:
            a = values[name]
            dt = _dtype_name(a.dtype)
            if dt in desc.dtype_refusals or dt not in takes or (desc.max_dims is not None and a.ndim > desc.max_dims):
                _check_input(desc, a, name, extra)   # the refusal, with its message
        attrs = checked_attributes(desc, values, resolve_aliases(desc, values) if aliased else None)
        return run(desc, tuple((i.name, values[i.name]) for i in desc.inputs), attrs, values["out"],
                   values["platform"])

    fn.__name__ = fn.__qualname__ = desc.functional
    fn.__module__ = "swishgrad_numba"
    fn.__doc__ = face_docstring(desc)
    fn.__signature__ = sig
    _FACES[name] = fn
    return fn


def _platform_or_default(desc, platform):
    if platform is not None:
        return platform
    return get_operator(desc.name).default_platform


def _check_one_shape(desc, arrays, platform) -> None:
    """On an architecture of ``desc.one_shape_on`` the inputs share one dtype and one shape (a platform that
    is not a Platform is refused later, by the shared checks)."""
    platform = _platform_or_default(desc, platform)
    if not desc.one_shape(platform):
        return
    others = ", ".join(arch for arch in desc.kernels if arch not in desc.one_shape_on)
    (first, a), *rest = arrays
    for name, b in rest:
        if b.dtype != a.dtype:
            raise TypeError(f"{first} and {name} must have the same dtype on a {platform.architecture} platform, got "
                            f"{a.dtype} and {b.dtype} (mixed dtypes need an {others} platform)")
        if b.shape != a.shape:
            raise ValueError(f"{first} and {name} must have the same shape on a {platform.architecture} platform, "
                             f"got {a.shape} and {b.shape} (broadcasting needs an {others} platform)")


_KERNEL_ATTRIBUTES: dict = {}


def _kernel_attributes(desc) -> tuple:
    """``desc.kernel_attributes`` (a property that builds its tuple on every access), made once per description."""
    hit = _KERNEL_ATTRIBUTES.get(desc.name)
    if hit is None or hit[0] is not desc:
        hit = _KERNEL_ATTRIBUTES[desc.name] = (desc, desc.kernel_attributes)
    return hit[1]


def _broadcast_to(a: np.ndarray, shape: tuple) -> np.ndarray:
    """``np.broadcast_to(a, shape)``; an array of that shape already as a read-only view of itself, what
    broadcast_to gives, without its cost (a few microseconds an input, every call)."""
    if a.shape != shape:
        return np.broadcast_to(a, shape)
    v = a.view()
    v.flags.writeable = False
    return v
