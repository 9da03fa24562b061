"""GeluGrad, the operator behind aclnnGeluBackward: structs, host tilings, tiling keys and programs.

docs/model.md, "GeluBackward (aclnnGeluBackward)", and docs/activation_tiling.md give the sources, file
and line. Every kernel evaluates ``dy * (s + s (1 - s) p)``, in three ways:

- Atlas A2 (ops-nn ``experimental/activation/gelu_grad``): ``GeluGradTilingData``, SwishGrad's eight
  fields and ``versionNum`` as nine uint32; ``ubDataNumber`` 16 (16-bit) or ``8 + versionNum``
  (float32); the tiling key is ``versionNum``, 1 on ASCEND310B (the formula :data:`VARIANT_310B`),
  else 0 (``main``). The host refuses bfloat16 but on ASCEND910B and ASCEND310B.
- Ascend 950 (``activation/gelu_grad``, arch35): ``BroadcastSch`` over dy and x of one dtype, two Axpys
  and a NaN guard (``Compare`` EQ, ``Select``): where the product is NaN, 0 takes its place, so x = +inf
  gives dy and x = -inf gives dy * 0.

16-bit inputs are widened exactly and the result narrowed with CAST_RINT. The programs are
:mod:`.program`'s (re-exported here).
"""
from __future__ import annotations

import functools

import numpy as np

from ... import kernel as kernel_pkg
from ... import runtime
from ...dtypes import DTypeInfo, dtype_info
from ...platform import ARCH_950, ARCH_A2, Platform
from ...program import compiled
from ...spec import a2 as spec_a2
from ...tiling.findings import finding
from ...tiling.records import checked_record
from ..op_tiling import a2_walk_fields
from ..registry import Kernel, OpTiling, WalkCheck
from ..silu_grad.arch35 import ARCH35_TILING_DTYPE, broadcast_tiling, run_record
from ..silu_grad.arch35 import arch35_walk_check as silu_arch35_walk_check
from .program import VARIANT_310B, programs, sigmoid_argument

__all__ = ["NAME", "A2_RECORD_DTYPE", "ARCH35_RECORD_DTYPE", "VARIANT_310B", "ARCH35_BUFFER_BITS",
           "version_num", "sigmoid_argument", "a2_host_tiling", "a2_buffer_plan", "arch35_host_tiling", "host_tiling", "programs",
           "run_a2", "run_arch35", "run", "KERNELS", "registry_host_tiling", "shaped_tiling", "shaped_launch", "broadcast_copies"]

NAME = "gelu_grad"

#: ``GeluGradTilingData`` (``gelu_grad_tiling_data.h:19-29``): nine uint32, the host casts each field.
A2_RECORD_DTYPE = np.dtype([(name, "<u4") for name in spec_a2.FIELDS] + [("versionNum", "<u4")])
#: The 950 record: opbase's broadcast tiling fields in SiluGrad's layout (the ``BroadcastBaseTiling``
#: class's own struct was not traced).
ARCH35_RECORD_DTYPE = ARCH35_TILING_DTYPE
assert A2_RECORD_DTYPE.itemsize == 36

# ---------------------------------------------------------------- A2 (op_host/gelu_grad_tiling.cpp)


def version_num(platform: Platform) -> int:
    """1 on ASCEND310B, else 0 (:53-58): the tiling key and the formula."""
    return int(platform.soc_family == "ascend310b")


