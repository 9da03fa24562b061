"""SiluGrad on the Ascend 950 (mainline ``activation/silu_grad``, arch35): the struct, the opbase atvoss
``BroadcastTiling`` host over the collapsed shapes (:mod:`swishgrad_numba.spec.broadcast`; the op keys
here), the dtype rule, the UB buffer plan and the record's check for the validator; the walk of a record in
this layout is :mod:`.record_walk`'s (re-exported here).

``dy`` and ``x`` may broadcast against each other and may have different
dtypes, in which case ``dx`` is float32. docs/model.md, section
"SiluBackward".
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...dtypes import FLOAT32, DTypeInfo, dtype_info
from ...platform import Platform
from ...spec.arith import ceil_div
from ...spec.broadcast import (COMPUTE_KEY, COMPUTE_KEY_OFFSET, MAX_NDDMA_DIM, OP_KEY_OFFSET, REPEAT_BYTES,
                               SCHEDULE_KEYS, dimension_collapse)
from ...tiling.findings import finding
from ..registry import OpTiling, WalkCheck
from .a2 import per_element_plan
from .names import MAX_DIMS
from .record_walk import run_record, walk_args

__all__ = ["run_record", "ARCH35_TILING_DTYPE", "ARCH35_SCALAR_FIELDS", "ARCH35_ARRAY_FIELDS", "ARCH35_OP_KEYS",
           "ARCH35_COMPUTE_PARAMS", "ARCH35_WORKSPACE_SIZE", "Arch35Tiling", "output_dtype", "dimension_collapse",
           "arch35_host_tiling", "broadcast_tiling", "arch35_buffer_plan", "arch35_walk_check", "walk_args"]


#: ``SiluGradTilingData`` (op_host/arch35/silu_grad_tiling.h): nine int64, then six int64[8].
ARCH35_SCALAR_FIELDS = ("blockFormer", "ubFormer", "ubOuter", "ubTail", "blockTail", "shapeLen", "ubSplitAxis",
                        "dimProductBeforeUbInner", "elemNum")
ARCH35_ARRAY_FIELDS = ("input0Dims", "input1Dims", "outputDims", "input0Strides", "input1Strides", "outputStrides")
ARCH35_TILING_DTYPE = np.dtype([(name, "<i8") for name in ARCH35_SCALAR_FIELDS]
                               + [(name, "<i8", (MAX_DIMS,)) for name in ARCH35_ARRAY_FIELDS])

#: The 950 host's opKey by (dy, x, dx) dtype names (GetOpKey); the tiling key is
#: ``opKey * 10**14 + innerKey``.
ARCH35_OP_KEYS = {
    ("float16", "float16", "float16"): 1, ("bfloat16", "bfloat16", "bfloat16"): 2,
    ("float32", "float32", "float32"): 3, ("float16", "bfloat16", "float32"): 4,
    ("float16", "float32", "float32"): 5, ("bfloat16", "float16", "float32"): 6,
    ("bfloat16", "float32", "float32"): 7, ("float32", "float16", "float32"): 8,
    ("float32", "bfloat16", "float32"): 9,
}
#: BroadcastComputeParams by opKey (GetComputeMap): (maxDtypeBits, minDtypeBits, extraSize, bufferDivisor).
#: bufferDivisor is the bits of UB per element: the kernels' 2 x (dy, x, dx)
#: queues, plus three float32 scratch buffers for equal 16-bit dtypes.
ARCH35_COMPUTE_PARAMS = {
    1: (32, 16, 0, 192), 2: (32, 16, 0, 192), 3: (32, 32, 0, 192),
    4: (32, 16, 0, 128), 6: (32, 16, 0, 128),
    5: (32, 16, 0, 160), 7: (32, 16, 0, 160), 8: (32, 16, 0, 160), 9: (32, 16, 0, 160),
}
#: The 950 host's workspace request (WORKSPACE_SIZE).
ARCH35_WORKSPACE_SIZE = 32

def output_dtype(dy_dtype, x_dtype) -> DTypeInfo:
    """dx's dtype: the inputs' when they agree, else float32 (l0op::SiluGrad, InferDataTypeForSiluGrad)."""
    dy, x = dtype_info(dy_dtype), dtype_info(x_dtype)
    return dy if dy is x else FLOAT32


@dataclass(frozen=True)
class Arch35Tiling:
    """The 950 host tiling's result: the struct, blockNum, the tiling key, the workspace and the dtypes."""

    record: np.void
    block_dim: int
    tiling_key: int
    workspace_size: int
    dy_dtype: DTypeInfo
    x_dtype: DTypeInfo
    out_dtype: DTypeInfo
    out_shape: tuple

    @property
    def fields(self) -> dict:
        f = {name: int(self.record[name]) for name in ARCH35_SCALAR_FIELDS}
        f.update({name: [int(v) for v in self.record[name]] for name in ARCH35_ARRAY_FIELDS})
        return f

    def to_bytes(self) -> bytes:
        return self.record.tobytes()


