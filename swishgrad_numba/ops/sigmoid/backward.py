"""SigmoidGrad (aclnnSigmoidBackward) on the AI Core kernels: host tilings, buffer plans, programs,
kernels (registered by :mod:`.description`).

docs/model.md "SigmoidBackward (aclnnSigmoidBackward)" and docs/activation_tiling.md give the
sources. ``z = dy * y * (1 - y)`` with ``y`` the forward's output, multiplied in a different order
by each kernel (the quirk the model documents):

- Atlas A2 (``experimental/activation/sigmoid_grad``): ``t = 1 - y; t = t * y; z = dy * t``
  (``sigmoid_grad.h:121-127`` 16-bit, ``:132-135`` float32); SwishGrad's split (``split_blocks``) with
  ``ubDataNumber`` 10 (float32) / 16 and the platform's UB block; key 0.
- Ascend 950 (``activation/sigmoid_grad``, arch35): ``t = 1 - y; t = dy * t; z = t * y``
  (``sigmoid_grad_f32.h:121-123``); opbase ElewiseTiling with ``bufferDivisor`` 192 / 96 bits, three
  queues of two slots of the dtype; key ``opKey * 10^14 + 100``.

The upstream operator takes ``(y, dy)`` (``op_api/sigmoid_grad.cpp:43``); the programs here take
``(dy, y)``, the registry's ``(grad, x)`` order, and name them so.
"""
from __future__ import annotations

import functools

from ...dtypes import DTypeInfo
from ...platform import ARCH_950, ARCH_A2, Platform
from ...program.elementwise import elementwise
from ...program.form import V
from ...spec import a2 as spec_a2
from ...tiling.records import checked_record
from ..registry import Kernel, OpTiling
from . import shared
from .shared import A2_RECORD_DTYPE, ARCH35_RECORD_DTYPE

__all__ = ["NAME", "A2_UB_DATA_NUMBER", "ARCH35_BUFFER_SLOTS", "BODIES", "a2_host_tiling", "a2_buffer_plan",
           "host_tiling", "programs", "run", "KERNELS", "registry_host_tiling"]

NAME = "sigmoid_grad"
#: ``UB_NUM_FLOAT`` / ``UB_NUM_OTHER`` (``sigmoid_grad_tiling.cpp:30-31``).
A2_UB_DATA_NUMBER = {4: 10, 2: 16}
#: The 950 kernel's queues: y, dy in and z out, two slots each (``sigmoid_grad_f32.h:41-45``).
ARCH35_BUFFER_SLOTS = 6
#: The A2 host's only key (``GET_TPL_TILING_KEY(ELEMENTWISE_TPL_SCH_MODE_0)``, :176).
A2_TILING_KEY = 0


def a2_host_tiling(numel, itemsize, ub_size, core_num, block_size):
    """``SigmoidGradTilingFunc``: ``(accepted, block_dim, fields)``; ``accepted`` false where
    ``tileBlockNum`` is 0. ``numel >= 1``."""
    tile_block_num = (ub_size // block_size) // A2_UB_DATA_NUMBER[itemsize]
    block_dim, fields = spec_a2.split_blocks(numel, itemsize, max(tile_block_num, 1), core_num, block_size)
    return tile_block_num > 0, block_dim, fields


def a2_buffer_plan(itemsize: int) -> tuple:
    """The A2 kernel's UB plan per tile element (``sigmoid_grad.h:82-89``): the x, y, z queues of two
    slots, a float32 scratch tile, two more (the widened inputs) for 16-bit."""
    return ((2, itemsize),) * 3 + ((1, 4),) + (((2, 4),) if itemsize == 2 else ())


def host_tiling(numel: int, info: DTypeInfo, platform: Platform) -> OpTiling:
    """The host tiling of ``numel`` (>= 1) elements of both inputs for the platform's kernel."""
    b = info.itemsize
    if platform.architecture == ARCH_950:
        return shared.arch35_host_tiling(NAME, "SigmoidGrad", numel, info, platform.ub_size, platform.core_num,
                                         ARCH35_BUFFER_SLOTS)
    accepted, block_dim, f = a2_host_tiling(numel, b, platform.ub_size, platform.core_num, platform.block_size)
    if not accepted:
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the A2 SigmoidGrad host needs "
                         f"at least {A2_UB_DATA_NUMBER[b] * platform.block_size} bytes (a block per tile unit)")
    return OpTiling(NAME, ARCH_A2, checked_record(A2_RECORD_DTYPE, f._asdict()), int(block_dim), A2_TILING_KEY,
                    platform.lib_workspace_size)


def registry_host_tiling(numel, info, beta32, platform):
    return host_tiling(numel, info, platform)

# ---------------------------------------------------------------- the programs

#: Each kernel's float32 Compute, inputs ``dy`` and ``y`` read as ``dyf`` and ``yf``, result ``z``.
BODIES = {
    ARCH_A2: (V.Duplicate("t", 1.0), V.Sub("t", "t", "yf"), V.Mul("t", "t", "yf"), V.Mul("z", "dyf", "t")),
    ARCH_950: (V.Duplicate("one", 1.0), V.Sub("t", "one", "yf"), V.Mul("t", "dyf", "t"), V.Mul("z", "t", "yf")),
}


def programs(architecture: str, dtype: str, variant: str = "main"):
    """SigmoidGrad's program of kernel ``architecture`` for ``dtype`` (inputs ``dy``, ``y``)."""
    if variant != "main":
        raise ValueError(f"no SigmoidGrad variant {variant!r}")
    name = "SigmoidGrad" if architecture == ARCH_A2 else "SigmoidGradArch35"
    return elementwise(name, (("dy", "dyf"), ("y", "yf")), BODIES[architecture], "z", dtype)


def _device_instructions(architecture, tiling, itemsize):
    return programs(architecture, "float32" if itemsize == 4 else "float16").instructions()

# ---------------------------------------------------------------- validator and launch


def _a2_walk_check(tiling: OpTiling, numel, info: DTypeInfo, platform):
    # the kernel ignores the key (sigmoid_grad.cpp:18-26)
    return shared.a2_walk_check(tiling, a2_buffer_plan(info.itemsize))


def _arch35_walk_check(tiling: OpTiling, numel, info: DTypeInfo, platform):
    return shared.arch35_walk_check(tiling, info, ARCH35_BUFFER_SLOTS)


def run(grad, x, out, tiling: OpTiling, saturation: bool = False) -> None:
    """The kernel with a checked record over flat contiguous ``grad`` (dy), ``x`` (the forward's output
    y) and ``out``."""
    if grad is None:
        raise ValueError("grad must be an array for sigmoid_grad (its gradOutput)")
    shared.run_kernel(NAME, (grad, x), out, tiling, saturation)


#: The kernels per architecture (the description, :mod:`.description`, registers the operator).
KERNELS = {
    ARCH_A2: Kernel(ARCH_A2, "experimental/activation/sigmoid_grad", "SigmoidGradTilingData", A2_RECORD_DTYPE,
        "CAST_RINT", _a2_walk_check, run, functools.partial(_device_instructions, ARCH_A2),
        programs=functools.partial(programs, ARCH_A2)),
    ARCH_950: Kernel(ARCH_950, "activation/sigmoid_grad (arch35)", "SigmoidGradTilingData", ARCH35_RECORD_DTYPE,
        "CAST_RINT", _arch35_walk_check, run, functools.partial(_device_instructions, ARCH_950),
        programs=functools.partial(programs, ARCH_950))}
