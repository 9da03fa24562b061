"""Storage formats of the operator (model section 6): ND, NC1HWC0 and FRACTAL_NZ.

The kernel is elementwise over a tensor's **storage**, so running it on a
padded storage format and converting back gives the ND result; only the
tiling changes, because it counts storage elements (padding included).

Layouts (``ceil`` rounds up):

- NC1HWC0: a logical ``(N, C, H, W)`` tensor is stored as
  ``(N, ceil(C/C0), H, W, C0)``; logical channel ``c`` lives at
  ``[n, c // C0, h, w, c % C0]``; the channel tail is zero-padded.
- FRACTAL_NZ: a logical ``(..., M, N)`` tensor is stored as
  ``(..., ceil(N/N0), ceil(M/M0), M0, N0)``; element ``[..., m, n]`` lives at
  ``[..., n // N0, m // M0, m % M0, n % N0]``; ``M0`` is 16 and the padding
  is zero.

``C0`` and ``N0`` default to 32 bytes of the dtype (8 for float32, 16 for
16-bit types); every function takes them as arguments so callers can
override them. Conversions only move elements, so bit patterns (NaN payloads,
-0.0) are kept exactly.
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "C0_BYTES",
    "FRACTAL_M0",
    "default_c0",
    "nc1hwc0_shape",
    "fractal_nz_shape",
    "nd_to_nc1hwc0",
    "nc1hwc0_to_nd",
    "nd_to_fractal_nz",
    "fractal_nz_to_nd",
]

#: Bytes of the innermost storage block (C0 of NC1HWC0, N0 of FRACTAL_NZ).
C0_BYTES = 32
#: Rows of one FRACTAL_NZ fractal (M0).
FRACTAL_M0 = 16


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _positive_int(value, argname: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{argname} must be an integer, got {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{argname} must be > 0, got {value}")
    return int(value)


def _shape(shape, argname: str) -> tuple:
    try:
        dims = tuple(shape)
    except TypeError:
        raise TypeError(f"{argname} must be a sequence of integers, got {type(shape).__name__}") from None
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, numbers.Integral):
            raise TypeError(f"{argname} must hold integers, got {d!r}")
        if d < 0:
            raise ValueError(f"{argname} must hold non-negative sizes, got {dims}")
    return tuple(int(d) for d in dims)


def _array(value, argname: str) -> np.ndarray:
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{argname} must be a numpy.ndarray, got {type(value).__name__}")
    return value


def default_c0(dtype) -> int:
    """Elements in :data:`C0_BYTES` bytes of ``dtype`` (8 for float32, 16 for float16/bfloat16).

    Parameters
    ----------
    dtype : dtype-like
        Element type; its size must divide 32 bytes.

    Returns
    -------
    int
    """
    size = np.dtype(dtype).itemsize
    if size == 0 or C0_BYTES % size:
        raise ValueError(f"dtype {np.dtype(dtype).name} ({size} bytes) does not divide {C0_BYTES} bytes")
    return C0_BYTES // size


def nc1hwc0_shape(shape, c0: int) -> tuple:
    """Storage shape ``(N, ceil(C/c0), H, W, c0)`` of a logical NCHW ``shape``.

    Parameters
    ----------
    shape : sequence of int
        Logical shape, exactly 4 dims (N, C, H, W).
    c0 : int
        Channels per block (> 0).

    Returns
    -------
    tuple of int
    """
    dims = _shape(shape, "shape")
    if len(dims) != 4:
        raise ValueError(f"shape must have 4 dims (N, C, H, W) for NC1HWC0, got {len(dims)}: {dims}")
    c0 = _positive_int(c0, "c0")
    n, c, h, w = dims
    return (n, _ceil_div(c, c0), h, w, c0)


def fractal_nz_shape(shape, n0: int, m0: int = FRACTAL_M0) -> tuple:
    """Storage shape ``(..., ceil(N/n0), ceil(M/m0), m0, n0)`` of a logical ``(..., M, N)`` shape.

    Parameters
    ----------
    shape : sequence of int
        Logical shape, at least 2 dims.
    n0 : int
        Columns per fractal (> 0).
    m0 : int, optional
        Rows per fractal (> 0), 16 by default.

    Returns
    -------
    tuple of int
    """
    dims = _shape(shape, "shape")
    if len(dims) < 2:
        raise ValueError(f"shape must have at least 2 dims (..., M, N) for FRACTAL_NZ, got {len(dims)}: {dims}")
    n0 = _positive_int(n0, "n0")
    m0 = _positive_int(m0, "m0")
    *batch, m, n = dims
    return (*batch, _ceil_div(n, n0), _ceil_div(m, m0), m0, n0)


def nd_to_nc1hwc0(array, c0: int | None = None) -> np.ndarray:
    """Convert a logical NCHW array to its NC1HWC0 storage (channel tail zero-padded).

    Parameters
    ----------
    array : numpy.ndarray
        4-D logical tensor (N, C, H, W), any dtype and strides.
    c0 : int, optional
        Channels per block; 32 bytes of the dtype by default.

    Returns
    -------
    numpy.ndarray
        New C-contiguous array of shape ``(N, ceil(C/c0), H, W, c0)``.
    """
    array = _array(array, "array")
    if c0 is None:
        c0 = default_c0(array.dtype)
    n, c1, h, w, c0 = nc1hwc0_shape(array.shape, c0)
    c = array.shape[1]
    padded = np.zeros((n, c1 * c0, h, w), dtype=array.dtype)
    padded[:, :c] = array
    # (N, C1*C0, H, W) -> (N, C1, C0, H, W) -> (N, C1, H, W, C0)
    return np.ascontiguousarray(padded.reshape(n, c1, c0, h, w).transpose(0, 1, 3, 4, 2))


def nc1hwc0_to_nd(storage, shape) -> np.ndarray:
    """Convert an NC1HWC0 storage back to the logical NCHW array of ``shape``.

    Parameters
    ----------
    storage : numpy.ndarray
        5-D storage ``(N, C1, H, W, C0)``; ``C0`` is read from its last dim.
    shape : sequence of int
        The logical (N, C, H, W) shape; the storage must be exactly
        ``nc1hwc0_shape(shape, C0)``.

    Returns
    -------
    numpy.ndarray
        New C-contiguous array of ``shape`` (the padding is dropped).
    """
    storage = _array(storage, "storage")
    if storage.ndim != 5:
        raise ValueError(f"storage must have 5 dims (N, C1, H, W, C0), got shape {storage.shape}")
    expected = nc1hwc0_shape(shape, max(storage.shape[-1], 1))
    if storage.shape != expected:
        raise ValueError(f"storage shape {storage.shape} is not the NC1HWC0 storage of {tuple(shape)}: expected {expected}")
    n, c1, h, w, c0 = storage.shape
    c = int(tuple(shape)[1])
    full = storage.transpose(0, 1, 4, 2, 3).reshape(n, c1 * c0, h, w)
    return np.ascontiguousarray(full[:, :c])


def nd_to_fractal_nz(array, n0: int | None = None, m0: int = FRACTAL_M0) -> np.ndarray:
    """Convert a logical ``(..., M, N)`` array to its FRACTAL_NZ storage (zero-padded).

    Parameters
    ----------
    array : numpy.ndarray
        Logical tensor with at least 2 dims, any dtype and strides.
    n0 : int, optional
        Columns per fractal; 32 bytes of the dtype by default.
    m0 : int, optional
        Rows per fractal, 16 by default.

    Returns
    -------
    numpy.ndarray
        New C-contiguous array of shape ``(..., ceil(N/n0), ceil(M/m0), m0, n0)``.
    """
    array = _array(array, "array")
    if n0 is None:
        n0 = default_c0(array.dtype)
    *batch, n1, m1, m0, n0 = fractal_nz_shape(array.shape, n0, m0)
    m, n = array.shape[-2:]
    padded = np.zeros((*batch, m1 * m0, n1 * n0), dtype=array.dtype)
    padded[..., :m, :n] = array
    k = len(batch)
    # (..., M1*M0, N1*N0) -> (..., M1, M0, N1, N0) -> (..., N1, M1, M0, N0)
    blocks = padded.reshape(*batch, m1, m0, n1, n0)
    order = (*range(k), k + 2, k, k + 1, k + 3)
    return np.ascontiguousarray(blocks.transpose(order))


def fractal_nz_to_nd(storage, shape) -> np.ndarray:
    """Convert a FRACTAL_NZ storage back to the logical ``(..., M, N)`` array of ``shape``.

    Parameters
    ----------
    storage : numpy.ndarray
        Storage ``(..., N1, M1, M0, N0)``; ``M0`` and ``N0`` are read from its
        last two dims.
    shape : sequence of int
        The logical shape; the storage must be exactly
        ``fractal_nz_shape(shape, N0, M0)``.

    Returns
    -------
    numpy.ndarray
        New C-contiguous array of ``shape`` (the padding is dropped).
    """
    storage = _array(storage, "storage")
    if storage.ndim < 4:
        raise ValueError(f"storage must have at least 4 dims (..., N1, M1, M0, N0), got shape {storage.shape}")
    expected = fractal_nz_shape(shape, max(storage.shape[-1], 1), max(storage.shape[-2], 1))
    if storage.shape != expected:
        raise ValueError(
            f"storage shape {storage.shape} is not the FRACTAL_NZ storage of {tuple(shape)}: expected {expected}"
        )
    *batch, n1, m1, m0, n0 = storage.shape
    m, n = (int(d) for d in tuple(shape)[-2:])
    k = len(batch)
    # (..., N1, M1, M0, N0) -> (..., M1, M0, N1, N0) -> (..., M1*M0, N1*N0)
    order = (*range(k), k + 1, k + 2, k, k + 3)
    full = storage.transpose(order).reshape(*batch, m1 * m0, n1 * n0)
    return np.ascontiguousarray(full[..., :m, :n])
