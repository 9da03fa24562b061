"""HardSwishGrad, the operator behind aclnnHardswishBackward: an Atlas A2 and an Ascend 950 kernel.

docs/model.md, "Hardswish and HardswishBackward", cites every fact here.

- Ascend 950 (``activation/hard_swish_grad/op_kernel/arch35/hard_swish_grad.h:140-186``): ``d = x *
  (float)(1.0 / 3.0) + 0.5``; ``CompareScalar(x, -3, GE)`` then ``Select(d, 0)``; ``CompareScalar(x, 3,
  LE)`` then ``Select(d, 1)``; ``grad * d``. **Inclusive** masks: x = -3 gives ``grad * -0.5``, x = 3
  ``grad * 1.5`` (torch's values there). 16-bit narrowed with CAST_RINT. Host
  (``op_host/arch35/hard_swish_grad_tiling_arch35.cpp:123-157``): double buffering where ``n > 1024``;
  ``ubFactor = FloorAlign(ubSize / typeSize / bufferNum, 64)`` with bufferNum 8/5 (float32, double/single)
  or 11/8 (16-bit); key from ``(D_T_X, BUFFER_MODE)``.
- Atlas A2 (``experimental/activation/hard_swish_grad/op_kernel/hard_swish_grad.h:119-204``): tensors of
  -3, 3, 0 and 1 duplicated once in ``Init``; ``Compare(x, -3, GT)``, ``Compare(x, 3, LT)`` (**strict**:
  x = -3 gives ``grad * 0``, x = 3 ``grad * 1``), ``d = x * 0.333333343f + 0.5``, two Selects, ``grad *
  d``; float16 narrowed with CAST_NONE (a narrowing CAST_NONE rounds to nearest even, as CAST_RINT),
  bfloat16 with CAST_RINT. Host (``op_host/hard_swish_grad_tiling.cpp:140-162``): ``ubFactor =
  FloorAlign((ubSize - 1024) / 48, 64)``; key = schMode (float16 0, float32 1, bfloat16 2).

Both: a NaN x fails both comparisons and gives ``grad * 1``; an infinite grad where the slope is 0 gives
NaN (``inf * 0``); the slope constant is 0.333333343f on both (``(T)(1.0 / 3.0)``).
"""
from __future__ import annotations

import numpy as np

from ... import kernel as kernel_pkg
from ...dtypes import FLOAT32, DTypeInfo, dtype_info
from ...platform import ARCH_950, ARCH_A2, Platform
from ...program import compiled
from ...program.elementwise import elementwise
from ...program.form import Const, V
from ..registry import Kernel, OpTiling, WalkCheck
from .split import RECORD_DTYPE, check_split, read_only, record, used_cores, walk_fields

__all__ = ["NAME", "RECORD_DTYPE", "DOUBLE_BUFFER_ABOVE", "ALIGN", "A2_UB_RESERVE", "A2_BYTES_PER_ELEMENT",
           "A2_SCH_MODE", "ARCH35_DTYPES", "mask_bytes", "double_buffer", "arch35_buffer_num", "arch35_key",
           "host_tiling", "a2_buffer_plan", "arch35_buffer_plan", "programs_a2", "programs_arch35",
           "a2_walk_check", "arch35_walk_check", "run", "KERNELS"]

NAME = "hardswish_grad"
#: ``MIN_SPLIT_THRESHOLD`` (950 host :41): more elements than this turn double buffering on.
DOUBLE_BUFFER_ABOVE = 1024
#: ubFactor's alignment on both hosts: ``max(GetUbBlockSize() = 32, 64)`` elements.
ALIGN = 64
#: The A2 host's ``UB_MASK_RESERVE`` and ``BYTES_PER_ELEMENT`` (:33-35).
A2_UB_RESERVE, A2_BYTES_PER_ELEMENT = 1024, 48
#: ``HARDSWISHGRAD_TPL_SCH_MODE_*`` (A2 ``hard_swish_grad_tiling_key.h:21-23``).
A2_SCH_MODE = {"float16": 0, "float32": 1, "bfloat16": 2}
#: The 950's ``ASCENDC_TPL_DATATYPE_DECL(D_T_X, C_DT_FLOAT, C_DT_FLOAT16, C_DT_BF16)`` order.
ARCH35_DTYPES = ("float32", "float16", "bfloat16")


