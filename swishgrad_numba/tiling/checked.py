"""The checked run: the kernel's walk, instrumented instead of computing.

:func:`checked_run` walks a tiling record (A2 or 950) exactly as the kernel
does: per launched core a start offset, ``passes - 1`` full passes (A2
tiles of ``tileDataNum``, 950 UB loops of ``ubFormer`` elements), then one
pass of ``tail`` elements. It records, for every element of the tensor,
how many times it was written and by which cores (first and last writer).
Transfers past the tensor's end are counted, never performed: those that
stay inside the A2 allocation's block padding apart from those that go
beyond it (the 950's DMA is exact: it has no padding, every transfer past
the end goes beyond).

The cores come as the classes of
:func:`~swishgrad_numba.tiling.launch.walk_classes` (the model's core
arithmetic); the jitted walk only steps through them. It runs any record
safely, however wrong: class values are clamped to :data:`FIELD_CAP`,
arithmetic saturates, cores past the padded end, and the passes of a core
from the first one that starts past the tensor's end (its passes abut),
are accounted for arithmetically instead of walked, padding slot counts
are kept as a difference array, identical cores (a class whose stride is
0 puts all its cores at one start) are walked once with a weight, and the
walk stops once it has done more element writes than a budget of at least
the tensor's element count, at which point an overlap is certain (the
result says ``truncated``). The work is thus O(cores + element writes),
whatever the padding.

Each core reads ``grad`` and ``x`` over exactly the range it writes, so the
write counts are the read counts too.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from numba import njit

from .launch import FIELD_CAP, Launch, launch_of, negative_walk_fields, padded_numel, walk_classes

__all__ = ["FIELD_CAP", "MAX_CHECKED_NUMEL", "CheckedRun", "checked_run", "run_launch"]

#: Largest tensor the checked run accepts by default (three int64 arrays
#: of this length are allocated).
MAX_CHECKED_NUMEL = 1 << 25

# stats slots filled by the kernel
_S_BEYOND = 0      # element transfers past the padded end (saturating)
_S_PADDING = 1     # element transfers inside the padding
_S_WORK = 2        # element writes done inside [0, numel)
_S_TRUNCATED = 3   # 1 when the walk stopped early
_S_TILES = 4       # passes executed (saturating)
_S_BEYOND_CORES = 5  # cores that transfer past the padded end (saturating)
_S_PADDING_ONLY = 6  # padding transfers of cores that stay inside the padding
_S_SCRATCH = 7      # sink for padding transfers of cores that go beyond
_NSTATS = 8

# columns of the class table the walk receives
_C_FIRST, _C_CORES, _C_BASE, _C_COUNT, _C_PASSES, _C_PASS_LEN, _C_TAIL = range(7)


@njit(cache=True, inline="always")
def _sat_add(a, b, cap):
    s = a + b
    return cap if s > cap else s


@njit(cache=True, inline="always")
def _sat_mul(a, b, cap):
    if a == 0 or b == 0:
        return 0
    if a > cap // b:
        return cap
    p = a * b
    return cap if p > cap else p


@njit(cache=True)
def _past_tensor(offset, end, weight, numel, padded, cap, pad_diff, stats, pad_slot):
    """Account element transfers ``[offset, end)`` with ``offset >= numel`` (or
    the part of a transfer past ``numel``), done by ``weight`` identical cores,
    in O(1): the padding slots by a difference array, the rest by a count."""
    lo = offset if offset > numel else numel
    hi = end if end < padded else padded
    if hi > lo:
        # slot counts stay below 2**63: at most two weighted groups (each
        # weight <= cap) and fewer than 2**40 unit transfers touch a slot
        pad_diff[lo - numel] += weight
        pad_diff[hi - numel] -= weight
        amount = _sat_mul(hi - lo, weight, cap)
        stats[_S_PADDING] = _sat_add(stats[_S_PADDING], amount, cap)
        stats[pad_slot] = _sat_add(stats[pad_slot], amount, cap)
    if end > padded:
        lo = offset if offset > padded else padded
        amount = cap if end >= cap else _sat_mul(end - lo, weight, cap)
        stats[_S_BEYOND] = _sat_add(stats[_S_BEYOND], amount, cap)


@njit(cache=True)
def _transfer(offset, length, weight, first_core, last_core, numel, padded, max_work, cap,
              counts, first_writer, last_writer, pad_diff, stats, pad_slot):
    """Account one pass of ``length`` elements at ``offset < numel``, done by
    ``weight`` identical cores ``first_core..last_core``; padding transfers
    are also added to ``stats[pad_slot]``. Returns False when the work
    budget ran out."""
    end = offset + length  # both <= cap, no overflow
    stop = end if end < numel else numel
    for e in range(offset, stop):
        if counts[e] == 0:
            first_writer[e] = first_core
        counts[e] = _sat_add(counts[e], weight, cap)
        last_writer[e] = last_core
    if stop > offset:
        stats[_S_WORK] += stop - offset
    if end > numel:
        _past_tensor(numel, end, weight, numel, padded, cap, pad_diff, stats, pad_slot)
    stats[_S_TILES] = _sat_add(stats[_S_TILES], weight, cap)
    if stats[_S_WORK] > max_work:
        stats[_S_TRUNCATED] = 1
        return False
    return True


@njit(cache=True)
def _walk_core(start, weight, core, last, tiles, tile_data, tail, per_core, numel, padded, max_work, cap,
               counts, first_writer, last_writer, pad_diff, stats):
    """Walk the passes of ``weight`` identical cores ``core..last`` starting at
    ``start < padded``. Returns False when the work budget ran out."""
    pad_slot = _S_PADDING_ONLY
    if start + per_core > padded:
        stats[_S_BEYOND_CORES] = _sat_add(stats[_S_BEYOND_CORES], weight, cap)
        pad_slot = _S_SCRATCH  # this core goes beyond: an error, not the warning
    n_full = tiles - 1
    t = 0
    if tile_data > 0:
        while t < n_full:
            offset = _sat_add(start, _sat_mul(t, tile_data, cap), cap)
            if offset >= numel:
                break
            if not _transfer(offset, tile_data, weight, core, last, numel, padded, max_work,
                             cap, counts, first_writer, last_writer, pad_diff, stats, pad_slot):
                return False
            t += 1
    else:
        # zero-length full passes transfer nothing
        stats[_S_TILES] = _sat_add(stats[_S_TILES], _sat_mul(n_full, weight, cap), cap)
        t = n_full
    offset = _sat_add(start, _sat_mul(t, tile_data, cap), cap)
    if offset >= numel:
        # passes t..tiles-1 abut: together they cover [offset, start + per_core)
        _past_tensor(offset, _sat_add(start, per_core, cap), weight, numel, padded, cap,
                     pad_diff, stats, pad_slot)
        stats[_S_TILES] = _sat_add(stats[_S_TILES], _sat_mul(tiles - t, weight, cap), cap)
        return True
    return _transfer(offset, tail, weight, core, last, numel, padded, max_work,
                     cap, counts, first_writer, last_writer, pad_diff, stats, pad_slot)


@njit(cache=True)
def checked_walk(classes, numel, padded, max_work, cap, counts, first_writer, last_writer, pad_diff, stats):
    """Walk every launched core's passes, class by class.

    ``classes`` is an int64 table, one row per class: first core, cores,
    base, stride, passes, pass length, tail, all non-negative and clamped to
    ``cap``. ``counts``, ``first_writer``, ``last_writer`` have ``numel``
    entries, ``pad_diff`` has ``padded - numel + 1`` (the padding slots'
    write counts as a difference array); ``stats`` receives the totals (see
    the ``_S_*`` slots). Never indexes outside these arrays.

    Work is O(cores + element writes inside the tensor): a core's passes are
    walked while they start inside the tensor; from the first pass that
    starts past it, the rest of the core (its passes abut) is accounted at
    once.
    """
    for ci in range(classes.shape[0]):
        first, ncores, base = classes[ci, _C_FIRST], classes[ci, _C_CORES], classes[ci, _C_BASE]
        count, tiles = classes[ci, _C_COUNT], classes[ci, _C_PASSES]
        tile_data, tail = classes[ci, _C_PASS_LEN], classes[ci, _C_TAIL]
        if ncores <= 0:
            continue
        # elements one core of this class transfers
        per_core = 0 if tiles == 0 else _sat_add(_sat_mul(tiles - 1, tile_data, cap), tail, cap)
        k = 0
        while k < ncores:
            start = _sat_add(base, _sat_mul(count, k, cap), cap)
            if start >= padded:
                # this core and all later ones in the class start past the padding
                rest = ncores - k
                if per_core > 0:
                    stats[_S_BEYOND] = _sat_add(stats[_S_BEYOND], _sat_mul(rest, per_core, cap), cap)
                    stats[_S_BEYOND_CORES] = _sat_add(stats[_S_BEYOND_CORES], rest, cap)
                if tiles > 0:
                    stats[_S_TILES] = _sat_add(stats[_S_TILES], _sat_mul(rest, tiles, cap), cap)
                break
            last_k = ncores - 1 if count == 0 else k  # stride 0: every remaining core is identical
            if tiles > 0 and not _walk_core(start, last_k - k + 1, first + k, first + last_k, tiles, tile_data,
                                            tail, per_core, numel, padded, max_work, cap, counts, first_writer,
                                            last_writer, pad_diff, stats):
                return
            k = last_k + 1


@dataclass(frozen=True)
class CheckedRun:
    """What the instrumented walk of a tiling saw.

    Attributes
    ----------
    write_count : numpy.ndarray
        int64, one entry per element of ``[0, numel)``: how many times the
        launch wrote it (saturates at :data:`FIELD_CAP`).
    first_writer, last_writer : numpy.ndarray
        int64, the lowest and highest core that wrote each element (-1: none).
    padding_count : numpy.ndarray
        int64, writes of each element slot inside the A2 block padding past
        the tensor end (empty for the 950, which has none).
    padding_transfers : int
        Element transfers (each a read of grad and x and a write of the
        output) that landed in the padding.
    padding_only_transfers : int
        Those of them made by cores that stay inside the padding (the
        validator's ``OVERRUN_PADDING`` warning; a core that goes beyond is
        an ``OVERRUN_BEYOND_PADDING`` error instead).
    beyond_transfers : int
        Element transfers past the padding (950: past the end; saturates at
        :data:`FIELD_CAP`).
    beyond_cores : int
        Cores with at least one transfer past the padding.
    tiles : int
        Passes the launch executes (saturating).
    truncated : bool
        The walk stopped early after more element writes than the tensor
        has elements: an overlap is certain, the counts are partial.
    """

    numel: int
    padded_numel: int
    block_dim: int
    write_count: np.ndarray
    first_writer: np.ndarray
    last_writer: np.ndarray
    padding_count: np.ndarray
    padding_transfers: int
    padding_only_transfers: int
    beyond_transfers: int
    beyond_cores: int
    tiles: int
    truncated: bool

    @property
    def gap_elements(self) -> int:
        """Elements nobody wrote (0 reported when truncated)."""
        return 0 if self.truncated else int(np.count_nonzero(self.write_count == 0))

    @property
    def overlap_elements(self) -> int:
        """Elements written more than once (a lower bound when truncated)."""
        return int(np.count_nonzero(self.write_count > 1))

    @property
    def exact_coverage(self) -> bool:
        """Every element written exactly once and nothing past the padding."""
        return (not self.truncated and bool(np.all(self.write_count == 1))
                and self.beyond_transfers == 0)

    def coverage_codes(self) -> set:
        """The validator's coverage/overrun codes this run confirms."""
        codes = set()
        if self.gap_elements:
            codes.add("COVERAGE_GAP")
        if self.overlap_elements or self.truncated:
            codes.add("COVERAGE_OVERLAP")
        if self.padding_only_transfers:
            codes.add("OVERRUN_PADDING")
        if self.beyond_transfers:
            codes.add("OVERRUN_BEYOND_PADDING")
        return codes


