"""A 16-bit program tabulated whole, launched as a gather of its result's bits (issue 39).

A 16-bit launch whose stream is one LOOKUP of input 0 into the result (:func:`lone_lookup`: a unary
program that :class:`.runner.Prepared` tabulated whole) stores, for each element, its table's entry at the
input's bits; the entry is the result's 16-bit pattern as a float32 number (the stream's last instruction
narrows into the result's row). :func:`bits_table` narrows the table once to those patterns, and
:func:`launch` runs the plan's cores as gathers from it: 2 bytes an entry in place of 4, so the entries a
tensor's values reach take half the room in L1 and L2 (hardswish float16 at 2^22, 2 threads: bench/RESULTS.md,
bits16). Each element's bits are the entry's integer, which is what the machine's CopyOut stores.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..intrinsics import GATHER_LANES, gather_lanes, vectorise_full_width
from .launch import core_span, frozen
from .opcodes import DST, LOOKUP, OP, SRC0
from .shared import cached_unlinked

__all__ = ["ENTRIES", "bits_table", "launch", "lone_lookup"]

#: A bits table's length: an entry per 16-bit pattern and one more, which a 32-bit gather of the last
#: entry reads (:func:`swishgrad_numba.intrinsics.gather_lanes`).
ENTRIES = 65537


def lone_lookup(code: np.ndarray, out_row: int) -> bool:
    """Whether a stream is one LOOKUP of input 0 (arena row 0) into the result's row ``out_row``."""
    return code.shape[0] == 1 and code[0, OP] == LOOKUP and code[0, SRC0] == 0 and code[0, DST] == out_row


def bits_table(table: np.ndarray) -> np.ndarray | None:
    """The 16-bit patterns a lone LOOKUP's ``table`` (65,536 float32 entries) stores, as a read-only uint16
    array of :data:`ENTRIES`; None where an entry is not an integer from 0 to 65,535 (not a result's bits:
    the machine runs such a stream)."""
    table = np.asarray(table)
    if table.shape != (65536,) or table.dtype != np.float32:
        raise ValueError(f"table must be 65536 float32 entries, got {table.shape} {table.dtype}")
    if not (np.array_equal(table, np.floor(table)) and table.min() >= 0 and table.max() <= 65535):
        return None
    bits = np.zeros(ENTRIES, dtype=np.uint16)
    bits[:65536] = table
    bits.flags.writeable = False
    return bits


@njit(cache=True, error_model="numpy", inline="always")
def _gather(bits, src, out, offset, count):
    """``out[i] = bits[src[i]]`` for ``count`` elements from ``offset``: two vector gathers at a time."""
    lanes = 2 * GATHER_LANES
    whole = count - count % lanes
    for i in range(offset, offset + whole, lanes):
        gather_lanes(bits, src, i, out, i)
        gather_lanes(bits, src, i + GATHER_LANES, out, i + GATHER_LANES)
    for i in range(offset + whole, offset + count):
        out[i] = bits[np.int64(src[i])]


@njit(cache=True, error_model="numpy", inline="always")
def _cores(bits, src, out, numel, pieces, first, stop):
    """The cores of ``pieces[first:stop]``, each its passes as one span (:func:`.launch.core_span`)."""
    vectorise_full_width()
    for k in range(first, stop):
        pc = pieces[k]
        for c in range(pc.cores):
            offset, valid = core_span(pc, c, numel)
            if valid < 0:
                break
            if valid > 0:
                _gather(bits, src, out, offset, valid)


@njit(cache=True, error_model="numpy")
def _run_bin(bits, src, out, numel, pieces, first, stop):
    """The cores of ``pieces[first:stop]`` on the calling thread (a launch of one bin)."""
    _cores(bits, src, out, numel, pieces, first, stop)


@njit(parallel=True, cache=True, error_model="numpy")
def _run_bins(bits, src, out, numel, pieces, bins):
    """The plan's launch, one ``prange`` iteration per bin."""
    for t in prange(bins.shape[0] - 1):
        _cores(bits, src, out, numel, pieces, bins[t], bins[t + 1])


for _entry in (_run_bin, _run_bins):
    cached_unlinked(_entry, "engine.lookup16")


def launch(bits: np.ndarray, src: np.ndarray, out: np.ndarray, pieces: np.ndarray, bins: np.ndarray) -> None:
    """Write ``bits[src]`` into ``out`` over the plan ``pieces`` / ``bins`` (read-only, as
    :meth:`.runner.Prepared.run` has them): ``bits`` a :func:`bits_table`, ``src`` and ``out`` flat
    C-contiguous uint16 arrays of one length (refused otherwise, before anything runs)."""
    if bits.dtype != np.uint16 or bits.shape != (ENTRIES,):
        raise ValueError(f"bits must be a bits table ({ENTRIES} uint16 entries), got {bits.shape} {bits.dtype}")
    for name, a in (("src", src), ("out", out)):
        if a.dtype != np.uint16 or a.ndim != 1 or not a.flags.c_contiguous:
            raise ValueError(f"{name} must be a flat C-contiguous uint16 array, got {a.dtype} of shape {a.shape}")
    if src.shape != out.shape:
        raise ValueError(f"src and out must have one length, got {src.shape[0]} and {out.shape[0]}")
    src = frozen(src)       # read-only, as every launch's inputs: one compiled type
    if bins.shape[0] <= 2:
        _run_bin(bits, src, out, out.shape[0], pieces, bins[0], bins[-1])
    else:
        _run_bins(bits, src, out, out.shape[0], pieces, bins)