def a2_host_tiling(numel: int, itemsize: int, platform: Platform, version: int):
    """``(accepted, block_dim, fields)``: ``tileBlockNum = (U / B) / ubDataNumber`` (:74-78), then
    SwishGrad's split (cores 1 where one tile holds the tensor, :82-88)."""
    udn = 16 if itemsize != 4 else 8 + version
    tile_block_num = (platform.ub_size // platform.block_size) // udn
    block_dim, fields = spec_a2.split_blocks(numel, itemsize, max(tile_block_num, 1), platform.core_num,
                                             platform.block_size)
    return tile_block_num > 0, block_dim, fields


def a2_buffer_plan(itemsize: int, version: int) -> tuple:
    """``gelu_grad.h:59-79``: dy, x, z queues of two slots, ``tmpBuffer`` and ``funBuffer``, three float32
    tiles for 16-bit; float32 versionNum 1 allocates ``tmp1`` and ``tmpBuffer`` again (an upstream
    defect: its plan exceeds the host's budget, docs/activation_tiling.md)."""
    extra = 3 if itemsize != 4 else (2 if version else 0)
    return ((6, itemsize), (2 + extra, 4))

# ---------------------------------------------------------------- 950 (BroadcastBaseTiling<GeluGradDAG>)

#: ``bufferDivisor`` (bits per element) by input itemsize: BufferNum * 32 with BufferNum 6 (float32: two
#: inputs and the output pinged and ponged) or 9 (16-bit: the two widened inputs and the node's result
#: live too), derived as FastGeluGrad's, which its UT confirms (docs/activation_tiling.md); not traced in
#: opbase's BroadcastBaseTiling class.
ARCH35_BUFFER_BITS = {4: 6 * 32, 2: 9 * 32}


def arch35_host_tiling(dy_shape, x_shape, info: DTypeInfo, platform: Platform):
    """``(record, block_dim, tiling_key, out_shape)``: opbase's broadcast split with this DAG's divisor;
    the key ``GET_TPL_TILING_KEY(schMode)``, schMode taken as 0 (<= 5 axes in UB) or 1."""
    record, block_dim, schedule_key, out_shape = broadcast_tiling(dy_shape, x_shape, 8 * info.itemsize, 0,
                                                                  ARCH35_BUFFER_BITS[info.itemsize], platform)
    return record, block_dim, int(schedule_key != 100), out_shape

# ---------------------------------------------------------------- the host tiling, checked


def host_tiling(dy_shape, x_shape, info: DTypeInfo, platform: Platform) -> OpTiling:
    """The host tiling for the kernel ``platform``'s SoC runs (the A2's of equal shapes, numel >= 1)."""
    if platform.architecture == ARCH_950:
        record, block_dim, key, _ = arch35_host_tiling(dy_shape, x_shape, info, platform)
        return OpTiling(NAME, ARCH_950, record, int(block_dim), key, 16 * 1024 * 1024)
    if info.name == "bfloat16" and platform.soc_family not in ("ascend910b", "ascend310b"):
        raise ValueError(f"dtype bfloat16 is refused by the A2 GeluGrad host tiling on SoC {platform.soc_version!r}: "
                         f"it accepts bfloat16 on ascend910b and ascend310b only")
    version = version_num(platform)
    numel = int(np.prod(dy_shape))
    accepted, block_dim, f = a2_host_tiling(numel, info.itemsize, platform, version)
    if not accepted:
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the A2 GeluGrad kernel needs "
                         f"{(16 if info.itemsize != 4 else 8 + version) * platform.block_size} bytes")
    data = checked_record(A2_RECORD_DTYPE, {**f._asdict(), "versionNum": version})
    return OpTiling(NAME, ARCH_A2, data, int(block_dim), version, platform.lib_workspace_size)

# ---------------------------------------------------------------- launches


def run_a2(dy, x, out, tiling: OpTiling, info: DTypeInfo, saturation: bool = False) -> None:
    """Flat C-contiguous ``dy``, ``x``, ``out`` of one dtype and size, on the generic walk."""
    variant = VARIANT_310B if int(tiling["versionNum"]) == 1 else "main"
    params = compiled(NAME, ARCH_A2, info.name, variant, saturation).params()
    plan = kernel_pkg.plan_launch(a2_walk_fields(tiling), tiling.block_dim, kernel_pkg.ARCH_A2, out.size)
    kernel_pkg.run_walk(params, (info.flat_bits(dy), info.flat_bits(x)), info.flat_bits(out), plan)


def run_arch35(dy, x, out, tiling: OpTiling, info: DTypeInfo, axpy_rounding: str = "fused") -> None:
    """C-contiguous ``dy``, ``x`` (their own shapes) and ``out`` (the broadcast shape), on the broadcast walk."""
    r = tiling.data
    params = compiled(NAME, ARCH_950, info.name, axpy_rounding=axpy_rounding).params()
    with runtime.launch_guard():
        run_record(params, info.flat_bits(dy), info.flat_bits(x), info.flat_bits(out), tiling.block_dim, r)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling, saturation: bool = False,
        axpy_rounding: str = "fused") -> None:
    """The registry's launch: flat contiguous arrays of one dtype and size; the 950's Axpys round as
    ``axpy_rounding`` (:attr:`Platform.axpy_rounding`)."""
    if grad is None:
        raise ValueError("grad must be an array for gelu_grad (its gradOutput)")
    info = dtype_info(out.dtype, argname="out.dtype")
    if tiling.architecture == ARCH_950:
        if saturation:
            raise ValueError("overflow_mode 'saturation' is not supported by the Ascend 950 kernel (Inf/NaN mode only)")
        run_arch35(grad, x, out, tiling, info, axpy_rounding)
    else:
        run_a2(grad, x, out, tiling, info, saturation)


