"""Host tiling of SwishGrad (SPEC section 3): pure Python integer arithmetic."""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .dtypes import canonical_dtype, to_float32
from .platform import REFERENCE_PLATFORM, Platform

__all__ = ["TILING_DTYPE", "TILING_FIELDS", "Tiling", "compute_tiling", "ub_buffer_units"]

#: Field names of the tiling struct, in the C struct's order.
TILING_FIELDS = (
    "smallCoreDataNum",
    "bigCoreDataNum",
    "finalBigTileNum",
    "finalSmallTileNum",
    "tileDataNum",
    "smallTailDataNum",
    "bigTailDataNum",
    "tailBlockNum",
    "sconf",
)

#: The tiling struct with its C layout: eight uint64, one float32, 4 bytes of
#: tail padding (alignment 8), 72 bytes in all. ``record.tobytes()`` is the
#: struct as the device sees it.
TILING_DTYPE = np.dtype(
    [(name, "<u8") for name in TILING_FIELDS[:-1]] + [("sconf", "<f4")], align=True
)
assert TILING_DTYPE.itemsize == 72


def ub_buffer_units(dtype) -> int:
    """Tile-sized buffers the kernel keeps in UB: 7 for float32, 12 otherwise."""
    return 7 if canonical_dtype(dtype) == np.float32 else 12


@dataclass(frozen=True)
class Tiling:
    """What the host tiling hands to a launch.

    Attributes
    ----------
    data : numpy.void
        One record of :data:`TILING_DTYPE`.
    block_dim : int
        Number of AI cores launched.
    tiling_key : int
        Kernel variant selector (always 0 for SwishGrad).
    workspace_size : int
        Bytes of workspace the launch needs (the platform's library workspace).
    """

    data: np.void
    block_dim: int
    tiling_key: int = 0
    workspace_size: int = 0

    def __getitem__(self, field):
        return self.data[field]

    def as_dict(self) -> dict:
        """The struct's fields as Python numbers, plus block_dim and tiling_key."""
        out = {name: self.data[name].item() for name in TILING_FIELDS}
        out["blockDim"] = self.block_dim
        out["tilingKey"] = self.tiling_key
        return out

    def tobytes(self) -> bytes:
        """The 72 bytes of the C struct."""
        return self.data.tobytes()


def check_numel(numel) -> int:
    """``numel`` as an int, or a TypeError/ValueError naming it."""
    if isinstance(numel, bool) or not isinstance(numel, numbers.Integral):
        raise TypeError(f"numel must be an integer, got {type(numel).__name__}")
    numel = int(numel)
    if numel <= 0:
        raise ValueError(f"numel must be > 0 (the host tiling fails on an empty tensor), got {numel}")
    return numel


def compute_tiling(numel, dtype, scale=1.0, platform: Platform | None = None) -> Tiling:
    """Compute the SwishGrad host tiling for a tensor of ``numel`` storage elements.

    Parameters
    ----------
    numel : int
        Storage element count of the tensor (> 0).
    dtype : dtype-like
        float32, float16 or bfloat16.
    scale : float
        The Swish beta; stored in the struct as float32 ``sconf``.
    platform : Platform, optional
        Target hardware; the SPEC's reference platform by default.

    Returns
    -------
    Tiling
    """
    n = check_numel(numel)
    dt = canonical_dtype(dtype, argname="dtype")
    platform = REFERENCE_PLATFORM if platform is None else platform
    if not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    sconf = to_float32(scale, argname="scale")

    b = dt.itemsize
    B = platform.block_size
    if B % b:
        raise ValueError(
            f"platform.block_size ({B} bytes) must hold a whole number of {dt.name} elements ({b} bytes)"
        )
    units = ub_buffer_units(dt)
    tile_block_num = (platform.ub_size // B) // units
    if tile_block_num == 0:
        raise ValueError(
            f"platform.ub_size ({platform.ub_size} bytes) is too small: the {dt.name} kernel needs "
            f"{units} tile buffers of at least one {B}-byte block ({units * B} bytes)"
        )
    tile_data_num = tile_block_num * B // b
    aligned_bytes = -(-n * b // B) * B
    blocks = aligned_bytes // B
    core_num = 1 if tile_data_num >= n else min(platform.core_num, blocks)

    every = blocks // core_num
    tail_block_num = blocks % core_num
    small_core_data_num = every * B // b
    small_tile_num = every // tile_block_num
    final_small_tile_num = small_tile_num + (1 if every % tile_block_num else 0)
    small_tail_data_num = small_core_data_num - tile_data_num * small_tile_num
    if small_tail_data_num == 0:
        small_tail_data_num = tile_data_num
    every += 1
    big_core_data_num = every * B // b
    big_tile_num = every // tile_block_num
    final_big_tile_num = big_tile_num + (1 if every % tile_block_num else 0)
    big_tail_data_num = big_core_data_num - tile_data_num * big_tile_num
    if big_tail_data_num == 0:
        big_tail_data_num = tile_data_num

    record = np.zeros((), dtype=TILING_DTYPE)
    record["smallCoreDataNum"] = small_core_data_num
    record["bigCoreDataNum"] = big_core_data_num
    record["finalBigTileNum"] = final_big_tile_num
    record["finalSmallTileNum"] = final_small_tile_num
    record["tileDataNum"] = tile_data_num
    record["smallTailDataNum"] = small_tail_data_num
    record["bigTailDataNum"] = big_tail_data_num
    record["tailBlockNum"] = tail_block_num
    record["sconf"] = sconf
    return Tiling(
        data=record[()],
        block_dim=core_num,
        tiling_key=0,
        workspace_size=platform.lib_workspace_size,
    )
