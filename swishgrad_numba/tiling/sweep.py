"""The host tiling of both kernels, checked over millions of sizes, dtypes and platforms.

:func:`run_sweep` evaluates the host tilings themselves, the spec/ package's
:func:`spec.a2.host_tiling` and :func:`spec.arch35.host_tiling`, on int64
arrays (one evaluation per combination of the grid), and checks every
tiling with :mod:`.verdict`; failing combinations are re-validated one by
one with :func:`~swishgrad_numba.tiling.validate_tiling` for their
findings.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ..dtypes import DTYPES
from ..platform import ARCH_950, ARCH_A2, ASCEND950_PLATFORM, REFERENCE_PLATFORM, Platform
from ..spec import a2 as spec_a2
from ..spec import arch35 as spec_arch35
from .host import compute_tiling
from .launch import KERNEL_NAMES
from .validate import validate_tiling
from .verdict import vectorized_verdict, vectorized_verdict_arch35

__all__ = ["SWEEP_UB_SIZES", "SWEEP_CORE_NUMS", "SWEEP_BLOCK_SIZES", "SWEEP_KERNELS", "SWEEP_PLATFORMS",
           "SweepResult", "sweep_grid", "platform_sweep_grid", "run_sweep"]

#: Unified-buffer sizes of the hypothetical grid (:func:`sweep_grid`; bytes):
#: real parts, odd sizes and tiny buffers that allow one block per tile
#: buffer or none.
SWEEP_UB_SIZES = (196608, 253952, 262144, 131072, 65536, 100000, 8192, 1000, 448, 384, 224, 200)
SWEEP_CORE_NUMS = (1, 2, 3, 7, 8, 20, 24, 30, 32, 40, 48, 64)
#: A2 block sizes (the 950's DMA is exact: its rows have no block size to vary).
SWEEP_BLOCK_SIZES = (32, 64, 16, 8, 4, 2, 1, 48, 512)
#: The kernels swept, by architecture; the grid's ``kernel`` column indexes this.
SWEEP_KERNELS = (ARCH_A2, ARCH_950)

#: The real platforms (:func:`platform_sweep_grid`): each kernel's reference
#: platform, whose sizes the real parts have (A2 and 950 UB, 32-byte blocks).
SWEEP_PLATFORMS = (REFERENCE_PLATFORM, ASCEND950_PLATFORM)

_A2, _950 = SWEEP_KERNELS.index(ARCH_A2), SWEEP_KERNELS.index(ARCH_950)
_COLUMNS = ("numel", "itemsize", "ub_size", "core_num", "block_size", "kernel", "dtype_index")


def _sizes(rng, anchors, sizes_per_case: int, max_numel: int) -> np.ndarray:
    """1..64, the values around ``anchors``, and seeded log-uniform sizes up to ``max_numel``."""
    near = (anchors[:, None] + np.arange(-2, 3)[None, :]).ravel()
    extra = max(sizes_per_case - 64 - near.size, 16)
    rand = np.exp(rng.uniform(0, np.log(max_numel), extra)).astype(np.int64)
    sizes = np.unique(np.concatenate([np.arange(1, 65), near, rand, [max_numel]]))
    return sizes[(sizes >= 1) & (sizes <= max_numel)]


def _a2_anchors(itemsize: int, ub: int, block: int, cores: int) -> np.ndarray:
    """Multiples of one tile, one block, a tile per core and a block per core."""
    k = np.arange(1, 9)
    tile = max((ub // block) // spec_a2.tile_units(itemsize), 1) * block // itemsize if block >= itemsize else 1
    per_block = max(block // itemsize, 1)
    return np.concatenate([tile * k, per_block * k, tile * cores * k, per_block * cores * k,
                           per_block * cores * (tile // per_block + 1) * k])


def _arch35_anchors(itemsize: int, ub: int, cores: int) -> np.ndarray:
    """Multiples of one UB loop, of a block's 512-element alignment, of the 4 KiB per core, per core."""
    k = np.arange(1, 9)
    align = spec_arch35.UB_ALIGN_BYTES // itemsize
    ub_former = max(ub // (spec_arch35.BUFFER_NUM * itemsize) // align * align, 1)
    per_core = spec_arch35.BYTES_PER_CORE // itemsize
    return np.concatenate([ub_former * k, spec_arch35.BLOCK_ALIGN * k, per_core * k, per_core * cores * k,
                           spec_arch35.BLOCK_ALIGN * cores * k, ub_former * cores * k])


def sweep_grid(sizes_per_case: int = 300, ub_sizes=SWEEP_UB_SIZES, core_nums=SWEEP_CORE_NUMS,
               block_sizes=SWEEP_BLOCK_SIZES, max_numel: int = 1 << 36, seed: int = 0,
               kernels=SWEEP_KERNELS) -> dict:
    """The (numel, dtype, platform) grid of the sweep, as flat int64 arrays, for both kernels.

    A2 cases: every (UB size, block size, core count, dtype); 950 cases:
    every (UB size, core count, dtype). For each, about ``sizes_per_case``
    sizes: 1..64, the values around the multiples of the kernel's units
    (A2: a tile, a block, a tile per core, a block per core; 950: a UB loop,
    512 elements, 4 KiB, and those per core), and seeded log-uniform sizes
    up to ``max_numel``.

    Returns
    -------
    dict
        ``numel``, ``itemsize``, ``ub_size``, ``core_num``, ``block_size``
        (32 on the 950 rows, unused there) and ``kernel`` (an index of
        :data:`SWEEP_KERNELS`) arrays of one length, and ``dtype_name``.
    """
    if not 1 <= max_numel < 1 << 40:
        raise ValueError(f"max_numel must be in [1, 2**40), got {max_numel}")
    unknown = set(kernels) - set(SWEEP_KERNELS)
    if unknown:
        raise ValueError(f"kernels must be among {SWEEP_KERNELS}, got {sorted(unknown)}")
    rng = np.random.default_rng(seed)
    names = list(DTYPES)
    cases, sizes = [], []
    for ub in ub_sizes:
        for cores in core_nums:
            for di, name in enumerate(names):
                b = DTYPES[name].itemsize
                if ARCH_A2 in kernels:
                    for block in block_sizes:
                        cases.append((b, ub, cores, block, _A2, di))
                        sizes.append(_sizes(rng, _a2_anchors(b, ub, block, cores), sizes_per_case, max_numel))
                if ARCH_950 in kernels:
                    cases.append((b, ub, cores, 32, _950, di))
                    sizes.append(_sizes(rng, _arch35_anchors(b, ub, cores), sizes_per_case, max_numel))
    lengths = [s.size for s in sizes]
    per_case = np.array(cases, dtype=np.int64).reshape(-1, len(_COLUMNS) - 1)
    out = {"numel": np.concatenate(sizes).astype(np.int64) if sizes else np.zeros(0, dtype=np.int64)}
    for j, key in enumerate(_COLUMNS[1:]):
        out[key] = np.repeat(per_case[:, j], lengths)
    out["dtype_name"] = np.array(names)[out.pop("dtype_index")]
    return out


def platform_sweep_grid(sizes_per_case: int = 300, max_numel: int = 1 << 36, seed: int = 0,
                        platforms=SWEEP_PLATFORMS) -> dict:
    """:func:`sweep_grid` over real platforms only: for each platform, its
    kernel, UB size and block size, with every core count of
    :data:`SWEEP_CORE_NUMS` up to its own (a launch may get fewer cores)."""
    parts = []
    for i, p in enumerate(platforms):
        cores = tuple(c for c in SWEEP_CORE_NUMS if c < p.core_num) + (p.core_num,)
        parts.append(sweep_grid(sizes_per_case, ub_sizes=(p.ub_size,), core_nums=cores, block_sizes=(p.block_size,),
                                max_numel=max_numel, seed=seed + i, kernels=(p.architecture,)))
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}


