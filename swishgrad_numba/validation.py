"""Is a SwishGrad tiling correct for a tensor and a platform, and where not?

:func:`validate_tiling` checks a tiling record analytically, from the
per-core ranges of SPEC section 4, never element by element: each launched
core with ``tiles >= 1`` transfers the contiguous range
``[start, start + (tiles - 1) * tileDataNum + tail)`` exactly once (its
tiles abut), and the starts of each core class (big, small) form an
arithmetic progression. Coverage of ``[0, numel)`` then follows from an
interval sweep over the cores. :mod:`swishgrad_numba.checked_kernel` walks the
same tiling element by element and must agree (``validate_tiling(...,
checked=True)`` runs both).

:func:`tiling_balance` gives the load-balance figures of a tiling, and
:func:`run_sweep` checks the host tiling over a large grid of sizes, dtypes
and platforms with a vectorised NumPy re-statement of SPEC section 3
(:func:`host_tiling_arrays`) and of the checks (:func:`vectorized_verdict`).

The unified-buffer check follows the kernel's buffer plan: a list of
``(count, bytes_per_element)`` pairs, each buffer holding ``tileDataNum``
elements and rounded up to 32 bytes by ``TPipe::InitBuffer``
(:func:`swishgrad_buffer_plan` is SwishGrad's; ``validate_tiling(...,
buffers=...)`` takes another operator's plan).

Semantics chosen where the device is not public (documented in
docs/validation.md): offsets are exact integers (a start past ``2**64``
would wrap on the device; here it is simply past the padding, an error);
element slots ``[numel, padded)`` of the block-rounded allocation are the
padding, an element straddling its end counts as beyond; the coverage of
padding slots is not checked (only the overrun is reported).
"""
from __future__ import annotations

import math
import numbers
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .dtypes import SUPPORTED_DTYPES, canonical_dtype
from .platform import REFERENCE_PLATFORM, Platform
from .tiling import TILING_FIELDS, compute_tiling
from .tiling import check_numel as _check_numel
from .tiling.io import as_tiling_record

__all__ = [
    "CODES",
    "Finding",
    "ValidationReport",
    "TilingBalance",
    "SweepResult",
    "UB_ALIGN",
    "swishgrad_buffer_plan",
    "buffer_plan_bytes",
    "parse_buffer_plan",
    "validate_tiling",
    "tiling_balance",
    "host_tiling_arrays",
    "vectorized_verdict",
    "sweep_grid",
    "run_sweep",
]

#: Every finding code, its severity and what it means. The codes are stable.
CODES = {
    "BLOCK_DIM_RANGE": ("error", "block dim is 0 or exceeds the platform's core count"),
    "UB_OVERFLOW": ("error", "the kernel's buffers (its buffer plan, each rounded up to 32 bytes) do not fit "
                             "the unified buffer"),
    "TILE_COUNT_MISMATCH": ("error", "(tiles - 1) * tileDataNum + tail differs from the core's coreDataNum"),
    "TAIL_RANGE": ("error", "the last tile's length is not in (0, tileDataNum]"),
    "TRANSFER_NOT_BLOCK_ALIGNED": ("error", "a tile transfer is not a whole number of blocks"),
    "COVERAGE_GAP": ("error", "elements of the tensor that no core computes"),
    "COVERAGE_OVERLAP": ("error", "elements of the tensor computed more than once"),
    "OVERRUN_PADDING": ("warning", "reads/writes past the tensor end, inside the block padding"),
    "OVERRUN_BEYOND_PADDING": ("error", "reads/writes past the tensor end and beyond its block padding"),
    "IDLE_CORE": ("warning", "a launched core runs no tile"),
    "SCONF_NONFINITE": ("warning", "sconf (beta) is NaN or infinite"),
    "TILING_KEY_UNKNOWN": ("warning", "SwishGrad has one kernel variant, tiling key 0"),
    "ANALYSIS_TRUNCATED": ("warning", "too many cores to analyse one by one; totals are partial"),
    "CHECKED_RUN_DISAGREES": ("error", "the instrumented run contradicts the analytic coverage (a bug)"),
}

#: Findings listed per code before the rest are summarised in one more.
MAX_FINDINGS_PER_CODE = 8

#: Cores of one class analysed one by one at most.
MAX_EXPLICIT_CORES = 1 << 20

# Offsets and lengths are clamped here inside int64 arrays (sum of two fits).
_CAP = 1 << 61
# Largest padded tensor (elements) the validator accepts.
_MAX_PADDED = 1 << 56

#: ``TPipe::InitBuffer`` rounds every buffer up to this many bytes.
UB_ALIGN = 32

# SwishGrad's buffers (SPEC section 3): grad, x and output queues of two
# buffers each, plus one (float32) or three (16-bit dtypes) float32 TBufs.
_SWISHGRAD_PLAN_F32 = ((2, 4), (2, 4), (2, 4), (1, 4))
_SWISHGRAD_PLAN_16 = ((2, 2), (2, 2), (2, 2), (3, 4))


# ----------------------------------------------------------------------------
# the unified-buffer plan

def swishgrad_buffer_plan(dtype) -> tuple:
    """SwishGrad's unified-buffer plan for a dtype.

    Parameters
    ----------
    dtype : dtype-like
        float32, float16 or bfloat16.

    Returns
    -------
    tuple of (int, int)
        ``(count, bytes_per_element)`` pairs: three queues of two buffers of
        the dtype, then one (float32) or three (16-bit) float32 buffers.
    """
    return _SWISHGRAD_PLAN_F32 if canonical_dtype(dtype, argname="dtype").itemsize == 4 else _SWISHGRAD_PLAN_16


