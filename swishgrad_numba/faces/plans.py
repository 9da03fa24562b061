"""The generated faces' plans (issue 39): what a face's checks gave, kept per its arguments' forms.

A face call (:func:`swishgrad_numba.faces.functional.face`) whose checks end in the kernel's
:func:`~swishgrad_numba.ops.call.call` on its own inputs (or read-only views of them, as broadcast to their own
shape), and that returns what ``call`` gave, is kept as a :class:`FacePlan` per :func:`face_key` (each input's
type, dtype, shape, strides and writeability; each attribute's type and exact value; the platform by identity).
The next call of that key goes straight to ``call`` with the kernel's attributes found: ``call`` checks ``out``
and finds its own plan (:mod:`swishgrad_numba.ops.call`). A call of any other form is checked in full.
"""
from __future__ import annotations

import struct
import threading
from typing import NamedTuple

import numpy as np

from ..ops.call import call, replay
from ..ops.call_plans import DECLINED, KeptPlans, kept_plan, launch_key, usable

__all__ = ["FACE_PLANS", "FacePlan", "face_key", "found", "plan_of", "planned", "recorded_call", "replayed",
           "value_key"]

FACE_PLANS = KeptPlans()
_RECORDING = threading.local()


class FacePlan(NamedTuple):
    """What a face's checks gave for a key: the kernel's attributes and how each input reached ``call``."""
    platform: object     # as given, held so that its id in the key stays its own
    attr32: object
    views: tuple         # per input: True where ``call`` took a read-only view of it of its own shape
    call_plan: object    # the call's own plan (ops.call_plans.CallPlan) found after it, or None
    launch_key: tuple    # ops.call_plans.launch_key when it was found: the call plan serves while it is the same


def value_key(value):
    """An attribute's value as a key: its type and exact value (a float's bits: -0.0 apart from 0.0, each NaN
    payload its own), or None for a value of another kind (its call is not planned)."""
    kind = type(value)
    if kind is float:
        return kind, struct.pack("<d", value)
    if value is None or kind in (int, bool, str):
        return kind, value
    if kind in _NUMPY_SCALARS:
        return kind, value.tobytes()
    return None


_NUMPY_SCALARS = frozenset((np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8,
                            np.uint16, np.uint32, np.uint64, np.bool_))


def face_key(op_name: str, values: dict, forms: tuple):
    """A face call's key (see the module docstring), or None where it is not planned (an input that is not a
    plain ndarray, an attribute of another kind); ``forms``: ``(name, is an input, is the platform)`` of every
    argument but ``out``."""
    key = [op_name]
    for name, is_input, is_platform in forms:
        v = values[name]
        if is_input:
            if type(v) is not np.ndarray:
                return None
            key += (v.dtype, v.shape, v.strides, v.flags.writeable)
        elif is_platform:
            key.append(id(v))
        else:
            k = value_key(v)
            if k is None:
                return None
            key.append(k)
    return tuple(key)


def plan_of(calls, values: dict, input_names: tuple, got):
    """The :class:`FacePlan` of a face call that made ``calls`` (:func:`run`'s records): one ``call`` on the
    inputs themselves or read-only views of them of their own shape, whose result the face returned; else
    :data:`~swishgrad_numba.ops.call_plans.DECLINED`."""
    if len(calls) != 1 or calls[0][2] is not got:
        return DECLINED
    arrays, attr32, _got, call_plan, launched = calls[0]
    views = []
    for (name, passed), own in zip(arrays, input_names):
        given = values[own]
        if name != own:
            return DECLINED
        if passed is given:
            views.append(False)
        elif (passed.base is given and passed.shape == given.shape and passed.strides == given.strides
              and passed.dtype == given.dtype and not passed.flags.writeable):
            views.append(True)
        else:
            return DECLINED
    return FacePlan(values["platform"], attr32, tuple(views), call_plan, launched)


def recorded_call(op_name: str, arrays: tuple, attr32, out, platform):
    """``call(...)``, recorded for :func:`planned` where a face call is being planned on this thread."""
    got = call(op_name, arrays, attr32, out, platform)
    calls = getattr(_RECORDING, "calls", None)
    if calls is not None:
        calls.append((arrays, attr32, got, kept_plan(op_name, arrays, attr32, platform),
                      launch_key(arrays[-1][1].size)))
    return got


def replayed(op_name: str, kept: FacePlan, values: dict, input_names: tuple, broadcast_to):
    """A planned face call: straight on its call's plan (:func:`swishgrad_numba.ops.call.replay`) where that is
    kept and the parts of its key read at each call are the same, else ``call`` on the inputs as the face's
    checks gave them (``broadcast_to(a, a.shape)``: the face's read-only view)."""
    plan = kept.call_plan
    inputs = tuple((n, values[n]) for n in input_names)
    if usable(plan, op_name, values["platform"]) and launch_key(inputs[-1][1].size) == kept.launch_key:
        return replay(plan, inputs, values["out"])
    arrays = tuple((n, broadcast_to(a, a.shape) if view else a) for (n, a), view in zip(inputs, kept.views))
    return call(op_name, arrays, kept.attr32, values["out"], values["platform"])


def found(key, platform) -> FacePlan | None:
    """The plan kept for ``key`` (None for none, a declined key or another platform object)."""
    kept = FACE_PLANS.get(key) if key is not None else None
    return kept if kept is not None and kept is not DECLINED and kept.platform is platform else None


def planned(key, values: dict, input_names: tuple, checked):
    """``checked(values)`` (the face's checks and run), its plan kept under ``key`` (None: not planned; a
    declined key is run without recording)."""
    if key is None or FACE_PLANS.get(key) is DECLINED:
        return checked(values)
    previous, calls = getattr(_RECORDING, "calls", None), []
    _RECORDING.calls = calls
    try:
        got = checked(values)
    finally:
        _RECORDING.calls = previous
    FACE_PLANS.keep(key, plan_of(calls, values, input_names, got))
    return got
