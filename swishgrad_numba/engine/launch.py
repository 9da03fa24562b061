"""Launching streams: the cores' walks, the 16-bit tables, the broadcast walk's pass.

The schedule is the kernels' (:mod:`swishgrad_numba.kernel.plan`): pieces of cores, each
core's passes (tiles, UB loops) in order, the pieces grouped into one bin per host thread, each bin
one ``prange`` iteration with an arena of its own. A pass runs in blocks of the stream's grain:
CopyIn of each input's block into its row (16-bit bits as the numbers they are), the stream
(:func:`.machine.execute`), CopyOut of the result's row. Element-wise, the block changes no bit.

On the broadcast walk (:mod:`swishgrad_numba.kernel.broadcast`) the engine is the wide pass of
:class:`EngineParams` (:func:`swishgrad_numba.kernel.broadcast.register_wide_pass`, its only pass: the walk
launches it on raw tensors alone): the stream over each UB loop's inputs where they lie.

Nothing here depends on an operator, a dtype or a variant: a flat launch passes its tensors as raw
read-only uint8 views padded to :data:`MAX_INPUTS` (:func:`raw_args`), so each function compiles once,
into the disk cache (the broadcast walk's launch too: :class:`EngineParams`' pass is wide,
:func:`swishgrad_numba.kernel.broadcast.register_wide_pass`, so the walk gives it the tensors and its
buffers as raw bytes with their widths, one compilation for every pair of input dtypes). None of them
holds the machine's code: each calls the one compiled machine (:data:`.machine.MACHINE`), which a
Python caller registers first (:func:`ready`).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ..kernel.broadcast import register_wide_pass
from .direct16 import run_if_direct, split as direct_split
from .fused16 import run_if_fused, run_if_fused_raw, shape as fused_shape
from .machine import MACHINE, run_machine
from .shared import cached_unlinked

__all__ = ["ready", "frozen", "copy_in", "copy_out", "rerun_block", "core_span", "EngineParams", "MAX_INPUTS",
           "launch_bins", "pass_span", "run_bin", "raw_args", "build_table"]


def ready() -> None:
    """Compile (or read back) the machine and register its symbol: before any launch below is called."""
    MACHINE.ensure()


def frozen(a: np.ndarray) -> np.ndarray:
    """A read-only view: the machine's code, scalars and tables are always passed read-only, so that it
    compiles once (Numba types a read-only array apart); a read-only array as it is (a kept plan's)."""
    if not a.flags.writeable:
        return a
    v = a.view()
    v.flags.writeable = False
    return v


@njit(cache=True, error_model="numpy", inline="always")
def copy_in(arena, at, src, offset, n):
    """CopyIn: ``n`` elements of ``src`` from ``offset`` into the arena from ``at`` (16-bit bits as the
    numbers they are: exact). Offsets, never views: a view costs its reference counting."""
    at, offset = np.uint64(at), np.uint64(offset)
    for i in range(n):
        j = np.uint64(i)
        arena[at + j] = src[offset + j]


@njit(cache=True, error_model="numpy", inline="always")
def copy_out(dst, offset, arena, at, n):
    """CopyOut: the result's row into ``dst`` (a 16-bit result's row holds its bits)."""
    at, offset = np.uint64(at), np.uint64(offset)
    for i in range(n):
        j = np.uint64(i)
        dst[offset + j] = arena[at + j]


@njit(cache=True, error_model="numpy", inline="always")
def rerun_block(ins, inputs, out, at, n, code, scalars, tables, arena, grain, out_row, sat):
    """A block the hot tier flagged, again on the machine: ``n`` elements from ``at`` of the first ``inputs`` of
    ``ins`` into ``out`` (the machine is authoritative)."""
    for k in range(inputs):
        copy_in(arena, k * grain, ins[k], at, n)
    run_machine(code, scalars, tables, arena, n, sat)
    copy_out(out, at, arena, out_row, n)


@njit(cache=True, error_model="numpy", inline="always")
def _load(arena, at, gm, offset, n):
    """:func:`copy_in` from a raw ``(uint8 array, wide)`` tensor: its float32 (``wide``) or uint16 view."""
    if gm[1]:
        copy_in(arena, at, gm[0].view(np.float32), offset, n)
    else:
        copy_in(arena, at, gm[0].view(np.uint16), offset, n)


@njit(cache=True, error_model="numpy", inline="always")
def _store(arena, at, gm, offset, n):
    """:func:`copy_out` into a raw ``(uint8 array, wide)`` tensor: its float32 (``wide``) or uint16 view."""
    if gm[1]:
        copy_out(gm[0].view(np.float32), offset, arena, at, n)
    else:
        copy_out(gm[0].view(np.uint16), offset, arena, at, n)


#: Inputs a flat launch passes (fewer are padded by repeating the first): one tuple type for all.
MAX_INPUTS = 3


@njit(cache=True, error_model="numpy")
def _flat_pass(code, scalars, tables, ins, inputs, offset, out, count, arena, grain, out_row, sat, fused, direct):
    """A pass of ``count`` elements from ``offset`` of the flat tensors ``ins`` (a tuple of one array
    type) into ``out``: blocks of ``grain``, input ``i`` in arena row ``i``. A 16-bit stream of
    :func:`.fused16.shape`'s shape (``fused``, found once per launch) runs as its fused loop; another 16-bit
    stream that :func:`.direct16.split` splits (``direct``) reads its inputs and writes its result where
    they lie. (A launch of a lone Lookup into the result runs as :mod:`.lookup16`'s gathers, where
    :meth:`.runner.Prepared.run` sends it.)"""
    if run_if_fused(fused, tables, ins, out, offset, count, arena[:grain], sat):   # a stream of .fused16's shape
        return
    if run_if_direct(direct, code, scalars, tables, ins, out, offset, count, arena, grain, sat):
        return
    for b0 in range(0, count, grain):
        n = min(grain, count - b0)
        for k in range(inputs):
            copy_in(arena, k * grain, ins[k], offset + b0, n)
        run_machine(code, scalars, tables, arena, n, sat)
        copy_out(out, offset + b0, arena, out_row, n)


@njit(cache=True, error_model="numpy", inline="always")
def pass_span(pc, c, p, numel):
    """``(offset, count)`` of pass ``p`` of core ``c`` of piece ``pc`` (a launch plan's row), cut at the tensor's
    ``numel`` elements (a pass of none: ``count`` 0); ``count`` -1 where the pass starts past the tensor, and so
    does every later pass of the core (its passes abut)."""
    offset = pc.start + c * pc.stride + p * pc.pass_len
    if offset >= numel:
        return offset, -1
    return offset, min(pc.pass_len if p < pc.passes - 1 else pc.last_len, numel - offset)


@njit(cache=True, error_model="numpy", inline="always")
def core_span(pc, c, numel):
    """``(offset, count)`` of all the passes of core ``c`` of piece ``pc`` together, cut at ``numel`` as
    :func:`pass_span` cuts them: a core's passes abut, so its elements are one span (``count`` -1 where the core
    starts past the tensor, and so does every later core of the piece; 0 for a core of no passes)."""
    offset = pc.start + c * pc.stride
    if offset >= numel:
        return offset, -1
    if pc.passes == 0:
        return offset, 0
    return offset, min((pc.passes - 1) * pc.pass_len + pc.last_len, numel - offset)


@njit(cache=True, error_model="numpy")
def _run_pieces(code, scalars, tables, ins, inputs, out, numel, pieces, first, stop, grain, arena_len, out_row,
                sat):
    arena = np.empty(arena_len, dtype=np.float32)
    fused = fused_shape(code, out_row, grain, inputs)
    direct = direct_split(code, out_row, grain, inputs)
    for k in range(first, stop):
        pc = pieces[k]
        for c in range(pc.cores):
            for p in range(pc.passes):
                offset, valid = pass_span(pc, c, p, numel)
                if valid < 0:
                    break
                if valid > 0:
                    _flat_pass(code, scalars, tables, ins, inputs, offset, out, valid, arena, grain, out_row, sat,
                               fused, direct)


@njit(cache=True, error_model="numpy", inline="always")
def _pieces_wide(code, scalars, tables, ins, inputs, out, numel, pieces, first, stop, grain, arena_len, out_row, sat):
    typed = (ins[0].view(np.float32), ins[1].view(np.float32), ins[2].view(np.float32))
    _run_pieces(code, scalars, tables, typed, inputs, out.view(np.float32), numel, pieces, first, stop, grain,
                arena_len, out_row, sat)


@njit(cache=True, error_model="numpy", inline="always")
def _pieces_16(code, scalars, tables, ins, inputs, out, numel, pieces, first, stop, grain, arena_len, out_row, sat):
    typed = (ins[0].view(np.uint16), ins[1].view(np.uint16), ins[2].view(np.uint16))
    _run_pieces(code, scalars, tables, typed, inputs, out.view(np.uint16), numel, pieces, first, stop, grain,
                arena_len, out_row, sat)


@njit(cache=True, error_model="numpy")
def _run_bin_wide(code, scalars, tables, ins, inputs, out, numel, pieces, first, stop, grain, arena_len, out_row, sat):
    """:func:`run_bin` of float32 tensors."""
    _pieces_wide(code, scalars, tables, ins, inputs, out, numel, pieces, first, stop, grain, arena_len, out_row, sat)


@njit(cache=True, error_model="numpy")
def _run_bin_16(code, scalars, tables, ins, inputs, out, numel, pieces, first, stop, grain, arena_len, out_row, sat):
    """:func:`run_bin` of 16-bit tensors (their bits)."""
    _pieces_16(code, scalars, tables, ins, inputs, out, numel, pieces, first, stop, grain, arena_len, out_row, sat)


def run_bin(code, scalars, tables, ins, inputs, wide, out, numel, pieces, first, stop, grain, arena_len, out_row,
            sat):
    """The cores' passes of ``pieces[first:stop]`` on the calling thread with one arena: ``ins`` a tuple
    of :data:`MAX_INPUTS` raw (uint8) flat tensors of ``numel`` elements (the first ``inputs`` read),
    float32 where ``wide``, else 16-bit; ``out`` likewise. The typed views are made once per launch.
    Each width is its own compiled function, called from Python alone and cached without linking code
    (:func:`.shared.cached_unlinked`), so a process's first call reads one width's object code."""
    (_run_bin_wide if wide else _run_bin_16)(code, scalars, tables, ins, inputs, out, numel, pieces, first, stop,
                                             grain, arena_len, out_row, sat)


@njit(cache=True, error_model="numpy", inline="always")
def _run_bin_either(code, scalars, tables, ins, inputs, wide, out, numel, pieces, first, stop, grain, arena_len,
                    out_row, sat):
    if wide:
        _pieces_wide(code, scalars, tables, ins, inputs, out, numel, pieces, first, stop, grain, arena_len, out_row,
                     sat)
    else:
        _pieces_16(code, scalars, tables, ins, inputs, out, numel, pieces, first, stop, grain, arena_len, out_row,
                   sat)


@njit(parallel=True, cache=True, error_model="numpy")
def launch_bins(code, scalars, tables, ins, inputs, wide, out, numel, pieces, bins, grain, arena_len, out_row, sat):
    """The planned launch, one ``prange`` iteration per bin (``pieces[bins[i]:bins[i + 1]]``); a launch
    of one bin calls :func:`run_bin` directly."""
    for i in prange(bins.shape[0] - 1):
        _run_bin_either(code, scalars, tables, ins, inputs, wide, out, numel, pieces, bins[i], bins[i + 1], grain,
                        arena_len, out_row, sat)


def raw_args(ins: tuple, out):
    """``(ins, inputs, wide, out, numel)`` for :func:`run_bin` / :func:`launch_bins`: flat C-contiguous
    arrays of one itemsize (4: float32; 2: 16-bit bits) as read-only uint8 views, padded to
    :data:`MAX_INPUTS`. Any other itemsize is refused before anything runs: a 1-byte tensor (uint8, int8,
    bool) read as 16-bit bits would leave its array (the reader widens those at the boundary,
    :mod:`swishgrad_numba.reader.byte_tensors`)."""
    if not 1 <= len(ins) <= MAX_INPUTS:
        raise ValueError(f"a flat launch takes 1 to {MAX_INPUTS} inputs, got {len(ins)}")
    if out.itemsize not in (2, 4) or out.ndim != 1:
        raise ValueError(f"a flat launch's tensors are flat arrays of 4-byte (float32) or 2-byte (16-bit bits) "
                         f"elements, got {out.dtype} of {out.ndim} dimensions")
    raw = []
    for a in ins:
        if a.itemsize != out.itemsize or a.shape != out.shape:
            raise ValueError("the inputs and the output must be flat arrays of one itemsize and length")
        v = a.view(_BYTES)
        v.setflags(write=False)
        raw.append(v)
    raw += [raw[0]] * (MAX_INPUTS - len(raw))
    return tuple(raw), len(ins), out.itemsize == 4, out.view(_BYTES), out.shape[0]


_BYTES = np.dtype(np.uint8)


@njit(cache=True, error_model="numpy")
def build_table(code, scalars, tables, arena_len, in_row, out_row, sat, table):
    """``table[bits]``: a table stream run once over the 65,536 bit patterns in row ``in_row``."""
    arena = np.zeros(arena_len, dtype=np.float32)
    for j in range(65536):
        arena[in_row + j] = np.float32(j)
    run_machine(code, scalars, tables, arena, 65536, sat)
    for j in range(65536):
        table[j] = arena[out_row + j]


for _entry in (_run_bin_wide, _run_bin_16, build_table):
    cached_unlinked(_entry, "engine.launch")


class EngineParams(NamedTuple):
    """A checked stream as the broadcast walk's wide pass's parameters."""

    code: np.ndarray
    scalars: np.ndarray
    tables: np.ndarray
    grain: int
    arena_len: int
    out: int
    sat: bool


@njit(cache=True, error_model="numpy")
def _engine_arena(params):
    return np.empty(params.arena_len, dtype=np.float32)


@njit(cache=True, error_model="numpy")
def _engine_wide(params, dy, dy_off, x, x_off, out, out_off, count, arena):
    """A UB loop of the broadcast walk: ``count`` elements of ``dy`` from ``dy_off`` and of ``x`` from
    ``x_off`` (raw, where they lie: the tensors or the walk's local buffers) through the stream, into raw
    ``out`` from ``out_off``; blocks of the grain, input ``i`` in arena row ``i``."""
    grain = params.grain
    if run_if_fused_raw(params.code, params.out, grain, params.tables, dy, dy_off, x, x_off, out, out_off, count,
                        arena[:grain], params.sat):   # a 16-bit stream of .fused16's shape
        return
    for b0 in range(0, count, grain):
        n = min(grain, count - b0)
        _load(arena, 0, dy, dy_off + b0, n)
        _load(arena, grain, x, x_off + b0, n)
        run_machine(params.code, params.scalars, params.tables, arena, n, params.sat)
        _store(arena, params.out, out, out_off + b0, n)


# the walk hands the stream the raw tensors where a UB loop's region is contiguous (no local copy); it has no
# pass on typed tensors (every engine operator's tensors are 2 or 4 bytes an element: the walk refuses others)
register_wide_pass(EngineParams, _engine_arena, _engine_wide)
