"""The Ascend 950 (arch35) SwishGrad kernel's integer arithmetic (model section 9).

The 950 kernel is built on the atvoss elementwise template of CANN's opbase:
the host runs ``ElewiseTiling`` over the tensor's element count; the kernel
(``ElementwiseSch``) runs ``blockNum`` cores, each walking its block in UB
loops of ``ubFormer`` elements and a tail, double-buffered. Written once, for
Python ints, NumPy int64 arrays and jitted code alike (see
:mod:`swishgrad_numba.spec`).

How SwishGrad's constants follow from its DAG under ``MemOptCfg<LEVEL_2>``
(opbase ``atvoss/util/dag.h``; derivation in ``docs/model.md``): the DAG is
CopyIn(x), CopyIn(grad), the SwishGrad compute node, CopyOut. Every node's
output type is the input dtype (the float32 work happens inside the compute
node's registers), so the largest and smallest dtype sizes are both the
input's itemsize. No node is a temporary (copy-ins are excluded and the
compute node feeds the copy-out), so the buffer count is
``2 * inputs + 2 * outputs = 2 * 2 + 2 * 1 =`` :data:`BUFFER_NUM`, three
slots pinged and ponged.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .arith import INIT_BUFFER_ALIGN, CoreClass, ceil_div, maximum, minimum, pad_to

__all__ = [
    "FIELDS", "TilingFields", "ELE_BASE_TILING_DTYPE", "ELE_BASE_TILING_16B_DTYPE", "BUFFER_NUM", "BYTES_PER_CORE", "BLOCK_ALIGN", "UB_ALIGN_BYTES",
    "SCHE_MODE", "WORKSPACE_SIZE", "CLASS_FIELDS", "host_tiling", "kernel_fields_32b", "block_classes", "ub_bytes",
    "tiling_key",
]

#: The fields of ``EleBaseTilingData``, in the C struct's order (the
#: SwishGrad struct adds a float32 ``scale`` after them).
FIELDS = (
    "dim0",
    "coreNum",
    "ubFormer",
    "blockFormer",
    "blockNum",
    "ubLoopOfFormerBlock",
    "ubLoopOfTailBlock",
    "ubTailOfFormerBlock",
    "ubTailOfTailBlock",
    "elemNum",
    "scheMode",
)


class TilingFields(NamedTuple):
    """The integer fields of a 950 tiling record, by name."""

    dim0: int
    coreNum: int
    ubFormer: int
    blockFormer: int
    blockNum: int
    ubLoopOfFormerBlock: int
    ubLoopOfTailBlock: int
    ubTailOfFormerBlock: int
    ubTailOfTailBlock: int
    elemNum: int
    scheMode: int


# EleBaseTilingData's C types: int64 dim0, int32 coreNum and ubFormer, int64
# for the rest but scheMode, which is uint64.
_C_TYPES = {"coreNum": "<i4", "ubFormer": "<i4", "scheMode": "<u8"}

#: opbase's ``EleBaseTilingData`` as a record (80 bytes, C layout): the struct every
#: 950 element-wise operator's tiling data begins with.
ELE_BASE_TILING_DTYPE = np.dtype([(name, _C_TYPES.get(name, "<i8")) for name in FIELDS], align=True)
assert ELE_BASE_TILING_DTYPE.itemsize == 80
#: opbase's ``EleBaseTilingData16B`` (``elewise_base_struct.h:40-44``): int64 ``dim0``, int32 ``coreNum``
#: and ``ubFormer`` (16 bytes), the struct of ``ElementwiseSch16B`` kernels (the 950 Gelu's).
ELE_BASE_TILING_16B_DTYPE = np.dtype([("dim0", "<i8"), ("coreNum", "<i4"), ("ubFormer", "<i4")])
assert ELE_BASE_TILING_16B_DTYPE.itemsize == 16


#: Unified-buffer slots of SwishGrad's DAG (2 inputs + 1 output, each
#: pinged and ponged); see the module docstring.
BUFFER_NUM = 6
#: ElewiseTiling gives each core at least this many bytes of the smallest
#: dtype (32,768 bits).
BYTES_PER_CORE = 4096
#: A block's share is rounded up to a multiple of this many elements.
BLOCK_ALIGN = 512
#: ``ubFormer`` is rounded down to a multiple of this many bytes of the
#: smallest dtype (one 256-byte vector register).
UB_ALIGN_BYTES = 256
#: ``ElewiseBaseTiling`` always reports schedule mode 1.
SCHE_MODE = 1
#: The 950 host tiling asks for a constant 16 MiB workspace.
WORKSPACE_SIZE = 16 * 1024 * 1024


def host_tiling(numel, itemsize, ub_size, vector_core_num, buffer_num=BUFFER_NUM, max_itemsize=None):
    """The ``ElewiseTiling`` of ``numel`` elements of ``itemsize`` bytes.

    Returns ``(accepted, block_dim, fields)``: ``fields`` a
    :class:`TilingFields`, ``block_dim`` the cores launched (``blockNum``,
    which can be fewer than ``coreNum``), ``accepted`` false where the
    unified buffer holds less than one aligned UB loop (the values are then
    meaningless, but finite). ``numel`` must be >= 1.

    ``buffer_num`` and ``max_itemsize`` are the DAG's ``BufferNum`` and
    ``MaxDtypeBytes`` (SwishGrad's by default); ``itemsize`` is its
    ``MinDtypeBytes``, the input's.
    """
    bits = 8 * itemsize
    max_bits = bits if max_itemsize is None else 8 * max_itemsize
    core_num = minimum(vector_core_num, ceil_div(numel * bits, 8 * BYTES_PER_CORE))
    block_former = pad_to(ceil_div(numel, core_num), BLOCK_ALIGN)
    block_num = ceil_div(numel, block_former)
    block_tail = numel - (block_num - 1) * block_former
    align = UB_ALIGN_BYTES // itemsize
    ub_former = (ub_size * 8 // (buffer_num * max_bits)) // align * align
    accepted = ub_former > 0
    loop_former, tail_former = _loops(block_former, ub_former + (ub_former == 0))
    loop_tail, tail_tail = _loops(block_tail, ub_former + (ub_former == 0))
    fields = TilingFields(numel, core_num, ub_former, block_former, block_num, loop_former, loop_tail,
                          tail_former, tail_tail, ub_former, SCHE_MODE + 0 * numel)
    return accepted, block_num, fields


def _loops(length, ub_former):
    """(UB loops, elements of the last loop) that walk ``length`` elements."""
    loops = ceil_div(length, ub_former)
    return loops, length - (loops - 1) * ub_former


def kernel_fields_32b(dim0: int, core_num: int, ub_former: int) -> TilingFields:
    """What an elementwise kernel tiled with the 32-byte ``EleBaseTilingData32B``
    (``dim0``, ``coreNum``, ``ubFormer``) derives in its constructor
    (``ElementwiseSchWithScalar``: the block split again, with
    :data:`BLOCK_ALIGN` alignment), as the walk's :class:`TilingFields`.
    Python ints, all > 0. The Swish forward's 950 kernel walks by it."""
    block_former = pad_to(ceil_div(dim0, core_num), BLOCK_ALIGN)
    block_num = ceil_div(dim0, block_former)
    block_tail = dim0 - (block_num - 1) * block_former
    loop_former, tail_former = _loops(block_former, ub_former)
    loop_tail, tail_tail = _loops(block_tail, ub_former)
    return TilingFields(dim0, core_num, ub_former, block_former, block_num, loop_former, loop_tail, tail_former,
                        tail_tail, ub_former, SCHE_MODE)


def block_classes(f, block_dim):
    """The blocks of a launch of ``block_dim`` cores, as
    :class:`~swishgrad_numba.spec.arith.CoreClass` es (their passes are UB loops).

    Block ``i`` starts at ``i * blockFormer``; block ``blockNum - 1`` is the
    tail block, every other one a former block. A host tiling launches
    exactly ``blockNum`` blocks (former blocks, then the tail block); the
    third class is non-empty only for a launch of more.
    """
    tail_block = f.blockNum - 1
    n_former = minimum(maximum(tail_block, 0 * tail_block), block_dim)
    n_tail = minimum(block_dim - n_former, 1 * (tail_block >= 0))
    n_after = block_dim - n_former - n_tail
    former = CoreClass(0 * n_former, n_former, 0 * n_former, f.blockFormer, f.ubLoopOfFormerBlock, f.ubFormer,
                       f.ubTailOfFormerBlock)
    tail = CoreClass(n_former, n_tail, n_former * f.blockFormer, f.blockFormer, f.ubLoopOfTailBlock, f.ubFormer,
                     f.ubTailOfTailBlock)
    after = CoreClass(n_former + n_tail, n_after, (n_former + n_tail) * f.blockFormer, f.blockFormer,
                      f.ubLoopOfFormerBlock, f.ubFormer, f.ubTailOfFormerBlock)
    return former, tail, after


#: The fields the blocks of each of :func:`block_classes`' classes (former,
#: tail, extra) read as lengths and counts: where they start, their UB loops
#: and their tail. A class with no block reads none.
CLASS_FIELDS = (
    ("blockFormer", "ubFormer", "ubLoopOfFormerBlock", "ubTailOfFormerBlock"),
    ("blockFormer", "ubFormer", "ubLoopOfTailBlock", "ubTailOfTailBlock"),
    ("blockFormer", "ubFormer", "ubLoopOfFormerBlock", "ubTailOfFormerBlock"),
)


def ub_bytes(ub_former, itemsize):
    """Unified-buffer bytes ``ElementwiseSch`` allocates: one buffer of
    :data:`BUFFER_NUM` slots of ``ubFormer`` elements, padded by InitBuffer."""
    return pad_to(BUFFER_NUM * ub_former * itemsize, INIT_BUFFER_ALIGN)


def tiling_key(dtype_template):
    """The tiling key: the schedule mode's index in its list {0, 1} in the
    lowest bit, the kernel's dtype template value above it (float16 -> 3,
    bfloat16 -> 5, float32 -> 7)."""
    return SCHE_MODE + (dtype_template << 1)
