"""Mish and MishBackward over Dask arrays (issue 41), re-exported by :mod:`swishgrad_numba.dask`: the NumPy
functions block by block. Elementwise: an element's result reads its own inputs only, so the chunked result is
bit for bit the in-memory one, whatever the chunking. mish_backward broadcasts and promotes as the in-memory
function does (the inputs broadcast first, then aligned block by block)."""
from __future__ import annotations

import numpy as np

from .api import mish as _mish_numpy
from .api import mish_backward as _mish_backward_numpy

__all__ = ["mish", "mish_backward", "map_broadcast_pair"]


def mish(x, *, platform=None):
    """Mish over a Dask (or NumPy) array, block by block: :func:`swishgrad_numba.mish` bit for bit."""
    from ... import dask as sgd

    return sgd._map_unary(_mish_numpy, x, "mish", platform=platform)


def map_broadcast_pair(numpy_fn, grad_output, x, token: str, **kwargs):
    """``numpy_fn(grad_block, x_block, **kwargs)`` over two arrays that broadcast: checked first on empty arrays
    of their ranks and dtypes (the in-memory messages), broadcast, then aligned block by block."""
    from ... import dask as sgd

    sgd._require_dask()
    sgd._check_platform(kwargs.get("platform"))
    arrays = [sgd._as_dask(v, n, "auto") for n, v in (("grad_output", grad_output), ("x", x))]
    for n, a in zip(("grad_output", "x"), arrays):
        sgd._known_shape(a, n)
    numpy_fn(*(np.empty((0,) * a.ndim, dtype=a.dtype) for a in arrays), **kwargs)
    if arrays[0].shape != arrays[1].shape:
        try:
            np.broadcast_shapes(arrays[0].shape, arrays[1].shape)
        except ValueError:
            raise ValueError(f"grad_output and x must broadcast, got shapes {arrays[0].shape} and "
                             f"{arrays[1].shape}") from None
        arrays = sgd.da.broadcast_arrays(*arrays)
    return sgd._map_pair(numpy_fn, *arrays, token, **kwargs)


def mish_backward(grad_output, x, *, platform=None):
    """The gradient of Mish over Dask (or NumPy) arrays, block by block: :func:`swishgrad_numba.mish_backward`
    bit for bit (mixed dtypes promoted, shapes broadcast, as it does)."""
    return map_broadcast_pair(_mish_backward_numpy, grad_output, x, "mish_backward", platform=platform)
