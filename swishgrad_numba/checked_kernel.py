"""The checked run: the kernel's decomposition, instrumented instead of computing.

:func:`checked_run` walks a tiling record exactly as the kernel does (SPEC
section 4: per core a start offset, ``tiles - 1`` full tiles of
``tileDataNum`` elements, then one tile of ``tail`` elements) and records,
for every element of the tensor, how many times it was written and by which
cores (first and last writer). Transfers past the tensor's end are counted,
never performed: those that stay inside the block padding of the allocation
apart from those that go beyond it.

It runs any record safely, however wrong: fields are clamped to
:data:`FIELD_CAP` (every offset at or past it lies far beyond any tensor
this accepts, so the clamp changes no verdict), arithmetic saturates, cores
past the padded end, and the tiles of a core from the first one that starts
past the tensor's end (its tiles abut), are accounted for arithmetically
instead of walked, padding slot counts are kept as a difference array,
identical cores (a core class whose ``coreDataNum`` is 0 puts all its cores
at one start) are walked once with a weight, and the walk stops once it has
done more element writes than a budget of at least the tensor's element
count, at which point an overlap is certain (the result says
``truncated``). The work is thus O(cores + element writes), whatever the
padding.

Each core reads ``grad`` and ``x`` over exactly the range it writes, so the
write counts are the read counts too.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from numba import njit

from .dtypes import canonical_dtype
from .platform import REFERENCE_PLATFORM, Platform
from .tiling import TILING_FIELDS
from .tiling.io import as_tiling_record

__all__ = ["FIELD_CAP", "MAX_CHECKED_NUMEL", "CheckedRun", "checked_run"]

#: Fields, block dims and offsets are clamped to this (2**61): sums of two
#: clamped values still fit in int64.
FIELD_CAP = 1 << 61

#: Largest tensor the checked run accepts by default (three int64 arrays
#: of this length are allocated).
MAX_CHECKED_NUMEL = 1 << 25

# stats slots filled by the kernel
_S_BEYOND = 0      # element transfers past the padded end (saturating)
_S_PADDING = 1     # element transfers inside the padding
_S_WORK = 2        # element writes done inside [0, numel)
_S_TRUNCATED = 3   # 1 when the walk stopped early
_S_TILES = 4       # tiles executed (saturating)
_S_BEYOND_CORES = 5  # cores that transfer past the padded end (saturating)
_S_PADDING_ONLY = 6  # padding transfers of cores that stay inside the padding
_S_SCRATCH = 7      # sink for padding transfers of cores that go beyond
_NSTATS = 8


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
    """Account one tile transfer of ``length`` elements at ``offset < numel``,
    done by ``weight`` identical cores ``first_core..last_core``; padding
    transfers are also added to ``stats[pad_slot]``. Returns False when the
    work budget ran out."""
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
def checked_walk(small_core, big_core, final_big_tiles, final_small_tiles, tile_data, small_tail,
                 big_tail, tail_block_num, block_dim, numel, padded, max_work, cap,
                 counts, first_writer, last_writer, pad_diff, stats):
    """Walk every launched core's tiles as SPEC section 4 lays them out.

    All integer arguments are non-negative int64 already clamped to ``cap``;
    ``counts``, ``first_writer``, ``last_writer`` have ``numel`` entries,
    ``pad_diff`` has ``padded - numel + 1`` (the padding slots' write counts
    as a difference array); ``stats`` receives the totals (see the ``_S_*``
    slots). Never indexes outside these arrays.

    Work is O(cores + element writes inside the tensor): a core's tiles are
    walked while they start inside the tensor; from the first tile that
    starts past it, the rest of the core (its tiles abut) is accounted at
    once.
    """
    n_big = tail_block_num if tail_block_num < block_dim else block_dim
    for cls in range(2):
        if cls == 0:
            lo, hi = 0, n_big
            count, tiles, tail = big_core, final_big_tiles, big_tail
            base, origin = 0, 0
        else:
            lo, hi = n_big, block_dim
            count, tiles, tail = small_core, final_small_tiles, small_tail
            # start = big*i - (big - small)*(i - tbn) == big*tbn + small*(i - tbn)
            base, origin = _sat_mul(big_core, tail_block_num, cap), tail_block_num
        if hi <= lo:
            continue
        # elements one core of this class transfers
        if tiles == 0:
            per_core = 0
        else:
            per_core = _sat_add(_sat_mul(tiles - 1, tile_data, cap), tail, cap)
        core = lo
        while core < hi:
            start = _sat_add(base, _sat_mul(count, core - origin, cap), cap)
            if start >= padded:
                # this core and all later ones in the class start past the padding
                rest = hi - core
                if per_core > 0:
                    stats[_S_BEYOND] = _sat_add(stats[_S_BEYOND], _sat_mul(rest, per_core, cap), cap)
                    stats[_S_BEYOND_CORES] = _sat_add(stats[_S_BEYOND_CORES], rest, cap)
                if tiles > 0:
                    stats[_S_TILES] = _sat_add(stats[_S_TILES], _sat_mul(rest, tiles, cap), cap)
                break
            if count == 0:
                last = hi - 1  # every remaining core of the class is identical
            else:
                last = core
            weight = last - core + 1
            pad_slot = _S_PADDING_ONLY
            if tiles > 0 and start + per_core > padded:
                stats[_S_BEYOND_CORES] = _sat_add(stats[_S_BEYOND_CORES], weight, cap)
                pad_slot = _S_SCRATCH  # this core goes beyond: an error, not the warning
            if tiles > 0:
                n_full = tiles - 1
                t = 0
                if tile_data > 0:
                    while t < n_full:
                        offset = _sat_add(start, _sat_mul(t, tile_data, cap), cap)
                        if offset >= numel:
                            break
                        if not _transfer(offset, tile_data, weight, core, last, numel, padded, max_work,
                                         cap, counts, first_writer, last_writer, pad_diff, stats, pad_slot):
                            return
                        t += 1
                else:
                    # zero-length full tiles transfer nothing
                    stats[_S_TILES] = _sat_add(stats[_S_TILES], _sat_mul(n_full, weight, cap), cap)
                    t = n_full
                offset = _sat_add(start, _sat_mul(t, tile_data, cap), cap)
                if offset >= numel:
                    # tiles t..tiles-1 abut: together they cover [offset, start + per_core)
                    _past_tensor(offset, _sat_add(start, per_core, cap), weight, numel, padded, cap,
                                 pad_diff, stats, pad_slot)
                    stats[_S_TILES] = _sat_add(stats[_S_TILES], _sat_mul(tiles - t, weight, cap), cap)
                elif not _transfer(offset, tail, weight, core, last, numel, padded, max_work,
                                   cap, counts, first_writer, last_writer, pad_diff, stats, pad_slot):
                    return
            core = last + 1


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
        int64, writes of each element slot inside the block padding past
        the tensor end.
    padding_transfers : int
        Element transfers (each a read of grad and x and a write of the
        output) that landed in the padding.
    padding_only_transfers : int
        Those of them made by cores that stay inside the padding (the
        validator's ``OVERRUN_PADDING`` warning; a core that goes beyond is
        an ``OVERRUN_BEYOND_PADDING`` error instead).
    beyond_transfers : int
        Element transfers past the padding (saturates at :data:`FIELD_CAP`).
    beyond_cores : int
        Cores with at least one transfer past the padding.
    tiles : int
        Tiles the launch executes (saturating).
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


def _clamp(value) -> int:
    value = int(value)
    return FIELD_CAP if value > FIELD_CAP else value


def padded_numel(numel: int, itemsize: int, block_size: int) -> int:
    """Element slots of the allocation: ``numel`` rounded up to whole blocks
    (an element straddling the allocation end does not count)."""
    aligned_bytes = -(-numel * itemsize // block_size) * block_size
    return aligned_bytes // itemsize


def checked_run(tiling, numel, dtype, platform: Platform | None = None, block_dim=None, *,
                max_numel: int = MAX_CHECKED_NUMEL, max_writes: int | None = None) -> CheckedRun:
    """Walk a tiling as the kernel would and record every element write.

    Parameters
    ----------
    tiling : Tiling, TILING_DTYPE record, 72 bytes or Mapping
        The tiling to run (see :func:`~swishgrad_numba.tiling_io.as_tiling_record`).
    numel : int
        Storage elements of the tensor (> 0, at most ``max_numel``).
    dtype : dtype-like
        float32, float16 or bfloat16 (its size sets the padding).
    platform : Platform, optional
        Its block size sets the allocation padding; reference platform by default.
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
    """
    record, bd, _ = as_tiling_record(tiling, block_dim)
    if isinstance(numel, bool) or not isinstance(numel, numbers.Integral):
        raise TypeError(f"numel must be an integer, got {type(numel).__name__}")
    numel = int(numel)
    if not 0 < numel <= max_numel:
        raise ValueError(f"numel must be in [1, {max_numel}] for a checked run, got {numel}")
    dt = canonical_dtype(dtype, argname="dtype")
    platform = REFERENCE_PLATFORM if platform is None else platform
    if not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    if max_writes is None:
        max_writes = 4 * numel + (1 << 16)
    if isinstance(max_writes, bool) or not isinstance(max_writes, numbers.Integral) \
            or not numel <= max_writes < FIELD_CAP:
        raise ValueError(f"max_writes must be an integer in [numel, 2**61), got {max_writes!r}")
    padded = padded_numel(numel, dt.itemsize, platform.block_size)
    if padded - numel > max_numel:
        raise ValueError(f"platform.block_size ({platform.block_size} bytes) pads the tensor by {padded - numel} "
                         f"elements, more than the checked run's limit ({max_numel})")
    f = [_clamp(record[name]) for name in TILING_FIELDS[:-1]]
    counts = np.zeros(numel, dtype=np.int64)
    first_writer = np.full(numel, -1, dtype=np.int64)
    last_writer = np.full(numel, -1, dtype=np.int64)
    pad_diff = np.zeros(padded - numel + 1, dtype=np.int64)
    stats = np.zeros(_NSTATS, dtype=np.int64)
    checked_walk(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], _clamp(bd), numel, padded,
                 int(max_writes), FIELD_CAP, counts, first_writer, last_writer, pad_diff, stats)
    pad_counts = np.minimum(np.cumsum(pad_diff[:-1]), FIELD_CAP)
    return CheckedRun(
        numel=numel,
        padded_numel=padded,
        block_dim=bd,
        write_count=counts,
        first_writer=first_writer,
        last_writer=last_writer,
        padding_count=pad_counts,
        padding_transfers=int(stats[_S_PADDING]),
        padding_only_transfers=int(stats[_S_PADDING_ONLY]),
        beyond_transfers=int(stats[_S_BEYOND]),
        beyond_cores=int(stats[_S_BEYOND_CORES]),
        tiles=int(stats[_S_TILES]),
        truncated=bool(stats[_S_TRUNCATED]),
    )
