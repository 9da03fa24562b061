"""The Relu kernels (aclnnRelu, aclnnInplaceRelu): the Atlas A2's and the Ascend 950's, their data for
:mod:`.description`.

docs/model.md, "Relu and ThresholdBackward", cites every fact here (ops-nn at ``e5c3fa93``):

- Atlas A2 (``experimental/activation/relu``): host ``op_host/relu_tiling.cpp`` (``ReluTilingData``:
  int64 ``formerNum, formerLength, tailLength, tileLength``): cores by 16 KiB of input each (int64: every
  core), per-core lengths aligned to 512-byte cache lines, the last core the rest; ``tileLength`` the UB
  over a dtype's ``bufferCoefficient`` (float16 4, bfloat16 8, float32 8), aligned to 32 bytes; key the
  dtype. Kernel ``op_kernel/relu.h``: ``KernelRelu<T>`` (float32, float16, int32) runs ``Relu`` in place
  in its own dtype; ``KernelReluUpcast<bfloat16, float>`` Casts CAST_NONE, ``Relu`` in float32, Casts
  CAST_RINT; int8 upcasts to half; int64 loops on the scalar unit.
- Ascend 950 (``activation/relu``, arch35): host ``relu_tiling_arch35.cpp``, opbase ``DoTiling`` into
  ``EleBaseTilingData16B``, keys 101 (float16), 102 (bfloat16), 103 (float32); kernel ``relu_apt.cpp``,
  ``ElementwiseSch16B`` over ``GraphRelu<U, T>`` (``relu_dag.h``): CopyIn, ``Cast<T, U, 0>``,
  ``Relu<T>``, ``Cast<U, T, 1>``, CopyOut; float16 runs ``GraphRelu<half, half>`` (Relu in half).

The integer dtypes are not launched here: :func:`swishgrad_numba.ops.relu.description.integer_relu`.
"""
from __future__ import annotations

import numpy as np

from ... import kernel as kernel_pkg
from ...dtypes import FLOAT32, DTypeInfo, dtype_info
from ...platform import ARCH_950, ARCH_A2, Platform
from ...program import Program, Tensor, compiled
from ...program.form import V
from ...spec import a2 as spec_a2
from ...spec import arch35 as spec_arch35
from ...spec.arith import ceil_div
from ...tiling.findings import finding
from ...tiling.records import checked_record
from ..op_tiling import kept_per_tiling
from ..registry import Kernel, OpTiling, WalkCheck

__all__ = ["NAME", "A2_RECORD_DTYPE", "ARCH35_RECORD_DTYPE", "A2_BUFFER_COEFFICIENT", "ARCH35_KEYS",
           "a2_host_tiling", "arch35_host_tiling", "host_tiling", "walk_fields", "programs", "walk_check", "run",
           "KERNELS"]

NAME = "relu"

#: ``ReluTilingData`` (``relu_tiling_data.h``): four int64.
A2_RECORD_DTYPE = np.dtype([(n, "<i8") for n in ("formerNum", "formerLength", "tailLength", "tileLength")])
#: The 950's: opbase's ``EleBaseTilingData16B``.
ARCH35_RECORD_DTYPE = spec_arch35.ELE_BASE_TILING_16B_DTYPE
#: ``relu_tiling.cpp``'s ``CACHE_LINE_BYTE_LENGTH`` and ``MIN_BYTES_PER_CORE``.
_CACHE_LINE, _MIN_BYTES_PER_CORE = 512, 16 * 1024
#: ``bufferCoefficient`` by dtype (``FillNormalTiling``; 8 for the dtypes it does not name: float32, int32).
A2_BUFFER_COEFFICIENT = {"float16": 4, "bfloat16": 8, "float32": 8, "int8": 4, "int32": 8, "int64": 32}
#: ``ASCENDC_TPL_SEL_PARAM(context, dTypeX)``: the ge::DataType value (DT_FLOAT 0, DT_FLOAT16 1, DT_BF16 27).
_A2_KEYS = {"float32": 0, "float16": 1, "bfloat16": 27}
#: ``RELU_TILING_KEY_ELEMENTWISE_*`` (``relu_tiling_arch35.cpp``).
ARCH35_KEYS = {"float16": 101, "bfloat16": 102, "float32": 103}