@dataclass
class SweepResult:
    """Summary of :func:`run_sweep`; ``by_kernel`` holds the counts of each kernel."""

    combinations: int = 0
    accepted: int = 0
    rejected: int = 0
    error_combinations: int = 0
    padding_combinations: int = 0
    warning_combinations: int = 0
    rejected_reasons: Counter = field(default_factory=Counter)
    error_codes: Counter = field(default_factory=Counter)
    error_block_sizes: Counter = field(default_factory=Counter)
    by_kernel: dict = field(default_factory=lambda: {arch: Counter() for arch in SWEEP_KERNELS})
    examples: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error_combinations == 0

    def _add(self, arch: str, **counts) -> None:
        self.by_kernel[arch].update(counts)
        for name, value in counts.items():
            setattr(self, name, getattr(self, name) + value)

    def format(self) -> str:
        lines = [f"combinations (size, dtype, platform), both kernels: {self.combinations}"]
        for arch, c in self.by_kernel.items():
            extra = (f", {c['padding_combinations']} with an overrun into the padding (warning, expected when "
                     "numel*itemsize is not a multiple of the block size)" if arch == ARCH_A2 else
                     f", {c['warning_combinations']} with a warning finding")
            lines.append(f"  {KERNEL_NAMES[arch]:<17}: {c['combinations']} combinations, {c['accepted']} tiled by "
                         f"the host, {c['rejected']} refused, {c['error_combinations']} with an error finding"
                         + extra)
        lines += [
            f"  tiled by the host                 : {self.accepted}",
            f"  refused by the host tiling        : {self.rejected}",
            f"  with an error finding             : {self.error_combinations}",
        ]
        for reason, count in self.rejected_reasons.most_common():
            lines.append(f"  refused: {reason}: {count}")
        for block, count in sorted(self.error_block_sizes.items()):
            lines.append(f"  with an error, block size {block} bytes: {count}")
        for code, count in self.error_codes.most_common():
            lines.append(f"  error code {code}: {count} of the re-validated examples")
        if "UB_OVERFLOW" in self.error_codes and any(b % spec_a2.INIT_BUFFER_ALIGN for b in self.error_block_sizes):
            lines.append(f"  note: UB_OVERFLOW on block sizes that are not a multiple of {spec_a2.INIT_BUFFER_ALIGN} "
                         f"bytes, which no Ascend part has (real ones use 32): the A2 host sizes its tile in whole "
                         f"blocks, but InitBuffer rounds each buffer up to {spec_a2.INIT_BUFFER_ALIGN} bytes, so the "
                         f"padded buffers can pass the UB (docs/validation.md)")
        for ex in self.examples:
            lines.append("  example: " + ex)
        lines.append("RESULT: " + ("no error in the host tilings" if self.ok else "ERRORS FOUND"))
        return "\n".join(lines)


