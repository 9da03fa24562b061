"""The 16-bit kernels' tables, kept once built (:class:`TableCache`): a module of its own, so that the
layers above the kernel (``program.passes``, ``engine.runner``) reach it without the kernel package's
launch entry points."""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from .. import runtime

__all__ = ["TableCache"]


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
