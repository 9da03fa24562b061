"""Pieces and bins: what a launch runs, and how it is spread over the host threads.

:func:`core_runs` describes the launched cores of a tiling's classes
(:func:`classes_of`: the model's own core arithmetic,
:func:`spec.a2.core_classes` and :func:`spec.arch35.block_classes`, on
Python ints), one :class:`CoreRun` per class: the class's cores that start inside the tensor, core ``j`` at
``start + stride * j``, each cut after its last pass that starts inside the
tensor (what lies beyond writes nothing). Nothing is listed per core, so a
plan's memory does not grow with the launched core count; its time is
bounded by the work inside the tensor (:func:`work_bound` measures it
before anything is built).

:func:`plan` then cuts the sequence of all passes, in core order, into one
contiguous bin per thread of about equal element count, splitting a run of
cores (and a core's passes) where a boundary falls inside it. Each bin
holds at most three pieces per class: the end of a core, a run of whole
cores, the start of a core. With 48 cores on 2 threads each bin is one
piece of 24 cores; with 3 cores on 2 threads the middle core is shared.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..spec import a2 as spec_a2
from ..spec import arch35 as spec_arch35
from .walk import PIECE_DTYPE

__all__ = ["FIELD_CAP", "CoreRun", "Plan", "classes_of", "core_runs", "plan", "work_bound"]

# A local buffer never needs to hold more than the tensor plus a block of
# padding (an A2 tail may reach into it); longer passes are computed only up
# to that, which covers every element written back.
_PADDING_SLACK = 64
#: Lengths and offsets beyond any tensor are clamped here (sums of two still fit int64).
FIELD_CAP = 1 << 61


class Plan(NamedTuple):
    """What a launch runs: pieces grouped into bins (``pieces[bins[i]:bins[i + 1]]``)."""

    pieces: np.ndarray     # PIECE_DTYPE
    bins: np.ndarray       # int64, one more than the bins
    capacity: int          # elements per local buffer
    elements: int          # elements the pieces transfer (padding included)


def classes_of(fields, block_dim: int, arch: int) -> tuple:
    """The launch's cores as :class:`~swishgrad_numba.spec.arith.CoreClass` es, in core order."""
    if arch == 0:
        return spec_a2.core_classes(fields, block_dim)
    return spec_arch35.block_classes(fields, block_dim)