def _rows(fields, sel):
    """The fields (a TilingFields of arrays) at rows ``sel``."""
    return type(fields)(**{name: values[sel] for name, values in fields._asdict().items()})


def _sweep_a2(result: SweepResult, n, b, ub, cores, block) -> np.ndarray:
    """Host tilings and verdicts of A2 rows; returns the rows (of these) with an error."""
    accepted, block_dim, fields = spec_a2.host_tiling(n, b, ub, cores, block)
    bad_block = ~accepted & (block % b != 0)
    result.rejected_reasons["block size not a multiple of the dtype size"] += int(bad_block.sum())
    result.rejected_reasons["unified buffer below one block per tile buffer"] += int((~accepted & ~bad_block).sum())
    sel = np.flatnonzero(accepted)
    err, pad = vectorized_verdict(_rows(fields, sel), block_dim[sel], n[sel], b[sel],
                                  ub[sel], cores[sel], block[sel])
    blocks, counts = np.unique(block[sel][err], return_counts=True)
    result.error_block_sizes.update(dict(zip(blocks.tolist(), counts.tolist())))
    result._add(ARCH_A2, combinations=n.size, accepted=sel.size, rejected=n.size - sel.size,
                error_combinations=int(err.sum()), padding_combinations=int(pad.sum()))
    return sel[err]


