"""The Atlas A2 host tiling of RmsNorm (ops-nn ``norm/rms_norm/op_host/rms_norm_tiling.cpp``, ``Tiling4RmsNorm``
and ``CalMixDtypeTiling``), as far as it decides the arithmetic: the mode and the column chunk, and the rows
each core runs.

- x and gamma of one dtype: ``ubFactor`` 10240 (float32) or 12288 (16-bit); a row padded to 32 bytes longer
  than it is **split_d**, else **normal**; padded to at most 2000 elements on ASCEND910B **merge_n** (so not
  on ascend910_93). split_d's chunk: ``ceil(n / (tiles * 16)) * 16`` with ``tiles = ceil(n / ubFactor)``,
  less 16 while the last chunk would be shorter than 16 (and not 0).
- 16-bit x with float32 gamma (CalMixDtypeTiling, the row padded to 16): merge_n under the same rule, else
  normal, single_row or split_d by what fits in UB less 1 KiB.
- Rows per core: ``blockFactor = ceil(rows / cores)``; ``ceil(rows / blockFactor)`` cores.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["A2Tiling", "a2_tiling", "MODES"]

MODES = ("normal", "split_d", "merge_n", "single_row")   # tiling key order (rms_norm.cpp)
_SMALL_REDUCE = 2000


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class A2Tiling:
    mode: str
    num_row: int
    num_col: int
    ub_factor: int          # split_d: columns per chunk; else the padded row
    block_factor: int       # rows per core
    block_dim: int
    avg_factor: np.float32
    epsilon: np.float32

    @property
    def tiling_key(self) -> int:
        return MODES.index(self.mode)


def mixed_split(num_col: int, ub: int, soc_910b: bool):
    align = _ceil(num_col, 16) * 16
    xyg, tmp, rstd, red = 2 * 2 * align + 4 * align, 4 * 2 * align, 4 * 64, 4 * 64
    if align <= _SMALL_REDUCE and soc_910b:
        return "merge_n", align
    if xyg + tmp + rstd + red < ub:
        return "normal", align
    if 2 * align + 4 * align + tmp + rstd + red < ub:
        return "single_row", align
    free = ub - (rstd + red + 4 * 8 * 64)
    if free <= 0:
        raise ValueError("rms_norm: the A2 tiling finds no room in UB for a split_d chunk")
    return "split_d", free // 16 // 16 * 16


def a2_tiling(num_row: int, num_col: int, x_dtype, gamma_dtype, epsilon, platform) -> A2Tiling:
    """The A2 tiling for ``num_row`` rows of ``num_col`` (gamma's size) elements."""
    x_dtype, gamma_dtype = np.dtype(x_dtype), np.dtype(gamma_dtype)
    soc_910b = platform.soc_family == "ascend910b"
    ub = platform.ub_size - 1024
    if x_dtype != gamma_dtype and gamma_dtype == np.float32:
        mode, ub_factor = mixed_split(num_col, ub, soc_910b)
    else:
        per_block = 8 if x_dtype == np.float32 else 16
        align = _ceil(num_col, per_block) * per_block
        ub_factor = 10240 if x_dtype == np.float32 else 12288
        mode = "split_d" if align > ub_factor else "normal"
        if align <= _SMALL_REDUCE and soc_910b:
            mode = "merge_n"
        if mode == "split_d":
            ub_factor = _ceil(num_col, _ceil(num_col, ub_factor) * 16) * 16
            while num_col % ub_factor != 0 and num_col % ub_factor < 16:
                ub_factor -= 16
        else:
            ub_factor = align
    block_factor = _ceil(num_row, platform.core_num)
    avg = np.float32(np.float32(1.0) / np.float32(num_col))
    return A2Tiling(mode, num_row, num_col, ub_factor, block_factor, _ceil(num_row, block_factor), avg,
                    np.float32(epsilon))
