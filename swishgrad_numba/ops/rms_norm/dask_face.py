"""RmsNorm over Dask arrays, by row blocks (issue 42): re-exported by :mod:`swishgrad_numba.dask`.

x is rechunked so that gamma's axes (the row) are one chunk each; every block of rows then runs the emulated
kernel (:func:`swishgrad_numba.ops.rms_norm.rms_norm`). A row's arithmetic does not depend on which core or
block holds it, so the result is bit for bit the in-memory call's. y and rstd are two maps over the
blocks (each block runs the kernel once for each).
"""
from __future__ import annotations

import numpy as np

from .api import rms_norm as _rms_norm_numpy
from .api import check_inputs

try:
    import dask.array as da
except ImportError:   # pragma: no cover - dask is optional
    da = None

__all__ = ["rms_norm"]


def _y_block(x_block, gamma, epsilon, platform):
    return _rms_norm_numpy(np.asarray(x_block), gamma, epsilon, platform=platform)[0]


def _rstd_block(x_block, gamma, epsilon, platform):
    return _rms_norm_numpy(np.asarray(x_block), gamma, epsilon, platform=platform)[1]


def rms_norm(x, gamma, epsilon=1e-6, *, platform=None):
    """``(y, rstd)`` of a Dask (or NumPy) ``x`` and an in-memory ``gamma``, lazily, row block by row block."""
    if da is None:
        raise ImportError("swishgrad_numba.dask needs dask: pip install 'dask[array]'")
    xs = x if isinstance(x, da.Array) else da.from_array(np.asarray(x), chunks="auto")
    if any(np.isnan(s) for s in xs.shape):
        raise ValueError(f"x has unknown chunk sizes {xs.shape}; call x.compute_chunk_sizes() first")
    gamma_nd = gamma.ndim if isinstance(gamma, np.ndarray) else 0
    lead = max(xs.ndim - gamma_nd, 0)
    probe = np.zeros(tuple(min(s, 1) for s in xs.shape[:lead]) + tuple(xs.shape[lead:]), xs.dtype)
    check_inputs(np.broadcast_to(np.zeros((), xs.dtype), xs.shape), gamma, epsilon)   # x's own shape in messages
    _rms_norm_numpy(probe, gamma, epsilon, platform=platform)      # every other rule, on at most one row
    k = gamma.ndim
    xs = xs.rechunk({i: -1 for i in range(xs.ndim - k, xs.ndim)})
    y = da.map_blocks(_y_block, xs, gamma=gamma, epsilon=epsilon, platform=platform, dtype=xs.dtype,
                      meta=np.empty((0,) * xs.ndim, xs.dtype), token="rms_norm_y")
    chunks = xs.chunks[:xs.ndim - k] + ((1,),) * k
    rstd = da.map_blocks(_rstd_block, xs, gamma=gamma, epsilon=epsilon, platform=platform, dtype=np.float32,
                         chunks=chunks, meta=np.empty((0,) * xs.ndim, np.float32), token="rms_norm_rstd")
    return y, rstd