def a2_host_tiling(numel: int, name: str, itemsize: int, platform: Platform) -> tuple:
    """``FillNormalTiling`` of ``numel`` (>= 1) elements: ``(block_dim, record values)``."""
    cores = platform.core_num if name == "int64" else min(max(1, ceil_div(numel * itemsize, _MIN_BYTES_PER_CORE)),
                                                          platform.core_num)
    line = max(1, _CACHE_LINE // itemsize)
    per_core = ceil_div(ceil_div(numel, cores), line) * line
    used = max(1, ceil_div(numel, per_core))
    align = max(1, 32 // itemsize)
    tile = platform.ub_size // A2_BUFFER_COEFFICIENT[name] // align * align
    values = dict(formerNum=used - 1, formerLength=per_core, tailLength=numel - (used - 1) * per_core,
                  tileLength=tile if tile > 0 else align)
    return used, values


def arch35_buffer_num(name: str) -> int:
    """``BufferNum`` of ``GraphRelu``: copy-in and copy-out pinged and ponged (4); bfloat16's widened x and
    Relu's float32 result live at once (6). Derived as the Gelu DAG's (not checked against opbase's count)."""
    return 6 if name == "bfloat16" else 4


def arch35_host_tiling(numel: int, info: DTypeInfo, platform: Platform) -> tuple:
    """opbase ``DoTiling`` into the 16-byte struct: ``(accepted, block_dim, fields)``."""
    max_itemsize = 4 if info.name == "bfloat16" else info.itemsize
    return spec_arch35.host_tiling(numel, info.itemsize, platform.ub_size, platform.core_num,
                                   arch35_buffer_num(info.name), max_itemsize)


def host_tiling(numel: int, info: DTypeInfo, attrs, platform: Platform) -> OpTiling:
    """The host tiling of ``numel`` (>= 1) elements on ``platform``'s kernel (no attributes)."""
    if platform.architecture == ARCH_950:
        accepted, block_dim, f = arch35_host_tiling(numel, info, platform)
        if not accepted:
            raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the 950 Relu kernel needs "
                             f"{arch35_buffer_num(info.name)} buffers of at least {spec_arch35.UB_ALIGN_BYTES} bytes")
        data = checked_record(ARCH35_RECORD_DTYPE, {"dim0": f.dim0, "coreNum": f.coreNum, "ubFormer": f.ubFormer})
        return OpTiling(NAME, ARCH_950, data, int(block_dim), ARCH35_KEYS[info.name], spec_arch35.WORKSPACE_SIZE)
    block_dim, values = a2_host_tiling(numel, info.name, info.itemsize, platform)
    return OpTiling(NAME, ARCH_A2, checked_record(A2_RECORD_DTYPE, values), int(block_dim), _A2_KEYS[info.name],
                    platform.lib_workspace_size)


def _a2_fields(d, block_dim: int) -> spec_a2.TilingFields:
    """``InitBlockGm``/``ProcessTiles`` in the walk's core-class form: the ``formerNum`` cores "big" with
    ``formerLength`` elements, the one after them the ``tailLength`` rest; tiles of ``tileLength``."""
    former, tail, tile = int(d["formerLength"]), int(d["tailLength"]), int(d["tileLength"])

    def cls(count):
        whole = count // tile
        return whole + (count % tile != 0), (count - whole * tile) or tile
    big_tiles, big_tail = cls(former)
    small_tiles, small_tail = cls(tail)
    return spec_a2.TilingFields(tail, former, big_tiles, small_tiles, tile, small_tail, big_tail,
                                min(int(d["formerNum"]), block_dim))


@kept_per_tiling
def walk_fields(tiling: OpTiling):
    d = tiling.data
    if tiling.architecture == ARCH_950:
        return spec_arch35.kernel_fields_32b(int(d["dim0"]), int(d["coreNum"]), int(d["ubFormer"]))
    return _a2_fields(d, tiling.block_dim)

# ---------------------------------------------------------------- the programs


def programs(dtype: str, variant: str = "main") -> Program:
    """The Compute for ``dtype`` (both kernels alike for the float dtypes): ``Relu`` in float32 or in half;
    bfloat16 widened (CAST_NONE), ``Relu`` in float32, narrowed with CAST_RINT."""
    if variant != "main":
        raise ValueError(f"no Relu variant {variant!r}")
    if dtype == "bfloat16":
        return Program("ReluUpcast", (Tensor("x", dtype),), Tensor("out", dtype), (Tensor("xf"), Tensor("y")),
                       (V.Cast("xf", "x", "CAST_NONE"), V.Relu("y", "xf"), V.Cast("out", "y", "CAST_RINT")))
    return Program("KernelRelu", (Tensor("x", dtype),), Tensor("out", dtype), (), (V.Relu("out", "x"),))

# ---------------------------------------------------------------- check and run


def walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    """The record for the validator: its fields' ranges, the key, the UB plan, the walk."""
    if tiling.architecture == ARCH_950:
        expected, names = ARCH35_KEYS[info.name], ("dim0", "coreNum", "ubFormer")
        plan = ((arch35_buffer_num(info.name), 4 if info.name == "bfloat16" else info.itemsize),)
    else:
        expected, names = _A2_KEYS[info.name], ("formerLength", "tailLength", "tileLength")
        plan = ((2, info.itemsize),) + (((1, 4),) if info.name == "bfloat16" else ())
    own = () if tiling.tiling_key == expected else (finding(
        "TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; the Relu host gives {expected} for {info.name}."),)
    bad = [n for n in names if int(tiling[n]) < 1]
    if tiling.architecture == ARCH_A2 and int(tiling["formerNum"]) < 0:
        bad.append("formerNum")
    if bad:
        return WalkCheck(None, plan, 0, own + tuple(
            finding("FIELD_RANGE", f"{n}={int(tiling[n])}: the kernel needs it >= {0 if n == 'formerNum' else 1}.")
            for n in bad))
    fields = walk_fields(tiling)
    if tiling.architecture == ARCH_950:
        return WalkCheck(fields, plan, fields.ubFormer, own)
    return WalkCheck(fields, plan, fields.tileDataNum, own, whole_blocks=False)


def _bits(a: np.ndarray, info: DTypeInfo) -> np.ndarray:
    return a if info is FLOAT32 else a.view(np.uint16)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling, saturation: bool = False) -> None:
    """The kernel with a checked record over flat contiguous ``x`` and ``out`` (``grad`` None); ``saturation``:
    the A2 in the saturation overflow mode (the 950 has the Inf/NaN mode only)."""
    if grad is not None:
        raise ValueError(f"grad must be None for the forward operator {NAME!r} (it reads x only)")
    info = dtype_info(out.dtype, argname="out.dtype")
    plan = kernel_pkg.plan_launch(walk_fields(tiling), tiling.block_dim, kernel_pkg.arch_code(tiling.architecture),
                                  out.size)
    params = compiled(NAME, tiling.architecture, info.name, "main", saturation).params()
    kernel_pkg.run_walk(params, (_bits(x, info),), _bits(out, info), plan)


def _device_instructions(tiling: OpTiling, itemsize: int) -> tuple:
    return programs("float32" if itemsize == 4 else "float16").instructions()


KERNELS = {
    ARCH_A2: Kernel(ARCH_A2, "experimental/activation/relu", "ReluTilingData", A2_RECORD_DTYPE, "CAST_RINT",
                    walk_check, run, _device_instructions, lambda tiling: 2, programs=programs),
    ARCH_950: Kernel(ARCH_950, "activation/relu (arch35)", "EleBaseTilingData16B", ARCH35_RECORD_DTYPE, "CAST_RINT",
                     walk_check, run, _device_instructions, programs=programs),
}
