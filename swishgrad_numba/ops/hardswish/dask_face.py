"""Hardswish and HardswishBackward over Dask arrays (issue 41), re-exported by :mod:`swishgrad_numba.dask`: the
NumPy functions block by block, bit for bit the in-memory result whatever the chunking (elementwise)."""
from __future__ import annotations

from ...faces.dask_support import map_pair, map_unary
from .api import hardswish as _hardswish_numpy
from .api import hardswish_backward as _hardswish_backward_numpy

__all__ = ["hardswish", "hardswish_backward"]


def hardswish(x, *, platform=None):
    """Hardswish over a Dask (or NumPy) array, block by block: :func:`swishgrad_numba.hardswish` bit for bit
    (an Ascend 950 by default; an A2 refused when the graph is built)."""
    return map_unary(_hardswish_numpy, x, "hardswish", platform=platform)


def hardswish_backward(grad_output, x, *, platform=None):
    """The gradient of Hardswish over Dask arrays of one shape and dtype, block by block (both rechunked to
    their common refinement): :func:`swishgrad_numba.hardswish_backward` bit for bit."""
    return map_pair(_hardswish_backward_numpy, grad_output, x, "hardswish_backward", platform=platform)
