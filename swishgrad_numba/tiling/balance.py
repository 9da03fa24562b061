"""Load-balance figures of a tiling, from the coverage analysis."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..platform import ARCH_950
from .coverage import MAX_EXPLICIT_CORES, Coverage

__all__ = ["TilingBalance", "balance_of"]


@dataclass(frozen=True)
class TilingBalance:
    """Load-balance figures of a tiling.

    ``elements`` are elements of ``[0, numel)`` a core computes (padding
    excluded); ``mean_elements`` is over the launched cores;
    ``core_classes`` are ``(name, cores)`` pairs (A2: big, small; 950:
    former, tail, and extra blocks launched past ``blockNum``); "tiles" are
    the passes of a core (950: UB loops); ``ub_bytes_per_tile`` is what the
    kernel's buffers take in the unified buffer, each rounded up to 32
    bytes. The per-core arrays are None past 2**20 launched cores.
    """

    architecture: str
    numel: int
    block_dim: int
    core_num: int
    core_classes: tuple
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

    def _class_cores(self, name: str) -> int:
        return dict(self.core_classes).get(name, 0)

    @property
    def big_cores(self) -> int:
        """A2: cores of the big class (0 for a 950 tiling)."""
        return self._class_cores("big")

    @property
    def small_cores(self) -> int:
        """A2: cores of the small class (0 for a 950 tiling)."""
        return self._class_cores("small")

    @property
    def idle_cores(self) -> int:
        """Platform cores that compute nothing: not launched, or launched idle."""
        return self.unused_cores + self.idle_launched_cores

    @property
    def ub_fraction(self) -> float:
        """Share of the unified buffer the kernel's buffers take."""
        return self.ub_bytes_per_tile / self.ub_size

    def as_dict(self) -> dict:
        """The scalar figures as plain Python numbers."""
        out = {"architecture": self.architecture, "block_dim": self.block_dim, "core_num": self.core_num}
        out.update({f"{name}_cores": cores for name, cores in self.core_classes})
        out.update({
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
        })
        return out

    def format(self) -> str:
        """Human-readable lines."""
        arch35 = self.architecture == ARCH_950
        classes = ", ".join(f"{cores} {name}" for name, cores in self.core_classes)
        lines = [
            f"cores launched      : {self.block_dim} of {self.core_num} ({classes})",
            f"elements per core   : max {self.max_elements}, mean {self.mean_elements:.1f}, "
            f"max/mean {self.imbalance:.4f}",
            f"idle cores          : {self.idle_cores} ({self.unused_cores} not launched, "
            f"{self.idle_launched_cores} launched with nothing to do)",
            (f"UB loops per core   : {self.min_tiles}..{self.max_tiles}" if arch35 else
             f"tiles per core      : {self.min_tiles}..{self.max_tiles}"),
        ]
        if not arch35:  # the 950's DMA is exact: there is no padding to overrun into
            lines.append(f"padding overrun     : {self.padding_overrun_elements} elements "
                         f"({self.padding_overrun_bytes} bytes)")
        lines.append(f"{'UB use' if arch35 else 'UB use per tile':<20}: {self.ub_bytes_per_tile} of {self.ub_size} "
                     f"bytes ({100 * self.ub_fraction:.1f}%)")
        return "\n".join(lines)


def balance_of(launch, classes, numel: int, cov: Coverage, ub_use: int) -> TilingBalance:
    """The figures of a launch (a :class:`~swishgrad_numba.tiling.launch.Launch`) from its coverage."""
    block_dim, platform = launch.block_dim, launch.platform
    max_el = int(cov.in_range.max()) if cov.in_range.size else 0
    total = launched_busy = pos = 0
    for _first, k, weight in cov.entries:
        part = cov.in_range[pos:pos + k]
        total += int(part.sum()) * weight
        launched_busy += int(np.count_nonzero(part)) * weight
        pos += k
    mean = total / block_dim if block_dim else 0.0
    tiles = [c.passes for c in classes if c.cores]
    per_core = per_tiles = None
    if block_dim <= MAX_EXPLICIT_CORES:
        per_core = np.zeros(block_dim, dtype=np.int64)
        pos = 0
        for first, k, weight in cov.entries:
            if weight == 1:
                per_core[first:first + k] = cov.in_range[pos:pos + k]
            else:
                per_core[first:first + weight] = cov.in_range[pos]
            pos += k
        per_tiles = np.zeros(block_dim, dtype=np.int64)
        for c in classes:
            if c.cores:
                per_tiles[c.first:c.first + c.cores] = min(c.passes, np.iinfo(np.int64).max)
    return TilingBalance(
        architecture=launch.architecture,
        numel=numel,
        block_dim=block_dim,
        core_num=platform.core_num,
        core_classes=tuple((c.name, c.cores) for c in classes),
        elements_per_core=per_core,
        tiles_per_core=per_tiles,
        max_elements=max_el,
        mean_elements=mean,
        imbalance=(max_el / mean) if mean else 0.0,
        unused_cores=max(platform.core_num - block_dim, 0),
        idle_launched_cores=block_dim - launched_busy,
        min_tiles=min(tiles) if tiles else 0,
        max_tiles=max(tiles) if tiles else 0,
        padding_overrun_elements=cov.padding_elements,
        padding_overrun_bytes=cov.padding_elements * launch.info.itemsize,
        ub_bytes_per_tile=ub_use,
        ub_size=platform.ub_size,
    )
