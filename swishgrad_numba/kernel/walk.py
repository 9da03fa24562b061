"""What the walks share: the launch's pieces, pass functions by parameter class, and routes.

An emulated core (A2: its tiles; 950: its UB loops) walks a contiguous range of the flat tensor in
passes of a fixed length and a last, shorter one. So that every host thread has work whatever the core
count, a launch is given *pieces* (:data:`PIECE_DTYPE`): runs of whole cores that walk alike, or
consecutive passes of one core (a part of it), grouped into one bin per thread (:mod:`.plan` makes them).
The engine walks them (:mod:`swishgrad_numba.engine.launch`); element-wise work makes the order
irrelevant, so the bits are the same for every split.

The walks know nothing of any operator. A compiled program registers a *route* for the NamedTuple
class of its launch parameters (:func:`register_route`, :mod:`swishgrad_numba.program.passes`): how its
launches run (on the engine). The broadcast walk (:mod:`.broadcast`) can call a jitted *pass function*
registered for the class of the parameters it is given (:func:`register_pass`), which :func:`compute_pass`
resolves to at compile time; no package operator registers one now (the engine's
:class:`swishgrad_numba.engine.launch.EngineParams` has the broadcast walk's wide pass alone), the tests do.
(A function passed as an argument would also work, but Numba never finds such a launch in its disk cache; a
NamedTuple type it does.)
"""
from __future__ import annotations

import inspect

import numpy as np
from numba import types
from numba.extending import overload

__all__ = ["PIECE_DTYPE", "PASS_ARGS", "WORK_ROWS", "compute_pass", "register_pass", "register_route", "route_of"]

#: ``cores`` cores that walk alike, core ``j`` from element ``start + stride * j``:
#: each makes ``passes`` passes, all of ``pass_len`` elements but the last,
#: which has ``last_len``, and stops at its first pass that starts past the
#: tensor. A part of one core's walk is a piece of one core.
PIECE_DTYPE = np.dtype([("start", "<i8"), ("cores", "<i8"), ("stride", "<i8"), ("passes", "<i8"),
                        ("pass_len", "<i8"), ("last_len", "<i8")])

#: float32 scratch rows (each one pass long) a pass function may use, ``work[0]`` to ``work[3]``.
WORK_ROWS = 4

#: The arguments every pass function takes, in order:
#: ``params`` (its NamedTuple), ``in_bufs`` (the inputs' local buffers: a
#: C-contiguous ``(inputs, capacity)`` array, row ``i`` for input ``i``),
#: ``o_buf`` (the output's), ``work`` (``(WORK_ROWS, capacity)`` float32),
#: and the range ``[a, b)`` of elements to compute. It may overwrite its
#: input buffers (the device computes in place in UB).
PASS_ARGS = ("params", "in_bufs", "o_buf", "work", "a", "b")

_PASS_FUNCTIONS: dict = {}


def register_pass(params_class):
    """Decorator: the jitted function (``@njit(cache=True, inline="always")``,
    arguments :data:`PASS_ARGS`) that computes a pass of every launch whose
    ``params`` is a ``params_class`` (a ``typing.NamedTuple``)."""
    if not (isinstance(params_class, type) and issubclass(params_class, tuple) and hasattr(params_class, "_fields")):
        raise TypeError(f"params_class must be a NamedTuple class, got {params_class!r}")

    def decorate(function):
        py_func = getattr(function, "py_func", None)
        if py_func is None:
            raise TypeError(f"{function!r} must be a jitted function (numba.njit)")
        names = tuple(inspect.signature(py_func).parameters)
        if names != PASS_ARGS:
            raise TypeError(f"a pass function takes {PASS_ARGS}, {py_func.__qualname__} takes {names}")
        if _PASS_FUNCTIONS.get(params_class, py_func) is not py_func:
            raise ValueError(f"a pass function for {params_class.__qualname__} is registered already")
        _PASS_FUNCTIONS[params_class] = py_func
        return function

    return decorate


def compute_pass(params, in_bufs, o_buf, work, a, b):
    """Elements ``[a, b)`` of one pass, by the pass function registered for ``type(params)``."""
    raise NotImplementedError("compute_pass is only callable from jitted code")


@overload(compute_pass)
def _compute_pass_overload(params, in_bufs, o_buf, work, a, b):
    if isinstance(params, types.BaseNamedTuple):
        return _PASS_FUNCTIONS.get(params.instance_class)
    return None


_ROUTES: dict = {}


def register_route(params_class, route) -> None:
    """How a launch whose ``params`` is a ``params_class`` runs, decided by the layer that made the class
    (a compiled program's, :mod:`swishgrad_numba.program.passes`: on the engine), so that the walks need
    not import it. ``route.flat(params, ins, out, plan)`` runs a planned flat launch;
    ``route.broadcast(params)`` returns the parameters whose pass function the broadcast walk runs."""
    _ROUTES[params_class] = route


def route_of(params):
    """The route registered for ``type(params)`` (:func:`register_route`), or None."""
    return _ROUTES.get(type(params))
