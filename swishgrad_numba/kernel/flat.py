"""The kernels' arithmetic in one flat loop, without the tile structure.

The benchmark's yardstick: a ``prange`` over fixed chunks calling the same
tile computation as the real walk (:func:`.sequence.compute_tile`), with no
tiling record, per-core ranges, local buffers, ping-pong or copies of g and
the output. The difference to the emulator is what the structure costs.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from .sequence import compute_tile

__all__ = ["FLAT_CHUNK", "flat_launch"]

#: Elements per parallel iteration (about one float32 tile).
FLAT_CHUNK = 8192


@njit(parallel=True, cache=True, error_model="numpy")
def flat_launch(g, x, o, chunk, beta, table, dtype_code, arch):
    """``o = SwishGrad(g, x)`` chunk by chunk; ``g`` and ``x`` are not modified."""
    n = o.shape[0]
    for c in prange((n + chunk - 1) // chunk):
        start = c * chunk
        stop = min(start + chunk, n)
        # compute_* work in place on x (as the device does in UB): stage the
        # chunk of x in a scratch buffer of its own.
        xs = x[start:stop].copy()
        work = np.empty(stop - start, dtype=np.float32)
        compute_tile(g[start:stop], xs, o[start:stop], work, 0, stop - start, beta, table, dtype_code, arch)