def run_launch(launch: Launch, numel: int, *, max_numel: int = MAX_CHECKED_NUMEL,
               max_writes: int | None = None) -> CheckedRun:
    """:func:`checked_run` of a normalised launch (``numel`` an int already checked to be >= 1)."""
    if numel > max_numel:
        raise ValueError(f"numel must be in [1, {max_numel}] for a checked run, got {numel}")
    negative = negative_walk_fields(launch)
    if negative:
        raise ValueError(f"tiling: {', '.join(negative)} must be >= 0 for a checked run (the walk reads them as "
                         f"lengths and counts)")
    if max_writes is None:
        max_writes = 4 * numel + (1 << 16)
    if isinstance(max_writes, bool) or not isinstance(max_writes, numbers.Integral) \
            or not numel <= max_writes < FIELD_CAP:
        raise ValueError(f"max_writes must be an integer in [numel, 2**61), got {max_writes!r}")
    padded = padded_numel(launch, numel)
    if padded - numel > max_numel:
        raise ValueError(f"platform.block_size ({launch.platform.block_size} bytes) pads the tensor by "
                         f"{padded - numel} elements, more than the checked run's limit ({max_numel})")
    table = np.array([[min(value, FIELD_CAP) for value in (c.first, c.cores, c.base, c.count, c.passes, c.pass_len,
                                                            c.tail)] for c in walk_classes(launch)], dtype=np.int64)
    counts = np.zeros(numel, dtype=np.int64)
    first_writer = np.full(numel, -1, dtype=np.int64)
    last_writer = np.full(numel, -1, dtype=np.int64)
    pad_diff = np.zeros(padded - numel + 1, dtype=np.int64)
    stats = np.zeros(_NSTATS, dtype=np.int64)
    checked_walk(table, numel, padded, int(max_writes), FIELD_CAP, counts, first_writer, last_writer, pad_diff, stats)
    return CheckedRun(
        numel=numel,
        padded_numel=padded,
        block_dim=launch.block_dim,
        write_count=counts,
        first_writer=first_writer,
        last_writer=last_writer,
        padding_count=np.minimum(np.cumsum(pad_diff[:-1]), FIELD_CAP),
        padding_transfers=int(stats[_S_PADDING]),
        padding_only_transfers=int(stats[_S_PADDING_ONLY]),
        beyond_transfers=int(stats[_S_BEYOND]),
        beyond_cores=int(stats[_S_BEYOND_CORES]),
        tiles=int(stats[_S_TILES]),
        truncated=bool(stats[_S_TRUNCATED]),
    )


