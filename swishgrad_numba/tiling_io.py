"""Tiling records in and out: the 72-byte struct binaries and loose forms.

A tiling reaches the validator in several shapes: a :class:`~swishgrad_numba.Tiling`
from :func:`~swishgrad_numba.compute_tiling`, a :data:`~swishgrad_numba.TILING_DTYPE`
record, the 72 struct bytes dumped from a launch, or a mapping of field
names to numbers typed in by a developer. This module turns each into one
record plus a block dim, and reads and writes the binaries.
"""
from __future__ import annotations

import numbers
import os
from collections.abc import Mapping

import numpy as np

from .tiling import TILING_DTYPE, TILING_FIELDS, Tiling

__all__ = ["TILING_NBYTES", "as_tiling_record", "read_tiling_bin", "write_tiling_bin", "record_from_fields"]

#: Size of the C struct (eight uint64, one float32, 4 bytes of tail padding).
TILING_NBYTES = TILING_DTYPE.itemsize

_UINT64_MAX = (1 << 64) - 1


def _record_from_bytes(data, argname: str) -> np.void:
    data = bytes(data)
    if len(data) != TILING_NBYTES:
        raise ValueError(
            f"{argname} must be exactly {TILING_NBYTES} bytes (the SwishGrad tiling struct: eight "
            f"little-endian uint64, one float32, 4 bytes of padding), got {len(data)} bytes"
        )
    return np.frombuffer(data, dtype=TILING_DTYPE)[0].copy()


def record_from_fields(fields: Mapping, argname: str = "tiling") -> np.void:
    """Build a :data:`TILING_DTYPE` record from a mapping of field names to numbers.

    The eight integer fields are required and must lie in ``[0, 2**64)``;
    ``sconf`` is optional (1.0 when missing).
    """
    unknown = sorted(set(fields) - set(TILING_FIELDS) - {"blockDim", "tilingKey"})
    if unknown:
        raise ValueError(f"{argname} has unknown field(s) {unknown}; the fields are {list(TILING_FIELDS)}")
    missing = [name for name in TILING_FIELDS[:-1] if name not in fields]
    if missing:
        raise ValueError(f"{argname} is missing field(s) {missing}")
    record = np.zeros((), dtype=TILING_DTYPE)
    for name in TILING_FIELDS[:-1]:
        value = fields[name]
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{argname}[{name!r}] must be an integer, got {type(value).__name__}")
        if not 0 <= int(value) <= _UINT64_MAX:
            raise ValueError(f"{argname}[{name!r}] must be in [0, 2**64) (a uint64 field), got {int(value)}")
        record[name] = int(value)
    sconf = fields.get("sconf", 1.0)
    if isinstance(sconf, bool) or not isinstance(sconf, (numbers.Real, np.floating)):
        raise TypeError(f"{argname}['sconf'] must be a real number, got {type(sconf).__name__}")
    with np.errstate(over="ignore"):
        record["sconf"] = np.float32(sconf)
    return record[()]


def as_tiling_record(tiling, block_dim=None) -> tuple[np.void, int, int]:
    """Normalise any accepted tiling form to ``(record, block_dim, tiling_key)``.

    Parameters
    ----------
    tiling : Tiling, numpy.void, numpy.ndarray, bytes-like or Mapping
        A :func:`compute_tiling` result (carries its block dim and key), a
        :data:`TILING_DTYPE` record (0-d or one-element array), the 72 struct
        bytes, or a mapping of field names (which may carry ``blockDim``).
    block_dim : int, optional
        Number of cores launched. Required unless ``tiling`` carries it;
        when given it overrides the carried value.

    Returns
    -------
    (numpy.void, int, int)
        A copy of the record, the block dim and the tiling key.
    """
    key = 0
    carried = None
    if isinstance(tiling, Tiling):
        record = np.array(tiling.data, dtype=TILING_DTYPE)[()]
        carried, key = tiling.block_dim, tiling.tiling_key
    elif isinstance(tiling, (bytes, bytearray, memoryview)):
        record = _record_from_bytes(tiling, "tiling")
    elif isinstance(tiling, Mapping):
        record = record_from_fields(tiling)
        carried = tiling.get("blockDim")
        key = tiling.get("tilingKey", 0)
    elif isinstance(tiling, (np.void, np.ndarray)):
        if tiling.dtype != TILING_DTYPE:
            raise TypeError(f"tiling must have dtype TILING_DTYPE, got {tiling.dtype}")
        arr = np.asarray(tiling)
        if arr.size != 1:
            raise ValueError(f"tiling must be a single record, got an array of {arr.size}")
        record = arr.reshape(()).copy()[()]
    else:
        raise TypeError(
            "tiling must be a Tiling, a TILING_DTYPE record, the 72 struct bytes or a mapping of "
            f"field names, got {type(tiling).__name__}"
        )
    if block_dim is None:
        block_dim = carried
    if block_dim is None:
        raise TypeError("block_dim is required when tiling is a bare record or struct bytes")
    if isinstance(block_dim, bool) or not isinstance(block_dim, numbers.Integral):
        raise TypeError(f"block_dim must be an integer, got {type(block_dim).__name__}")
    if not 0 <= int(block_dim) <= _UINT64_MAX:
        raise ValueError(f"block_dim must be in [0, 2**64), got {int(block_dim)}")
    if isinstance(key, bool) or not isinstance(key, numbers.Integral):
        raise TypeError(f"tiling key must be an integer, got {type(key).__name__}")
    return record, int(block_dim), int(key)


def read_tiling_bin(path_or_bytes) -> np.void:
    """Read a 72-byte tiling binary into a :data:`TILING_DTYPE` record.

    Parameters
    ----------
    path_or_bytes : str, os.PathLike or bytes-like
        A file holding exactly the struct, or the bytes themselves.

    Returns
    -------
    numpy.void
        The record (the 4 padding bytes are ignored).
    """
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        return _record_from_bytes(path_or_bytes, "tiling bytes")
    if not isinstance(path_or_bytes, (str, os.PathLike)):
        raise TypeError(f"path_or_bytes must be a path or bytes, got {type(path_or_bytes).__name__}")
    with open(path_or_bytes, "rb") as fh:
        data = fh.read(TILING_NBYTES + 1)
    return _record_from_bytes(data, f"tiling file {os.fspath(path_or_bytes)!r}")


def write_tiling_bin(path, record) -> None:
    """Write a tiling as the 72-byte C struct (little-endian, zero padding).

    Parameters
    ----------
    path : str or os.PathLike
        Destination file (overwritten).
    record : Tiling, numpy.void, numpy.ndarray or Mapping
        Anything :func:`as_tiling_record` accepts; the block dim is not part
        of the struct and is not written.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    rec, _, _ = as_tiling_record(record, block_dim=0)
    clean = np.zeros((), dtype=TILING_DTYPE)
    for name in TILING_FIELDS:
        clean[name] = rec[name]
    with open(path, "wb") as fh:
        fh.write(clean.tobytes())