def _sweep_arch35(result: SweepResult, n, b, ub, cores) -> np.ndarray:
    """Host tilings and verdicts of 950 rows; returns the rows (of these) with an error."""
    accepted, block_dim, fields = spec_arch35.host_tiling(n, b, ub, cores)
    result.rejected_reasons["950: unified buffer below six slots of 256 bytes"] += int((~accepted).sum())
    sel = np.flatnonzero(accepted)
    err, warn = vectorized_verdict_arch35(_rows(fields, sel), block_dim[sel],
                                          n[sel], b[sel], ub[sel], cores[sel])
    result._add(ARCH_950, combinations=n.size, accepted=sel.size, rejected=n.size - sel.size,
                error_combinations=int(err.sum()), warning_combinations=int(warn.sum()))
    return sel[err]


def _example(grid: dict, i: int) -> tuple:
    """(key, text, report) of combination ``i`` re-validated through compute_tiling."""
    arch = SWEEP_KERNELS[int(grid["kernel"][i])]
    soc = "ascend950" if arch == ARCH_950 else "ascend910b"
    platform = Platform(ub_size=int(grid["ub_size"][i]), core_num=int(grid["core_num"][i]),
                        block_size=int(grid["block_size"][i]), soc_version=soc)
    dtype, numel = str(grid["dtype_name"][i]), int(grid["numel"][i])
    report = validate_tiling(compute_tiling(numel, dtype, platform=platform), numel, dtype, platform)
    key = (arch, platform.ub_size, platform.block_size, dtype)
    return key, f"numel={numel} {dtype} {platform}: " + "; ".join(str(f) for f in report.errors[:3]), report


def run_sweep(grid: dict | None = None, chunk: int = 1 << 18, progress=None, max_examples: int = 10) -> SweepResult:
    """Run both kernels' host tilings over a grid and check every tiling, vectorised.

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
        (through :func:`compute_tiling`) for their findings: the first of
        each (kernel, UB size, block size, dtype).

    Returns
    -------
    SweepResult
    """
    grid = sweep_grid() if grid is None else grid
    total = int(grid["numel"].size)
    result = SweepResult()
    seen = set()
    for lo in range(0, total, chunk):
        sl = slice(lo, min(lo + chunk, total))
        n, b, ub, cores, block, kernel = (grid[k][sl] for k in ("numel", "itemsize", "ub_size", "core_num",
                                                                  "block_size", "kernel"))
        bad = []
        for code, sweep in ((_A2, _sweep_a2), (_950, _sweep_arch35)):
            rows = np.flatnonzero(kernel == code)
            if rows.size:
                args = (n[rows], b[rows], ub[rows], cores[rows]) + ((block[rows],) if code == _A2 else ())
                bad.append(rows[sweep(result, *args)])
        bad = np.sort(np.concatenate(bad)) if bad else np.zeros(0, dtype=np.int64)
        if bad.size and len(result.examples) < max_examples:
            # the first failure of each (kernel, UB size, block size, dtype) not shown yet
            dt_code = np.unique(grid["dtype_name"][sl][bad], return_inverse=True)[1].ravel()
            keys = np.stack([kernel[bad], ub[bad], block[bad], dt_code], axis=1)
            for k in np.sort(np.unique(keys, axis=0, return_index=True)[1]).tolist():
                if len(result.examples) >= max_examples:
                    break
                key, text, report = _example(grid, lo + int(bad[k]))
                if key not in seen:
                    seen.add(key)
                    result.error_codes.update(report.codes("error"))
                    result.examples.append(text)
        if progress is not None:
            progress(sl.stop, total)
    return result