def checked_run(tiling, numel, dtype, platform=None, block_dim=None, *,
                max_numel: int = MAX_CHECKED_NUMEL, max_writes: int | None = None) -> CheckedRun:
    """Walk a tiling as the kernel would and record every element write.

    Parameters
    ----------
    tiling : Tiling, record, struct bytes or Mapping
        The tiling to run, of either kernel (see
        :func:`~swishgrad_numba.tiling.io.as_tiling_record`).
    numel : int
        Storage elements of the tensor (> 0, at most ``max_numel``).
    dtype : dtype-like
        float32, float16 or bfloat16 (its size sets the A2 padding).
    platform : Platform, optional
        A2: its block size sets the allocation padding. By default the
        reference platform of the record's kernel; one of the other kernel
        is a ValueError.
    block_dim : int, optional
        Cores launched; overrides the one a :class:`Tiling` carries.
    max_numel : int
        Refuse larger tensors (memory: 24 bytes per element), and a block
        padding of more elements (8 bytes per padding slot).
    max_writes : int, optional
        Stop (``truncated``) after this many element writes inside the
        tensor; at least ``numel`` (more writes than elements means an
        overlap). Default ``4 * numel + 65536``.

    Returns
    -------
    CheckedRun

    Raises
    ------
    ValueError
        Also for a 950 record with a negative length or count the walk reads.
    """
    launch = launch_of(tiling, dtype, platform, block_dim)
    if isinstance(numel, bool) or not isinstance(numel, numbers.Integral):
        raise TypeError(f"numel must be an integer, got {type(numel).__name__}")
    numel = int(numel)
    if numel < 1:
        raise ValueError(f"numel must be in [1, {max_numel}] for a checked run, got {numel}")
    return run_launch(launch, numel, max_numel=max_numel, max_writes=max_writes)
