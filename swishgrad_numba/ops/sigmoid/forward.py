"""Sigmoid (aclnnSigmoid, aclnnInplaceSigmoid): host tilings, buffer plans, programs, kernels (registered by
:mod:`.description`).

docs/model.md "Sigmoid (aclnnSigmoid, aclnnInplaceSigmoid)" and docs/activation_tiling.md give the
sources. Both kernels compute ``1 / (exp(-x) + 1)`` in float32, one rounding per instruction:

- Atlas A2 (``experimental/activation/sigmoid``, ``op_host/arch22/sigmoid_tiling.cpp``): 1,024 bytes of
  the UB reserved, ``min(ceil(n / 1024), cores)`` cores, ``ubDataNumber`` 3 (float32) / 4 (16-bit),
  single-buffered (key 1) when the whole tensor fits the cores' UB and ``n < 1024 * cores``, else
  double-buffered (key 0); the kernel's one ``TQueBind`` holds x in the upper half of a slot of
  ``2 * tileDataNum`` elements, plus a float32 tile of ones filled in ``Init``.
- Ascend 950 (``activation/sigmoid``, arch35): opbase ElewiseTiling with ``bufferDivisor`` 128 bits
  (float32) / 64 (16-bit), i.e. two queues of two slots of the dtype; key ``opKey * 10^14 + 100``.
"""
from __future__ import annotations

import functools

from ...dtypes import DTypeInfo
from ...platform import ARCH_950, ARCH_A2, Platform
from ...program.elementwise import elementwise
from ...program.form import V
from ...spec import a2 as spec_a2
from ...spec.arith import ceil_div
from ...tiling.findings import finding
from ...tiling.records import checked_record
from ..registry import Kernel, OpTiling
from . import shared
from .shared import A2_BLOCK_SIZE, A2_RECORD_DTYPE, ARCH35_RECORD_DTYPE

__all__ = ["NAME", "A2_UB_RESERVED", "A2_TILE_SPLIT", "A2_UB_DATA_NUMBER", "KEY_DOUBLE", "KEY_SINGLE",
           "ARCH35_BUFFER_SLOTS", "a2_host_tiling", "a2_buffer_plan", "host_tiling", "programs", "run", "KERNELS",
           "registry_host_tiling"]

NAME = "sigmoid"
#: ``UB_RESERVED_BYTE``, ``TILE_SPLIT_NUM``, ``DATA_NUM_BIT32/16`` (``sigmoid_tiling.cpp:30-37``).
A2_UB_RESERVED = 1024
A2_TILE_SPLIT = 1024
A2_UB_DATA_NUMBER = {4: 3, 2: 4}
#: The A2 tiling keys: 0 double-buffered (``BUFFER_NUM`` 2), 1 single (``sigmoid.cpp:21-41``).
KEY_DOUBLE, KEY_SINGLE = 0, 1
#: The 950 kernel's queues: x in and y out, two slots each (``sigmoid_f32.h:40-43``).
ARCH35_BUFFER_SLOTS = 4


def a2_host_tiling(numel, itemsize, ub_size, core_num):
    """``SigmoidTilingFunc`` (``sigmoid_tiling.cpp:99-198``): ``(accepted, block_dim, fields, buffer_num)``,
    ``fields`` a ``spec.a2.TilingFields``; ``accepted`` false where ``tileBlockNum`` is 0. ``numel >= 1``."""
    ub = ub_size - A2_UB_RESERVED
    cores = min(ceil_div(numel, A2_TILE_SPLIT), core_num)
    udn = A2_UB_DATA_NUMBER[itemsize]
    aligned = ceil_div(numel * itemsize, A2_BLOCK_SIZE) * A2_BLOCK_SIZE
    buffer_num = 1 if aligned * udn <= cores * ub and numel < A2_TILE_SPLIT * cores else 2
    tile_block_num = (max(ub, 0) // buffer_num // A2_BLOCK_SIZE) // udn
    fields = spec_a2.split_over(numel, itemsize, max(tile_block_num, 1), cores, A2_BLOCK_SIZE)
    return tile_block_num > 0, cores, fields, buffer_num


def a2_buffer_plan(buffer_num: int, itemsize: int) -> tuple:
    """The A2 kernel's UB plan per tile element: ``buffer_num`` slots of two elements, one float32 of ones."""
    return ((buffer_num, 2 * itemsize), (1, 4))


def host_tiling(numel: int, info: DTypeInfo, platform: Platform) -> OpTiling:
    """The host tiling of ``numel`` (>= 1) elements for the kernel the platform's SoC runs; a ValueError
    where that host fails."""
    b = info.itemsize
    if platform.architecture == ARCH_950:
        return shared.arch35_host_tiling(NAME, "Sigmoid", numel, info, platform.ub_size, platform.core_num,
                                         ARCH35_BUFFER_SLOTS)
    accepted, block_dim, f, buffer_num = a2_host_tiling(numel, b, platform.ub_size, platform.core_num)
    if not accepted:
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the A2 Sigmoid host keeps "
                         f"{A2_UB_RESERVED} bytes and needs a block per tile buffer")
    data = checked_record(A2_RECORD_DTYPE, f._asdict())
    return OpTiling(NAME, ARCH_A2, data, int(block_dim), KEY_SINGLE if buffer_num == 1 else KEY_DOUBLE,
                    platform.lib_workspace_size)


