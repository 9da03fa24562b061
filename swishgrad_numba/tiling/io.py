"""Tiling records in and out: the struct binaries and loose forms.

A tiling reaches the validator and :func:`~swishgrad_numba.faces.swish_grad.run_tiling`
in several shapes: a :class:`~swishgrad_numba.Tiling` from
:func:`~swishgrad_numba.compute_tiling`, a record of either layout, the
struct's bytes dumped from a launch (72 for the A2, 88 for the 950: the
length tells the layout), or a mapping of field names to numbers typed in by
a developer (the names tell the layout). :func:`as_tiling_record` turns each
into one record plus a block dim and tiling key, once per call; everything
after that reads fields by name. This module also reads and writes the
binaries.
"""
from __future__ import annotations

import numbers
import os
from collections.abc import Mapping

import numpy as np

from ..dtypes import to_float32
from .records import RecordLayout, Tiling, layout_of, layouts

__all__ = ["as_tiling_record", "read_tiling_bin", "write_tiling_bin", "record_from_fields"]

_UINT64_MAX = (1 << 64) - 1


def _record_from_bytes(data, argname: str) -> np.void:
    data = bytes(data)
    by_nbytes = {layout.nbytes: layout for layout in layouts().values()}
    layout = by_nbytes.get(len(data))
    if layout is None:
        raise ValueError(
            f"{argname} must be exactly {layouts()['a2'].nbytes} bytes (the A2 SwishGrad tiling struct: eight "
            f"little-endian uint64, one float32, 4 bytes of padding) or {layouts()['arch35'].nbytes} bytes (the 950 struct: "
            f"EleBaseTilingData then a float32 scale), got {len(data)} bytes"
        )
    return np.frombuffer(data, dtype=layout.dtype)[0].copy()


def _layout_of_names(names, argname: str) -> RecordLayout:
    """The layout whose integer fields the mapping's keys name."""
    by_arch = layouts()
    best = max(by_arch.values(), key=lambda layout: len(set(names) & set(layout.int_fields)))
    if not set(names) & set(best.int_fields):
        raise ValueError(f"{argname} names no tiling field; the A2 fields are {list(by_arch['a2'].dtype.names)}, "
                         f"the 950 fields {list(by_arch['arch35'].dtype.names)}")
    return best


def record_from_fields(fields: Mapping, argname: str = "tiling") -> np.void:
    """Build a record from a mapping of field names to numbers.

    The names decide the layout (A2 or 950). Every integer field is
    required and must fit its C type (A2: ``uint64``; 950: ``int64``,
    ``int32`` or ``uint64``); the beta field (``sconf`` / ``scale``, or
    ``beta``) is optional, 1.0 when missing.
    """
    layout = _layout_of_names(fields, argname)
    names = layout.dtype.names
    unknown = sorted(set(fields) - set(names) - {"blockDim", "tilingKey", "beta"})
    if unknown:
        raise ValueError(f"{argname} has unknown field(s) {unknown}; the fields are {list(names)}")
    missing = [name for name in layout.int_fields if name not in fields]
    if missing:
        raise ValueError(f"{argname} is missing field(s) {missing}")
    record = np.zeros((), dtype=layout.dtype)
    for name in layout.int_fields:
        value = fields[name]
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{argname}[{name!r}] must be an integer, got {type(value).__name__}")
        low, high = layout.int_range(name)
        if not low <= int(value) <= high:
            raise ValueError(f"{argname}[{name!r}] must be in {layout.int_range_text(name)}, got {int(value)}")
        record[name] = int(value)
    if "beta" in fields and layout.beta_field in fields:
        raise ValueError(f"{argname} gives beta twice (as beta and {layout.beta_field})")
    key = "beta" if "beta" in fields else layout.beta_field
    # Beta follows the one rule of every beta argument (dtypes.to_float32): one rounding from its value.
    record[layout.beta_field] = to_float32(fields.get(key, 1.0), argname=f"{argname}[{key!r}]")
    return record[()]