def _check_plan(buffers, argname: str = "buffers") -> tuple:
    """``buffers`` as a tuple of (count, bytes_per_element) int pairs, or a clear error."""
    if isinstance(buffers, (str, bytes)) or not hasattr(buffers, "__iter__"):
        raise TypeError(f"{argname} must be a sequence of (count, bytes_per_element) pairs, "
                        f"got {type(buffers).__name__}")
    plan = []
    for item in buffers:
        if isinstance(item, (str, bytes)) or not hasattr(item, "__len__") or len(item) != 2:
            raise TypeError(f"{argname} must hold (count, bytes_per_element) pairs, got {item!r}")
        for value in item:
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"{argname} must hold pairs of integers, got {item!r}")
        count, nbytes = int(item[0]), int(item[1])
        if count < 1 or nbytes < 1:
            raise ValueError(f"{argname}: count and bytes_per_element must be >= 1, got ({count}, {nbytes})")
        plan.append((count, nbytes))
    if not plan:
        raise ValueError(f"{argname} must name at least one buffer")
    return tuple(plan)


def buffer_plan_bytes(buffers, tile_data_num: int) -> int:
    """Unified-buffer bytes a buffer plan takes for tiles of ``tile_data_num`` elements.

    Each buffer holds ``tile_data_num * bytes_per_element`` bytes, rounded up
    to :data:`UB_ALIGN` (32) bytes as ``TPipe::InitBuffer`` does.

    Parameters
    ----------
    buffers : sequence of (int, int)
        ``(count, bytes_per_element)`` pairs.
    tile_data_num : int
        Elements per tile (>= 0).

    Returns
    -------
    int
    """
    plan = _check_plan(buffers)
    if isinstance(tile_data_num, bool) or not isinstance(tile_data_num, numbers.Integral):
        raise TypeError(f"tile_data_num must be an integer, got {type(tile_data_num).__name__}")
    if tile_data_num < 0:
        raise ValueError(f"tile_data_num must be >= 0, got {tile_data_num}")
    return sum(count * (-(-int(tile_data_num) * nbytes // UB_ALIGN) * UB_ALIGN) for count, nbytes in plan)


def parse_buffer_plan(text: str) -> tuple:
    """Read a plan written ``COUNTxBYTES,...``, e.g. ``"2x4,2x4,2x4,1x4"``.

    Raises
    ------
    ValueError
        Naming the part that is not ``COUNTxBYTES`` with two positive integers.
    """
    if not isinstance(text, str):
        raise TypeError(f"the buffer plan must be a string, got {type(text).__name__}")
    plan = []
    for part in text.split(","):
        count, sep, nbytes = part.strip().lower().partition("x")
        if not (sep and (count + nbytes).isascii() and count.isdecimal() and nbytes.isdecimal()):
            raise ValueError(f"buffer plan part {part.strip()!r} is not COUNTxBYTES (e.g. 2x4)")
        plan.append((int(count), int(nbytes)))
    return _check_plan(plan, "the buffer plan")


def _format_plan(plan) -> str:
    return ",".join(f"{count}x{nbytes}" for count, nbytes in plan)


@dataclass(frozen=True)
class Finding:
    """One problem (or remark) about a tiling.

    Attributes
    ----------
    code : str
        Stable identifier, a key of :data:`CODES`.
    severity : str
        ``"error"`` (the launch computes a wrong result or breaks a
        constraint) or ``"warning"``.
    message : str
        A sentence for a person.
    core : int or None
        The core concerned, None when not one core.
    tile : int or None
        The tile (0-based, within ``core``) concerned, None when not applicable.
    """

    code: str
    severity: str
    message: str
    core: int | None = None
    tile: int | None = None

    def __str__(self) -> str:
        where = ""
        if self.core is not None:
            where = f" [core {self.core}" + (f", tile {self.tile}]" if self.tile is not None else "]")
        return f"{self.severity.upper()} {self.code}{where}: {self.message}"


@dataclass(frozen=True)
class TilingBalance:
    """Load-balance figures of a tiling.

    ``elements`` are elements of ``[0, numel)`` a core computes (padding
    excluded); ``mean_elements`` is over the launched cores;
    ``ub_bytes_per_tile`` is what the buffer plan takes in the unified
    buffer, each buffer rounded up to 32 bytes.
    """

    numel: int
    block_dim: int
    core_num: int
    big_cores: int
    small_cores: int
    elements_per_core: np.ndarray | None
    tiles_per_core: np.ndarray | None
    max_elements: int
    mean_elements: float
    imbalance: float
    unused_cores: int
    idle_launched_cores: int
    min_tiles: int
    max_tiles: int
    padding_overrun_elements: int
    padding_overrun_bytes: int
    ub_bytes_per_tile: int
    ub_size: int

    @property
    def idle_cores(self) -> int:
        """Platform cores that compute nothing: not launched, or launched idle."""
        return self.unused_cores + self.idle_launched_cores

    @property
    def ub_fraction(self) -> float:
        """Share of the unified buffer the tile buffers take."""
        return self.ub_bytes_per_tile / self.ub_size

    def as_dict(self) -> dict:
        """The scalar figures as plain Python numbers."""
        return {
            "block_dim": self.block_dim,
            "core_num": self.core_num,
            "big_cores": self.big_cores,
            "small_cores": self.small_cores,
            "max_elements_per_core": self.max_elements,
            "mean_elements_per_core": self.mean_elements,
            "imbalance_max_over_mean": self.imbalance,
            "idle_cores": self.idle_cores,
            "unused_cores": self.unused_cores,
            "idle_launched_cores": self.idle_launched_cores,
            "min_tiles_per_core": self.min_tiles,
            "max_tiles_per_core": self.max_tiles,
            "padding_overrun_elements": self.padding_overrun_elements,
            "padding_overrun_bytes": self.padding_overrun_bytes,
            "ub_bytes_per_tile": self.ub_bytes_per_tile,
            "ub_fraction": self.ub_fraction,
        }

    def format(self) -> str:
        """Human-readable lines."""
        return "\n".join([
            f"cores launched      : {self.block_dim} of {self.core_num} "
            f"({self.big_cores} big, {self.small_cores} small)",
            f"elements per core   : max {self.max_elements}, mean {self.mean_elements:.1f}, "
            f"max/mean {self.imbalance:.4f}",
            f"idle cores          : {self.idle_cores} ({self.unused_cores} not launched, "
            f"{self.idle_launched_cores} launched with nothing to do)",
            f"tiles per core      : {self.min_tiles}..{self.max_tiles}",
            f"padding overrun     : {self.padding_overrun_elements} elements "
            f"({self.padding_overrun_bytes} bytes)",
            f"UB use per tile     : {self.ub_bytes_per_tile} of {self.ub_size} bytes "
            f"({100 * self.ub_fraction:.1f}%)",
        ])


@dataclass(frozen=True)
class ValidationReport:
    """Outcome of :func:`validate_tiling`.

    ``ok`` is True when no finding is an error (warnings allowed);
    ``buffers`` is the unified-buffer plan the check used.
    """

    numel: int
    dtype: np.dtype
    platform: Platform
    block_dim: int
    fields: dict
    findings: tuple
    balance: TilingBalance | None
    buffers: tuple = ()

    @property
    def ok(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)

    @property
    def errors(self) -> list:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list:
        return [f for f in self.findings if f.severity == "warning"]

    def codes(self, severity: str | None = None) -> set:
        """The set of finding codes (optionally of one severity)."""
        return {f.code for f in self.findings if severity is None or f.severity == severity}

    def format(self) -> str:
        """A human-readable report."""
        head = (f"tiling for numel={self.numel} {self.dtype.name}, block_dim={self.block_dim}: "
                + ("OK" if self.ok else "INVALID")
                + f" ({len(self.errors)} error(s), {len(self.warnings)} warning(s))")
        return "\n".join([head] + ["  " + str(f) for f in self.findings])


# ----------------------------------------------------------------------------
# argument handling

def _check_platform(platform) -> Platform:
    platform = REFERENCE_PLATFORM if platform is None else platform
    if not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    return platform


def _padded(numel: int, itemsize: int, block_size: int) -> int:
    return (-(-numel * itemsize // block_size) * block_size) // itemsize


# ----------------------------------------------------------------------------
# the decomposition of SPEC section 4, class by class

@dataclass(frozen=True)
class _CoreClass:
    name: str
    first: int       # first core index of the class
    ncores: int
    count: int       # coreDataNum, also the stride between starts
    tiles: int
    tail: int
    base: int        # start of core `first`

    @property
    def length(self) -> int:
        """Elements one core transfers: its tiles abut."""
        return 0 if self.tiles == 0 else (self.tiles - 1) * self._tile + self.tail

    _tile: int = 0

    def start(self, core: int) -> int:
        return self.base + self.count * (core - self.first)

    def tile_of(self, core: int, element: int) -> int:
        """The tile of ``core`` holding ``element`` (last tile when past it)."""
        off = element - self.start(core)
        if self._tile == 0 or off < 0:
            return max(self.tiles - 1, 0)
        return min(off // self._tile, self.tiles - 1)


def _classes(f: dict, block_dim: int) -> list:
    tbn = f["tailBlockNum"]
    n_big = min(tbn, block_dim)
    big = _CoreClass("big", 0, n_big, f["bigCoreDataNum"], f["finalBigTileNum"], f["bigTailDataNum"], 0,
                     f["tileDataNum"])
    # start = big*i - (big - small)*(i - tbn), which equals big*tbn + small*(i - tbn)
    small = _CoreClass("small", n_big, block_dim - n_big, f["smallCoreDataNum"], f["finalSmallTileNum"],
                       f["smallTailDataNum"], f["bigCoreDataNum"] * tbn, f["tileDataNum"])
    return [big, small]


def _core_span(cls: _CoreClass, first: int, ncores: int) -> str:
    if ncores == 1:
        return f"core {first} ({cls.name})"
    return f"cores {first}..{first + ncores - 1} ({cls.name})"


@dataclass
class _Explicit:
    """Cores analysed one by one: those starting inside the padded tensor."""
    cls_index: np.ndarray
    core: list          # Python ints (core indices may exceed int64)
    starts: np.ndarray  # int64
    ends: np.ndarray    # int64, clamped to _CAP
    true_len: list      # Python int length per class


def _explicit_cores(classes, padded: int, findings: list) -> tuple:
    """Entries for the cores starting inside the padded tensor.

    A class with ``coreDataNum == 0`` puts all its cores at one start: they
    are one entry with a weight (their number). ``cores`` lists blocks
    ``(first core, entries, weight)`` in entry order.
    """
    starts, ends, cls_idx, cores, weights = [], [], [], [], []
    beyond_groups = []   # (class, first core, ncores) starting at/after padded
    for ci, c in enumerate(classes):
        if c.ncores == 0:
            continue
        if c.count == 0:
            if c.base < padded:
                starts.append(np.array([c.base], dtype=np.int64))
                ends.append(np.array([min(c.base + c.length, _CAP)], dtype=np.int64))
                cls_idx.append(np.array([ci], dtype=np.int64))
                weights.append(np.array([min(c.ncores, 1 << 32)], dtype=np.int64))
                cores.append((c.first, 1, c.ncores))
            elif c.length > 0:
                beyond_groups.append((c, c.first, c.ncores))
            continue
        k = 0 if c.base >= padded else min(c.ncores, -(-(padded - c.base) // c.count))
        if k < c.ncores and c.length > 0:
            beyond_groups.append((c, c.first + k, c.ncores - k))
        if k > MAX_EXPLICIT_CORES:
            findings.append(Finding(
                "ANALYSIS_TRUNCATED", "warning",
                f"{_core_span(c, c.first, c.ncores)} start inside the tensor; only the first "
                f"{MAX_EXPLICIT_CORES} are analysed one by one, so totals are partial.", c.first, None))
            k = MAX_EXPLICIT_CORES
        if k == 0:
            continue
        offs = np.arange(k, dtype=np.int64)
        # count < padded whenever k >= 2, so the product fits int64
        s = c.base + min(c.count, _CAP) * offs
        s = np.minimum(s, _CAP)
        starts.append(s)
        ends.append(np.minimum(s + min(c.length, _CAP), _CAP))
        cls_idx.append(np.full(k, ci, dtype=np.int64))
        weights.append(np.ones(k, dtype=np.int64))
        cores.append((c.first, k, 1))
    if starts:
        starts, ends, cls_idx, weights = (np.concatenate(a) for a in (starts, ends, cls_idx, weights))
    else:
        starts = ends = cls_idx = weights = np.zeros(0, dtype=np.int64)
    return starts, ends, cls_idx, weights, cores, beyond_groups


def _entry(cores, i: int) -> tuple:
    """(first core, number of identical cores) of explicit entry ``i``."""
    i = int(i)
    for first, k, weight in cores:
        if i < k:
            return first + i, weight
        i -= k
    raise IndexError(i)


def _core_at(cores, i: int) -> int:
    """Core index (a Python int) of explicit entry ``i``; its first core if several."""
    return _entry(cores, i)[0]


def _who(cores, i: int) -> str:
    core, weight = _entry(cores, i)
    return str(core) if weight == 1 else f"{core}..{core + weight - 1}"


def _runs(mask: np.ndarray):
    """(start indices, stop indices) of the runs of True in a boolean array."""
    if not mask.any():
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    m = np.concatenate(([False], mask, [False])).astype(np.int8)
    d = np.diff(m)
    return np.flatnonzero(d == 1), np.flatnonzero(d == -1)


def _add_capped(findings: list, new: list, total: int, code: str, what: str) -> None:
    """Add the first findings of one code (``new``, at most MAX_FINDINGS_PER_CODE
    of ``total``) and one more that counts the rest."""
    findings.extend(new[:MAX_FINDINGS_PER_CODE])
    if total > MAX_FINDINGS_PER_CODE:
        findings.append(Finding(code, CODES[code][0],
                                f"... and {total - MAX_FINDINGS_PER_CODE} more {what}."))


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


def _coverage(classes, numel, padded, itemsize, findings):
    """Interval sweep over the explicit cores; returns figures for the balance.

    O(cores log cores): the multiplicity comes from sorted end points, and
    only the first MAX_FINDINGS_PER_CODE regions of each kind are described
    (each by binary searches, or one vectorised pass over the cores); the
    others are counted.
    """
    cap = MAX_FINDINGS_PER_CODE
    starts, ends, cls_idx, weights, cores, beyond_groups = _explicit_cores(classes, padded, findings)
    live = ends > starts
    s, e, w = starts[live], ends[live], weights[live]
    live_idx = np.flatnonzero(live)
    # multiplicity is piecewise constant between the interval end points:
    # weight of the intervals started at or before p minus those ended by p
    points = np.sort(np.concatenate((s, e, [0, numel])))
    points = points[(points <= numel) & np.concatenate(([True], points[1:] != points[:-1]))]
    look = _Lookup(s, e)
    cs = np.concatenate(([0], np.cumsum(w[look.s_order])))
    ce = np.concatenate(([0], np.cumsum(w[look.e_order])))
    mult = (cs[np.searchsorted(look.s_sorted, points[:-1], "right")]
            - ce[np.searchsorted(look.e_sorted, points[:-1], "right")])
    seg_lo, seg_hi = points[:-1], points[1:]

    gaps = []
    run_a, run_b = _runs(mult == 0)
    for a, b in zip(run_a[:cap].tolist(), run_b[:cap].tolist()):
        g0, g1 = int(seg_lo[a]), int(seg_hi[b - 1])
        nxt = look.first_starting_at(g1)
        prv = look.last_ending_at(g0)
        if nxt is not None:
            core, tile = _core_at(cores, live_idx[nxt]), 0
            where = f"; core {core} starts at {g1}"
            if prv is not None:
                where = f"; core {_core_at(cores, live_idx[prv])} ends at {g0}, core {core} starts at {g1}"
        elif prv is not None:
            i = live_idx[prv]
            core = _core_at(cores, i)
            tile = classes[cls_idx[i]].tiles - 1
            where = f"; the last core before it, core {core}, ends at {g0}"
        else:
            core = tile = None
            where = "; no core computes anything in the tensor"
        gaps.append(Finding("COVERAGE_GAP", "error",
                            f"elements [{g0}, {g1}) ({g1 - g0} elements) are computed by no core{where}.",
                            core, tile))
    _add_capped(findings, gaps, run_a.size, "COVERAGE_GAP", "gaps")

    overlaps = []
    run_a, run_b = _runs(mult >= 2)
    for a, b in zip(run_a[:cap].tolist(), run_b[:cap].tolist()):
        o0, o1 = int(seg_lo[a]), int(seg_hi[b - 1])
        top = int(mult[a:b].max())
        # one pass over the cores, for at most `cap` regions
        cover = np.flatnonzero((s <= o0) & (e > o0))
        names = [_who(cores, live_idx[j]) for j in cover[:4]]
        head, head_weight = _entry(cores, live_idx[cover[0]])
        if head_weight > 1:
            later, core = live_idx[cover[0]], head + 1
        else:
            later = live_idx[cover[1]]
            core = _core_at(cores, later)
        tile = classes[cls_idx[later]].tile_of(core, o0)
        who = ", ".join(names) + (", ..." if cover.size > 4 else "")
        overlaps.append(Finding(
            "COVERAGE_OVERLAP", "error",
            f"elements [{o0}, {o1}) ({o1 - o0} elements) are computed more than once (up to {top} times); "
            f"at element {o0} by cores {who}.", core, tile))
    _add_capped(findings, overlaps, run_a.size, "COVERAGE_OVERLAP", "overlapping regions")

    # overrun past the tensor end: figures over every core, findings for the first ones
    over = np.flatnonzero(e > numel)
    s_over, e_over, w_over = s[over], e[over], w[over]
    # ends are clamped at _CAP > padded, which keeps both comparisons with padded exact
    per = np.maximum(np.minimum(e_over, padded) - np.maximum(s_over, numel), 0)
    single = w_over == 1
    padding_elems = sum(per[single].tolist()) + sum(p * q for p, q in zip(per[~single].tolist(),
                                                                         w_over[~single].tolist()))
    beyond = e_over > padded
    pad_items, beyond_items = [], []
    for j in over[~beyond][:cap].tolist() + over[beyond][:cap].tolist():
        i = live_idx[j]
        c = classes[cls_idx[i]]
        core, weight = _entry(cores, i)
        name = f"core {core}" if weight == 1 else f"each of cores {core}..{core + weight - 1}"
        start = int(s[j])
        true_end = start + c.length
        first_out = max(start, numel)
        tile = c.tile_of(core, first_out)
        if true_end <= padded:
            k = true_end - first_out
            pad_items.append(Finding(
                "OVERRUN_PADDING", "warning",
                f"{name} reads grad and x and writes the output over elements [{first_out}, {true_end}), "
                f"{k} element(s) ({k * itemsize} bytes) past the tensor end, inside the allocation's block "
                f"padding (padded size {padded} elements).", core, tile))
        else:
            beyond_items.append(Finding(
                "OVERRUN_BEYOND_PADDING", "error",
                f"{name} reads and writes up to element {true_end}, {true_end - padded} element(s) "
                f"beyond the tensor's block padding (tensor {numel} elements, padded {padded}).", core, tile))
    for c, first, n in beyond_groups:
        beyond_items.append(Finding(
            "OVERRUN_BEYOND_PADDING", "error",
            f"{_core_span(c, first, n)} start at element {c.start(first)}, at or past the padded end "
            f"({padded}); each reads and writes {c.length} elements outside the tensor.", first, 0))
    n_beyond = int(np.count_nonzero(beyond))
    _add_capped(findings, pad_items, over.size - n_beyond, "OVERRUN_PADDING", "cores overrunning into the padding")
    _add_capped(findings, beyond_items, n_beyond + len(beyond_groups), "OVERRUN_BEYOND_PADDING",
                "cores overrunning beyond the padding")

    in_range = np.zeros(starts.size, dtype=np.int64)
    in_range[live] = np.maximum(np.minimum(e, numel) - s, 0)
    return in_range, weights, cores, padding_elems


def _fields(record) -> dict:
    out = {name: int(record[name]) for name in TILING_FIELDS[:-1]}
    out["sconf"] = float(record["sconf"])
    return out


def _analyse(record, block_dim, key, numel, dt, platform, plan):
    f = _fields(record)
    b, B, UB = dt.itemsize, platform.block_size, platform.ub_size
    padded = _padded(numel, b, B)
    if padded > _MAX_PADDED:
        raise ValueError(f"numel ({numel}) is too large to validate (at most {_MAX_PADDED // b} elements)")
    T = f["tileDataNum"]
    findings = []

    if not 1 <= block_dim <= platform.core_num:
        findings.append(Finding("BLOCK_DIM_RANGE", "error",
                                f"block dim {block_dim} is outside [1, {platform.core_num}] "
                                f"(the platform's core count).", None, None))
    ub_use = buffer_plan_bytes(plan, T)
    if ub_use > UB:
        findings.append(Finding("UB_OVERFLOW", "error",
                                f"the kernel's buffers {_format_plan(plan)} (count x bytes per element) of "
                                f"tileDataNum={T} elements, each rounded up to {UB_ALIGN} bytes, take {ub_use} bytes, "
                                f"more than the {UB}-byte unified buffer.", None, None))
    classes = _classes(f, block_dim)
    for c in classes:
        if c.ncores == 0:
            continue
        who = _core_span(c, c.first, c.ncores)
        prefix = "big" if c.name == "big" else "small"
        if c.tiles == 0:
            if c.count:
                findings.append(Finding("TILE_COUNT_MISMATCH", "error",
                                        f"{who} run no tile (final{prefix.title()}TileNum=0) but "
                                        f"{prefix}CoreDataNum={c.count}.", c.first, None))
            else:
                findings.append(Finding("IDLE_CORE", "warning",
                                        f"{who} run no tile and own no element.", c.first, None))
            continue
        if not 0 < c.tail <= T:
            findings.append(Finding("TAIL_RANGE", "error",
                                    f"{who}: {prefix}TailDataNum={c.tail} is not in (0, tileDataNum={T}]"
                                    + (" (a tail longer than a tile overflows the tile buffer)" if c.tail > T else "")
                                    + ".", c.first, c.tiles - 1))
        if c.length != c.count:
            findings.append(Finding("TILE_COUNT_MISMATCH", "error",
                                    f"{who}: (final{prefix.title()}TileNum-1)*tileDataNum+{prefix}TailDataNum = "
                                    f"({c.tiles}-1)*{T}+{c.tail} = {c.length}, but {prefix}CoreDataNum={c.count}.",
                                    c.first, None))
        if c.tiles >= 2 and (T * b) % B:
            findings.append(Finding("TRANSFER_NOT_BLOCK_ALIGNED", "error",
                                    f"{who}: full tiles move {T * b} bytes, not a whole number of "
                                    f"{B}-byte blocks.", c.first, 0))
        if (c.tail * b) % B:
            findings.append(Finding("TRANSFER_NOT_BLOCK_ALIGNED", "error",
                                    f"{who}: the last tile moves {c.tail * b} bytes, not a whole number of "
                                    f"{B}-byte blocks.", c.first, c.tiles - 1))

    in_range, weights, cores, padding_elems = _coverage(classes, numel, padded, b, findings)

    if not math.isfinite(f["sconf"]):
        findings.append(Finding("SCONF_NONFINITE", "warning",
                                f"sconf is {f['sconf']}: every output is NaN or infinite.", None, None))
    if key != 0:
        findings.append(Finding("TILING_KEY_UNKNOWN", "warning",
                                f"tiling key {key}; SwishGrad's only kernel variant is key 0.", None, None))

    balance = _balance(classes, numel, block_dim, platform, in_range, weights, cores, padding_elems, ub_use, b)
    return f, findings, balance


def _balance(classes, numel, block_dim, platform, in_range, weights, cores, padding_elems, ub_use, b):
    max_el = int(in_range.max()) if in_range.size else 0
    total = 0
    launched_busy = 0
    pos = 0
    for first, k, weight in cores:
        part = in_range[pos:pos + k]
        total += int(part.sum()) * weight
        launched_busy += int(np.count_nonzero(part)) * weight
        pos += k
    mean = total / block_dim if block_dim else 0.0
    tiles = [c.tiles for c in classes if c.ncores]
    per_core = per_tiles = None
    if block_dim <= MAX_EXPLICIT_CORES:
        per_core = np.zeros(block_dim, dtype=np.int64)
        pos = 0
        for first, k, weight in cores:
            if weight == 1:
                per_core[first:first + k] = in_range[pos:pos + k]
            else:
                per_core[first:first + weight] = in_range[pos]
            pos += k
        per_tiles = np.zeros(block_dim, dtype=np.int64)
        for c in classes:
            if c.ncores:
                per_tiles[c.first:c.first + c.ncores] = min(c.tiles, np.iinfo(np.int64).max)
    return TilingBalance(
        numel=numel,
        block_dim=block_dim,
        core_num=platform.core_num,
        big_cores=classes[0].ncores,
        small_cores=classes[1].ncores,
        elements_per_core=per_core,
        tiles_per_core=per_tiles,
        max_elements=max_el,
        mean_elements=mean,
        imbalance=(max_el / mean) if mean else 0.0,
        unused_cores=max(platform.core_num - block_dim, 0),
        idle_launched_cores=block_dim - launched_busy,
        min_tiles=min(tiles) if tiles else 0,
        max_tiles=max(tiles) if tiles else 0,
        padding_overrun_elements=padding_elems,
        padding_overrun_bytes=padding_elems * b,
        ub_bytes_per_tile=ub_use,
        ub_size=platform.ub_size,
    )


def validate_tiling(tiling, numel, dtype, platform: Platform | None = None, block_dim=None, *,
                    checked: bool = False, buffers=None) -> ValidationReport:
    """Say whether a SwishGrad tiling is correct for a tensor and a platform.

    Parameters
    ----------
    tiling : Tiling, TILING_DTYPE record, bytes or Mapping
        A :func:`compute_tiling` result (carries its block dim), a record,
        the 72 struct bytes, or a mapping of field names to numbers.
    numel : int
        Storage element count of the tensor (> 0).
    dtype : dtype-like
        float32, float16 or bfloat16.
    platform : Platform, optional
        The hardware; the SPEC's reference platform by default.
    block_dim : int, optional
        Cores launched; required for a bare record or bytes, overrides the
        one a :class:`Tiling` carries.
    checked : bool
        Also run the instrumented walk (:func:`~swishgrad_numba.checked_kernel.checked_run`)
        and add a ``CHECKED_RUN_DISAGREES`` error if it contradicts the
        analytic coverage. Needs ``numel`` within the checked run's limit.
    buffers : sequence of (int, int), optional
        The kernel's unified-buffer plan: ``(count, bytes_per_element)``
        pairs, each buffer holding ``tileDataNum`` elements and rounded up to
        32 bytes. SwishGrad's (:func:`swishgrad_buffer_plan`) by default;
        give another operator's plan to check its tilings.

    Returns
    -------
    ValidationReport
        ``.ok``, ``.findings`` (each with ``code``, ``severity``, ``core``,
        ``tile``, ``message``) and ``.balance``.
    """
    record, bd, key = as_tiling_record(tiling, block_dim)
    numel = _check_numel(numel)
    dt = canonical_dtype(dtype, argname="dtype")
    platform = _check_platform(platform)
    plan = swishgrad_buffer_plan(dt) if buffers is None else _check_plan(buffers)
    fields, findings, balance = _analyse(record, bd, key, numel, dt, platform, plan)
    if checked:
        from .checked_kernel import checked_run

        run = checked_run(record, numel, dt, platform, bd)
        analytic = {f.code for f in findings} & {"COVERAGE_GAP", "COVERAGE_OVERLAP", "OVERRUN_PADDING",
                                                  "OVERRUN_BEYOND_PADDING"}
        seen = run.coverage_codes()
        if run.truncated:
            # a walk stopped early proves an overlap; what it saw must be a subset
            agree = "COVERAGE_OVERLAP" in analytic and seen <= analytic
        else:
            agree = analytic == seen
        if not agree:
            findings.append(Finding("CHECKED_RUN_DISAGREES", "error",
                                    f"the instrumented run found {sorted(seen)} where the analysis found "
                                    f"{sorted(analytic)}.", None, None))
    return ValidationReport(numel=numel, dtype=dt, platform=platform, block_dim=bd, fields=fields,
                            findings=tuple(findings), balance=balance, buffers=plan)


def tiling_balance(tiling, numel, dtype, platform: Platform | None = None, block_dim=None, *,
                   buffers=None) -> TilingBalance:
    """Load-balance figures of a tiling (see :class:`TilingBalance`).

    Arguments as for :func:`validate_tiling`.
    """
    return validate_tiling(tiling, numel, dtype, platform, block_dim, buffers=buffers).balance


# ----------------------------------------------------------------------------
# vectorised host tiling and checks, for the sweep

def host_tiling_arrays(numel, itemsize, ub_size, core_num, block_size) -> dict:
    """SPEC section 3 over arrays: one host tiling per element.

    All arguments broadcast together (integer arrays; sizes below 2**40).
    Returns a dict of int64 arrays: the eight integer struct fields,
    ``blockDim``, and the bool array ``accepted`` (False where
    :func:`compute_tiling` refuses the platform: a block that holds no whole
    number of elements, or a unified buffer too small for one block per
    tile buffer; the other fields are meaningless there).
    """
    n, b, ub, cores, B = np.broadcast_arrays(*(np.asarray(a, dtype=np.int64) for a in
                                               (numel, itemsize, ub_size, core_num, block_size)))
    units = np.where(b == 4, 7, 12)
    tile_blocks = (ub // B) // units
    accepted = (B % b == 0) & (tile_blocks > 0)
    tile_blocks = np.where(accepted, tile_blocks, 1)
    tile = tile_blocks * B // b
    blocks = -(-n * b // B)
    C = np.where(tile >= n, 1, np.minimum(cores, blocks))
    every = blocks // C
    tail_blocks = blocks % C
    out = {"accepted": accepted, "blockDim": C, "tileDataNum": tile, "tailBlockNum": tail_blocks}
    for prefix, e in (("Small", every), ("Big", every + 1)):
        data = e * B // b
        whole = e // tile_blocks
        tail = data - tile * whole
        out[prefix[0].lower() + prefix[1:] + "CoreDataNum"] = data
        out["final" + prefix + "TileNum"] = whole + (e % tile_blocks != 0)
        out[prefix[0].lower() + prefix[1:] + "TailDataNum"] = np.where(tail == 0, tile, tail)
    return out


def _plan_bytes_array(T: np.ndarray, b: np.ndarray, buffers) -> np.ndarray:
    """:func:`buffer_plan_bytes` over arrays (``T < 2**40``); SwishGrad's plan
    for each row's itemsize when ``buffers`` is None."""
    def padded_bytes(nbytes):
        return -(-T * nbytes // UB_ALIGN) * UB_ALIGN

    if buffers is None:
        f32 = sum(count * padded_bytes(nbytes) for count, nbytes in _SWISHGRAD_PLAN_F32)
        f16 = sum(count * padded_bytes(nbytes) for count, nbytes in _SWISHGRAD_PLAN_16)
        return np.where(b == 4, f32, f16)
    plan = _check_plan(buffers)
    if sum(count * nbytes for count, nbytes in plan) >= 1 << 20:
        raise ValueError("buffers must take fewer than 2**20 bytes per element for the vectorised check")
    return sum(count * padded_bytes(nbytes) for count, nbytes in plan)


def vectorized_verdict(fields: dict, block_dim, numel, itemsize, ub_size, core_num, block_size, buffers=None):
    """The checks of :func:`validate_tiling`, over arrays of tilings.

    Exact for fields, block dims and sizes below 2**40 (int64 arithmetic;
    products that could overflow are compared by division or saturated).
    ``buffers`` is one unified-buffer plan for every row; by default
    SwishGrad's for each row's itemsize.
    Relies on the abutting of a core's tiles: when every launched class is
    consistent (``(tiles-1)*tileDataNum + tail == coreDataNum``, or idle
    with both 0), cores of a class abut, so the launch covers exactly
    ``[0, end)`` with ``end = nBig*bigCoreDataNum + nSmall*smallCoreDataNum``.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``error`` (bool: :func:`validate_tiling` would report an error) and
        ``padding`` (bool: an overrun into the padding, a warning).
    """
    g = {k: np.asarray(fields[k], dtype=np.int64) for k in TILING_FIELDS[:-1]}
    bd, n, b, ub, cores, B = (np.asarray(a, dtype=np.int64) for a in
                              (block_dim, numel, itemsize, ub_size, core_num, block_size))
    for name, arr in list(g.items()) + [("block_dim", bd), ("numel", n)]:
        if arr.size and (arr.min() < 0 or arr.max() >= 1 << 40):
            raise ValueError(f"{name} must be in [0, 2**40) for the vectorised check")
    T = g["tileDataNum"]
    ok = (bd >= 1) & (bd <= cores) & (_plan_bytes_array(T, b, buffers) <= ub)
    n_big = np.minimum(g["tailBlockNum"], bd)
    n_small = bd - n_big
    for count, tiles, tail, ncores in (
        (g["bigCoreDataNum"], g["finalBigTileNum"], g["bigTailDataNum"], n_big),
        (g["smallCoreDataNum"], g["finalSmallTileNum"], g["smallTailDataNum"], n_small),
    ):
        idle = (tiles == 0) & (count == 0)
        # (tiles - 1) * T is only formed where it is at most count (no overflow)
        fits = (T == 0) | (tiles - 1 <= count // np.maximum(T, 1))
        full = np.where(fits, np.maximum(tiles - 1, 0), 0) * T
        busy = ((tiles >= 1) & (tail >= 1) & (tail <= T) & fits & (full + tail == count)
                & ((tail * b) % B == 0) & ((tiles < 2) | ((T * b) % B == 0)))
        ok &= (ncores == 0) | idle | busy
    # ncores * coreDataNum saturated at 2**60 (past any padded size)
    limit = 1 << 60
    end = sum(np.where(count > limit // np.maximum(k, 1), limit, k * np.minimum(count, limit))
              for count, k in ((g["bigCoreDataNum"], n_big), (g["smallCoreDataNum"], n_small)))
    padded = (-(-n * b // B) * B) // b
    ok &= (end >= n) & (end <= padded)
    return ~ok, ok & (end > n)


# ----------------------------------------------------------------------------
# the sweep

#: Unified-buffer sizes of the default sweep (bytes): real parts, odd sizes
#: and tiny buffers that allow one block per tile buffer or none.
SWEEP_UB_SIZES = (196608, 262144, 131072, 65536, 100000, 8192, 1000, 448, 384, 224, 200)
SWEEP_CORE_NUMS = (1, 2, 3, 7, 8, 20, 24, 30, 32, 40, 48, 64)
SWEEP_BLOCK_SIZES = (32, 64, 16, 8, 4, 2, 1, 48, 512)


def sweep_grid(sizes_per_case: int = 300, ub_sizes=SWEEP_UB_SIZES, core_nums=SWEEP_CORE_NUMS,
               block_sizes=SWEEP_BLOCK_SIZES, max_numel: int = 1 << 36, seed: int = 0) -> dict:
    """The (numel, dtype, platform) grid of the sweep, as flat int64 arrays.

    For every platform (product of the three tuples) and dtype the sizes
    are: 1..64, the values around multiples of one tile, one block, one
    tile per core, and core-count multiples of blocks, and seeded
    log-uniform sizes up to ``max_numel``; about ``sizes_per_case`` each.

    Returns
    -------
    dict
        ``numel``, ``itemsize``, ``ub_size``, ``core_num``, ``block_size``
        arrays of one length, and ``dtype_name`` (array of names).
    """
    if not 1 <= max_numel < 1 << 40:
        raise ValueError(f"max_numel must be in [1, 2**40), got {max_numel}")
    rng = np.random.default_rng(seed)
    cols = {k: [] for k in ("numel", "itemsize", "ub_size", "core_num", "block_size", "dtype_index")}
    names = list(SUPPORTED_DTYPES)
    k = np.arange(1, 9)
    for ub in ub_sizes:
        for B in block_sizes:
            for cores in core_nums:
                for di, name in enumerate(names):
                    b = SUPPORTED_DTYPES[name].itemsize
                    units = 7 if b == 4 else 12
                    tile = max((ub // B) // units, 1) * B // b if B >= b else 1
                    per_block = max(B // b, 1)
                    anchors = np.concatenate([
                        tile * k, per_block * k, tile * cores * k, per_block * cores * k,
                        per_block * cores * (tile // per_block + 1) * k,
                    ])
                    near = (anchors[:, None] + np.arange(-2, 3)[None, :]).ravel()
                    extra = max(sizes_per_case - 64 - near.size, 16)
                    rand = np.exp(rng.uniform(0, np.log(max_numel), extra)).astype(np.int64)
                    sizes = np.unique(np.concatenate([np.arange(1, 65), near, rand, [max_numel]]))
                    sizes = sizes[(sizes >= 1) & (sizes <= max_numel)]
                    m = sizes.size
                    cols["numel"].append(sizes)
                    cols["itemsize"].append(np.full(m, b))
                    cols["ub_size"].append(np.full(m, ub))
                    cols["core_num"].append(np.full(m, cores))
                    cols["block_size"].append(np.full(m, B))
                    cols["dtype_index"].append(np.full(m, di))
    out = {key: np.concatenate(v).astype(np.int64) for key, v in cols.items()}
    out["dtype_name"] = np.array(names)[out.pop("dtype_index")]
    return out


@dataclass
class SweepResult:
    """Summary of :func:`run_sweep`."""

    combinations: int = 0
    accepted: int = 0
    rejected: int = 0
    error_combinations: int = 0
    padding_combinations: int = 0
    rejected_reasons: Counter = field(default_factory=Counter)
    error_codes: Counter = field(default_factory=Counter)
    error_block_sizes: Counter = field(default_factory=Counter)
    examples: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error_combinations == 0

    def format(self) -> str:
        lines = [
            f"combinations (size, dtype, platform): {self.combinations}",
            f"  tiled by the host                 : {self.accepted}",
            f"  refused by the host tiling        : {self.rejected}",
            f"  with an error finding             : {self.error_combinations}",
            f"  with an overrun into the padding  : {self.padding_combinations} (warning, expected "
            "when numel*itemsize is not a multiple of the block size)",
        ]
        for reason, count in self.rejected_reasons.most_common():
            lines.append(f"  refused: {reason}: {count}")
        for block, count in sorted(self.error_block_sizes.items()):
            lines.append(f"  with an error, block size {block} bytes: {count}")
        for code, count in self.error_codes.most_common():
            lines.append(f"  error code {code}: {count} of the re-validated examples")
        for ex in self.examples:
            lines.append("  example: " + ex)
        lines.append("RESULT: " + ("no error in the host tiling" if self.ok else "ERRORS FOUND"))
        return "\n".join(lines)


def run_sweep(grid: dict | None = None, chunk: int = 1 << 18, progress=None, max_examples: int = 10) -> SweepResult:
    """Run the host tiling over a grid and check every tiling, vectorised.

    Parameters
    ----------
    grid : dict, optional
        As :func:`sweep_grid` returns (its default when None).
    chunk : int
        Combinations per vectorised step.
    progress : callable, optional
        Called as ``progress(done, total)`` after each step.
    max_examples : int
        Failing combinations re-validated with :func:`validate_tiling`
        (through :func:`compute_tiling`) for their findings.

    Returns
    -------
    SweepResult
    """
    grid = sweep_grid() if grid is None else grid
    total = int(grid["numel"].size)
    result = SweepResult(combinations=total)
    seen = set()
    dtype_codes = {name: code for code, name in enumerate(SUPPORTED_DTYPES)}
    for lo in range(0, total, chunk):
        sl = slice(lo, min(lo + chunk, total))
        n, b, ub, cores, B = (grid[k][sl] for k in ("numel", "itemsize", "ub_size", "core_num", "block_size"))
        host = host_tiling_arrays(n, b, ub, cores, B)
        acc = host["accepted"]
        result.accepted += int(acc.sum())
        result.rejected += int((~acc).sum())
        if (~acc).any():
            bad_block = ~acc & (B % b != 0)
            result.rejected_reasons["block size not a multiple of the dtype size"] += int(bad_block.sum())
            result.rejected_reasons["unified buffer below one block per tile buffer"] += int((~acc & ~bad_block).sum())
        sel = np.flatnonzero(acc)
        fields = {k: host[k][sel] for k in TILING_FIELDS[:-1]}
        err, pad = vectorized_verdict(fields, host["blockDim"][sel], n[sel], b[sel], ub[sel], cores[sel], B[sel])
        result.error_combinations += int(err.sum())
        blocks, counts = np.unique(B[sel][err], return_counts=True)
        result.error_block_sizes.update(dict(zip(blocks.tolist(), counts.tolist())))
        result.padding_combinations += int(pad.sum())
        # examples: the first failure of each (UB size, block size, dtype) not shown yet
        bad = sel[np.flatnonzero(err)]
        firsts, keys = [], None
        if bad.size and len(result.examples) < max_examples:
            names, inverse = np.unique(grid["dtype_name"][sl][bad], return_inverse=True)
            dt_code = np.array([dtype_codes[str(name)] for name in names])[inverse]
            keys = np.stack([ub[bad], B[bad], dt_code], axis=1)
            firsts = np.sort(np.unique(keys, axis=0, return_index=True)[1]).tolist()
        for k in firsts:
            key = tuple(keys[k].tolist())
            if len(result.examples) >= max_examples or key in seen:
                continue
            seen.add(key)
            i = lo + int(bad[k])
            platform = Platform(ub_size=int(grid["ub_size"][i]), core_num=int(grid["core_num"][i]),
                                block_size=int(grid["block_size"][i]))
            dtype = str(grid["dtype_name"][i])
            numel = int(grid["numel"][i])
            rep = validate_tiling(compute_tiling(numel, dtype, platform=platform), numel, dtype, platform)
            result.error_codes.update(rep.codes("error"))
            result.examples.append(f"numel={numel} {dtype} {platform}: " + "; ".join(str(f) for f in rep.errors[:3]))
        if progress is not None:
            progress(sl.stop, total)
    return result
