"""SiluGrad's host side for its description (:mod:`.description`): :func:`host_tiling`, the host tiling of
the kernel the platform's SoC runs; the registry's host tiling of equal shapes (:func:`registry_host_tiling`);
the broadcast inputs' tiling and launch on the 950 (:func:`shaped_tiling`, :func:`shaped_launch`); and
:data:`KERNELS`, the kernels by architecture."""
from __future__ import annotations

import functools
import math

from ...platform import ARCH_950, ARCH_A2, REFERENCE_PLATFORM, Platform
from ..registry import Kernel, OpTiling
from .a2 import A2_TILING_DTYPE, SCH_MODE_SINGLE, a2_host_tiling, a2_walk_check
from .arch35 import ARCH35_TILING_DTYPE, arch35_host_tiling, arch35_walk_check
from .launch import run, run_arch35
from .names import NAME
from .program import device_instructions, programs

__all__ = ["host_tiling", "registry_host_tiling", "shaped_tiling", "shaped_launch", "KERNELS"]


def host_tiling(dy_shape, x_shape, dy_dtype, x_dtype, platform: Platform | None = None):
    """The host tiling of the kernel ``platform``'s SoC runs (A2 by default).

    The A2 kernel takes one dtype and one shape (its numel is ``dy``'s);
    the 950's takes any pair the op_api lets through.
    """
    platform = platform or REFERENCE_PLATFORM
    if platform.architecture == ARCH_950:
        return arch35_host_tiling(dy_shape, x_shape, dy_dtype, x_dtype, platform)
    return a2_host_tiling(math.prod(dy_shape), dy_dtype, platform)


def registry_host_tiling(numel, info, beta32, platform) -> OpTiling:
    """The host tiling of a same-dtype, unbroadcast launch of ``numel`` elements, as an OpTiling; a ValueError
    where the A2 host's UB holds no tile (``tileDataNum`` 0: the kernel would never finish)."""
    tiling = host_tiling((numel,), (numel,), info, info, platform)
    if platform.architecture != ARCH_950 and int(tiling.record["tileDataNum"]) < 1:
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the A2 SiluGrad host gives "
                         f"tileDataNum 0 (the UB holds no tile; the kernel would never finish)")
    return OpTiling(op=NAME, architecture=platform.architecture, data=tiling.record, block_dim=tiling.block_dim,
                    tiling_key=tiling.tiling_key, workspace_size=tiling.workspace_size)


def shaped_tiling(shapes, info, attr32, platform: Platform):
    """The 950 host tiling of inputs of different shapes (one dtype: the op_api's promoted one), cached per
    shapes, dtype and platform as the hand-written face cached it."""
    return _cached_shaped(tuple(map(tuple, shapes)), info.name, platform)


@functools.lru_cache(maxsize=256)
def _cached_shaped(shapes, dtype_name, platform):
    return arch35_host_tiling(shapes[0], shapes[1], dtype_name, dtype_name, platform)


def shaped_launch(arrays, out, tiling, info) -> None:
    """The 950 kernel on the broadcast walk over C-contiguous ``arrays`` (their own shapes) into ``out``."""
    run_arch35(arrays[0], arrays[1], out, tiling)


#: The kernels by architecture.
KERNELS = {
    ARCH_A2: Kernel(ARCH_A2, "experimental/activation/silu_grad", "SiluGradTilingData", A2_TILING_DTYPE,
                    "CAST_RINT", a2_walk_check, run, functools.partial(device_instructions, ARCH_A2),
                    # schMode (the tiling key) 0 is single-buffered, 1 double
                    lambda tiling: 1 if tiling.tiling_key == SCH_MODE_SINGLE else 2,
                    programs=functools.partial(programs, ARCH_A2)),
    ARCH_950: Kernel(ARCH_950, "activation/silu_grad (arch35)", "SiluGradTilingData", ARCH35_TILING_DTYPE,
                     "CAST_RINT", arch35_walk_check, run, programs=functools.partial(programs, ARCH_950),
                     walk="broadcast"),
}
