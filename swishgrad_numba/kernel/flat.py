"""A pass function in one flat loop, without the tile structure.

The benchmark's yardstick: a ``prange`` over fixed chunks calling the same
pass function as the real walk (:func:`.walk.compute_pass`, resolved by the
type of ``params``), with no tiling record, per-core ranges, ping-pong or
slicing for prefetches. The difference to the emulator is what the
structure costs.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from .walk import WORK_ROWS, compute_pass

__all__ = ["FLAT_CHUNK", "flat_launch"]

#: Elements per parallel iteration (about one float32 tile).
FLAT_CHUNK = 8192


@njit(parallel=True, cache=True, error_model="numpy")
def flat_launch(params, g, x, o, chunk):
    """``o = pass(g, x)`` chunk by chunk, into ``o`` itself; ``g`` and ``x`` are not modified."""
    n = o.shape[0]
    for c in prange((n + chunk - 1) // chunk):
        start = c * chunk
        stop = min(start + chunk, n)
        # a pass may work in place on its inputs (as the device does in UB): the chunk's inputs in
        # buffers of its own, as the walk's
        ins = np.empty((2, stop - start), dtype=x.dtype)
        ins[0] = g[start:stop]
        ins[1] = x[start:stop]
        work = np.empty((WORK_ROWS, stop - start), dtype=np.float32)
        compute_pass(params, ins, o[start:stop], work, 0, stop - start)
