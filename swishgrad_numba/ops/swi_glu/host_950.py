"""The Ascend 950's SwiGluGrad host tiling and its two kernels' walks (issue 41), from ops-nn
``activation/swi_glu_grad``: ``op_host/swi_glu_grad_tiling_regbase.cpp`` (``GluBaseTiling4RegBase``),
``op_kernel/swi_glu_grad_apt.cpp`` (the keys) and ``op_kernel/arch35/`` (``swi_glu_grad_base.h`` ``InitBase``,
``swi_glu_grad_move_align.h``, ``swi_glu_grad_ub_rearrange.h``).

- **The view** (``CalcShapeTo2D``): x as ``(rowTotal, 2 * colTotal)``, the A2's split.
- **The grid** (``AutoTiling``, :216-288): ``base`` = 512 bytes of elements, ``colNumAlign`` = colTotal in
  512-byte blocks (rounded up); ``usedCoreNum`` = min(cores, rowTotal * colNumAlign * base / 8192), at least 1.
  The candidate row cuts m are ``FindUniqueCut``'s (m and usedCoreNum / m for m below sqrt(usedCoreNum) + 1);
  n = usedCoreNum / m (at least 1); skipped where m > rowTotal, n > colNumAlign, or n > 1 on rows of fewer than
  ``MOVE_ALIGN_LIMIT_BYTE`` (1024) bytes. The first m (ascending) with m * n = usedCoreNum dividing both
  rowTotal and colNumAlign wins at once; otherwise the least (delta, n), delta the normal block's size in
  (rows x 512-byte blocks) less, where m * n = usedCoreNum, the tail's shortfall. ``std::sort`` is not stable,
  but for at most 16 candidates (every core count up to 64) libstdc++ sorts by insertion, which is: ties keep
  the ascending m order.
- **The split** (``DoOpTiling``): rowTileNum m, colTileNum n, usedCoreNum m * n; rowBase = rowTotal / m,
  colBase = colTotal / n (elements, not 512-byte blocks), the tails the rest plus a base.
- **The key**: 1000000 + dtype * 10 + moveAlign, dtype 0 float16, 1 float32, 2 bfloat16; moveAlign 0 (the
  UbRearrange kernel) for rows of fewer than 1024 bytes, 1 (MoveAlign) otherwise. Workspace 16 MiB + 32 bytes
  a core.
- **A core** (``InitBase``, :99-111): core i is row block i / n, column block i % n; its columns colBase, or
  colTail in the last column block; its rows rowBase, or rowTail where ``(i + 1) / n >= m - 1``: the last row
  block and also the last core of the row block before it, which so runs rowTail rows from its own start,
  over the first ``rowTotal % m`` rows of the last block (in bounds; those elements are computed twice, the
  same bits both times).
- **MoveAlign** (:73-89, :158-215): a UB node of ``ubSize / 5 / 2`` bytes rounded down to the 256-byte vector
  length; rows of colProcess elements (padded to 32 bytes in UB) as many as a node holds per loop, or, where
  one row does not fit, one row per loop cut into node-long column pieces.
- **UbRearrange** (:97-114, :458-507): whole rows (its grid never cuts columns); node ``2 * RoundDownToVL(ubSize
  / 5 / 2 / 2)`` bytes, ``node / (2 * colTotal * size)`` rows a loop; x's rows copied in as one block, split
  into a and b in UB (by Gather where a row's half is under 32 bytes), joined back after Compute.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .host import split_lengths

__all__ = ["GluBaseTiling", "swiglu_grad_tiling_950", "core_walk", "loops", "KEY_BASE", "DTYPE_ENUM",
           "MOVE_ALIGN_LIMIT_BYTE", "BASE_BLOCK_SIZE", "BASE_BLOCK_COPY_ALIGN", "VREG_BYTES", "WORKSPACE"]

KEY_BASE = 1000000
DTYPE_ENUM = {"float16": 0, "float32": 1, "bfloat16": 2}
MOVE_ALIGN_LIMIT_BYTE = 1024
BASE_BLOCK_SIZE = 8192
BASE_BLOCK_COPY_ALIGN = 512
VREG_BYTES = 256             # platform::GetVRegSize()
BUFFER_NUMBER, DOUBLE_BUFFER = 5, 2
WORKSPACE = 16 * 1024 * 1024
_BLOCK = 32


@dataclass(frozen=True)
class GluBaseTiling:
    """``GluBaseTilingData`` (ten int64 fields), the dtype and the tiling key."""

    dtype: str
    row_total: int
    col_total: int
    row_base: int
    col_base: int
    row_tail: int
    col_tail: int
    ub_size: int
    row_tile_num: int
    col_tile_num: int
    used_core_num: int
    tiling_key: int

    @property
    def dsize(self) -> int:
        return 4 if self.dtype == "float32" else 2

    @property
    def block_dim(self) -> int:
        return self.used_core_num

    @property
    def move_align(self) -> bool:
        return self.tiling_key % 10 == 1

    @property
    def workspace(self) -> int:
        return WORKSPACE + self.used_core_num * _BLOCK


def _grid(rows: int, cols: int, dsize: int, cores: int) -> tuple:
    """``AutoTiling``: (m, n)."""
    base = BASE_BLOCK_COPY_ALIGN // dsize
    col_align = -(-cols // base)
    used = min(cores, (rows * col_align * base // BASE_BLOCK_SIZE) & 0xFFFFFFFF) or 1
    upbound = math.ceil(math.sqrt(used) + 1)
    cuts = sorted({c for m in range(1, upbound) for c in (m, used // m)})
    small = cols * dsize < MOVE_ALIGN_LIMIT_BYTE
    found = []
    for m in cuts:
        if m > rows:
            continue
        n = max(used // m, 1)
        if n > col_align or (small and n > 1):
            continue
        row_block, col_block = -(-rows // m), -(-col_align // n)
        delta = row_block * col_block
        if m * n == used:
            if rows % m == 0 and col_align % n == 0:
                return m, n
            if rows % m == 0:
                delta -= row_block * (col_align % col_block)
            elif col_align % n == 0:
                delta -= (rows % row_block) * n
            else:
                delta -= (rows % row_block) * (col_align % col_block)
        found.append((delta, n, m))
    if not found:
        raise ValueError(f"the 950 SwiGluGrad host finds no core grid for {rows} rows of 2 x {cols} "
                         f"(AutoTiling's candidate list is empty)")
    delta, n, m = sorted(found, key=lambda c: (c[0], c[1]))[0]    # stable: ties keep ascending m
    return m, n


def swiglu_grad_tiling_950(shape, dim: int, dtype: str, ub_size: int, core_num: int) -> GluBaseTiling:
    """The 950 host tiling of a non-empty x of ``shape`` split at ``dim`` (checked, normalised)."""
    dsize = 4 if dtype == "float32" else 2
    rows, cols = split_lengths(shape, dim)
    m, n = _grid(rows, cols, dsize, core_num)
    row_base, col_base = rows // m, cols // n
    move_align = int(cols * dsize >= MOVE_ALIGN_LIMIT_BYTE)
    return GluBaseTiling(dtype, rows, cols, row_base, col_base, rows - row_base * m + row_base,
                         cols - col_base * n + col_base, int(ub_size), m, n, m * n,
                         KEY_BASE + DTYPE_ENUM[dtype] * 10 + move_align)


def core_walk(t: GluBaseTiling, core: int) -> tuple:
    """``InitBase``: (rows, cols, a's start in x, yGrad's start) of core ``core``."""
    n = t.col_tile_num
    cols = t.col_base if (core + 1) % n else t.col_tail
    rows = t.row_base if (core + 1) // n < t.row_tile_num - 1 else t.row_tail
    col_off, row_off = core % n, core // n
    a = t.row_base * row_off * 2 * t.col_total + t.col_base * col_off
    g = t.row_base * row_off * t.col_total + t.col_base * col_off
    return rows, cols, a, g


def _round_vl(n: int) -> int:
    return n // VREG_BYTES * VREG_BYTES


def node_bytes(t: GluBaseTiling) -> int:
    """A queue buffer's bytes: MoveAlign's ``existNodeSize``, UbRearrange's (twice its ``tBufferSize``)."""
    if t.move_align:
        return _round_vl(t.ub_size // BUFFER_NUMBER // DOUBLE_BUFFER)
    return 2 * _round_vl(t.ub_size // BUFFER_NUMBER // DOUBLE_BUFFER // 2)


def loops(t: GluBaseTiling, core: int) -> list:
    """The core's UB loops in order: (a's offset in x, yGrad's offset, rows, cols, padded), ``padded`` where
    the UB rows are 32-byte aligned (MoveAlign) rather than packed (UbRearrange). ValueError where the kernel
    would divide by zero (a UB node that holds no row or no element)."""
    rows, cols, a0, g0 = core_walk(t, core)
    node, size, total = node_bytes(t), t.dsize, 2 * t.col_total
    out = []
    if not t.move_align:
        per = node // (total * size)
        if per < 1:
            raise ValueError(f"ub_size {t.ub_size}: a UbRearrange node of {node} bytes holds no row of {total} "
                             f"elements")
        per = min(per, rows)
        for i in range(-(-rows // per)):
            r = min(per, rows - i * per)
            out.append((a0 + i * per * total, g0 + i * per * cols, r, cols, False))
        return out
    block = _BLOCK // size
    if cols * size <= node:                               # ProcessNotSplitCol
        per = node // (-(-cols // block) * block * size)
        if per < 1:
            raise ValueError(f"ub_size {t.ub_size}: a MoveAlign node of {node} bytes holds no row")
        for i in range(-(-rows // per)):
            r = min(per, rows - i * per)
            out.append((a0 + i * per * total, g0 + i * per * t.col_total, r, cols, True))
        return out
    piece = node // size                                  # ProcessSplitCol
    if piece < 1:
        raise ValueError(f"ub_size {t.ub_size}: a MoveAlign node of {node} bytes holds no element")
    for r in range(rows):
        for j in range(-(-cols // piece)):
            c = min(piece, cols - j * piece)
            out.append((a0 + r * total + j * piece, g0 + r * t.col_total + j * piece, 1, c, True))
    return out
