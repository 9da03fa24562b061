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

Call plans (issue 39): a call whose kernel comes down to one engine launch
(:meth:`swishgrad_numba.engine.runner.Prepared.run`) over its flat inputs and result
is kept as that launch (its program, schedule and attributes), per everything
the launch was derived from (:func:`_plan_key`: the operator, the inputs' dtypes,
shapes, strides and writeability, the attributes' float32 bits, the platform, the
engine switch, the thread count and grain). The next call of that key goes from
the checks of ``out`` and of aliasing, made on every call, straight to the launch,
skipping the host tiling, the kernel's planning and the views made on the way. A
call of another key is checked and planned in full (and raises what it raises).
"""
from __future__ import annotations

import collections
import functools
from typing import NamedTuple

import numpy as np

from .. import engine, kernel as kernel_pkg, runtime
from ..arguments import check_array, check_out, check_platform_for
from ..dtypes import DTypeInfo, dtype_info
from ..engine import hot, runner
from ..platform import Platform
from .registry import OpTiling, get_operator

__all__ = ["DECLINED", "PLANS_KEPT", "CallPlan", "KeptPlans", "call", "host_tiling", "kept_plan", "launch_key",
           "overlap", "plans_kept", "replay"]

#: Call plans kept per cache (the least recently used dropped first).
PLANS_KEPT = 64
#: Kept for a key whose call is not planned that way: it runs in full every time (and is not recorded again).
DECLINED = "declined"


class KeptPlans:
    """A small LRU of plans by key, for any thread and a forked child (its lock renewed there)."""

    def __init__(self, size: int = PLANS_KEPT):
        self.size = size
        self._plans: collections.OrderedDict = collections.OrderedDict()
        self._lock = runtime.ChildRenewedLock()

    def get(self, key):
        """The plan kept for ``key`` (now the most recently used), :data:`DECLINED`, or None."""
        plan = self._plans.get(key)
        if plan is not None:
            try:
                self._plans.move_to_end(key)
            except KeyError:   # dropped by another thread meanwhile
                pass
        return plan

    def keep(self, key, plan) -> None:
        with self._lock:
            self._plans[key] = plan
            self._plans.move_to_end(key)
            while len(self._plans) > self.size:
                self._plans.popitem(last=False)

    def __len__(self) -> int:
        return len(self._plans)


_PLANS = KeptPlans()


class CallPlan(NamedTuple):
    """A call's launch, as :meth:`~swishgrad_numba.engine.runner.Prepared.run` was given it."""
    operator: object     # the registered operator (one registered anew under the name is planned anew)
    platform: object     # as given (None: the operator's default), held so that its id in the key stays its own
    prepared: object
    launch_plan: object
    attrs: dict
    forms: tuple         # per input, (dtype, writeable) of the launch's flat view of it
    out_form: tuple
    hot: object          # the launch on the hot tier (engine.hot.launcher), None where it never runs hot


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
    """Whether ``a`` and ``b`` share memory: the bounds first (``may_share_memory``, constant time), the exact
    answer (``shares_memory``) only where the bounds meet."""
    return bool(np.may_share_memory(a, b)) and bool(np.shares_memory(a, b))


def call(op_name: str, inputs: tuple, attr32, out, platform: Platform | None) -> np.ndarray:
    """Operator ``op_name`` over ``inputs`` (``((name, array), ...)`` in the kernel's order, the names
    those of the public function's arguments), as the kernel of ``platform``'s SoC computes it.

    Returns ``out`` (any strides; written through a contiguous result where it is not contiguous or
    overlaps an input) or a new C-contiguous array.
    """
    key = _plan_key(op_name, inputs, attr32, platform)
    kept = _PLANS.get(key) if key is not None else None
    if _usable(kept, op_name, platform):
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
        _PLANS.keep(key, _plan_of(runs, op, given, flat, result.reshape(-1)))
    return _finished(result, out, direct)


def replay(plan: CallPlan, inputs: tuple, out):
    """The call ``plan`` was kept for, over these ``inputs`` (of its key's forms) into ``out`` (checked here)."""
    reference = inputs[-1][1]
    check_out(out, reference)
    flat, result, direct = _operands(inputs, out)
    ins = tuple(_viewed(a, form) for a, form in zip(flat, plan.forms))
    into = _viewed(result.reshape(-1), plan.out_form)
    if plan.hot is None or not plan.hot(ins, into):   # (the result shares no memory with the inputs)
        plan.prepared.run(ins, into, plan.launch_plan, plan.attrs)
    return _finished(result, out, direct)


