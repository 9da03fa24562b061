"""Pieces and bins: what a launch runs, and how it is spread over the host threads.

:func:`core_walks` lists the launched cores' walks from a tiling, with the
the model's own core arithmetic (:func:`spec.a2.core_classes`,
:func:`spec.arch35.block_classes`) on Python ints. Only cores that start
inside the tensor are listed, and each walk stops after its last pass that
starts inside the tensor: what lies beyond writes nothing. So any record,
however broken, gives a walk no longer than its work inside the tensor
(:func:`work_bound` measures that before anything is built).

:func:`plan` then cuts the sequence of all passes, in core order, into one
contiguous bin per thread of about equal element count, splitting a core's
passes where a boundary falls inside it. With 48 cores on 2 threads each bin
is 24 whole cores; with 3 cores on 2 threads the middle core is shared.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..spec import a2 as spec_a2
from ..spec import arch35 as spec_arch35
from .walk import PIECE_DTYPE

__all__ = ["FIELD_CAP", "Plan", "classes_of", "core_walks", "plan", "work_bound"]

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


def core_walks(fields, block_dim: int, arch: int, numel: int) -> np.ndarray:
    """One piece per launched core that starts inside the tensor, in core order.

    ``fields`` is an A2 or 950 ``TilingFields`` of Python ints (``arch`` says
    which). Each walk is cut after its last pass that starts inside the
    tensor (a pass of zero length only moves nothing). Call
    :func:`work_bound` first for records that may be broken.
    """
    parts = []
    for c in classes_of(fields, block_dim, arch):
        base, count, passes, pass_len, tail = c.base, c.count, c.passes, c.pass_len, c.tail
        k = _active(base, c.cores, count, passes, numel)
        if k == 0:
            continue
        # Clamp what only matters beyond the tensor so that it fits int64:
        # with two or more cores inside, count < numel; with a pass longer
        # than the tensor only the first pass starts inside it.
        start = base + min(count, numel) * np.arange(k, dtype=np.int64)
        walks = np.empty(k, dtype=PIECE_DTYPE)
        walks["start"] = start
        walks["pass_len"] = min(pass_len, FIELD_CAP)
        if pass_len == 0:  # zero-length full passes move nothing: only the tail pass is left
            walks["passes"] = 1
            walks["last_len"] = min(tail, FIELD_CAP)
        else:
            # passes that start inside the tensor: ceil((numel - start) / pass_len)
            run = np.minimum(min(passes, numel + 1), -(-(numel - start) // min(pass_len, numel + 1)))
            walks["passes"] = run
            whole = run == min(passes, numel + 2)   # the walk keeps its tail pass
            walks["last_len"] = np.where(whole, min(tail, FIELD_CAP), min(pass_len, FIELD_CAP))
        parts.append(walks)
    return np.concatenate(parts) if parts else np.empty(0, dtype=PIECE_DTYPE)


def _elements(walks, numel: int) -> np.ndarray:
    """Elements each walk transfers inside the tensor."""
    return np.minimum((walks["passes"] - 1) * walks["pass_len"] + walks["last_len"], numel - walks["start"])


def plan(walks: np.ndarray, numel: int, threads: int) -> Plan:
    """Cut the walks into ``threads`` bins of about equal element count.

    Boundaries fall on pass boundaries (the nearest one to an equal share),
    so each bin's work differs from the mean by at most one pass.
    """
    sizes = _elements(walks, numel)
    ends = np.cumsum(sizes)
    total = int(ends[-1]) if sizes.size else 0
    pieces, bins = [], [0]
    core = 0                       # first core not yet wholly placed
    first_pass = 0                 # passes of that core already placed
    for b in range(1, threads + 1):
        target = total * b // threads
        # cores that end by the target go into this bin (all that are left, for the last bin)
        stop = int(np.searchsorted(ends, target, side="right")) if b < threads else len(walks)
        if stop > core:
            pieces.append(_part(walks[core], first_pass, int(walks[core]["passes"])))
            pieces.extend(walks[core + 1:stop].tolist())
            core, first_pass = stop, 0
        if b < threads and core < len(walks) and walks[core]["pass_len"] > 0:
            w = walks[core]
            before = int(ends[core] - sizes[core])
            k = min(int(round((target - before) / int(w["pass_len"]))), int(w["passes"]))
            if k > first_pass:
                pieces.append(_part(w, first_pass, k))
                first_pass = k
                if k == w["passes"]:
                    core, first_pass = core + 1, 0
        bins.append(len(pieces))
    out = np.array(pieces, dtype=PIECE_DTYPE) if pieces else np.empty(0, dtype=PIECE_DTYPE)
    longest = int(max(out["pass_len"].max(), out["last_len"].max())) if out.size else 1
    capacity = max(1, min(longest, numel + _PADDING_SLACK))
    return Plan(out, np.array(bins, dtype=np.int64), capacity, total)


def _part(w, first: int, stop: int) -> tuple:
    """Passes ``first .. stop - 1`` of walk ``w`` as a piece."""
    pass_len = int(w["pass_len"])
    last_len = int(w["last_len"]) if stop == w["passes"] else pass_len
    return (int(w["start"]) + first * pass_len, stop - first, pass_len, last_len)
