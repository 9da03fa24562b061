"""Dask integration: SwishGrad over chunked arrays, on one machine or a cluster.

:func:`swish_backward` maps the NumPy :func:`swishgrad_numba.swish_backward`
over the blocks of Dask arrays. SwishGrad is elementwise and its result is a
pure function of each element's bits and beta, so the chunked result is bit
for bit the in-memory one whatever the chunking, the scheduler or the number
of workers.

Dask is an optional dependency (``pip install "swishgrad_numba[dask]"``).
This module imports without it; calling :func:`swish_backward` then raises an
:class:`ImportError` that says how to install it.
"""
from __future__ import annotations

import numpy as np

from . import api
from .dtypes import canonical_dtype, to_float32
from .tiling.host import check_platform

try:  # an optional dependency: swish_backward degrades to a clear error
    import dask.array as da
except ImportError:
    da = None

__all__ = ["swish_backward"]

_NO_DASK = (
    "swishgrad_numba.dask needs Dask, which is not installed; "
    'install it with: pip install "swishgrad_numba[dask]"'
)


def _block(grad_block, x_block, beta, platform):
    """One block: the in-memory emulator on a pair of aligned NumPy blocks."""
    return api.swish_backward(np.asarray(grad_block), np.asarray(x_block), beta, platform=platform)


def _as_dask(value, argname: str, chunks):
    if isinstance(value, da.Array):
        return value
    if isinstance(value, np.ndarray):
        return da.from_array(value, chunks=chunks)
    raise TypeError(f"{argname} must be a dask.array.Array or a numpy.ndarray, got {type(value).__name__}")


def swish_backward(grad_output, x, beta=1.0, *, platform=None):
    """Gradient of Swish over Dask arrays, block by block through the emulated NPU kernel.

    Parameters
    ----------
    grad_output, x : dask.array.Array or numpy.ndarray
        Same shape and dtype (float32, float16 or ``ml_dtypes.bfloat16``),
        any chunking: when the two chunkings differ both are rechunked to
        their common refinement. A NumPy input takes the other input's
        chunks (Dask's automatic chunks when both are NumPy).
    beta : float
        The Swish beta; rounded to float32 once.
    platform : Platform, optional
        The device whose kernel runs on every block (an Ascend 950 SoC: the
        arch35 kernel); the A2 reference platform by default.

    Returns
    -------
    dask.array.Array
        A lazy array of ``x``'s shape and dtype; computing it gives bit for
        bit what :func:`swishgrad_numba.swish_backward` returns for the
        whole arrays in memory.

    Raises
    ------
    ImportError
        If Dask is not installed.
    TypeError, ValueError
        For inputs that are not arrays, unsupported or unequal dtypes,
        unequal or unknown shapes, a ``beta`` that is not a real number, or a
        ``platform`` that is not a Platform.

    Notes
    -----
    Every worker that runs a block needs ``swishgrad_numba`` installed. Each
    block is one kernel launch on the worker, using Numba's threads; see
    ``docs/integrations.md`` for sizing workers on a cluster.
    """
    if da is None:
        raise ImportError(_NO_DASK)
    beta32 = to_float32(beta, argname="beta")
    platform = check_platform(platform)
    other_chunks = {"grad_output": x, "x": grad_output}
    arrays = []
    for name, value in (("grad_output", grad_output), ("x", x)):
        other = other_chunks[name]
        chunks = other.chunks if isinstance(other, da.Array) and isinstance(value, np.ndarray) \
            and other.shape == value.shape else "auto"
        arrays.append(_as_dask(value, name, chunks))
    g, xs = arrays
    canonical_dtype(g.dtype, argname="grad_output.dtype")
    dtype = canonical_dtype(xs.dtype, argname="x.dtype")
    if g.dtype != xs.dtype:
        raise TypeError(f"grad_output and x must have the same dtype, got {g.dtype} and {xs.dtype}")
    for name, arr in (("grad_output", g), ("x", xs)):
        if any(np.isnan(size) for size in arr.shape):
            raise ValueError(f"{name} has unknown chunk sizes {arr.shape}; call {name}.compute_chunk_sizes() first")
    if g.shape != xs.shape:
        raise ValueError(f"grad_output and x must have the same shape, got {g.shape} and {xs.shape}")
    if g.chunks != xs.chunks:
        # The common refinement of both chunkings: every block pair aligned.
        index = tuple(range(xs.ndim))
        _, (g, xs) = da.core.unify_chunks(g, index, xs, index)
    return da.map_blocks(
        _block, g, xs, beta=beta32, platform=platform,
        dtype=dtype, meta=np.empty((0,) * xs.ndim, dtype=dtype), token="swish_backward",
    )
