"""SwiGlu and SwiGluGrad over Dask arrays (issue 41), re-exported by :mod:`swishgrad_numba.dask`.

``dim`` is rechunked to one chunk, so no block splits it; every block then runs the emulated kernel on its own
rows (:func:`swishgrad_numba.swiglu`, :func:`swishgrad_numba.swiglu_backward`). An output element reads only its
a and b (and its grad), never which core or block holds it, so the result is bit for bit the in-memory call's.
Every rule is checked when the graph is built, on a probe of at most one row (the in-memory messages).
"""
from __future__ import annotations

import numpy as np

from ...faces.dask_support import as_dask, da, known_shape, require_dask
from .api import check_inputs, out_shape
from .api import swiglu as _swiglu_numpy
from .api import swiglu_backward as _swiglu_backward_numpy

__all__ = ["swiglu", "swiglu_backward"]


def _probe(shape, d, dtype):
    """One row (every axis but ``dim`` at most 1 long) of zeros: what the in-memory call checks on."""
    return np.zeros(tuple(s if i == d else min(s, 1) for i, s in enumerate(shape)), dtype)


def _swiglu_block(x_block, d, platform):
    return _swiglu_numpy(np.asarray(x_block), d, platform=platform)


def _grad_block(g_block, x_block, d, platform):
    return _swiglu_backward_numpy(np.asarray(g_block), np.asarray(x_block), d, platform=platform)


def _prepared(x, dim):
    require_dask()
    xs = as_dask(x, "x", "auto")
    known_shape(xs, "x")
    d, _ = check_inputs(np.broadcast_to(np.zeros((), xs.dtype), xs.shape), dim)   # x's own shape in messages
    return xs.rechunk({d: -1}), d


def swiglu(x, dim=-1, *, platform=None):
    """SwiGlu of a Dask (or NumPy) array, block by block with ``dim`` whole: :func:`swishgrad_numba.swiglu`
    bit for bit; a lazy array of x's dtype, x's shape with ``dim`` halved."""
    xs, d = _prepared(x, dim)
    _swiglu_numpy(_probe(xs.shape, d, xs.dtype), d, platform=platform)
    chunks = tuple((s // 2,) if i == d else c for i, (s, c) in enumerate(zip(xs.shape, xs.chunks)))
    return da.map_blocks(_swiglu_block, xs, d=d, platform=platform, dtype=xs.dtype, chunks=chunks,
                             meta=np.empty((0,) * xs.ndim, xs.dtype), token="swiglu")


def swiglu_backward(grad_output, x, dim=-1, *, platform=None):
    """grad_x of SwiGlu over Dask (or NumPy) arrays, block by block with ``dim`` whole (grad_output's blocks
    aligned to x's): :func:`swishgrad_numba.swiglu_backward` bit for bit; a lazy array of x's shape and dtype."""
    xs, d = _prepared(x, dim)
    g = as_dask(grad_output, "grad_output", "auto")
    known_shape(g, "grad_output")
    want = out_shape(xs.shape, d)
    if g.dtype != xs.dtype:
        raise TypeError(f"grad_output.dtype must be x's ({xs.dtype}), got {g.dtype}")
    if g.shape != want:
        raise ValueError(f"grad_output's shape must be x's {xs.shape} with dim={dim} halved, {want}; got {g.shape}")
    probe = _probe(xs.shape, d, xs.dtype)
    _swiglu_backward_numpy(np.zeros(out_shape(probe.shape, d), xs.dtype), probe, d, platform=platform)
    g = g.rechunk(tuple(-1 if i == d else c for i, c in enumerate(xs.chunks)))
    return da.map_blocks(_grad_block, g, xs, d=d, platform=platform, dtype=xs.dtype, chunks=xs.chunks,
                             meta=np.empty((0,) * xs.ndim, xs.dtype), token="swiglu_backward")
