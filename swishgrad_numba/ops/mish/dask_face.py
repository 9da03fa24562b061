"""Mish and MishBackward over Dask arrays (issue 41), re-exported by :mod:`swishgrad_numba.dask`: the NumPy
functions block by block. Elementwise: an element's result reads its own inputs only, so the chunked result is
bit for bit the in-memory one, whatever the chunking. mish_backward broadcasts and promotes as the in-memory
function does (the inputs broadcast first, then aligned block by block)."""
from __future__ import annotations

from ...faces.dask_support import map_broadcast, map_unary
from .api import mish as _mish_numpy
from .api import mish_backward as _mish_backward_numpy

__all__ = ["mish", "mish_backward"]


def mish(x, *, platform=None):
    """Mish over a Dask (or NumPy) array, block by block: :func:`swishgrad_numba.mish` bit for bit."""
    return map_unary(_mish_numpy, x, "mish", platform=platform)


def mish_backward(grad_output, x, *, platform=None):
    """The gradient of Mish over Dask (or NumPy) arrays, block by block: :func:`swishgrad_numba.mish_backward`
    bit for bit (mixed dtypes promoted, shapes broadcast, as it does)."""
    return map_broadcast(_mish_backward_numpy, {"grad_output": grad_output, "x": x}, "mish_backward",
                         platform=platform)
