"""HardSwish, the operator behind aclnnHardswish and aclnnInplaceHardswish: Ascend 950 kernel only.

docs/model.md, "Hardswish and HardswishBackward", cites every fact here (ops-nn ``activation/hard_swish``).

- Kernel (``op_kernel/arch35/hard_swish.h``): a class-style TPipe kernel, one class per dtype
  (``HardSwish<float>``, ``HardSwishFp16``, ``HardSwishBf16``), each Compute on float32: ``Adds 3``,
  ``Mins 6``, ``Maxs 0`` (the clamp), ``Maxs(x, -3)`` (the kernel's "ISSUE-001 fix": x = -inf gives
  ``-3 * 0 = 0``, not NaN), ``Mul``, ``Muls(1.0f / 6.0f)``; 16-bit x widened with CAST_NONE, the result
  narrowed with **CAST_ROUND**.
- Host (``op_host/arch35/hard_swish_tiling.cpp``): ``blockFactor = CeilDiv(n, coreNum)``; ``ubFactor =
  FloorAlign(ubSize / 4 / BUFFER_NUM, ubBlockSize)`` with ``BUFFER_NUM`` 6 (float32) or 8 (16-bit: the
  fp32 size is used for both), ``ubBlockSize`` 32 taken as an element count; the key is the schMode 0/1/2
  (float32, float16, bfloat16).
- No A2 kernel: ops-nn has no ``experimental/activation/hard_swish``, so an A2 platform is refused.
"""
from __future__ import annotations

import numpy as np

from ... import kernel as kernel_pkg
from ...dtypes import FLOAT32, DTypeInfo, dtype_info
from ...platform import ARCH_950, Platform
from ...program import compiled
from ...program.elementwise import elementwise
from ...program.form import Const, V
from ..registry import Kernel, OpTiling, WalkCheck
from .split import RECORD_DTYPE, check_split, record, used_cores, walk_fields

__all__ = ["NAME", "RECORD_DTYPE", "NO_A2_KERNEL", "SCH_MODE", "BUFFER_NUM", "UB_BLOCK", "ub_factor",
           "host_tiling", "buffer_plan", "programs", "walk_check", "run", "KERNELS"]

NAME = "hardswish"
NO_A2_KERNEL = ("ops-nn has a HardSwish kernel for the Ascend 950 only (activation/hard_swish/op_kernel/arch35; "
                "there is no experimental/activation/hard_swish), so the kernel a real A2 runs is not public and "
                "is not emulated; use an Ascend 950 platform")
#: ``HARDSWISH_TPL_SCH_MODE_*`` (``hard_swish_tiling_key.h:31-33``): the tiling key by dtype.
SCH_MODE = {"float32": 0, "float16": 1, "bfloat16": 2}
#: ``BUFFER_NUM_FP32`` / ``_FP16`` / ``_BF16`` (``hard_swish_tiling.cpp:44-49``), by itemsize.
BUFFER_NUM = {4: 6, 2: 8}
#: ``GetUbBlockSize``: 32 bytes, used by the host as an element count (``FloorAlign(..., ubBlockSize)``).
UB_BLOCK = 32


def ub_factor(itemsize: int, ub_size: int) -> int:
    """``FloorAlign(FloorDiv(ubSize / sizeof(float), BUFFER_NUM), ubBlockSize)`` (:134-145)."""
    return ub_size // 4 // BUFFER_NUM[itemsize] // UB_BLOCK * UB_BLOCK


def host_tiling(numel: int, info: DTypeInfo, attrs, platform: Platform) -> OpTiling:
    """``HardSwishTilingFunc`` of ``numel`` (>= 1) elements on a 950 platform (no attributes)."""
    if platform.architecture != ARCH_950:
        raise ValueError(f"platform (soc_version {platform.soc_version!r}) cannot run {NAME}: {NO_A2_KERNEL}")
    ub = ub_factor(info.itemsize, platform.ub_size)
    if ub <= 0:
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the HardSwish host's "
                         f"ubFactor is {ub} (it refuses ubFactor <= 0)")
    block_factor, cores = used_cores(numel, platform.core_num)
    return OpTiling(NAME, ARCH_950, record(numel, block_factor, ub), int(cores), SCH_MODE[info.name], 0)


def buffer_plan(itemsize: int) -> tuple:
    """``Init``: x, tmp and y queues of two slots (float32); 16-bit: the 16-bit x and y queues and two
    float32 ones (x widened, tmp)."""
    return ((6, 4),) if itemsize == 4 else ((4, 2), (4, 4))

# ---------------------------------------------------------------- the program (hard_swish.h:114-126, 226-236)


_BODY = (
    V.Adds("t", "xf", 3.0),                      # tmp = x + 3
    V.Mins("t", "t", 6.0),                       # min(tmp, 6)
    V.Maxs("t", "t", 0.0),                       # max(tmp, 0)
    V.Maxs("xm", "xf", -3.0),                    # x = max(x, -3)  (ISSUE-001)
    V.Mul("y", "xm", "t"),                       # x * clamp(x + 3, 0, 6)
    V.Muls("y", "y", Const.of("1.0 / 6.0")),     # * (1.0f / 6.0f)
)


def programs(dtype: str, variant: str = "main"):
    """The Compute for ``dtype``: 16-bit x widened first, the result narrowed with CAST_ROUND."""
    if variant != "main":
        raise ValueError(f"no HardSwish variant {variant!r}")
    return elementwise("HardSwish", (("x", "xf"),), _BODY, "y", dtype, "CAST_ROUND")

# ---------------------------------------------------------------- a record, checked and run


def walk_check(tiling: OpTiling, numel: int, info: DTypeInfo, platform: Platform) -> WalkCheck:
    return check_split(tiling, numel, buffer_plan(info.itemsize), 0, platform.ub_size, SCH_MODE[info.name],
                       f"schMode for {info.name}", UB_BLOCK)


def _bits(a: np.ndarray, info: DTypeInfo) -> np.ndarray:
    return a if info is FLOAT32 else a.view(np.uint16)


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling) -> None:
    """The kernel with a checked record over flat contiguous ``x`` and ``out`` (``grad`` None)."""
    if grad is not None:
        raise ValueError(f"grad must be None for the forward operator {NAME!r} (it reads x only)")
    info = dtype_info(out.dtype, argname="out.dtype")
    params = compiled(NAME, ARCH_950, info.name).params()
    plan = kernel_pkg.plan_launch(walk_fields(tiling), tiling.block_dim, kernel_pkg.ARCH_A2, out.size)
    kernel_pkg.run_walk(params, (_bits(x, info),), _bits(out, info), plan)


def _device_instructions(tiling: OpTiling, itemsize: int) -> tuple:
    return programs("float32" if itemsize == 4 else "float16").instructions()


#: The kernels by architecture, the 950's only (the operator is described in :mod:`.description`).
KERNELS = {ARCH_950: Kernel(ARCH_950, "activation/hard_swish (arch35)", "HardSwishTilingData", RECORD_DTYPE,
                            "CAST_ROUND", walk_check, run, _device_instructions, programs=programs)}
