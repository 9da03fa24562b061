"""The emulated SwishGrad kernels (Atlas A2 and Ascend 950), jitted with Numba.

Private to the package: callers validate everything first. The Python entry
points here decide how to run a launch and take the launch lock; the jitted
code below them only computes.

- :mod:`.exp`: the correctly rounded Exp;
- :mod:`.sequence`: both kernels' instruction sequences, written once, and
  the tile computations and 16-bit tables built from them;
- :mod:`.walk`: the pass-by-pass walk with ping-pong local buffers that both
  kernels share, and the parallel launch;
- :mod:`.plan`: how a launch's cores are spread over the host threads;
- :mod:`.flat`: the same arithmetic in one flat loop (the benchmark's
  yardstick for what the tile structure costs);
- :mod:`.saturation`: the device's saturation overflow mode (one flat loop);
- :mod:`.envelope`: the outputs a device with Exp and Div errors can reach.

Entry points: :func:`launch` (a planned launch), :func:`plan_launch`,
:func:`run_flat`.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from .. import runtime
from ..dtypes import FLOAT32, DTypeInfo
from ..platform import ARCH_950 as _ARCH_950_NAME
from ..platform import ARCH_A2 as _ARCH_A2_NAME
from . import flat, plan, saturation, sequence, walk
from .plan import Plan
from .sequence import ARCH_950, ARCH_A2

__all__ = ["ARCH_A2", "ARCH_950", "Plan", "SERIAL_BELOW", "TableCache", "arch_code", "launch", "plan_launch", "run_flat",
           "derivative_table"]

#: Launches of fewer elements run on the calling thread: waking the thread
#: pool costs more than the work.
SERIAL_BELOW = 1 << 15

_EMPTY_TABLE = np.empty(0, dtype=np.float32)

_ARCH_CODES = {_ARCH_A2_NAME: ARCH_A2, _ARCH_950_NAME: ARCH_950}


def arch_code(architecture: str) -> int:
    """The jitted code's selector of a platform's architecture (``Platform.architecture``)."""
    return _ARCH_CODES[architecture]

class TableCache:
    """The 16-bit kernels' 65,536-entry tables, built once per key and kept
    read-only, the ``size`` most recently used ones at most.

    Thread-safe: guarded by the package's lock (building a table is itself
    a parallel launch). Every operator's tables use one of these."""

    def __init__(self, size: int = 16):
        self._tables: "OrderedDict[tuple, np.ndarray]" = OrderedDict()
        self._size = size

    def get(self, key, build) -> np.ndarray:
        """The table of ``key``, made by ``build()`` the first time."""
        with runtime.launch_lock():
            table = self._tables.get(key)
            if table is None:
                table = build()
                table.flags.writeable = False
                self._tables[key] = table
                if len(self._tables) > self._size:
                    self._tables.popitem(last=False)
            else:
                self._tables.move_to_end(key)
            return table


# s'(x) tables of the 16-bit kernels, keyed by (arch, dtype code, beta bits, saturation).
_DERIVATIVE_TABLES = TableCache()


def derivative_table(arch: int, info: DTypeInfo, beta: np.float32, saturation: bool = False) -> np.ndarray:
    """s'(x) of kernel ``arch`` for all 65,536 x of a 16-bit dtype, cached.

    ``saturation``: every instruction saturated (the device's saturation
    overflow mode).
    """
    key = (arch, info.code, int(np.float32(beta).view(np.uint32)), bool(saturation))
    return _DERIVATIVE_TABLES.get(key, lambda: sequence.derivative_table(np.float32(beta), info.code, arch,
                                                                         bool(saturation)))


def plan_launch(fields, block_dim: int, arch: int, numel: int, threads: int | None = None) -> Plan:
    """The pieces and bins of a launch of ``block_dim`` cores over ``numel`` elements.

    ``fields`` is the tiling's ``TilingFields`` (Python ints); ``threads``
    defaults to Numba's current thread count; launches below
    :data:`SERIAL_BELOW` elements get one bin (they run serially). For a
    record that may be broken, check :func:`plan.work_bound` first.
    """
    if threads is None:
        threads = runtime.num_threads()
    runs = plan.core_runs(plan.classes_of(fields, block_dim, arch), numel)
    return plan.plan(runs, numel, 1 if numel < SERIAL_BELOW else threads)


def _bits(arr: np.ndarray, info: DTypeInfo) -> np.ndarray:
    return arr if info is FLOAT32 else arr.view(np.uint16)


def launch(grad: np.ndarray, x: np.ndarray, out: np.ndarray, launch_plan: Plan, beta: np.float32,
           info: DTypeInfo, arch: int, saturation: bool = False) -> None:
    """Run a planned launch over flat, C-contiguous ``grad``, ``x``, ``out`` of ``info``'s dtype.

    ``saturation``: the device's saturation overflow mode (:mod:`.saturation`;
    the result does not depend on the plan, so it runs as one flat loop).
    """
    g, xb, o = _bits(grad, info), _bits(x, info), _bits(out, info)
    if saturation:
        _launch_saturated(g, xb, o, beta, info, arch)
        return
    table = _EMPTY_TABLE if info is FLOAT32 else derivative_table(arch, info, beta)
    # On workqueue (not thread-safe) one launch at a time, each still using
    # every Numba thread; TBB and omp need no lock. See runtime.
    with runtime.launch_guard():
        if len(launch_plan.bins) <= 2:
            walk.launch_serial(g, xb, o, launch_plan.pieces, launch_plan.capacity, beta, table, info.code, arch)
        else:
            walk.launch_bins(g, xb, o, launch_plan.pieces, launch_plan.bins, launch_plan.capacity, beta, table,
                             info.code, arch)


def _launch_saturated(g, x, o, beta, info: DTypeInfo, arch: int) -> None:
    table = None if info is FLOAT32 else derivative_table(arch, info, beta, saturation=True)
    with runtime.launch_guard():
        if table is None:
            saturation.launch_saturated_f32(g, x, o, np.float32(beta), arch)
        else:
            saturation.launch_saturated_16(g, x, o, table, info.code)


def run_flat(grad: np.ndarray, x: np.ndarray, out: np.ndarray, beta: np.float32, info: DTypeInfo,
             arch: int = ARCH_A2, chunk: int = flat.FLAT_CHUNK) -> None:
    """The same arithmetic as :func:`launch` in one flat chunked loop (no tiles,
    no local buffers, no ping-pong), into ``out``; for the benchmark."""
    g, xb, o = _bits(grad, info), _bits(x, info), _bits(out, info)
    table = _EMPTY_TABLE if info is FLOAT32 else derivative_table(arch, info, beta)
    with runtime.launch_guard():
        flat.flat_launch(g, xb, o, chunk, beta, table, info.code, arch)
