"""The Atlas A2 SwishGrad kernel's integer arithmetic (model sections 3 and 4).

Written once, for Python ints, NumPy int64 arrays and jitted code alike (see
:mod:`swishgrad_numba.spec`). ``itemsize`` is the element size in bytes (4
for float32, 2 for float16 and bfloat16).
"""
from __future__ import annotations

from typing import NamedTuple

from numba.extending import register_jitable

from .arith import INIT_BUFFER_ALIGN, CoreClass, ceil_div, minimum, pad_to, select

__all__ = [
    "FIELDS", "TilingFields", "BUFFER_NUM", "QUEUES", "INIT_BUFFER_ALIGN", "TILING_KEY",
    "buffer_plan", "plan_bytes", "tile_units", "ub_bytes", "host_tiling", "split_blocks", "split_over", "core_classes",
    "padded_numel", "last_core_rest",
]

#: The integer fields of the tiling struct, in the C struct's order (the
#: struct ends with the float32 ``sconf``).
FIELDS = (
    "smallCoreDataNum",
    "bigCoreDataNum",
    "finalBigTileNum",
    "finalSmallTileNum",
    "tileDataNum",
    "smallTailDataNum",
    "bigTailDataNum",
    "tailBlockNum",
)


class TilingFields(NamedTuple):
    """The eight integer fields of an A2 tiling record, by name.

    The one normalised form every consumer reads (validator, checked walk,
    kernel launch); made from a record by
    :func:`swishgrad_numba.tiling.io.tiling_fields`.
    """

    smallCoreDataNum: int
    bigCoreDataNum: int
    finalBigTileNum: int
    finalSmallTileNum: int
    tileDataNum: int
    smallTailDataNum: int
    bigTailDataNum: int
    tailBlockNum: int


#: Queue depth (``BUFFER_NUM``): two local buffers per queue, used alternately.
BUFFER_NUM = 2
#: The kernel's queues: grad and x in, the output out.
QUEUES = 3
#: SwishGrad's A2 kernel has one variant.
TILING_KEY = 0


def buffer_plan(itemsize):
    """SwishGrad's unified-buffer plan: ``((count, bytes_per_element), ...)``.

    Three queues of :data:`BUFFER_NUM` buffers of the element type, then the
    float32 scratch ``TBuf`` s: one for float32, three for the 16-bit types
    (float32 copies of x, g and the result). Works on an itemsize array too.
    """
    scratch = 1 + 2 * (itemsize != 4)
    return ((BUFFER_NUM, itemsize),) * QUEUES + ((scratch, 4),)


def plan_bytes(tile_data_num, plan):
    """Unified-buffer bytes a plan takes for tiles of ``tile_data_num``
    elements: every buffer padded to :data:`INIT_BUFFER_ALIGN` bytes."""
    total = 0
    for count, bytes_per_element in plan:
        total = total + count * pad_to(tile_data_num * bytes_per_element, INIT_BUFFER_ALIGN)
    return total


def tile_units(itemsize):
    """``UB_NUM`` of the host tiling: the plan in tiles of the element type
    (7 for float32, 12 for float16/bfloat16)."""
    total = 0
    for count, bytes_per_element in buffer_plan(itemsize):
        total = total + count * bytes_per_element
    return total // itemsize


def ub_bytes(tile_data_num, itemsize):
    """Unified-buffer bytes SwishGrad's kernel allocates for a tile size."""
    return plan_bytes(tile_data_num, buffer_plan(itemsize))