def registry_host_tiling(numel, info, beta32, platform):
    return host_tiling(numel, info, platform)

# ---------------------------------------------------------------- the program (both kernels)

#: A2 ``sigmoid.h:113-124`` (ones by ``Duplicate`` in ``Init``, 85-88); 950 ``sigmoid_f32.h:100-105``.
BODY = (V.Duplicate("one", 1.0), V.Muls("t", "xf", -1.0), V.Exp("t", "t"), V.Adds("t", "t", 1.0),
        V.Div("y", "one", "t"))


def programs(architecture: str, dtype: str, variant: str = "main"):
    """Sigmoid's program for ``dtype`` (both kernels run the same steps)."""
    if variant != "main":
        raise ValueError(f"no Sigmoid variant {variant!r}")
    name = "Sigmoid" if architecture == ARCH_A2 else "SigmoidArch35"
    return elementwise(name, (("x", "xf"),), BODY, "y", dtype)


def _device_instructions(architecture, tiling, itemsize):
    """One tile's (950: UB loop's) instructions; the A2 fills its ones once, in ``Init``."""
    steps = programs(architecture, "float32" if itemsize == 4 else "float16").instructions()
    return tuple(s for s in steps if not (architecture == ARCH_A2 and s == "Duplicate"))

# ---------------------------------------------------------------- validator and launch


def _a2_walk_check(tiling: OpTiling, numel, info: DTypeInfo, platform):
    key = tiling.tiling_key
    own = () if key in (KEY_DOUBLE, KEY_SINGLE) else (finding(
        "TILING_KEY_MISMATCH", f"tiling key {key}; the A2 Sigmoid kernel has schMode {KEY_DOUBLE} (double "
                               f"buffering) and {KEY_SINGLE} (single)."),)
    return shared.a2_walk_check(tiling, a2_buffer_plan(1 if key == KEY_SINGLE else 2, info.itemsize), own)


def _arch35_walk_check(tiling: OpTiling, numel, info: DTypeInfo, platform):
    return shared.arch35_walk_check(tiling, info, ARCH35_BUFFER_SLOTS)


def run(grad, x, out, tiling: OpTiling, saturation: bool = False) -> None:
    """The kernel with a checked record over flat contiguous ``x`` and ``out`` (``grad`` None)."""
    if grad is not None:
        raise ValueError("grad must be None for the forward operator 'sigmoid' (it reads x only)")
    shared.run_kernel(NAME, (x,), out, tiling, saturation)


#: The kernels per architecture (the description, :mod:`.description`, registers the operator).
KERNELS = {
    ARCH_A2: Kernel(ARCH_A2, "experimental/activation/sigmoid", "SigmoidTilingData", A2_RECORD_DTYPE, "CAST_RINT",
        _a2_walk_check, run, functools.partial(_device_instructions, ARCH_A2),
        lambda tiling: 1 if tiling.tiling_key == KEY_SINGLE else 2,
        programs=functools.partial(programs, ARCH_A2)),
    ARCH_950: Kernel(ARCH_950, "activation/sigmoid (arch35)", "SigmoidTilingData", ARCH35_RECORD_DTYPE,
        "CAST_RINT", _arch35_walk_check, run, functools.partial(_device_instructions, ARCH_950),
        programs=functools.partial(programs, ARCH_950))}
