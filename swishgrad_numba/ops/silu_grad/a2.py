"""SiluGrad on the Atlas A2 (ops-nn ``experimental/activation/silu_grad``): the 32-byte struct, the host
tiling, the UB buffer plan, the record's walk and its check for the validator.

The host picks single or double buffering (``schMode`` 0/1, the tiling key)
from the small cores' data size; inputs and output share one dtype and one
shape. docs/model.md, section "SiluBackward".
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DTypeInfo, dtype_info
from ...platform import REFERENCE_PLATFORM, Platform
from ...spec.arith import INIT_BUFFER_ALIGN, ceil_div, pad_to
from ...spec import a2 as spec_a2
from ...tiling.findings import finding
from ..registry import OpTiling, WalkCheck

__all__ = ["A2_TILING_DTYPE", "A2_TILING_FIELDS", "SCH_MODE_SINGLE", "SCH_MODE_DOUBLE", "A2_UB_UNITS",
           "A2_TARGET_ELEMENTS_PER_CORE", "A2Tiling", "a2_host_tiling", "a2_buffer_plan", "buffer_plan_bytes",
           "a2_walk_fields", "a2_walk_check", "per_element_plan"]


#: ``SiluGradTilingData`` (op_kernel/silu_grad_tiling_data.h): four uint64, 32 bytes.
A2_TILING_DTYPE = np.dtype([("smallCoreDataNum", "<u8"), ("bigCoreDataNum", "<u8"), ("tileDataNum", "<u8"),
                            ("tailBlockNum", "<u8")])
A2_TILING_FIELDS = A2_TILING_DTYPE.names

#: The tiling-key template's schMode values (op_kernel/silu_grad_tiling_key.h).
SCH_MODE_SINGLE = 0
SCH_MODE_DOUBLE = 1

#: UB units per tile element, by (schMode, dtype size): the host's
#: UB_NUM_FLOAT{,16}_{SINGLE,DOUBLE}. A unit is one element of the input
#: dtype, so a 16-bit float32 scratch buffer counts two.
A2_UB_UNITS = {(SCH_MODE_SINGLE, 4): 5, (SCH_MODE_SINGLE, 2): 13, (SCH_MODE_DOUBLE, 4): 8, (SCH_MODE_DOUBLE, 2): 16}

#: The host aims at about this many elements per core (TARGET_ELEM_PER_CORE).
A2_TARGET_ELEMENTS_PER_CORE = 1024


@dataclass(frozen=True)
class A2Tiling:
    """The A2 host tiling's result: the struct, the launch's cores and the tiling key.

    ``record`` is one :data:`A2_TILING_DTYPE` record; ``sch_mode`` is not in
    the struct but in the tiling key (its index in the template's list
    ``{0, 1}``, so the key equals it).
    """

    record: np.void
    block_dim: int
    sch_mode: int
    tiling_key: int
    workspace_size: int
    dtype: DTypeInfo

    @property
    def fields(self) -> dict:
        return {name: int(self.record[name]) for name in A2_TILING_FIELDS}

    def to_bytes(self) -> bytes:
        return self.record.tobytes()


def a2_host_tiling(numel: int, dtype, platform: Platform = REFERENCE_PLATFORM) -> A2Tiling:
    """The A2 host tiling (op_host/silu_grad_tiling.cpp), on Python ints.

    Raises
    ------
    ValueError
        For ``numel < 1`` (the host's "inputNum is 0" failure).
    """
    info = dtype_info(dtype)
    numel = int(numel)
    if numel < 1:
        raise ValueError(f"numel must be >= 1 (the host tiling fails on an empty tensor), got {numel}")
    ub, cores, block = platform.ub_size, platform.core_num, platform.block_size
    size = info.itemsize                                   # typeLength: 4 for float32, else 2
    single_tile = (ub // block) // A2_UB_UNITS[SCH_MODE_SINGLE, size] * block // size
    double_tile = (ub // block) // A2_UB_UNITS[SCH_MODE_DOUBLE, size] * block // size
    aligned = pad_to(numel * size, block)                  # inputLengthAlgin
    blocks = aligned // block
    core_num = min(cores, ceil_div(numel, A2_TARGET_ELEMENTS_PER_CORE), blocks)
    core_num = max(core_num, 1)
    every = blocks // core_num
    tail_block_num = blocks % core_num
    small = every * block // size
    big = (every + 1) * block // size
    # At most two single-buffered tiles per small core: single buffering with
    # the larger tile; otherwise the double-buffered pipeline.
    if small <= 2 * single_tile:
        sch_mode, tile = SCH_MODE_SINGLE, single_tile
    else:
        sch_mode, tile = SCH_MODE_DOUBLE, double_tile
    record = np.zeros((), dtype=A2_TILING_DTYPE)
    record[()] = (small, big, tile, tail_block_num)
    return A2Tiling(record[()], core_num, sch_mode, sch_mode, platform.lib_workspace_size, info)


def a2_buffer_plan(tile: int, dtype, sch_mode: int) -> list:
    """The A2 kernel's InitBuffer calls (silu_grad.h ``Init``): ``[(name, count, bytes each)]``.

    Each buffer is rounded up to 32 bytes by ``TPipe::InitBuffer``; the sum of
    ``count * pad_to(bytes, 32)`` is the UB the kernel uses.
    """
    info = dtype_info(dtype)
    queued = 1 if sch_mode == SCH_MODE_SINGLE else 2
    plan = []
    if info.itemsize != 4:
        plan += [("castDYBuf", 1, tile * 4), ("castXBuf", 1, tile * 4), ("castDXBuf", 1, tile * 4)]
    plan += [("inQueueDY", queued, tile * info.itemsize), ("inQueueX", queued, tile * info.itemsize),
             ("outQueueDX", queued, tile * info.itemsize), ("tmpBuf1", 1, tile * 4), ("tmpBuf2", 1, tile * 4)]
    return plan


def buffer_plan_bytes(plan: list) -> int:
    """UB bytes of a buffer plan, each buffer padded as ``InitBuffer`` pads it."""
    return sum(count * pad_to(nbytes, INIT_BUFFER_ALIGN) for _name, count, nbytes in plan)


def a2_walk_fields(record) -> spec_a2.TilingFields:
    """The A2 record's walk in the template's A2 form (big cores first, then
    small; each core's tiles follow from its count and ``tileDataNum``, the
    last one shorter): what the generic walk and the validator run. Python
    ints; ``tileDataNum`` must be >= 1."""
    small, big, tile = (int(record[name]) for name in ("smallCoreDataNum", "bigCoreDataNum", "tileDataNum"))
    small_tiles, big_tiles = ceil_div(small, tile), ceil_div(big, tile)
    return spec_a2.TilingFields(
        smallCoreDataNum=small, bigCoreDataNum=big, finalBigTileNum=big_tiles, finalSmallTileNum=small_tiles,
        tileDataNum=tile, smallTailDataNum=small - max(small_tiles - 1, 0) * tile,
        bigTailDataNum=big - max(big_tiles - 1, 0) * tile, tailBlockNum=int(record["tailBlockNum"]))


def per_element_plan(plan: list) -> tuple:
    """A buffer plan of one-element buffers as ``((count, bytes_per_element), ...)``."""
    return tuple((count, nbytes) for _name, count, nbytes in plan)


def a2_walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    """The A2 record for the validator: its walk in SwishGrad's A2 core-class
    form (big cores first, then small; each core's tiles follow from its
    count and ``tileDataNum``), the UB plan of the key's schMode."""
    sch_mode = tiling.tiling_key
    own = []
    if sch_mode not in (SCH_MODE_SINGLE, SCH_MODE_DOUBLE):
        own.append(finding("TILING_KEY_MISMATCH", f"tiling key {sch_mode}; SiluGrad's A2 kernels are schMode "
                                                  f"{SCH_MODE_SINGLE} (single buffering) and {SCH_MODE_DOUBLE} "
                                                  f"(double)."))
        sch_mode = SCH_MODE_DOUBLE
    plan = per_element_plan(a2_buffer_plan(1, info, sch_mode))
    tile = int(tiling["tileDataNum"])
    if tile < 1:
        own.append(finding("FIELD_RANGE", "tileDataNum=0: a core's pass loop never advances."))
        return WalkCheck(None, plan, 0, tuple(own))
    fields = a2_walk_fields(tiling.data)
    # silu_grad.h CopyIn/CopyOut: DataCopyPad of processDataNum * sizeof(T) bytes, no block rule
    return WalkCheck(fields, plan, tile, tuple(own), whole_blocks=False)