def _ensure_not_scalar(shape) -> tuple:
    return tuple(int(d) for d in shape) if len(shape) else (1,)


def arch35_host_tiling(dy_shape, x_shape, dy_dtype, x_dtype, platform: Platform | None = None) -> Arch35Tiling:
    """The 950 host tiling (op_host/arch35/silu_grad_tiling.cpp with opbase ``BroadcastTiling``).

    ``dy_shape`` and ``x_shape`` are the (contiguous) inputs' shapes; the
    output's is their broadcast. Raises ValueError where the host fails: an
    unsupported dtype combination, shapes that do not broadcast, more than 8
    axes after collapsing, or a UB too small for one aligned repeat.
    """
    platform = platform or Platform(soc_version="ascend950")
    dy, x = dtype_info(dy_dtype, "dy_dtype"), dtype_info(x_dtype, "x_dtype")
    out_info = output_dtype(dy, x)
    op_key = ARCH35_OP_KEYS[dy.name, x.name, out_info.name]
    _max_bits, min_bits, extra, divisor = ARCH35_COMPUTE_PARAMS[op_key]
    record, block_num, schedule_key, out_shape = broadcast_tiling(dy_shape, x_shape, min_bits, extra, divisor,
                                                                  platform)
    inner_key = COMPUTE_KEY * COMPUTE_KEY_OFFSET + schedule_key
    return Arch35Tiling(record, block_num, op_key * OP_KEY_OFFSET + inner_key, ARCH35_WORKSPACE_SIZE,
                        dy, x, out_info, out_shape)


