"""The walk both kernels share: a core's passes over its range, ping-ponged.

An emulated core (A2: its tiles; 950: its UB loops) walks a contiguous range
of the flat tensor in passes of a fixed length and a last, shorter one. Each
pass is CopyIn (global -> local buffer), Compute, CopyOut (local ->
global), with two local buffers per queue used alternately (ping-pong).

So that every host thread has work whatever the core count, the launch is
given *pieces*: runs of whole cores that walk alike, or consecutive passes
of one core (a part of it), grouped into one bin per thread (:mod:`.plan`
makes them).
Each bin is one ``prange`` iteration with its own local buffers; each piece
writes only its own range. Element-wise work makes the order
irrelevant, so the bits are the same for every split.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..intrinsics import prefetch_read, prefetch_write
from ..spec.a2 import BUFFER_NUM
from .sequence import compute_tile

__all__ = ["PIECE_DTYPE", "launch_bins", "launch_serial"]

#: ``cores`` cores that walk alike, core ``j`` from element ``start + stride * j``:
#: each makes ``passes`` passes, all of ``pass_len`` elements but the last,
#: which has ``last_len``, and stops at its first pass that starts past the
#: tensor. A part of one core's walk is a piece of one core.
PIECE_DTYPE = np.dtype([("start", "<i8"), ("cores", "<i8"), ("stride", "<i8"), ("passes", "<i8"),
                        ("pass_len", "<i8"), ("last_len", "<i8")])

# Compute runs over a pass in slices of this many elements; between slices
# the core prefetches the matching share of its next pass's GM lines.
COMPUTE_SLICE = 128
_CACHE_LINE_BYTES = 64


@njit(cache=True, error_model="numpy", inline="always")
def _copy_in(dst, src, offset, length, numel):
    """GM -> local buffer of ``length`` elements from ``offset``.

    On the A2 the last transfer may run into allocation padding past the
    tensor; here only the part inside ``[0, numel)`` is read and the rest of
    the buffer is zero-filled. Returns the number of valid elements.
    """
    valid = min(length, numel - offset) if offset < numel else 0
    if valid < 0:
        valid = 0
    # Index through a slice so the loop index is a plain 0..valid range
    # (no wraparound checks): the copy then vectorises.
    window = src[offset:offset + valid]
    for j in range(valid):
        dst[j] = window[j]
    for j in range(valid, length):
        dst[j] = 0
    return valid


@njit(cache=True, error_model="numpy", inline="always")
def _copy_out(dst, src, offset, valid):
    """Local buffer -> GM, only the elements inside the tensor."""
    window = dst[offset:offset + valid]
    for j in range(valid):
        window[j] = src[j]


@njit(cache=True, error_model="numpy", inline="always")
def _prefetch_share(grad, x, out, start, stop, step):
    """Prefetch GM lines of elements ``[start, stop)`` (inside the tensor):
    the next pass's inputs for reading, its output for writing."""
    for p in range(start, stop, step):
        prefetch_read(x, p)
        prefetch_read(grad, p)
        prefetch_write(out, p)


@njit(cache=True, error_model="numpy", inline="always")
def _run_piece(piece, grad, x, out, beta, table, dtype_code, arch, g_local, x_local, o_local, work):
    """Walk each core of one piece in turn."""
    numel = out.shape[0]
    for c in range(piece.cores):
        start = piece.start + c * piece.stride
        if start >= numel:  # the cores start in order: the rest lie past the tensor too
            break
        _walk_core(start, piece.passes, piece.pass_len, piece.last_len, grad, x, out, beta, table, dtype_code,
                   arch, g_local, x_local, o_local, work)


@njit(cache=True, error_model="numpy", inline="always")
def _walk_core(start, passes, pass_len, last_len, grad, x, out, beta, table, dtype_code, arch, g_local, x_local,
               o_local, work):
    """Walk one core's passes from ``start`` with ping-pong local buffers.

    On the device MTE2 fills the other buffer of each queue while the vector
    unit computes. Here the core does the same work in turn; to overlap the
    memory traffic with the arithmetic it computes each pass in slices and,
    after each slice, prefetches an equal share of the next pass's GM lines.
    """
    numel = out.shape[0]
    capacity = g_local.shape[1]
    line = max(_CACHE_LINE_BYTES // out.itemsize, 1)   # elements per cache line
    for p in range(passes):
        offset = start + p * pass_len
        if offset >= numel:  # the passes abut: this one and the rest lie past the tensor
            break
        length = pass_len if p < passes - 1 else last_len
        if length > capacity:  # never index past the local buffer
            length = capacity
        ping = p % BUFFER_NUM
        g_buf = g_local[ping]
        x_buf = x_local[ping]
        o_buf = o_local[ping]
        # CopyIn
        valid = _copy_in(x_buf, x, offset, length, numel)
        if valid == 0:  # a pass of no element writes nothing back
            continue
        _copy_in(g_buf, grad, offset, length, numel)
        # The next pass of this core, clipped to the tensor (empty if none).
        next_start = min(offset + pass_len, numel)
        next_stop = next_start
        if p + 1 < passes:
            next_stop = min(next_start + (pass_len if p + 1 < passes - 1 else last_len), numel)
        slices = (length + COMPUTE_SLICE - 1) // COMPUTE_SLICE
        share = ((next_stop - next_start + slices - 1) // slices + line - 1) // line * line
        # Compute: the whole pass, padding included, as the vector unit
        # does; element-wise, so slicing it changes no bit.
        for s in range(slices):
            a = s * COMPUTE_SLICE
            b = min(a + COMPUTE_SLICE, length)
            q = next_start + s * share
            _prefetch_share(grad, x, out, q, min(q + share, next_stop), line)
            compute_tile(g_buf, x_buf, o_buf, work, a, b, beta, table, dtype_code, arch)
        # CopyOut
        _copy_out(out, o_buf, offset, valid)


@njit(parallel=True, cache=True, error_model="numpy")
def launch_bins(grad, x, out, pieces, bins, capacity, beta, table, dtype_code, arch):
    """Run ``pieces`` over flat ``grad``/``x``/``out``, one ``prange``
    iteration per bin (``pieces[bins[i]:bins[i + 1]]``).

    ``capacity`` is the local buffers' length. Each bin allocates its own
    local buffers; each piece writes only its own range.
    """
    for i in prange(bins.shape[0] - 1):
        g_local = np.empty((BUFFER_NUM, capacity), dtype=grad.dtype)
        x_local = np.empty((BUFFER_NUM, capacity), dtype=x.dtype)
        o_local = np.empty((BUFFER_NUM, capacity), dtype=out.dtype)
        work = np.empty(capacity, dtype=np.float32)
        for k in range(bins[i], bins[i + 1]):
            _run_piece(pieces[k], grad, x, out, beta, table, dtype_code, arch, g_local, x_local, o_local, work)


@njit(cache=True, error_model="numpy")
def launch_serial(grad, x, out, pieces, capacity, beta, table, dtype_code, arch):
    """:func:`launch_bins` on the calling thread, for small launches."""
    g_local = np.empty((BUFFER_NUM, capacity), dtype=grad.dtype)
    x_local = np.empty((BUFFER_NUM, capacity), dtype=x.dtype)
    o_local = np.empty((BUFFER_NUM, capacity), dtype=out.dtype)
    work = np.empty(capacity, dtype=np.float32)
    for k in range(pieces.shape[0]):
        _run_piece(pieces[k], grad, x, out, beta, table, dtype_code, arch, g_local, x_local, o_local, work)
