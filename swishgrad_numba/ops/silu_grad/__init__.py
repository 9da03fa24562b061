"""SiluGrad, the operator behind ``aclnnSiluBackward``: its facts, host tilings and kernels.

The model is docs/model.md, section "SiluBackward".

``dx = dy * (s * ((1 - s) * x + 1))`` with ``s = 1 / (exp(-x) + 1)``, in
binary32, one instruction at a time. Two kernels, chosen by SoC:

* **Atlas A2** (ops-nn ``experimental/activation/silu_grad``): a 32-byte
  ``SiluGradTilingData`` of four uint64; the host picks single or double
  buffering (``schMode`` 0/1) from the small cores' data size. Inputs and
  output share one dtype and one shape.
* **Ascend 950** (mainline ``activation/silu_grad``, arch35): the atvoss
  ``BroadcastTiling`` (opbase) over the collapsed shapes; ``dy`` and ``x``
  may broadcast against each other and may have different dtypes, in which
  case ``dx`` is float32.

Both kernels run the same steps in the same order (the products commute),
so one sequence serves both: :func:`silu_derivative` is ``z(x)``, the factor
``dy`` is multiplied by last. That factorisation is exact (every step is
its own binary32 rounding, and ``dy`` enters only in the last Mul), so a
16-bit ``x`` looks ``z`` up in a 65,536-entry table built by the same
sequence.

Public: :func:`silu_backward`; the host tilings :func:`a2_host_tiling`,
:func:`arch35_host_tiling` and :func:`host_tiling`; the structs
:data:`A2_TILING_DTYPE` and :data:`ARCH35_TILING_DTYPE`; the UB plans
:func:`a2_buffer_plan` and :func:`arch35_buffer_plan`; :func:`run_a2` and
:func:`run_arch35` run a kernel with a tiling (reads and writes stay inside
the arrays). The jitted kernels are private.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from ... import runtime
from ...arguments import check_array
from ...casts import bf16_bits_to_f32, f16_bits_to_f32, f32_to_bf16_bits, f32_to_f16_bits
from ...dtypes import FLOAT16, FLOAT32, DTypeInfo, dtype_info
from ... import kernel
from ...kernel import TableCache, broadcast
from ...kernel.exp import exp_f32, vexp_f32
from ...kernel.walk import register_pass
from ...platform import ARCH_950, ARCH_A2, REFERENCE_PLATFORM, Platform
from ...spec.arith import INIT_BUFFER_ALIGN, ceil_div, pad_to
from ...spec import a2 as spec_a2
from ...tiling.findings import finding
from ..registry import Kernel, Operator, OpTiling, WalkCheck, register

__all__ = [
    "NAME", "OP_TYPE", "ACLNN_NAME", "ACLNN_SIGNATURE", "ACLNN_LAUNCH_SIGNATURE",
    "A2_TILING_DTYPE", "A2_TILING_FIELDS", "ARCH35_TILING_DTYPE", "ARCH35_SCALAR_FIELDS", "ARCH35_ARRAY_FIELDS",
    "SCH_MODE_SINGLE", "SCH_MODE_DOUBLE", "A2_UB_UNITS", "A2_TARGET_ELEMENTS_PER_CORE",
    "ARCH35_OP_KEYS", "ARCH35_COMPUTE_PARAMS", "ARCH35_WORKSPACE_SIZE", "MAX_DIMS",
    "A2Tiling", "Arch35Tiling", "a2_host_tiling", "arch35_host_tiling", "host_tiling",
    "a2_buffer_plan", "arch35_buffer_plan", "buffer_plan_bytes", "output_dtype", "dimension_collapse",
    "run_a2", "run_arch35", "a2_walk_fields", "SiluGradPass", "a2_walk_check", "arch35_walk_check", "run",
    "silu_derivative", "derivative_table", "silu_backward",
]

# ------------------------------------------------------------------ names

#: The package's name of the operator.
NAME = "silu_grad"
#: CANN's operator type (``OP_ADD(SiluGrad)``).
OP_TYPE = "SiluGrad"
#: The aclnn entry point and its two phases.
ACLNN_NAME = "aclnnSiluBackward"
ACLNN_SIGNATURE = ("aclnnSiluBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self, "
                   "aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor)")
ACLNN_LAUNCH_SIGNATURE = ("aclnnSiluBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, "
                          "aclrtStream stream)")

#: The op_api's dimension limit (``MAX_SUPPORT_DIMS_NUMS``), and the 950 struct's dims slots
#: (the broadcast walk's rank).
MAX_DIMS = broadcast.MAX_RANK

# ------------------------------------------------------------------ Atlas A2: struct and host tiling

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


# ------------------------------------------------------------------ Ascend 950: struct and host tiling

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
# opbase atvoss broadcast constants (broadcast_tiling_base.h/.cpp).
_OP_KEY_OFFSET = 10 ** 14            # BROADCAST_OP_KEY_OFFSET
_COMPUTE_KEY = 1                     # BROADCAST_COMPUTE_KEY
_COMPUTE_KEY_OFFSET = 10 ** 6        # BROADCAST_COMPUTE_KEY_OFFSET
_MAX_NDDMA_DIM = 5
_SCHEDULE_KEYS = (100, 1100)         # SCHEDULE_KEY_1 (<= 5 axes in UB), SCHEDULE_KEY_2
_REPEAT_BYTES = 256                  # BROADCAST_REPEAT_BYTES


def output_dtype(dy_dtype, x_dtype) -> DTypeInfo:
    """dx's dtype: the inputs' when they agree, else float32 (l0op::SiluGrad, InferDataTypeForSiluGrad)."""
    dy, x = dtype_info(dy_dtype), dtype_info(x_dtype)
    return dy if dy is x else FLOAT32


def dimension_collapse(in_shapes, out_shape):
    """opbase ``DimensionCollapse``: the inputs' and output's dims after merging axes, and their strides.

    Returns ``(dims, strides)``: one list per input, then the output's. An
    input's stride is 0 on an axis it broadcasts. Raises ValueError where an
    input's axis is neither 1 nor the output's, or not positive.
    """
    out = [int(d) for d in out_shape]
    rank = len(out)
    shapes = []
    for i, shape in enumerate(in_shapes):
        if len(shape) > rank:
            raise ValueError(f"input {i} has more dimensions ({len(shape)}) than the output ({rank})")
        shapes.append([1] * (rank - len(shape)) + [int(d) for d in shape])
    # flags[axis]: bit (inputs - 1 - i) set where input i is 1 on that axis.
    flags = []
    for axis in range(rank):
        flag = 0
        for i, shape in enumerate(shapes):
            flag <<= 1
            if shape[axis] != 1 and shape[axis] != out[axis]:
                raise ValueError(f"input {i}'s axis {axis} ({shape[axis]}) is neither 1 nor the output's "
                                 f"({out[axis]})")
            if shape[axis] <= 0:
                raise ValueError(f"input {i}'s axis {axis} must be positive, got {shape[axis]}")
            flag += shape[axis] == 1
        flags.append(flag)
    target = (1 << len(shapes)) - 1

    def collapse(values):
        merged = [values[0]]
        prev = flags[0]
        for j in range(1, rank):
            if prev == flags[j] or (prev == target and out[j - 1] == 1):
                merged[-1] *= values[j]
                prev = flags[j]
                continue
            if flags[j] == target and out[j] == 1:
                continue
            prev = flags[j]
            merged.append(values[j])
        return merged

    dims = [collapse(shape) for shape in shapes] + [collapse(out)]
    strides = []
    for i, d in enumerate(dims):
        base, rev = 1, []
        for j in range(len(d) - 1, -1, -1):
            if d[j] == 1 and i != len(dims) - 1 and dims[-1][j] != 1:
                rev.append(0)
            else:
                rev.append(base)
                base *= d[j]
        strides.append(rev[::-1])
    return dims, strides


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
    align = _REPEAT_BYTES * 8 // min_bits
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
    schedule_key = _SCHEDULE_KEYS[0] if shape_len - split <= _MAX_NDDMA_DIM else _SCHEDULE_KEYS[1]
    inner_key = _COMPUTE_KEY * _COMPUTE_KEY_OFFSET + schedule_key
    record = np.zeros((), dtype=ARCH35_TILING_DTYPE)
    for name, value in zip(ARCH35_SCALAR_FIELDS, (block_former, ub_former, ub_outer, ub_tail, block_tail, shape_len,
                                                   split, fused, max_elem)):
        record[name] = value
    for name, values in zip(ARCH35_ARRAY_FIELDS, (dims[0], dims[1], dims[2], strides[0], strides[1], strides[2])):
        record[name][:len(values)] = values
    return Arch35Tiling(record[()], block_num, op_key * _OP_KEY_OFFSET + inner_key, ARCH35_WORKSPACE_SIZE,
                        dy, x, out_info, out_shape)


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


def host_tiling(dy_shape, x_shape, dy_dtype, x_dtype, platform: Platform | None = None):
    """The host tiling of the kernel ``platform``'s SoC runs (A2 by default).

    The A2 kernel takes one dtype and one shape (its numel is ``dy``'s);
    the 950's takes any pair the op_api lets through.
    """
    platform = platform or REFERENCE_PLATFORM
    if platform.architecture == ARCH_950:
        return arch35_host_tiling(dy_shape, x_shape, dy_dtype, x_dtype, platform)
    return a2_host_tiling(math.prod(dy_shape), dy_dtype, platform)


# ------------------------------------------------------------------ the instruction sequence (both kernels)

_ONE = np.float32(1.0)
_MINUS_ONE = np.float32(-1.0)
_F16 = FLOAT16.code


@njit(cache=True, error_model="numpy", inline="always")
def _after_exp(e, x):
    """The steps after Exp, ``e = exp(-x)`` -> z(x); ``dx = dy * z`` follows."""
    t = e + _ONE          # Adds(t, 1)
    s = _ONE / t          # Duplicate(1) ; Div(1, t)   -> sigmoid(x)
    t = _ONE - s          # Sub(1, s)
    t = x * t             # Mul(x, 1 - s)   (950: Mul(1 - s, x), the same product)
    t = t + _ONE          # Adds(t, 1)      (950: Add(1, t))
    return s * t          # Mul(s, t)       -> z(x)


@njit(cache=True, error_model="numpy", inline="always")
def silu_derivative(x):
    """z(x) in binary32, the factor ``dy`` is multiplied by (one value)."""
    return _after_exp(exp_f32(x * _MINUS_ONE), x)   # Muls(x, -1) ; Exp ; ...


@njit(parallel=True, cache=True, error_model="numpy")
def _derivative_table(dtype_code):
    table = np.empty(65536, dtype=np.float32)
    for bits in prange(65536):
        if dtype_code == _F16:
            xf = f16_bits_to_f32(np.uint16(bits))
        else:
            xf = bf16_bits_to_f32(np.uint16(bits))
        table[bits] = silu_derivative(xf)
    return table


_TABLES = TableCache(size=2)   # one per 16-bit dtype


def derivative_table(dtype) -> np.ndarray:
    """z(x) for each of the 65,536 bit patterns of a float16 or bfloat16 x (read-only, cached)."""
    info = dtype_info(dtype)
    if info.itemsize != 2:
        raise ValueError(f"derivative tables are for 16-bit dtypes, got {info.name}")
    return _TABLES.get(info.name, lambda: _derivative_table(info.code))


def _widen(v, code):
    """A buffer element as float32 (exact): float32 as is, 16-bit bits by dtype code."""
    raise NotImplementedError("jitted code only")


@overload(_widen, inline="always")
def _widen_overload(v, code):
    if isinstance(v, types.Float):
        return lambda v, code: v

    def impl(v, code):
        if code == _F16:
            return f16_bits_to_f32(v)
        return bf16_bits_to_f32(v)
    return impl


def _narrow(buf, v, code):
    """float32 ``v`` as ``buf``'s element: float32 as is, 16-bit by CAST_RINT."""
    raise NotImplementedError("jitted code only")


@overload(_narrow, inline="always")
def _narrow_overload(buf, v, code):
    if buf.dtype == types.float32:
        return lambda buf, v, code: v

    def impl(buf, v, code):
        if code == _F16:
            return f32_to_f16_bits(v)
        return f32_to_bf16_bits(v)
    return impl


def _derive(x_buf, z, a, b, table):
    """``z[a:b] = z(x_buf[a:b])``."""
    raise NotImplementedError("jitted code only")


@overload(_derive, inline="always")
def _derive_overload(x_buf, z, a, b, table):
    if x_buf.dtype == types.float32:
        def impl(x_buf, z, a, b, table):
            vexp_f32(z[a:b], x_buf[a:b], b - a, _MINUS_ONE)   # Muls(x, -1) ; Exp  (exact path where needed)
            for i in range(b - a):
                k = np.uint64(a + i)   # unsigned: no negative-index fix-up per access
                z[k] = _after_exp(z[k], x_buf[k])
        return impl

    def impl16(x_buf, z, a, b, table):                       # widened exactly, then the whole sequence: a lookup
        for i in range(b - a):
            k = np.uint64(a + i)
            z[k] = table[x_buf[k]]
    return impl16


@njit(cache=True, error_model="numpy", inline="always")
def _compute(dy_buf, x_buf, o_buf, z, a, b, table, dy_code, out_code):
    """Elements ``[a, b)`` of one pass: ``o = narrow(widen(dy) * z(x))``."""
    _derive(x_buf, z, a, b, table)
    for i in range(b - a):
        k = np.uint64(a + i)
        o_buf[k] = _narrow(o_buf, _widen(dy_buf[k], dy_code) * z[k], out_code)   # Mul(dy, z) ; Cast CAST_RINT


class SiluGradPass(NamedTuple):
    """A launch's parameters: the 16-bit z(x) table (a dummy for float32 x),
    the dtype codes of ``dy`` and of the output."""

    table: np.ndarray
    dy_code: int
    out_code: int


@register_pass(SiluGradPass)
@njit(cache=True, error_model="numpy", inline="always")
def _silu_grad_pass(params, in_bufs, o_buf, work, a, b):
    # in_bufs: dy, then x; work[0]: z
    _compute(in_bufs[0], in_bufs[1], o_buf, work[0], a, b, params.table, params.dy_code, params.out_code)


# ------------------------------------------------------------------ launches


def _kernel_view(arr: np.ndarray, info: DTypeInfo) -> np.ndarray:
    return arr.reshape(-1).view(info.bits_dtype)


def _table_for(info: DTypeInfo) -> np.ndarray:
    return derivative_table(info) if info.itemsize == 2 else np.zeros(1, dtype=np.float32)


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


def run_a2(dy: np.ndarray, x: np.ndarray, out: np.ndarray, tiling: A2Tiling) -> np.ndarray:
    """Run the A2 kernel on flat C-contiguous arrays of one dtype and size with ``tiling``.

    The generic walk (:mod:`swishgrad_numba.kernel.walk`) runs it: every
    core's passes (silu_grad.h ``Process``) of ``min(tileDataNum, left)``
    elements, the block padding past the tensor read as zeros and never
    written. schMode 0 single-buffers on the device; the bits do not depend
    on it.
    """
    info = tiling.dtype
    for name, arr in (("dy", dy), ("x", x), ("out", out)):
        if arr.dtype != info.numpy or not arr.flags.c_contiguous or arr.size != out.size:
            raise ValueError(f"{name} must be a C-contiguous {info.name} array of out's size ({out.size})")
    if int(tiling.record["tileDataNum"]) < 1:
        raise ValueError("tiling.tileDataNum is 0: the platform's UB holds no tile, the kernel would never finish")
    if out.size == 0:
        return out
    launch_plan = kernel.plan_launch(a2_walk_fields(tiling.record), tiling.block_dim, kernel.ARCH_A2, out.size)
    kernel.run_walk(SiluGradPass(_table_for(info), info.code, info.code),
                    (_kernel_view(dy, info), _kernel_view(x, info)), _kernel_view(out, info), launch_plan)
    return out


def run_arch35(dy: np.ndarray, x: np.ndarray, out: np.ndarray, tiling: Arch35Tiling) -> np.ndarray:
    """Run the 950 kernel on C-contiguous ``dy``, ``x`` (their own shapes) and
    ``out`` (the broadcast shape), on the broadcast walk (:mod:`swishgrad_numba.kernel.broadcast`)."""
    for name, arr, info in (("dy", dy, tiling.dy_dtype), ("x", x, tiling.x_dtype), ("out", out, tiling.out_dtype)):
        if arr.dtype != info.numpy or not arr.flags.c_contiguous:
            raise ValueError(f"{name} must be a C-contiguous {info.name} array")
    r = tiling.record
    params = SiluGradPass(_table_for(tiling.x_dtype), tiling.dy_dtype.code, tiling.out_dtype.code)
    with runtime.launch_guard():
        broadcast.launch_blocks(params, _kernel_view(dy, tiling.dy_dtype), _kernel_view(x, tiling.x_dtype),
                                _kernel_view(out, tiling.out_dtype), tiling.block_dim, int(r["blockFormer"]),
                                int(r["blockTail"]), int(r["ubFormer"]), int(r["ubOuter"]), int(r["ubTail"]),
                                int(r["shapeLen"]), int(r["ubSplitAxis"]), int(r["dimProductBeforeUbInner"]),
                                int(r["elemNum"]), np.array(r["outputDims"]), np.array(r["outputStrides"]),
                                np.array(r["input0Strides"]), np.array(r["input1Strides"]))
    return out


@functools.lru_cache(maxsize=256)
def _cached_tiling(dy_shape, x_shape, dy_name, x_name, platform):
    return host_tiling(dy_shape, x_shape, dy_name, x_name, platform)


# ------------------------------------------------------------------ the public function


def silu_backward(grad_output, x, *, out=None, platform: Platform | None = None):
    """Gradient of SiLU, ``grad_output * z(x)``, exactly as the NPU's SiluGrad kernel computes it.

    Parameters
    ----------
    grad_output, x : numpy.ndarray
        float32, float16 or ``ml_dtypes.bfloat16``; any strides. On an Atlas
        A2 platform (the default) they share one shape and one dtype. On an
        Ascend 950 they may broadcast against each other (at most 8
        dimensions then) and may differ in dtype, as the mainline op_api
        allows; the result is then float32.
    out : numpy.ndarray, optional
        Array of the result's shape and dtype to write into; may be a
        non-contiguous view.
    platform : Platform, optional
        The device: its SoC picks the kernel and its tiling decomposes the
        work (the result does not depend on it).

    Returns
    -------
    numpy.ndarray
        ``out`` if given, else a new C-contiguous array.
    """
    check_array(grad_output, "grad_output")
    check_array(x, "x")
    g_info = dtype_info(grad_output.dtype, argname="grad_output.dtype")
    x_info = dtype_info(x.dtype, argname="x.dtype")
    if platform is not None and not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    platform = platform or REFERENCE_PLATFORM
    on_950 = platform.architecture == ARCH_950
    if not on_950:
        if g_info is not x_info:
            raise TypeError(f"grad_output and x must have the same dtype, got {grad_output.dtype} and {x.dtype} "
                            f"(mixed dtypes need an Ascend 950 platform)")
        if grad_output.shape != x.shape:
            raise ValueError(f"grad_output and x must have the same shape, got {grad_output.shape} and {x.shape} "
                             f"(broadcasting needs an Ascend 950 platform)")
        shape = x.shape
    else:
        try:
            shape = tuple(np.broadcast_shapes(grad_output.shape, x.shape))
        except ValueError:
            raise ValueError(f"grad_output and x must broadcast against each other, got {grad_output.shape} "
                             f"and {x.shape}") from None
        if grad_output.shape != x.shape and max(grad_output.ndim, x.ndim) > MAX_DIMS:
            raise ValueError(f"broadcasting grad_output and x supports at most {MAX_DIMS} dimensions, got "
                             f"{grad_output.ndim} and {x.ndim}")
    o_info = output_dtype(g_info, x_info)
    if out is not None:
        check_array(out, "out")
        if out.dtype != o_info.numpy:
            raise TypeError(f"out must have dtype {o_info.name}, got {out.dtype}")
        if out.shape != shape:
            raise ValueError(f"out must have shape {shape}, got {out.shape}")
        if not out.flags.writeable:
            raise ValueError("out must be writeable")
    if grad_output.size == 0 or x.size == 0:
        return np.empty(shape, dtype=o_info.numpy) if out is None else out

    g_c = np.ascontiguousarray(grad_output)
    x_c = np.ascontiguousarray(x)
    if not on_950 or grad_output.shape == x.shape:
        # Equal shapes collapse to one axis on the 950 too: the flat tensor is its whole input.
        g_shape = x_shape = (x.size,)
    else:
        g_shape, x_shape = grad_output.shape, x.shape
    direct = out is not None and out.flags.c_contiguous and not np.shares_memory(out, grad_output) \
        and not np.shares_memory(out, x)
    result = out if direct else np.empty(shape, dtype=o_info.numpy)
    tiling = _cached_tiling(g_shape, x_shape, g_info.name, x_info.name, platform)
    if on_950:
        run_arch35(g_c, x_c, result, tiling)
    else:
        run_a2(g_c, x_c, result, tiling)
    if out is not None and not direct:
        out[...] = result
        return out
    return result


# ------------------------------------------------------------------ a record, checked and run


def _per_element(plan: list) -> tuple:
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
    plan = _per_element(a2_buffer_plan(1, info, sch_mode))
    tile = int(tiling["tileDataNum"])
    if tile < 1:
        own.append(finding("FIELD_RANGE", "tileDataNum=0: a core's pass loop never advances."))
        return WalkCheck(None, plan, 0, tuple(own))
    fields = a2_walk_fields(tiling.data)
    # silu_grad.h CopyIn/CopyOut: DataCopyPad of processDataNum * sizeof(T) bytes, no block rule
    return WalkCheck(fields, plan, tile, tuple(own), whole_blocks=False)


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
    plan = _per_element(arch35_buffer_plan(1, info, info))
    own = []
    op_key = ARCH35_OP_KEYS[info.name, info.name, info.name]
    if tiling.tiling_key // _OP_KEY_OFFSET != op_key:
        own.append(finding("TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}: opKey "
                                                  f"{tiling.tiling_key // _OP_KEY_OFFSET}, but {info.name} inputs "
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


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling) -> None:
    """The kernel with a checked record over flat contiguous arrays of one dtype and size."""
    if grad is None:
        raise ValueError("grad must be an array for silu_grad (its gradOutput)")
    info = dtype_info(out.dtype, argname="out.dtype")
    if tiling.architecture == ARCH_950:
        run_arch35(grad, x, out, Arch35Tiling(tiling.data, tiling.block_dim, tiling.tiling_key,
                                              tiling.workspace_size, info, info, info, out.shape))
    else:
        run_a2(grad, x, out, A2Tiling(tiling.data, tiling.block_dim, tiling.tiling_key, tiling.tiling_key,
                                      tiling.workspace_size, info))


# ------------------------------------------------------------------ the registry entry

def _registry_host_tiling(numel, info, beta32, platform):
    """The host tiling of a same-dtype, unbroadcast launch of ``numel`` elements, as an OpTiling."""
    tiling = host_tiling((numel,), (numel,), info, info, platform)
    return OpTiling(op=NAME, architecture=platform.architecture, data=tiling.record, block_dim=tiling.block_dim,
                    tiling_key=tiling.tiling_key, workspace_size=tiling.workspace_size)


#: The vector instructions of one A2 tile (op_kernel/silu_grad.h, docs/model.md "SiluBackward"), for the
#: device-time model; a 16-bit tile adds the widening Casts of dy and x and the narrowing one.
A2_DEVICE_INSTRUCTIONS = ("Muls", "Exp", "Adds", "Duplicate", "Div", "Sub", "Mul", "Adds", "Mul", "Mul")


def _a2_device_instructions(tiling, itemsize: int) -> tuple:
    steps = A2_DEVICE_INSTRUCTIONS
    return steps if itemsize == 4 else ("Cast", "Cast") + steps + ("Cast",)


SILU_GRAD = register(Operator(
    NAME, (ACLNN_NAME + "GetWorkspaceSize", ACLNN_NAME), OP_TYPE,
    {ARCH_A2: Kernel(ARCH_A2, "experimental/activation/silu_grad", "SiluGradTilingData", A2_TILING_DTYPE,
                     "CAST_RINT", a2_walk_check, run, _a2_device_instructions,
                     # schMode (the tiling key) 0 is single-buffered, 1 double
                     lambda tiling: 1 if tiling.tiling_key == SCH_MODE_SINGLE else 2),
     ARCH_950: Kernel(ARCH_950, "activation/silu_grad (arch35)", "SiluGradTilingData", ARCH35_TILING_DTYPE,
                      "CAST_RINT", arch35_walk_check, run)},
    _registry_host_tiling, has_beta=False, inputs=2))