def broadcast_tiling(dy_shape, x_shape, min_bits: int, extra: int, divisor: int, platform: Platform):
    """opbase ``BroadcastTiling`` of two inputs with the kernel's ``BroadcastComputeParams``: ``(record,
    blockNum, scheduleKey, out_shape)``, the record of :data:`ARCH35_TILING_DTYPE` (steps 1-4 of
    docs/model.md "Ascend 950: BroadcastTiling"; the schedule key 100 or 1100 of step 5)."""
    in_shapes = [_ensure_not_scalar(dy_shape), _ensure_not_scalar(x_shape)]
    out_shape = tuple(np.broadcast_shapes(tuple(dy_shape), tuple(x_shape)))
    dims, strides = dimension_collapse(in_shapes, _ensure_not_scalar(out_shape))
    out_dims = dims[-1]
    shape_len = len(out_dims)
    if shape_len > MAX_DIMS:
        raise ValueError(f"broadcast tiling supports at most {MAX_DIMS} axes after collapsing, got {shape_len}")
    if platform.ub_size < extra:
        raise ValueError("the UB is smaller than the DAG's extra size")
    # BroadcastGetMaxElemNum: elements per UB pass, a multiple of one 256-byte repeat of the smallest dtype.
    align = REPEAT_BYTES * 8 // min_bits
    max_elem = (platform.ub_size - extra) * 8 // divisor // align * align
    if max_elem == 0:
        raise ValueError(f"the UB ({platform.ub_size} bytes) holds no aligned pass (maxElemNum 0)")
    # GetBlockSplitFactor: split the outermost axis that does not fit whole.
    product, split, fits = 1, 0, True
    for i in range(shape_len - 1, -1, -1):
        product *= out_dims[i]
        if product > max_elem:
            product //= out_dims[i]
            split, fits = i, False
            break
    if fits:
        product //= out_dims[0]
    ub_former = max_elem if shape_len == 1 else max_elem // product
    ub_former &= 0xFFFFFFFF                                  # held in a uint32_t
    ub_outer = ceil_div(out_dims[split], ub_former)
    ub_tail = out_dims[split] - (ub_outer - 1) * ub_former
    fused = ub_outer * math.prod(out_dims[:split])
    block_former = ceil_div(fused, platform.core_num)
    block_num = ceil_div(fused, block_former)
    block_tail = fused - (block_num - 1) * block_former
    schedule_key = SCHEDULE_KEYS[0] if shape_len - split <= MAX_NDDMA_DIM else SCHEDULE_KEYS[1]
    record = np.zeros((), dtype=ARCH35_TILING_DTYPE)
    for name, value in zip(ARCH35_SCALAR_FIELDS, (block_former, ub_former, ub_outer, ub_tail, block_tail, shape_len,
                                                   split, fused, max_elem)):
        record[name] = value
    for name, values in zip(ARCH35_ARRAY_FIELDS, (dims[0], dims[1], dims[2], strides[0], strides[1], strides[2])):
        record[name][:len(values)] = values
    return record[()], block_num, schedule_key, out_shape


def arch35_buffer_plan(elem_num: int, dy_dtype, x_dtype) -> list:
    """The 950 kernel's InitBuffer calls (op_kernel/arch35/silu_grad_*.h ``Init``): ``[(name, count, bytes each)]``."""
    dy, x = dtype_info(dy_dtype), dtype_info(x_dtype)
    out_info = output_dtype(dy, x)
    if dy is x:   # queIn0 is x and queIn1 dy for 16-bit dtypes, the other way for float32: same sizes
        plan = [("queIn0", 2, elem_num * x.itemsize), ("queIn1", 2, elem_num * dy.itemsize),
                ("queOut0", 2, elem_num * out_info.itemsize)]
        if dy.itemsize == 2:
            plan += [("tmpTensor0", 1, elem_num * 4), ("tmpTensor1", 1, elem_num * 4), ("tmpTensor2", 1, elem_num * 4)]
        return plan
    return [("queIn0", 2, elem_num * dy.itemsize), ("queIn1", 2, elem_num * x.itemsize),
            ("queOut0", 2, elem_num * out_info.itemsize)]


