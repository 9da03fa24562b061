"""One path from a public function to the launch, for every element-wise operator of the registry.

:func:`call` checks the arguments (with the checkers every public function
shares, :mod:`swishgrad_numba.arguments`), asks the operator for its host
tiling on the platform's kernel (cached per shape, dtype, platform and
attribute), and launches that kernel's ``run`` (its compiled program on the
walk) into ``out`` or a new array. A public function is then one line:
``swish(x, beta)`` is ``call("swish", (("x", x),), beta32, out, platform)``.

It serves operators whose inputs share one shape and one dtype; the generated
functional faces (:mod:`swishgrad_numba.faces.functional`) Cast and broadcast
first where the description says so (the 950 SiluGrad's inputs).

Call plans (issue 39, :mod:`.call_plans`): a call whose kernel came down to one engine launch is kept as that
launch, and the next call of its key goes from the checks of ``out`` and of aliasing, made on every call,
straight to the launch (:func:`replay`), skipping the host tiling, the kernel's planning and the views made on
the way. A call of another key is checked and planned in full (and raises what it raises).
"""
from __future__ import annotations

import functools

import numpy as np

from ..arguments import check_array, check_out, check_platform_for, may_share
from ..dtypes import DTypeInfo, dtype_info
from ..engine import runner
from ..platform import Platform
from .call_plans import CALL_PLANS, DECLINED, CallPlan, plan_key, plan_of, usable, viewed
from .registry import OpTiling, get_operator

__all__ = ["call", "host_tiling", "overlap", "replay"]


@functools.lru_cache(maxsize=512)
def _cached_tiling(op_name: str, numel: int, info: DTypeInfo, platform: Platform, attr_bits) -> OpTiling:
    return get_operator(op_name).host_tiling(numel, info, _from_bits(attr_bits), platform)


def _to_bits(attr):
    if attr is None or isinstance(attr, tuple):
        return None if attr is None else tuple(_to_bits(a) for a in attr)
    return int(np.float32(attr).view(np.uint32))


def _from_bits(bits):
    if bits is None or isinstance(bits, tuple):
        return None if bits is None else tuple(_from_bits(b) for b in bits)
    return np.uint32(bits).view(np.float32)


def host_tiling(op_name: str, numel: int, info: DTypeInfo, attr32, platform: Platform) -> OpTiling:
    """Operator ``op_name``'s host tiling of ``numel`` (>= 1) elements, cached; ``attr32`` its float32
    attribute (beta, scale), a tuple of them (Elu's alpha, scale, inputScale) or None. The record is
    read-only, so one object serves every caller."""
    return _cached_tiling(op_name, numel, info, platform, _to_bits(attr32))


def _check_inputs(inputs) -> DTypeInfo:
    """The dtype row of the inputs, checked to be arrays of one supported dtype and one shape."""
    (first_name, first), *rest = inputs
    check_array(first, first_name)
    info = dtype_info(first.dtype, argname=f"{first_name}.dtype")
    for name, arr in rest:
        check_array(arr, name)
        dtype_info(arr.dtype, argname=f"{name}.dtype")
        if arr.dtype != first.dtype:
            raise TypeError(f"{first_name} and {name} must have the same dtype, got {first.dtype} and {arr.dtype}")
        if arr.shape != first.shape:
            raise ValueError(f"{first_name} and {name} must have the same shape, got {first.shape} and "
                             f"{arr.shape}")
    return info


def overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a`` and ``b`` share memory: the bounds first (:func:`~swishgrad_numba.arguments.may_share`,
    constant time), the exact answer (``shares_memory``) only where the bounds meet."""
    return may_share(a, b) and bool(np.shares_memory(a, b))


def call(op_name: str, inputs: tuple, attr32, out, platform: Platform | None) -> np.ndarray:
    """Operator ``op_name`` over ``inputs`` (``((name, array), ...)`` in the kernel's order, the names
    those of the public function's arguments), as the kernel of ``platform``'s SoC computes it.

    Returns ``out`` (any strides; written through a contiguous result where it is not contiguous or
    overlaps an input) or a new C-contiguous array.
    """
    key = plan_key(op_name, inputs, attr32, platform)
    kept = CALL_PLANS.get(key) if key is not None else None
    if usable(kept, op_name, platform):
        return replay(kept, inputs, out)
    info = _check_inputs(inputs)
    given = platform
    platform = check_platform_for(platform, op_name, info)
    reference = inputs[-1][1]
    check_out(out, reference)
    if reference.size == 0:
        return np.empty(reference.shape, dtype=reference.dtype) if out is None else out
    tiling = host_tiling(op_name, reference.size, info, attr32, platform)
    flat, result, direct = _operands(inputs, out)
    grad = flat[0] if len(flat) == 2 else None
    op = get_operator(op_name)
    extra = {"saturation": True} if platform.saturation else {}
    if op.axpy:
        extra["axpy_rounding"] = platform.axpy_rounding
    if key is None or kept is DECLINED:
        op.kernels[tiling.architecture].run(grad, flat[-1], result.reshape(-1), tiling, **extra)
    else:
        with runner.recorded() as runs:
            op.kernels[tiling.architecture].run(grad, flat[-1], result.reshape(-1), tiling, **extra)
        CALL_PLANS.keep(key, plan_of(runs, op, given, flat, result.reshape(-1)))
    return _finished(result, out, direct)


def replay(plan: CallPlan, inputs: tuple, out):
    """The call ``plan`` was kept for, over these ``inputs`` (of its key's forms) into ``out`` (checked here)."""
    reference = inputs[-1][1]
    check_out(out, reference)
    flat, result, direct = _operands(inputs, out)
    ins = tuple(viewed(a, form) for a, form in zip(flat, plan.forms))
    into = viewed(result.reshape(-1), plan.out_form)
    if plan.hot is None or not plan.hot(ins, into):   # (the result shares no memory with the inputs)
        plan.prepared.run(ins, into, plan.launch_plan, plan.attrs)
    return _finished(result, out, direct)


def _operands(inputs, out) -> tuple:
    """``(flat, result, direct)``: the inputs flat and C-contiguous (copies where they are not), the array the
    kernel writes (``out`` where it is C-contiguous and overlaps no input: ``direct``, else a new one)."""
    reference = inputs[-1][1]
    flat = [np.ascontiguousarray(arr).reshape(-1) for _name, arr in inputs]
    direct = out is not None and out.flags.c_contiguous and not any(overlap(out, arr) for _name, arr in inputs)
    return flat, out if direct else np.empty(reference.shape, dtype=reference.dtype), direct


def _finished(result, out, direct: bool):
    if out is not None and not direct:
        out[...] = result
        return out
    return result