def _a2_walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    version = int(tiling["versionNum"])
    own = () if tiling.tiling_key == version else (finding(
        "TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; the GeluGrad host sets it to versionNum "
                               f"({version})."),)
    fields = spec_a2.TilingFields(*(int(tiling[n]) for n in spec_a2.FIELDS))
    return WalkCheck(fields, a2_buffer_plan(info.itemsize, version), fields.tileDataNum, own)


def _arch35_walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    """The 950 record: SiluGrad's broadcast-record checks (the same fields), with this DAG's buffers
    (BufferNum slots of ``elemNum`` float32) and key (0 or 1) instead of SiluGrad's."""
    check = silu_arch35_walk_check(tiling, numel, info, platform)
    own = tuple(f for f in check.findings if f.code != "TILING_KEY_MISMATCH")
    if tiling.tiling_key not in (0, 1):
        own += (finding("TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; GeluGrad's are 0 and 1."),)
    return WalkCheck(None, ((ARCH35_BUFFER_BITS[info.itemsize] // 32, 4),), check.pass_len, own)


KERNELS = {
    ARCH_A2: Kernel(ARCH_A2, "experimental/activation/gelu_grad", "GeluGradTilingData", A2_RECORD_DTYPE, "CAST_RINT",
                    _a2_walk_check, run, programs=functools.partial(programs, ARCH_A2),
                    soc_variant=lambda platform: VARIANT_310B if version_num(platform) else "main"),
    ARCH_950: Kernel(ARCH_950, "activation/gelu_grad (arch35)", "BroadcastBaseTiling (SiluGrad's layout)",
                     ARCH35_RECORD_DTYPE, "CAST_RINT", _arch35_walk_check, run,
                     programs=functools.partial(programs, ARCH_950), walk="broadcast")}


def registry_host_tiling(numel: int, info: DTypeInfo, attrs, platform: Platform) -> OpTiling:
    """The registry's host tiling of equal shapes (no attributes: ``attrs`` None)."""
    return host_tiling((numel,), (numel,), info, platform)


def shaped_tiling(shapes, info: DTypeInfo, attrs, platform: Platform) -> OpTiling:
    """Inputs of different shapes: the 950 walks them as they are; the A2's op_api broadcasts both to the
    result's shape first (BroadcastTo), so its host tiles the broadcast size."""
    if platform.architecture == ARCH_950:
        return host_tiling(*shapes, info, platform)
    numel = int(np.prod(np.broadcast_shapes(*shapes)))
    return host_tiling((numel,), (numel,), info, platform)


def shaped_launch(arrays, out, tiling: OpTiling, info: DTypeInfo, saturation: bool = False,
                  axpy_rounding: str = "fused") -> None:
    """``arrays`` ``(dy, x)`` of different shapes into ``out`` (their broadcast shape, C-contiguous): the 950's
    broadcast walk, or the A2's kernel over both broadcast (BroadcastTo, a copy)."""
    dy, x = arrays
    if tiling.architecture == ARCH_950:
        run_arch35(np.ascontiguousarray(dy), np.ascontiguousarray(x), out, tiling, info, axpy_rounding)
    else:
        broadcast_copies(arrays, out.shape, lambda dy, x: run_a2(dy, x, out, tiling, info, saturation))


def broadcast_copies(arrays, shape, launch) -> None:
    """``launch(dy, x)`` over ``arrays`` broadcast to ``shape`` (the A2 op_api's BroadcastTo: copies),
    contiguous and both writeable or both read-only (the walk takes its inputs as one tuple)."""
    dy, x = (np.ascontiguousarray(a) if a.shape == shape else np.broadcast_to(a, shape).copy() for a in arrays)
    if dy.flags.writeable != x.flags.writeable:
        dy, x = (a if a.flags.writeable else a.copy() for a in (dy, x))
    launch(dy, x)
