"""A SwiGlu or SwiGluGrad tiling checked against what the kernel needs (issue 41): ``swishgrad validate --op
swiglu`` (and ``swiglu_grad``), and the device-time model's guard.

The checks, from :mod:`.host` (``swi_glu_tiling.cpp``'s limits) and :mod:`.kernel` (the split walk):

- the key is the dtype's (0 float32, 1 float16, 27 bfloat16); the dtype one of the three;
- rowLen and colLen are x's (``SetTotalShape``), ``is32BAligned`` says whether colLen fills whole 32-byte blocks;
- a tile is 1..rowLen rows (at most 4095, DataCopy's block count) by 1..colLen columns (at most 65535 elements
  aligned, 65535 bytes unaligned: DataCopy's block length);
- a tile of more than one row keeps the gap between its rows within DataCopy's stride (65535 blocks, or bytes
  unaligned);
- the tile's queues and buffers fit the UB (the host's division: three queues, double-buffered or not, and two
  16-bit or one float32 calc buffer; SwiGluGrad's five queues and five or two buffers);
- 1 <= blockDim <= the platform's cores, and every core launched has a tile (tile i runs on core i mod blockDim).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .host import (MAX_BLOCK_COUNT, MAX_BLOCK_LEN, MAX_STRIDE, TBUF, TBUF_GRAD, TQUE, TQUE_GRAD, TILING_KEYS,
                   SwiGluTiling, split_lengths)

__all__ = ["SwiGluValidation", "validate_tiling", "validate_tiling_950", "with_fields"]


@dataclass(frozen=True)
class SwiGluValidation:
    block_dim: int
    total_tiles: int
    findings: tuple          # empty: valid

    @property
    def ok(self) -> bool:
        return not self.findings


def with_fields(t: SwiGluTiling, changes: dict) -> SwiGluTiling:
    """``t`` with fields changed (``{name: text or value}``), each parsed as the field's type; a ValueError names
    an unknown field or a bad value."""
    fields = {f.name for f in dataclasses.fields(t)}
    parsed = {}
    for name, value in changes.items():
        if name not in fields:
            raise ValueError(f"{name!r} is not a field of the SwiGluTiling (fields: {', '.join(sorted(fields))})")
        old = getattr(t, name)
        try:
            parsed[name] = str(value) if isinstance(old, str) else int(value)
        except (TypeError, ValueError):
            raise ValueError(f"{name}={value!r}: expected {type(old).__name__}") from None
    return dataclasses.replace(t, **parsed)


def _stride_overflows(t: SwiGluTiling, cols: int) -> bool:
    if t.col_len % t.ub_min_block == 0:
        return 2 * t.col_len - cols > MAX_STRIDE * t.ub_min_block
    return (2 * t.col_len - cols) * t.dsize > MAX_STRIDE


def validate_tiling(t: SwiGluTiling, x_shape, dim: int, platform, grad: bool = False) -> SwiGluValidation:
    """The findings of tiling ``t`` for x of ``x_shape`` split at ``dim`` (normalised) on ``platform``."""
    if t.dtype not in TILING_KEYS:
        return SwiGluValidation(t.block_dim, 0, (f"dtype {t.dtype!r} is not one of {', '.join(TILING_KEYS)}",))
    out = []
    if t.tiling_key != TILING_KEYS[t.dtype]:
        out.append(f"tiling_key {t.tiling_key}: the host gives {TILING_KEYS[t.dtype]} for {t.dtype}")
    rows, cols = split_lengths(tuple(x_shape), dim)
    if (t.row_len, t.col_len) != (rows, cols):
        out.append(f"row_len, col_len = {t.row_len}, {t.col_len}: x {tuple(x_shape)} split at dim {dim} is "
                   f"{rows} rows of 2 x {cols}")
    if t.is_32b_aligned != int(t.col_len % t.ub_min_block == 0):
        out.append(f"is_32b_aligned = {t.is_32b_aligned}: col_len {t.col_len} is "
                   f"{'' if t.col_len % t.ub_min_block == 0 else 'not '}whole 32-byte blocks")
    if t.is_double_buffer not in (0, 1):
        out.append(f"is_double_buffer = {t.is_double_buffer}: 0 or 1")
    if not 1 <= t.base_row_len <= min(t.row_len, MAX_BLOCK_COUNT):
        out.append(f"base_row_len = {t.base_row_len}: 1 to min(row_len, {MAX_BLOCK_COUNT}) rows")
    limit = MAX_BLOCK_LEN if t.is_32b_aligned else MAX_BLOCK_LEN // t.dsize
    if not 1 <= t.base_col_len <= min(t.col_len, limit):
        out.append(f"base_col_len = {t.base_col_len}: 1 to min(col_len, {limit}) columns (DataCopy's block length)")
    if out:
        return SwiGluValidation(t.block_dim, 0, tuple(out))
    if t.base_row_len > 1 and _stride_overflows(t, min(t.base_col_len, t.col_len)):
        out.append(f"base_row_len = {t.base_row_len} rows of {t.base_col_len}: the gap between rows exceeds "
                   f"DataCopy's stride ({MAX_STRIDE}); one row per tile only")
    buffers = 2 if t.is_double_buffer else 1
    per_elem = (buffers * TQUE_GRAD * t.dsize + TBUF_GRAD[t.dsize] * 4 if grad
                else buffers * TQUE * t.dsize + TBUF[t.dsize] * 4)
    need = t.tile_length * per_elem
    if need > platform.ub_size:
        out.append(f"a tile of {t.base_row_len} x {t.base_col_len} needs {need} bytes of UB "
                   f"({t.tile_length} padded elements x {per_elem}); the platform has {platform.ub_size}")
    total = t.total_tiles
    if not 1 <= t.block_dim <= platform.core_num:
        out.append(f"block_dim = {t.block_dim}: 1 to the platform's cores ({platform.core_num})")
    elif t.block_dim > total:
        out.append(f"block_dim = {t.block_dim} > {total} tiles: {t.block_dim - total} cores run no tile")
    return SwiGluValidation(t.block_dim, total, tuple(out))


# ---------------------------------------------------------------- the Ascend 950's SwiGluGrad (regbase) tiling
def validate_tiling_950(t, x_shape, dim: int, platform) -> SwiGluValidation:
    """The findings of a 950 SwiGluGrad tiling (:class:`~.host_950.GluBaseTiling`) for x of ``x_shape`` split at
    ``dim`` (normalised) on ``platform``: the key (dtype, and MoveAlign for rows of 1024 bytes or more), the
    view, the grid (usedCoreNum = rowTileNum * colTileNum within the cores; bases and tails that cover the
    view, every core's block inside it), the UbRearrange kernel's whole rows (colTileNum 1), and a ubSize
    within the platform's whose UB node holds a row (MoveAlign: an element). ``total_tiles``: the UB loops."""
    from .host_950 import DTYPE_ENUM, KEY_BASE, MOVE_ALIGN_LIMIT_BYTE, core_walk, loops

    if t.dtype not in DTYPE_ENUM:
        return SwiGluValidation(t.used_core_num, 0, (f"dtype {t.dtype!r} is not one of {', '.join(DTYPE_ENUM)}",))
    out = []
    rows, cols = split_lengths(tuple(x_shape), dim)
    if (t.row_total, t.col_total) != (rows, cols):
        out.append(f"row_total, col_total = {t.row_total}, {t.col_total}: x {tuple(x_shape)} split at dim {dim} is "
                   f"{rows} rows of 2 x {cols}")
    key = KEY_BASE + DTYPE_ENUM[t.dtype] * 10 + int(t.col_total * t.dsize >= MOVE_ALIGN_LIMIT_BYTE)
    if t.tiling_key != key:
        out.append(f"tiling_key {t.tiling_key}: the host gives {key} for {t.dtype} rows of {t.col_total} "
                   f"(MoveAlign from {MOVE_ALIGN_LIMIT_BYTE} bytes)")
    for name in ("row_tile_num", "col_tile_num", "row_base", "col_base", "row_tail", "col_tail", "ub_size"):
        if getattr(t, name) < 1:
            out.append(f"{name} = {getattr(t, name)}: the kernel needs it >= 1")
    if out:
        return SwiGluValidation(t.used_core_num, 0, tuple(out))
    m, n = t.row_tile_num, t.col_tile_num
    if t.used_core_num != m * n:
        out.append(f"used_core_num = {t.used_core_num}: rowTileNum x colTileNum is {m * n}")
    if not 1 <= t.used_core_num <= platform.core_num:
        out.append(f"used_core_num = {t.used_core_num}: 1 to the platform's cores ({platform.core_num})")
    for what, base, tail, num, total in (("row", t.row_base, t.row_tail, m, t.row_total),
                                         ("col", t.col_base, t.col_tail, n, t.col_total)):
        if base * (num - 1) + tail != total:
            out.append(f"{what}_base = {base}, {what}_tail = {tail}: {num - 1} bases and a tail cover "
                       f"{base * (num - 1) + tail}, not {total}")
    if not t.move_align and n != 1:
        out.append(f"col_tile_num = {n}: the UbRearrange kernel (key {t.tiling_key}) copies whole rows; 1 only")
    if out:
        return SwiGluValidation(t.used_core_num, 0, tuple(out))
    if t.ub_size > platform.ub_size:
        out.append(f"ub_size = {t.ub_size}: the platform has {platform.ub_size}")
    total = 0
    for core in range(t.used_core_num):
        r, c, a, _g = core_walk(t, core)
        row0, col0 = a // (2 * t.col_total), a % (2 * t.col_total)
        if row0 + r > t.row_total or col0 + c > t.col_total:
            out.append(f"core {core}: rows {row0}..{row0 + r - 1}, columns {col0}..{col0 + c - 1} leave the "
                       f"{t.row_total} x {t.col_total} view")
            break
        try:
            total += len(loops(t, core))
        except ValueError as exc:
            out.append(str(exc))
            break
    return SwiGluValidation(t.used_core_num, total, tuple(out))