def arch35_walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    """The 950 record (opbase BroadcastTiling) for the validator.

    Its walk is not in core-class form: a block runs UB loops over the
    "fused" index of (axes before the split, the split axis's UB steps),
    each loop a contiguous region of the output. Checked here: the fields'
    ranges, the output's dims and strides against each other and ``numel``,
    the UB steps against the split axis, the blocks' coverage of the fused
    index, one pass within ``elemNum``, the inputs' reads within ``numel``
    (the registry's record: equal shapes) and the tiling key's opKey. Not
    checked: broadcast input dims and strides against a broadcast output.
    """
    d = {name: int(tiling[name]) for name in ARCH35_SCALAR_FIELDS}
    plan = per_element_plan(arch35_buffer_plan(1, info, info))
    own = []
    op_key = ARCH35_OP_KEYS[info.name, info.name, info.name]
    if tiling.tiling_key // OP_KEY_OFFSET != op_key:
        own.append(finding("TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}: opKey "
                                                  f"{tiling.tiling_key // OP_KEY_OFFSET}, but {info.name} inputs "
                                                  f"and output are opKey {op_key}."))
    rank, split = d["shapeLen"], d["ubSplitAxis"]
    ranges = [("shapeLen", 1, MAX_DIMS), ("ubSplitAxis", 0, rank - 1), ("ubFormer", 1, None),
              ("ubOuter", 1, None), ("ubTail", 1, d["ubFormer"]), ("blockFormer", 1, None),
              ("blockTail", 1, d["blockFormer"]), ("elemNum", 1, None)]
    for name, low, high in ranges:
        if d[name] < low or (high is not None and d[name] > high):
            own.append(finding("FIELD_RANGE", f"{name}={d[name]} is not in [{low}, "
                                              f"{'...' if high is None else high}]."))
    if own and any(f.code == "FIELD_RANGE" for f in own):
        return WalkCheck(None, plan, max(d["elemNum"], 0), tuple(own))
    dims = [int(v) for v in tiling["outputDims"][:rank]]
    strides = [int(v) for v in tiling["outputStrides"][:rank]]
    if min(dims) < 1:
        own.append(finding("FIELD_RANGE", f"outputDims={dims} has an axis < 1."))
        return WalkCheck(None, plan, d["elemNum"], tuple(own))
    contiguous = [math.prod(dims[i + 1:]) for i in range(rank)]
    if strides != contiguous:
        own.append(finding("FIELD_RANGE", f"outputStrides={strides} are not the contiguous strides {contiguous} "
                                          f"of outputDims={dims}."))
    size = math.prod(dims)
    if size < numel:
        own.append(finding("COVERAGE_GAP", f"outputDims={dims} hold {size} elements: elements {size}.."
                                           f"{numel - 1} of the tensor are never computed."))
    elif size > numel:
        own.append(finding("OVERRUN_BEYOND_PADDING", f"outputDims={dims} hold {size} elements, more than the "
                                                     f"tensor's {numel}."))
    U, outer, tail = d["ubFormer"], d["ubOuter"], d["ubTail"]
    if (outer - 1) * U + tail != dims[split]:
        own.append(finding("TILE_COUNT_MISMATCH", f"(ubOuter-1)*ubFormer+ubTail = ({outer}-1)*{U}+{tail} = "
                                                  f"{(outer - 1) * U + tail}, but the split axis {split} has "
                                                  f"{dims[split]} elements."))
    fused = outer * math.prod(dims[:split])
    if d["dimProductBeforeUbInner"] != fused:
        own.append(finding("TILE_COUNT_MISMATCH", f"dimProductBeforeUbInner={d['dimProductBeforeUbInner']}, but "
                                                  f"ubOuter * the axes before the split = {fused}."))
    if U * strides[split] > d["elemNum"]:
        own.append(finding("UB_OVERFLOW", f"a UB loop moves ubFormer*outputStrides[{split}] = "
                                          f"{U * strides[split]} elements, more than its elemNum={d['elemNum']} "
                                          f"buffers hold."))
    bd, former, block_tail = tiling.block_dim, d["blockFormer"], d["blockTail"]
    if bd >= 1:
        covered = (bd - 1) * former + block_tail
        if covered < fused:
            own.append(finding("COVERAGE_GAP", f"{bd} blocks of blockFormer={former} UB loops (the last "
                                               f"blockTail={block_tail}) run {covered} of the {fused} loops: the "
                                               f"output past loop {covered - 1} is never computed."))
        elif covered > fused:
            own.append(finding("OVERRUN_BEYOND_PADDING", f"{bd} blocks of blockFormer={former} UB loops (the last "
                                                         f"blockTail={block_tail}) run {covered} loops, past the "
                                                         f"{fused} of the output.", bd - 1))
    for name in ("input0Strides", "input1Strides"):
        in_strides = [int(v) for v in tiling[name][:rank]]
        last = sum((n - 1) * st for n, st in zip(dims, in_strides))
        if min(in_strides) < 0 or last >= numel:
            own.append(finding("OVERRUN_BEYOND_PADDING", f"{name}={in_strides} over outputDims={dims} read "
                                                         f"element {last} of an input of {numel}."))
    return WalkCheck(None, plan, d["elemNum"], tuple(own))
