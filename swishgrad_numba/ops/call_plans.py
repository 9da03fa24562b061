"""Call plans (issue 39): what :func:`swishgrad_numba.ops.call.call` keeps of a call, and the key it keeps it by.

A call whose kernel comes down to one engine launch (:meth:`swishgrad_numba.engine.runner.Prepared.run`) over
its flat inputs and result is kept as that launch (its program, schedule and attributes, a :class:`CallPlan`),
per everything the launch was derived from (:func:`plan_key`: the operator, the inputs' dtypes, shapes, strides
and writeability, the attributes' float32 bits, the platform, and :func:`launch_key`: the grain, the
thread count). Any other call is kept as :data:`DECLINED`: it runs in full every time. The plans live
in :data:`CALL_PLANS`, an LRU of :data:`PLANS_KEPT` shared by every thread (and renewed in a forked child).
"""
from __future__ import annotations

import collections
from typing import NamedTuple

import numpy as np

from .. import kernel as kernel_pkg, runtime
from ..engine import hot, runner
from .registry import get_operator

__all__ = ["CALL_PLANS", "DECLINED", "PLANS_KEPT", "CallPlan", "KeptPlans", "kept_plan", "launch_key", "plan_key",
           "plan_of", "usable", "viewed"]

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


CALL_PLANS = KeptPlans()


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




def kept_plan(op_name: str, inputs: tuple, attr32, platform) -> CallPlan | None:
    """The :class:`CallPlan` kept for this call's key, or None."""
    key = plan_key(op_name, inputs, attr32, platform)
    kept = CALL_PLANS.get(key) if key is not None else None
    return kept if usable(kept, op_name, platform) else None


def usable(kept, op_name: str, platform) -> bool:
    """Whether ``kept`` (what :data:`CALL_PLANS` gave) is a plan for this call: a :class:`CallPlan` of this platform
    object and of the operator registered under the name now."""
    return isinstance(kept, CallPlan) and kept.platform is platform and kept.operator is get_operator(op_name)


def launch_key(size: int) -> tuple:
    """The parts of a call's key read at each call: the grain, the thread count (only where a launch of ``size``
    elements asks it, :func:`swishgrad_numba.kernel.plan_launch`: a smaller one runs on one bin and must not start
    the thread pool)."""
    return runner.DEFAULT_GRAIN, 1 if size < kernel_pkg.SERIAL_BELOW else runtime.num_threads()


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


def plan_key(op_name: str, inputs: tuple, attr32, platform):
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


def viewed(a: np.ndarray, form) -> np.ndarray:
    """``a`` (flat, C-contiguous) in a plan's form of the launch's view of it."""
    dtype, writeable = form
    v = a.view(dtype)
    if not writeable:
        v.flags.writeable = False
    return v


def plan_of(runs, operator, platform, flat, result):
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

