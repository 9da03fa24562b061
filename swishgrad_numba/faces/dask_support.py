"""What every Dask face shares (:mod:`swishgrad_numba.dask` and the operators' ``ops/<op>/dask_face.py``):
inputs made Dask arrays, the in-memory checks run when the graph is built, and the NumPy function mapped block
by block over one array or two aligned ones. Dask is optional: ``da`` is None without it, and every entry
point then raises :data:`NO_DASK`."""
from __future__ import annotations

import numpy as np

from ..arguments import check_array
from ..platform import Platform

try:  # an optional dependency: the Dask faces degrade to a clear error
    import dask.array as da
except ImportError:
    da = None

__all__ = ["NO_DASK", "da", "require_dask", "as_dask", "probe", "known_shape", "check_platform_arg",
           "map_unary", "map_pair", "map_broadcast"]

NO_DASK = (
    "swishgrad_numba.dask needs Dask, which is not installed; "
    'install it with: pip install "swishgrad_numba[dask]"'
)


def require_dask():
    if da is None:
        raise ImportError(NO_DASK)


def as_dask(value, argname: str, chunks):
    if isinstance(value, da.Array):
        # A masked Dask array's blocks are masked arrays: refused as the in-memory API refuses one.
        if isinstance(value._meta, np.ndarray):
            check_array(value._meta, argname)
        return value
    if isinstance(value, np.ndarray):
        return da.from_array(check_array(value, argname), chunks=chunks)
    raise TypeError(f"{argname} must be a dask.array.Array or a numpy.ndarray, got {type(value).__name__}")


def probe(arr) -> np.ndarray:
    """One element of ``arr``'s dtype (none where ``arr`` is empty, as the in-memory call then launches
    nothing): what the in-memory function is run on when the graph is built, to check everything it checks."""
    return np.zeros((min(arr.size, 1),), dtype=arr.dtype)


def known_shape(arr, name: str) -> None:
    if any(np.isnan(size) for size in arr.shape):
        raise ValueError(f"{name} has unknown chunk sizes {arr.shape}; call {name}.compute_chunk_sizes() first")


def check_platform_arg(platform) -> None:
    if platform is not None and not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")


def map_unary(numpy_fn, x, token: str, **kwargs):
    """``numpy_fn(block, **kwargs)`` over the blocks of ``x``, checked first on an empty block."""
    require_dask()
    check_platform_arg(kwargs.get("platform"))
    xs = as_dask(x, "x", "auto")
    known_shape(xs, "x")
    dtype = numpy_fn(probe(xs), **kwargs).dtype
    return da.map_blocks(_unary_block, xs, numpy_fn=numpy_fn, kwargs=kwargs, dtype=dtype,
                         meta=np.empty((0,) * xs.ndim, dtype=dtype), token=token)


def _unary_block(x_block, numpy_fn, kwargs):
    return numpy_fn(np.asarray(x_block), **kwargs)


def map_pair(numpy_fn, grad_output, x, token: str, **kwargs):
    """``numpy_fn(grad_block, x_block, **kwargs)`` over aligned blocks of two arrays of one shape."""
    require_dask()
    check_platform_arg(kwargs.get("platform"))
    arrays = []
    for name, value, other in (("grad_output", grad_output, x), ("x", x, grad_output)):
        chunks = other.chunks if isinstance(other, da.Array) and isinstance(value, np.ndarray) \
            and other.shape == value.shape else "auto"
        arrays.append(as_dask(value, name, chunks))
    g, xs = arrays
    numpy_fn(np.empty((0,), dtype=g.dtype), np.empty((0,), dtype=xs.dtype), **kwargs)   # the dtypes first
    known_shape(g, "grad_output")
    known_shape(xs, "x")
    if g.shape != xs.shape:
        raise ValueError(f"grad_output and x must have the same shape, got {g.shape} and {xs.shape}")
    dtype = numpy_fn(probe(g), probe(xs), **kwargs).dtype
    if g.chunks != xs.chunks:
        # The common refinement of both chunkings: every block pair aligned.
        index = tuple(range(xs.ndim))
        _, (g, xs) = da.core.unify_chunks(g, index, xs, index)
    return da.map_blocks(_pair_block, g, xs, numpy_fn=numpy_fn, kwargs=kwargs, dtype=dtype,
                         meta=np.empty((0,) * xs.ndim, dtype=dtype), token=token)


def _pair_block(grad_block, x_block, numpy_fn, kwargs):
    return numpy_fn(np.asarray(grad_block), np.asarray(x_block), **kwargs)


def map_broadcast(numpy_fn, named: dict, token: str, *, broadcast: bool = True, **kwargs):
    """``numpy_fn(*blocks, **kwargs)`` over two arrays (``named``: argument name -> array) that may broadcast:
    checked first on empty arrays of their ranks and dtypes (the in-memory messages), broadcast against each
    other where ``broadcast``, then aligned block by block (:func:`map_pair`)."""
    require_dask()
    names = list(named)
    arrays = [as_dask(value, name, "auto") for name, value in named.items()]
    for name, a in zip(names, arrays):
        known_shape(a, name)
    numpy_fn(*(np.empty((0,) * a.ndim, dtype=a.dtype) for a in arrays), **kwargs)
    shapes = [a.shape for a in arrays]
    if broadcast and len(set(shapes)) > 1:
        try:
            np.broadcast_shapes(*shapes)
        except ValueError:
            raise ValueError(f"{' and '.join(names)} must broadcast against each other, got "
                             f"{' and '.join(map(str, shapes))} (the same shape, or a size 1 where they differ)"
                             ) from None
        arrays = da.broadcast_arrays(*arrays)
    return map_pair(numpy_fn, *arrays, token, **kwargs)