def as_tiling_record(tiling, block_dim=None) -> tuple[np.void, int, int]:
    """Normalise any accepted tiling form to ``(record, block_dim, tiling_key)``.

    Parameters
    ----------
    tiling : Tiling, numpy.void, numpy.ndarray, bytes-like or Mapping
        A :func:`compute_tiling` result (carries its block dim and key), a
        record of either layout (0-d or one-element array), the struct's
        bytes, or a mapping of field names (which may carry ``blockDim`` and
        ``tilingKey``).
    block_dim : int, optional
        Number of cores launched. Required unless ``tiling`` carries it;
        when given it overrides the carried value.

    Returns
    -------
    (numpy.void, int, int or None)
        A copy of the record, the block dim and the tiling key (for a bare
        A2 record or bytes: 0, its only variant; for a bare 950 record:
        None, since the key depends on the dtype).
    """
    key = None
    carried = None
    if isinstance(tiling, Tiling):
        record = np.array(tiling.data, dtype=tiling.data.dtype)[()]
        carried, key = tiling.block_dim, tiling.tiling_key
    elif isinstance(tiling, (bytes, bytearray, memoryview)):
        record = _record_from_bytes(tiling, "tiling")
    elif isinstance(tiling, Mapping):
        record = record_from_fields(tiling)
        carried = tiling.get("blockDim")
        key = tiling.get("tilingKey")
    elif isinstance(tiling, (np.void, np.ndarray)):
        layout_of(tiling)
        arr = np.asarray(tiling)
        if arr.size != 1:
            raise ValueError(f"tiling must be a single record, got an array of {arr.size}")
        record = arr.reshape(()).copy()[()]
    else:
        raise TypeError(
            "tiling must be a Tiling, a tiling record (TILING_DTYPE or ARCH35_TILING_DTYPE), the struct's bytes "
            f"or a mapping of field names, got {type(tiling).__name__}"
        )
    if block_dim is None:
        block_dim = carried
    if block_dim is None:
        raise TypeError("block_dim is required when tiling is a bare record or struct bytes")
    if isinstance(block_dim, bool) or not isinstance(block_dim, numbers.Integral):
        raise TypeError(f"block_dim must be an integer, got {type(block_dim).__name__}")
    if not 0 <= int(block_dim) <= _UINT64_MAX:
        raise ValueError(f"block_dim must be in [0, 2**64), got {int(block_dim)}")
    if key is None and layout_of(record).architecture == "a2":
        key = 0   # the A2 kernel's only variant
    if key is None:
        return record, int(block_dim), None
    if isinstance(key, bool) or not isinstance(key, numbers.Integral):
        raise TypeError(f"tiling key must be an integer, got {type(key).__name__}")
    return record, int(block_dim), int(key)


def read_tiling_bin(path_or_bytes) -> np.void:
    """Read a tiling binary (72 bytes: A2; 88 bytes: 950) into a record.

    Parameters
    ----------
    path_or_bytes : str, os.PathLike or bytes-like
        A file holding exactly the struct, or the bytes themselves.

    Returns
    -------
    numpy.void
        The record (padding bytes are ignored).
    """
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        return _record_from_bytes(path_or_bytes, "tiling bytes")
    if not isinstance(path_or_bytes, (str, os.PathLike)):
        raise TypeError(f"path_or_bytes must be a path or bytes, got {type(path_or_bytes).__name__}")
    with open(path_or_bytes, "rb") as fh:
        data = fh.read(max(layout.nbytes for layout in layouts().values()) + 1)
    return _record_from_bytes(data, f"tiling file {os.fspath(path_or_bytes)!r}")


def write_tiling_bin(path, record) -> None:
    """Write a tiling as its C struct (little-endian, zero padding).

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
    clean = np.zeros((), dtype=rec.dtype)
    for name in rec.dtype.names:
        clean[name] = rec[name]
    with open(path, "wb") as fh:
        fh.write(clean.tobytes())