def _active(base: int, cores: int, count: int, passes: int, numel: int) -> int:
    """Cores of a class that start inside the tensor and run a pass."""
    if cores <= 0 or passes <= 0 or base >= numel:
        return 0
    return cores if count == 0 else min(cores, -(-(numel - base) // count))


def work_bound(fields, block_dim: int, arch: int, numel: int) -> int:
    """An upper bound of the elements a launch's walks transfer inside the tensor.

    Python ints, never more than ``O(1)`` work per class, whatever the record.
    """
    total = 0
    for c in classes_of(fields, block_dim, arch):
        total += _active(c.base, c.cores, c.count, c.passes, numel) * min(c.length, numel)
    return total


class CoreRun(NamedTuple):
    """``cores`` cores that walk alike: core ``j`` starts at ``start + stride * j``
    (inside the tensor) and makes ``passes - 1`` passes of ``pass_len``
    elements, then one of ``last_len``, stopping at the first pass that
    starts past the tensor. ``length`` is the walk's length (at most
    ``numel``); all Python ints."""

    start: int
    cores: int
    stride: int
    passes: int
    pass_len: int
    last_len: int
    length: int

    def elements(self, j: int, numel: int) -> int:
        """Elements inside the tensor that cores ``0 .. j - 1`` transfer, in O(1)."""
        room = numel - self.start                  # of core 0; core i has room - stride * i > 0
        if room < self.length:
            whole = 0
        elif self.stride == 0:
            whole = self.cores
        else:
            whole = min(self.cores, (room - self.length) // self.stride + 1)
        if j <= whole:
            return j * self.length
        # cores whole .. j - 1 are cut by the tensor's end: an arithmetic series
        return whole * self.length + (j - whole) * room - self.stride * (whole + j - 1) * (j - whole) // 2


def core_runs(classes, numel: int) -> list:
    """The launched cores that transfer something inside the tensor, as :class:`CoreRun` s in core order.

    ``classes`` are the launch's :class:`~swishgrad_numba.spec.arith.CoreClass`
    es (:func:`classes_of`), of non-negative Python ints. O(1) per class,
    whatever the core count. Call :func:`work_bound` first for records that
    may be broken.
    """
    runs = []
    for c in classes:
        k = _active(c.base, c.cores, c.count, c.passes, numel)
        if k == 0:
            continue
        room = numel - c.base
        if c.pass_len == 0:  # zero-length full passes move nothing: only the tail pass is left
            passes, last = 1, c.tail
        else:
            # the first core's passes that start inside the tensor; later cores stop sooner
            passes = min(c.passes, -(-room // c.pass_len))
            last = c.tail if passes == c.passes else c.pass_len
        length = min((passes - 1) * c.pass_len + last, numel)
        if length == 0:  # no core of the class moves an element
            continue
        # with two or more cores inside, count < numel; clamp what only matters beyond the tensor
        runs.append(CoreRun(c.base, k, min(c.count, numel), passes, min(c.pass_len, FIELD_CAP),
                            min(last, FIELD_CAP), length))
    return runs


def _core_at(run: CoreRun, numel: int, target: int) -> int:
    """The number of the run's cores whose walks end at or before ``target`` (of the run's elements)."""
    lo, hi = 0, run.cores
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if run.elements(mid, numel) <= target:
            lo = mid
        else:
            hi = mid - 1
    return lo


def plan(runs: list, numel: int, threads: int) -> Plan:
    """Cut the runs into ``threads`` bins of about equal element count.

    Boundaries fall on pass boundaries (the nearest one to an equal share),
    so each bin's work differs from the mean by at most one pass.
    """
    sizes = [r.elements(r.cores, numel) for r in runs]
    total = sum(sizes)
    pieces, bins = [], [0]
    ri, core, first_pass = 0, 0, 0   # the first core not yet wholly placed, and its passes already placed
    done = 0                         # elements of the runs before run ri
    for b in range(1, threads + 1):
        target = total * b // threads if b < threads else total
        while ri < len(runs):
            r = runs[ri]
            # cores of run ri that end by the target (all that are left, for the last bin)
            stop = _core_at(r, numel, target - done) if b < threads else r.cores
            if stop > core:
                if first_pass:
                    pieces.append(_part(r, core, first_pass, r.passes))
                    core += 1
                if stop > core:
                    pieces.append((r.start + r.stride * core, stop - core, r.stride, r.passes, r.pass_len,
                                   r.last_len))
                core, first_pass = stop, 0
            if core < r.cores:
                break
            done += sizes[ri]
            ri, core, first_pass = ri + 1, 0, 0
        if b < threads and ri < len(runs) and runs[ri].pass_len > 0:
            r = runs[ri]
            before = done + r.elements(core, numel)
            k = min(int(round((target - before) / r.pass_len)), r.passes)
            if k > first_pass:
                pieces.append(_part(r, core, first_pass, k))
                first_pass = k
                if k == r.passes:
                    core, first_pass = core + 1, 0
                    if core == r.cores:
                        done += sizes[ri]
                        ri, core = ri + 1, 0
        bins.append(len(pieces))
    out = np.array(pieces, dtype=PIECE_DTYPE) if pieces else np.empty(0, dtype=PIECE_DTYPE)
    longest = int(max(out["pass_len"].max(), out["last_len"].max())) if out.size else 1
    capacity = max(1, min(longest, numel + _PADDING_SLACK))
    return Plan(out, np.array(bins, dtype=np.int64), capacity, total)


def _part(r: CoreRun, core: int, first: int, stop: int) -> tuple:
    """Passes ``first .. stop - 1`` of core ``core`` of run ``r`` as a piece of one core."""
    last_len = r.last_len if stop == r.passes else r.pass_len
    return (r.start + r.stride * core + first * r.pass_len, 1, 0, stop - first, r.pass_len, last_len)