def host_tiling(numel, itemsize, ub_size, core_num, block_size):
    """model section 3: the host tiling of ``numel`` storage elements.

    Returns ``(accepted, block_dim, fields)`` with ``fields`` a
    :class:`TilingFields`. ``accepted`` is false where the host refuses the
    platform: a block that holds no whole number of elements, or a unified
    buffer below one block per tile buffer (the other values are then
    meaningless, but finite). ``numel`` must be >= 1.
    """
    tile_block_num = (ub_size // block_size) // tile_units(itemsize)
    accepted = (block_size % itemsize == 0) & (tile_block_num > 0)
    tile_block_num = tile_block_num + (tile_block_num == 0)      # no division by zero when refused
    cores, fields = split_blocks(numel, itemsize, tile_block_num, core_num, block_size)
    return accepted, cores, fields


def split_blocks(numel, itemsize, tile_block_num, core_num, block_size):
    """The host tiling's split of ``numel`` elements into cores and tiles of
    ``tile_block_num`` blocks (>= 1): ``(block_dim, fields)``.

    The part after the UB plan, shared by the A2 kernels of this template
    (SwishGrad, Swish): steps 2 to 4 of model section 3.
    """
    tile_data_num = tile_block_num * block_size // itemsize
    blocks = ceil_div(numel * itemsize, block_size)               # alignedBytes / block_size
    cores = select(tile_data_num >= numel, 1, minimum(core_num, blocks))
    return cores, split_over(numel, itemsize, tile_block_num, cores, block_size)


def split_over(numel, itemsize, tile_block_num, cores, block_size):
    """Step 4 of model section 3 for a core count the host has chosen (>= 1): the
    :class:`TilingFields` of ``numel`` elements over ``cores`` cores and tiles of
    ``tile_block_num`` blocks (>= 1). Sigmoid's A2 host picks its cores its own way."""
    tile_data_num = tile_block_num * block_size // itemsize
    blocks = ceil_div(numel * itemsize, block_size)
    every = blocks // cores
    tail_block_num = blocks % cores
    small = _core_class(every, tile_block_num, tile_data_num, itemsize, block_size)
    big = _core_class(every + 1, tile_block_num, tile_data_num, itemsize, block_size)
    return TilingFields(small[0], big[0], big[1], small[1], tile_data_num, small[2], big[2], tail_block_num)


def _core_class(blocks_per_core, tile_block_num, tile_data_num, itemsize, block_size):
    """(coreDataNum, finalTileNum, tailDataNum) of cores that own ``blocks_per_core`` blocks."""
    data_num = blocks_per_core * block_size // itemsize
    whole_tiles = blocks_per_core // tile_block_num
    final_tiles = whole_tiles + (blocks_per_core % tile_block_num != 0)
    tail = data_num - tile_data_num * whole_tiles
    return data_num, final_tiles, select(tail == 0, tile_data_num, tail)


def core_classes(f, block_dim):
    """model section 4 for a launch of ``block_dim`` cores: (big class, small class), as
    :class:`~swishgrad_numba.spec.arith.CoreClass` es (their passes are tiles).

    ``f`` is a :class:`TilingFields`. The first ``tailBlockNum`` cores are
    big; the small cores follow, so small core ``i`` starts at
    ``big * tailBlockNum + small * (i - tailBlockNum)`` (the model's
    ``big * i - (big - small) * (i - tailBlockNum)``, rearranged so that no
    term is negative).
    """
    n_big = minimum(f.tailBlockNum, block_dim)
    big = CoreClass(0 * n_big, n_big, 0 * n_big, f.bigCoreDataNum, f.finalBigTileNum, f.tileDataNum,
                    f.bigTailDataNum)
    small = CoreClass(n_big, block_dim - n_big, f.bigCoreDataNum * f.tailBlockNum, f.smallCoreDataNum,
                      f.finalSmallTileNum, f.tileDataNum, f.smallTailDataNum)
    return big, small


@register_jitable(inline="always")
def padded_numel(numel, itemsize, block_size):
    """Element slots of the block-rounded allocation (``alignedBytes / itemsize``;
    an element straddling the allocation's end does not count)."""
    return pad_to(numel * itemsize, block_size) // itemsize


def last_core_rest(numel: int, block_factor: int, tile: int, block_dim: int) -> TilingFields:
    """A split in which the first ``block_dim - 1`` cores are "big" with ``block_factor`` elements and the last
    takes the rest, in passes of ``tile`` (a ``blockFactor`` / ``ubFactor`` host tiling, as HardSwish's and
    Softplus's), in the A2 core-class form."""
    big_cores = max(block_dim - 1, 0)
    last = numel - big_cores * block_factor

    def tiles_and_tail(count):
        whole = count // tile
        return whole + (count % tile != 0), (count - whole * tile) or tile
    big_tiles, big_tail = tiles_and_tail(block_factor)
    small_tiles, small_tail = tiles_and_tail(last)
    return TilingFields(last, block_factor, big_tiles, small_tiles, tile, small_tail, big_tail, big_cores)
