"""The template's emulated kernels, jitted with Numba: what every operator shares.

Private to the package: callers validate everything first. The Python entry
points here decide how to run a launch and take the launch lock; the jitted
code below them only computes. What a pass computes is each operator's
(:mod:`swishgrad_numba.ops`); everything else is here, written once.

- :mod:`.exp`: the correctly rounded Exp; :mod:`.ln`: the correctly rounded Ln;
- :mod:`.walk`: what the walks share (the launch's pieces, pass functions and
  routes by parameter class; the flat launch itself is the engine's);
- :mod:`.plan`: how a launch's cores are spread over the host threads;
- :mod:`.broadcast`: the broadcast walk (arch35 ``BroadcastTiling``);
- :mod:`.envelope`: ulp steps, for the outputs a device with Exp, Div and Ln errors can reach.

Entry points: :func:`plan_launch`, :func:`run_walk` (a planned launch of
a compiled program), :class:`TableCache`.
"""
from __future__ import annotations

import functools

import numpy as np

from .. import runtime
from ..platform import ARCH_950 as _ARCH_950_NAME
from ..platform import ARCH_A2 as _ARCH_A2_NAME
from . import plan, walk
from .plan import Plan
from .tables import TableCache

__all__ = ["ARCH_A2", "ARCH_950", "Plan", "SERIAL_BELOW", "TableCache", "arch_code", "plan_launch", "run_walk"]

#: Kernel selectors passed to the jitted code (:func:`arch_code`).
ARCH_A2 = 0
ARCH_950 = 1

#: Launches of fewer elements run on the calling thread: waking the thread
#: pool costs more than the work.
SERIAL_BELOW = 1 << 15

_ARCH_CODES = {_ARCH_A2_NAME: ARCH_A2, _ARCH_950_NAME: ARCH_950}


def arch_code(architecture: str) -> int:
    """The jitted code's selector of a platform's architecture (``Platform.architecture``)."""
    return _ARCH_CODES[architecture]


def plan_launch(fields, block_dim: int, arch: int, numel: int, threads: int | None = None) -> Plan:
    """The pieces and bins of a launch of ``block_dim`` cores over ``numel`` elements.

    ``fields`` is the tiling's ``TilingFields`` (Python ints); ``threads``
    defaults to Numba's current thread count; launches below
    :data:`SERIAL_BELOW` elements get one bin (they run serially). For a
    record that may be broken, check :func:`plan.work_bound` first.

    A plan is a pure function of its arguments: it is made once per
    ``(type(fields), fields, block_dim, arch, numel, threads)`` and kept
    (:func:`_planned`, its arrays read-only), so a warm call of a few thousand
    elements does not spend its time planning.
    """
    if numel < SERIAL_BELOW:   # one bin: the thread count is not asked (the first ask starts the thread pool)
        threads = 1
    elif threads is None:
        threads = runtime.num_threads()
    try:
        return _planned(type(fields), fields, block_dim, arch, numel, threads)
    except TypeError:   # fields that do not hash (not a tuple of ints): planned each time
        return _plan_of(fields, block_dim, arch, numel, threads)


def _plan_of(fields, block_dim: int, arch: int, numel: int, threads: int) -> Plan:
    runs = plan.core_runs(plan.classes_of(fields, block_dim, arch), numel)
    return plan.plan(runs, numel, threads)


@functools.lru_cache(maxsize=256)
def _planned(_fields_type, fields, block_dim: int, arch: int, numel: int, threads: int) -> Plan:
    """:func:`_plan_of`, kept: its arrays read-only, so one object serves every caller."""
    made = _plan_of(fields, block_dim, arch, numel, threads)
    made.pieces.flags.writeable = False
    made.bins.flags.writeable = False
    return made


def run_walk(params, ins: tuple, out: np.ndarray, launch_plan: Plan) -> None:
    """Run a planned launch of the compiled program whose parameters ``params`` are (by the route registered
    for ``type(params)``, :func:`.walk.register_route`: on the engine) over flat, C-contiguous ``ins`` (a
    tuple of arrays of one dtype, ``out``'s size) into ``out``."""
    route = walk.route_of(params)
    if route is None:
        raise TypeError(f"run_walk takes a compiled program's launch parameters (program.compiled(...).params()), "
                        f"got {type(params).__qualname__}")
    route.flat(params, ins, out, launch_plan)