def mask_bytes(ub_factor: int) -> int:
    """One mask of a bit per element, 256-byte aligned (both kernels' ``Init``)."""
    return -(-(-(-ub_factor // 8)) // 256) * 256


def double_buffer(numel: int) -> bool:
    return numel > DOUBLE_BUFFER_ABOVE


def arch35_buffer_num(itemsize: int, double: bool) -> int:
    """``SIZE_8``/``SIZE_5`` (float32) and ``SIZE_11``/``SIZE_8`` (16-bit) (950 host :139-145)."""
    return (8 if double else 5) if itemsize == 4 else (11 if double else 8)


def arch35_key(dtype: str, double: bool) -> int:
    """``ASCENDC_TPL_SEL_PARAM(dTypeX, useDoubleBuffer)``: taken as the row's position in the
    ``ASCENDC_TPL_SEL`` list (float32 0/1, float16 2/3, bfloat16 4/5); the template's encoding is not traced."""
    return 2 * ARCH35_DTYPES.index(dtype) + int(double)


def host_tiling(numel: int, info: DTypeInfo, attrs, platform: Platform) -> OpTiling:
    """The host tiling of ``numel`` (>= 1) elements on ``platform``'s kernel (no attributes)."""
    block_factor, cores = used_cores(numel, platform.core_num)
    if platform.architecture == ARCH_950:
        double = double_buffer(numel)
        ub = (platform.ub_size // info.itemsize // arch35_buffer_num(info.itemsize, double)) // ALIGN * ALIGN
        key = arch35_key(info.name, double)
    else:
        available = platform.ub_size - A2_UB_RESERVE
        if available <= 0:
            raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the A2 HardSwishGrad "
                             f"host keeps {A2_UB_RESERVE} bytes for its masks")
        ub = available // A2_BYTES_PER_ELEMENT // ALIGN * ALIGN
        key = A2_SCH_MODE[info.name]
    if ub <= 0:
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the HardSwishGrad host's "
                         f"ubFactor is {ub}")
    return OpTiling(NAME, platform.architecture, record(numel, block_factor, ub), int(cores), key, 0)


def a2_buffer_plan(itemsize: int) -> tuple:
    """A2 ``Init``: x, grad and y queues of one slot; 16-bit adds two float32 buffers (x and grad widened);
    five float32 buffers (slope and the duplicated -3, 3, 0, 1)."""
    return ((3, itemsize), (5 + 2 * (itemsize != 4), 4))


def arch35_buffer_plan(itemsize: int, double: bool) -> tuple:
    """950 ``Init``: grad, self and result queues of one or two slots; one float32 buffer (float32) or two."""
    return ((3 * (2 if double else 1), itemsize), (1 if itemsize == 4 else 2, 4))

# ---------------------------------------------------------------- the programs


_ARCH35_BODY = (
    V.Muls("d", "xf", Const.of("1.0 / 3.0")),     # (T)(1.0 / 3.0) = 0.333333343f
    V.Adds("d", "d", 0.5),
    V.CompareScalar("m", "xf", -3.0, "GE"),
    V.Select("d", "d", 0.0, "m"),                 # x >= -3 ? d : 0
    V.CompareScalar("m", "xf", 3.0, "LE"),
    V.Select("d", "d", 1.0, "m"),                 # x <= 3 ? d : 1
    V.Mul("r", "g", "d"),
)
_A2_BODY = (
    V.Duplicate("lower", -3.0), V.Duplicate("upper", 3.0),       # Init (once per core)
    V.Duplicate("zero", 0.0), V.Duplicate("one", 1.0),
    V.Compare("gt", "xf", "lower", "GT"),
    V.Compare("lt", "xf", "upper", "LT"),
    V.Muls("d", "xf", 0.333333343),
    V.Adds("d", "d", 0.5),
    V.Select("d", "d", "zero", "gt"),             # x > -3 ? d : 0
    V.Select("d", "d", "one", "lt"),              # x < 3 ? d : 1
    V.Mul("r", "g", "d"),
)
_INPUTS = (("grad", "g"), ("x", "xf"))


def programs_arch35(dtype: str, variant: str = "main"):
    if variant != "main":
        raise ValueError(f"no 950 HardSwishGrad variant {variant!r}")
    return elementwise("HardSwishGrad950", _INPUTS, _ARCH35_BODY, "r", dtype, "CAST_RINT", masks=("m",))


def programs_a2(dtype: str, variant: str = "main"):
    if variant != "main":
        raise ValueError(f"no A2 HardSwishGrad variant {variant!r}")
    return elementwise("HardSwishGradA2", _INPUTS, _A2_BODY, "r", dtype, "CAST_RINT", masks=("gt", "lt"))

# ---------------------------------------------------------------- records checked and run


def a2_walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    ub = max(int(tiling["ubFactor"]), 0)
    return check_split(tiling, numel, a2_buffer_plan(info.itemsize), 2 * max(mask_bytes(ub), 256),
                       platform.ub_size, A2_SCH_MODE[info.name], f"schMode for {info.name}", ALIGN)


def arch35_walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    double = double_buffer(int(tiling["totalNum"]))
    ub = max(int(tiling["ubFactor"]), 0)
    return check_split(tiling, numel, arch35_buffer_plan(info.itemsize, double), mask_bytes(ub), platform.ub_size,
                       arch35_key(info.name, double), f"{info.name}, BUFFER_MODE {int(double)}", ALIGN)


def _bits(a: np.ndarray, info: DTypeInfo) -> np.ndarray:
    return a if info is FLOAT32 else a.view(np.uint16)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling, saturation: bool = False) -> None:
    """The kernel with a checked record over flat contiguous ``grad``, ``x`` and ``out`` of one dtype;
    ``saturation``: the A2 in the saturation overflow mode (the 950 has the Inf/NaN mode only)."""
    if grad is None:
        raise ValueError(f"grad must be an array for {NAME!r} (its gradOutput)")
    info = dtype_info(out.dtype, argname="out.dtype")
    params = compiled(NAME, tiling.architecture, info.name, "main", saturation).params()
    plan = kernel_pkg.plan_launch(walk_fields(tiling), tiling.block_dim, kernel_pkg.ARCH_A2, out.size)
    ins = (read_only(_bits(grad, info)), read_only(_bits(x, info)))
    kernel_pkg.run_walk(params, ins, _bits(out, info), plan)


def _instructions(programs):
    return lambda tiling, itemsize: programs("float32" if itemsize == 4 else "float16").instructions()


def _a2_queue_buffers(tiling: OpTiling) -> int:
    return 1


def _arch35_queue_buffers(tiling: OpTiling) -> int:
    return 2 if double_buffer(int(tiling["totalNum"])) else 1


#: The kernels by architecture (the operator is described in :mod:`.backward_description`).
KERNELS = {ARCH_A2: Kernel(ARCH_A2, "experimental/activation/hard_swish_grad", "HardSwishGradTilingData",
                           RECORD_DTYPE, "CAST_RINT", a2_walk_check, run, _instructions(programs_a2),
                           _a2_queue_buffers, programs=programs_a2),
           ARCH_950: Kernel(ARCH_950, "activation/hard_swish_grad (arch35)", "HardSwishGradTilingData",
                            RECORD_DTYPE, "CAST_RINT", arch35_walk_check, run, _instructions(programs_arch35),
                            _arch35_queue_buffers, programs=programs_arch35)}
