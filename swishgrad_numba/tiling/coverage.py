"""Coverage of the tensor by a launch, analysed from the core ranges: gaps, overlaps, overruns.

Each launched core with at least one pass transfers the contiguous range
``[start, start + length)`` exactly once (its passes abut), and the starts
of each :class:`~swishgrad_numba.tiling.launch.WalkClass` form an
arithmetic progression. Coverage of ``[0, numel)`` then follows from an
interval sweep over the cores, never element by element, in O(cores log
cores) however the cores fall: the multiplicity comes from sorted end
points, the cores next to a gap from binary searches, and only the first
:data:`~swishgrad_numba.tiling.findings.MAX_FINDINGS_PER_CODE` regions of a
kind are described (the others are counted).

Past the tensor end: the A2 allocation is padded to whole blocks, so a
transfer up to the padded end is a warning and one beyond it an error; the
950's DMA is exact (``padded == numel``), so every transfer past the end is
an error.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .findings import MAX_FINDINGS_PER_CODE, add_capped, finding
from .launch import FIELD_CAP

__all__ = ["MAX_EXPLICIT_CORES", "Coverage", "analyse_coverage"]

#: Cores of one class analysed one by one at most.
MAX_EXPLICIT_CORES = 1 << 20


class Coverage(NamedTuple):
    """What the balance figures need from the analysis.

    ``in_range[i]`` is the elements of ``[0, numel)`` explicit entry ``i``
    transfers; an entry stands for ``weights[i]`` identical cores;
    ``entries`` lists ``(first core, entries, weight)`` blocks in entry order.
    """

    in_range: np.ndarray
    weights: np.ndarray
    entries: list
    padding_elements: int


def _explicit_cores(classes, padded: int, findings: list) -> tuple:
    """Entries for the cores starting inside the padded tensor.

    A class with ``count == 0`` puts all its cores at one start: they are
    one entry with a weight (their number). Returns the entries' starts,
    ends (clamped to FIELD_CAP), class indices and weights, the blocks
    ``(first core, entries, weight)``, and the groups ``(class, first core,
    cores)`` that start at or past the padded end.
    """
    starts, ends, cls_idx, entries, weights = [], [], [], [], []
    beyond_groups, middle, horizon = [], [], []
    for ci, c in enumerate(classes):
        if c.cores == 0:
            continue
        if c.count == 0:
            if c.base < padded:
                starts.append(np.array([c.base], dtype=np.int64))
                ends.append(np.array([min(c.base + c.length, FIELD_CAP)], dtype=np.int64))
                cls_idx.append(np.array([ci], dtype=np.int64))
                weights.append(np.array([min(c.cores, 1 << 32)], dtype=np.int64))
                entries.append((c.first, 1, c.cores))
            elif c.length > 0:
                beyond_groups.append((c, c.first, c.cores))
            continue
        k = 0 if c.base >= padded else min(c.cores, -(-(padded - c.base) // c.count))
        if k < c.cores and c.length > 0:
            beyond_groups.append((c, c.first + k, c.cores - k))
        blocks = [(0, k)]
        if k > MAX_EXPLICIT_CORES:
            # the first cores and the last two one by one; those between, when they abut, as one range
            # that each element of is computed once (exact), else not at all (the gaps they leave are
            # real: the analysis only says less past the first cores)
            blocks = [(0, MAX_EXPLICIT_CORES - 2), (k - 2, 2)]
            if c.count == c.length:
                middle.append((c.start(c.first + MAX_EXPLICIT_CORES - 2), c.start(c.first + k - 2)))
                what = (f"the {k - MAX_EXPLICIT_CORES} between as one range (they abut: the coverage is exact), "
                        f"so the balance figures are partial")
            else:
                horizon.append(c.start(c.first + MAX_EXPLICIT_CORES - 2))
                what = (f"no gap from element {c.start(c.first + MAX_EXPLICIT_CORES - 2)} on is reported, and "
                        f"the totals are partial")
            findings.append(finding(
                "ANALYSIS_TRUNCATED", f"{c.span()} start inside the tensor; the first {MAX_EXPLICIT_CORES - 2} and "
                                      f"the last two are analysed one by one, {what}.", c.first))
        for j, n in blocks:
            # count < padded whenever k >= 2, so the product fits int64
            s = np.minimum(c.base + min(c.count, FIELD_CAP) * np.arange(j, j + n, dtype=np.int64), FIELD_CAP)
            starts.append(s)
            ends.append(np.minimum(s + min(c.length, FIELD_CAP), FIELD_CAP))
            cls_idx.append(np.full(n, ci, dtype=np.int64))
            weights.append(np.ones(n, dtype=np.int64))
            entries.append((c.first + j, n, 1))
    if starts:
        starts, ends, cls_idx, weights = (np.concatenate(a) for a in (starts, ends, cls_idx, weights))
    else:
        starts = ends = cls_idx = weights = np.zeros(0, dtype=np.int64)
    return starts, ends, cls_idx, weights, entries, beyond_groups, middle, min(horizon, default=FIELD_CAP)


def _entry(entries, i: int) -> tuple:
    """(first core, number of identical cores) of explicit entry ``i``."""
    i = int(i)
    for first, k, weight in entries:
        if i < k:
            return first + i, weight
        i -= k
    raise IndexError(i)


def _who(entries, i: int) -> str:
    core, weight = _entry(entries, i)
    return str(core) if weight == 1 else f"{core}..{core + weight - 1}"


def _runs(mask: np.ndarray):
    """(start indices, stop indices) of the runs of True in a boolean array."""
    if not mask.any():
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    m = np.concatenate(([False], mask, [False])).astype(np.int8)
    d = np.diff(m)
    return np.flatnonzero(d == 1), np.flatnonzero(d == -1)


class _Lookup:
    """Sorted views of the live intervals for the neighbour questions of the
    findings, each answered by a binary search."""

    def __init__(self, s: np.ndarray, e: np.ndarray):
        # stable sorts: among equal keys the entry order is kept
        self.s_order = np.argsort(s, kind="stable")
        self.e_order = np.argsort(e, kind="stable")
        self.s_sorted = s[self.s_order]
        self.e_sorted = e[self.e_order]

    def first_starting_at(self, point: int):
        """Lowest live position whose interval starts at ``point``, or None."""
        k = int(np.searchsorted(self.s_sorted, point, "left"))
        if k < self.s_sorted.size and self.s_sorted[k] == point:
            return int(self.s_order[k])
        return None

    def last_ending_at(self, point: int):
        """Highest live position whose interval ends at ``point``, or None."""
        k = int(np.searchsorted(self.e_sorted, point, "right")) - 1
        if k >= 0 and self.e_sorted[k] == point:
            return int(self.e_order[k])
        return None


def _gaps(findings, mult, seg_lo, seg_hi, look, live_idx, entries, classes, cls_idx) -> None:
    run_a, run_b = _runs(mult == 0)
    gaps = []
    for a, b in zip(run_a[:MAX_FINDINGS_PER_CODE].tolist(), run_b[:MAX_FINDINGS_PER_CODE].tolist()):
        g0, g1 = int(seg_lo[a]), int(seg_hi[b - 1])
        nxt = look.first_starting_at(g1)
        prv = look.last_ending_at(g0)
        if nxt is not None:
            core, tile = _entry(entries, live_idx[nxt])[0], 0
            where = f"; core {core} starts at {g1}"
            if prv is not None:
                where = f"; core {_entry(entries, live_idx[prv])[0]} ends at {g0}, core {core} starts at {g1}"
        elif prv is not None:
            i = live_idx[prv]
            core = _entry(entries, i)[0]
            tile = classes[cls_idx[i]].passes - 1
            where = f"; the last core before it, core {core}, ends at {g0}"
        else:
            core = tile = None
            where = "; no core computes anything in the tensor"
        gaps.append(finding("COVERAGE_GAP", f"elements [{g0}, {g1}) ({g1 - g0} elements) are computed by no "
                                            f"core{where}.", core, tile))
    add_capped(findings, gaps, run_a.size, "COVERAGE_GAP", "gaps")


def _overlaps(findings, mult, seg_lo, seg_hi, s, e, live_idx, entries, classes, cls_idx) -> None:
    run_a, run_b = _runs(mult >= 2)
    overlaps = []
    for a, b in zip(run_a[:MAX_FINDINGS_PER_CODE].tolist(), run_b[:MAX_FINDINGS_PER_CODE].tolist()):
        o0, o1 = int(seg_lo[a]), int(seg_hi[b - 1])
        top = int(mult[a:b].max())
        # one pass over the cores, for at most MAX_FINDINGS_PER_CODE regions
        cover = np.flatnonzero((s <= o0) & (e > o0))
        names = [_who(entries, live_idx[j]) for j in cover[:4]]
        core = tile = None
        if cover.size:
            head, head_weight = _entry(entries, live_idx[cover[0]])
            if head_weight > 1:
                later, core = live_idx[cover[0]], head + 1
            else:  # the other may be among the abutting cores analysed as one range
                later = live_idx[cover[min(1, cover.size - 1)]]
                core = _entry(entries, later)[0]
            tile = classes[cls_idx[later]].pass_of(core, o0)
        who = ", ".join(names) + (", ..." if cover.size > 4 else "")
        if cover.size < top:
            who += (", " if names else "") + "cores analysed as one range"
        overlaps.append(finding(
            "COVERAGE_OVERLAP", f"elements [{o0}, {o1}) ({o1 - o0} elements) are computed more than once (up to "
                                f"{top} times); at element {o0} by cores {who}.", core, tile))
    add_capped(findings, overlaps, run_a.size, "COVERAGE_OVERLAP", "overlapping regions")


def _overruns(findings, numel, padded, itemsize, exact, s, e, w, live_idx, entries, classes, cls_idx,
              beyond_groups) -> int:
    """Findings for the cores that transfer past the tensor end; returns the padding transfers."""
    over = np.flatnonzero(e > numel)
    s_over, e_over, w_over = s[over], e[over], w[over]
    # ends are clamped at FIELD_CAP > padded, which keeps both comparisons with padded exact
    per = np.maximum(np.minimum(e_over, padded) - np.maximum(s_over, numel), 0)
    single = w_over == 1
    padding_elems = sum(per[single].tolist()) + sum(p * q for p, q in zip(per[~single].tolist(),
                                                                         w_over[~single].tolist()))
    beyond = e_over > padded
    pad_items, beyond_items = [], []
    cap = MAX_FINDINGS_PER_CODE
    for j in over[~beyond][:cap].tolist() + over[beyond][:cap].tolist():
        i = live_idx[j]
        c = classes[cls_idx[i]]
        core, weight = _entry(entries, i)
        name = f"core {core}" if weight == 1 else f"each of cores {core}..{core + weight - 1}"
        start = int(s[j])
        true_end = start + c.length
        first_out = max(start, numel)
        tile = c.pass_of(core, first_out)
        if true_end <= padded:
            k = true_end - first_out
            pad_items.append(finding(
                "OVERRUN_PADDING", f"{name} reads the inputs and writes the output over elements [{first_out}, "
                                   f"{true_end}), {k} element(s) ({k * itemsize} bytes) past the tensor end, inside "
                                   f"the allocation's block padding (padded size {padded} elements).", core, tile))
        elif exact:
            beyond_items.append(finding(
                "OVERRUN_BEYOND_PADDING", f"{name} reads and writes up to element {true_end}, {true_end - numel} "
                                          f"element(s) past the tensor's end ({numel} elements; the DMA is exact, "
                                          f"there is no padding).", core, tile))
        else:
            beyond_items.append(finding(
                "OVERRUN_BEYOND_PADDING", f"{name} reads and writes up to element {true_end}, {true_end - padded} "
                                          f"element(s) beyond the tensor's block padding (tensor {numel} elements, "
                                          f"padded {padded}).", core, tile))
    end = f"the tensor's end ({numel})" if exact else f"the padded end ({padded})"
    for c, first, n in beyond_groups:
        beyond_items.append(finding(
            "OVERRUN_BEYOND_PADDING", f"{c.span(first, n)} start at element {c.start(first)}, at or past {end}; "
                                      f"each reads and writes {c.length} elements outside the tensor.", first, 0))
    n_beyond = int(np.count_nonzero(beyond))
    add_capped(findings, pad_items, over.size - n_beyond, "OVERRUN_PADDING", "cores overrunning into the padding")
    add_capped(findings, beyond_items, n_beyond + len(beyond_groups), "OVERRUN_BEYOND_PADDING",
               "cores overrunning past the tensor's end" if exact else "cores overrunning beyond the padding")
    return padding_elems


def analyse_coverage(classes, numel: int, padded: int, itemsize: int, exact_dma: bool, findings: list) -> Coverage:
    """Interval sweep over the launched cores; appends the coverage and overrun findings.

    ``classes`` are the launch's :class:`~swishgrad_numba.tiling.launch.WalkClass` es;
    ``padded`` the element slots the allocation holds; ``exact_dma`` (the
    950) says that it has no padding (``padded == numel``).
    """
    starts, ends, cls_idx, weights, entries, beyond_groups, middle, horizon = _explicit_cores(classes, padded,
                                                                                             findings)
    live = ends > starts
    s, e, w = starts[live], ends[live], weights[live]
    live_idx = np.flatnonzero(live)
    # multiplicity is piecewise constant between the interval end points:
    # weight of the intervals started at or before p minus those ended by p
    # (the ranges of abutting cores not listed one by one count once)
    m_s = np.concatenate((s, np.array([a for a, _ in middle], dtype=np.int64)))
    m_e = np.concatenate((e, np.array([b for _, b in middle], dtype=np.int64)))
    m_w = np.concatenate((w, np.ones(len(middle), dtype=np.int64)))
    points = np.sort(np.concatenate((m_s, m_e, [0, numel])))
    points = points[(points <= numel) & np.concatenate(([True], points[1:] != points[:-1]))]
    look = _Lookup(s, e)
    s_order, e_order = np.argsort(m_s, kind="stable"), np.argsort(m_e, kind="stable")
    cs = np.concatenate(([0], np.cumsum(m_w[s_order])))
    ce = np.concatenate(([0], np.cumsum(m_w[e_order])))
    mult = (cs[np.searchsorted(m_s[s_order], points[:-1], "right")]
            - ce[np.searchsorted(m_e[e_order], points[:-1], "right")])
    seg_lo, seg_hi = points[:-1], points[1:]
    known = seg_lo < horizon     # gaps from the horizon on are not known
    _gaps(findings, np.where(known, mult, 1), seg_lo, seg_hi, look, live_idx, entries, classes, cls_idx)
    _overlaps(findings, mult, seg_lo, seg_hi, s, e, live_idx, entries, classes, cls_idx)
    padding_elems = _overruns(findings, numel, padded, itemsize, exact_dma, s, e, w, live_idx, entries, classes,
                              cls_idx, beyond_groups)
    in_range = np.zeros(starts.size, dtype=np.int64)
    in_range[live] = np.maximum(np.minimum(e, numel) - s, 0)
    return Coverage(in_range, weights, entries, padding_elems)