def kept_plan(op_name: str, inputs: tuple, attr32, platform) -> CallPlan | None:
    """The :class:`CallPlan` kept for this call's key, or None."""
    key = _plan_key(op_name, inputs, attr32, platform)
    kept = _PLANS.get(key) if key is not None else None
    return kept if _usable(kept, op_name, platform) else None


def _usable(kept, op_name: str, platform) -> bool:
    """Whether ``kept`` (what :data:`_PLANS` gave) is a plan for this call: a :class:`CallPlan` of this platform
    object and of the operator registered under the name now."""
    return isinstance(kept, CallPlan) and kept.platform is platform and kept.operator is get_operator(op_name)


def launch_key(size: int) -> tuple:
    """The parts of a call's key read at each call: the engine switch, the grain, the thread count (only where a
    launch of ``size`` elements asks it, :func:`swishgrad_numba.kernel.plan_launch`: a smaller one runs on one bin
    and must not start the thread pool)."""
    return engine.enabled(), runner.DEFAULT_GRAIN, 1 if size < kernel_pkg.SERIAL_BELOW else runtime.num_threads()


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


def _attr_key(attr32):
    """The attributes' float32 bits (-0.0 apart from 0.0, each NaN payload its own), or None where they are
    not what the faces give (np.float32, a tuple of them, or None): such a call is not planned."""
    if type(attr32) is np.float32:
        return attr32.tobytes()
    if attr32 is None:
        return b""
    if type(attr32) is tuple and all(type(a) is np.float32 for a in attr32):
        return tuple(a.tobytes() for a in attr32)
    return None


def _plan_key(op_name: str, inputs: tuple, attr32, platform):
    """Everything a call's launch is derived from, or None where the call is not planned (an input that is
    not a plain ndarray, attributes of another form). The platform by identity (a Platform is immutable; the
    plan holds it); then :func:`launch_key`."""
    bits = _attr_key(attr32)
    if bits is None:
        return None
    key = [op_name, bits, id(platform)]
    for _name, a in inputs:
        if type(a) is not np.ndarray:
            return None
        key += (a.dtype, a.shape, a.strides, a.flags.writeable)
    return (*key, *launch_key(inputs[-1][1].size))


def _form(view, base: np.ndarray):
    """``(dtype, writeable)`` of ``view`` where it is a flat C-contiguous view of all of ``base`` (the same
    memory, another dtype of its itemsize), else None."""
    if (type(view) is not np.ndarray or view.ndim != 1 or view.shape[0] != base.size or view.itemsize != base.itemsize
            or not view.flags.c_contiguous
            or view.__array_interface__["data"][0] != base.__array_interface__["data"][0]):
        return None
    return view.dtype, bool(view.flags.writeable)


def _viewed(a: np.ndarray, form) -> np.ndarray:
    """``a`` (flat, C-contiguous) in a plan's form of the launch's view of it."""
    dtype, writeable = form
    v = a.view(dtype)
    if not writeable:
        v.flags.writeable = False
    return v


def _plan_of(runs, operator, platform, flat, result):
    """The :class:`CallPlan` of a call whose kernel made ``runs`` (:func:`swishgrad_numba.engine.runner.recorded`):
    one engine launch over flat views of all of the call's inputs, in their order, into one of its result;
    else :data:`DECLINED`."""
    if len(runs) != 1:
        return DECLINED
    prepared, ins, out, launch_plan, attrs = runs[0]
    forms = tuple(_form(a, f) for a, f in zip(ins, flat))
    out_form = _form(out, result)
    if len(ins) != len(flat) or None in forms or out_form is None or not out_form[1]:
        return DECLINED
    one_dtype = all(f[0] == out_form[0] for f in forms)
    return CallPlan(operator, platform, prepared, launch_plan, attrs, forms, out_form,
                    hot.launcher(prepared, launch_plan, attrs, out_form[0], len(ins)) if one_dtype else None)


def plans_kept() -> int:
    """How many call plans are kept now (declined keys included)."""
    return len(_PLANS)
