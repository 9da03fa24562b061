"""The host tiling: :func:`compute_tiling`, for the kernel the platform's SoC runs.

Plain Python that checks and decides; the arithmetic itself is the spec/ package's
core's (:mod:`swishgrad_numba.spec`), evaluated on Python ints (exact).
"""
from __future__ import annotations

import numbers

import numpy as np

from ..dtypes import DTypeInfo, beta_argument, dtype_info
from ..platform import ARCH_950, REFERENCE_PLATFORM, Platform
from ..spec import a2 as spec_a2
from ..spec import arch35 as spec_arch35
from .records import ARCH35_TILING_DTYPE, LAYOUTS, TILING_DTYPE, Tiling

__all__ = ["compute_tiling", "check_numel", "check_platform", "ub_buffer_units"]


def ub_buffer_units(dtype) -> int:
    """A2 tile-sized buffers the kernel keeps in UB: 7 for float32, 12 otherwise."""
    return spec_a2.tile_units(dtype_info(dtype).itemsize)


def check_numel(numel, argname: str = "numel") -> int:
    """``numel`` as an int, or a TypeError/ValueError naming it."""
    if isinstance(numel, bool) or not isinstance(numel, numbers.Integral):
        raise TypeError(f"{argname} must be an integer, got {type(numel).__name__}")
    numel = int(numel)
    if numel <= 0:
        raise ValueError(f"{argname} must be > 0 (the host tiling fails on an empty tensor), got {numel}")
    return numel


def check_platform(platform) -> Platform:
    """``platform``, the reference platform for None, or a TypeError."""
    platform = REFERENCE_PLATFORM if platform is None else platform
    if not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    return platform


def compute_tiling(numel, dtype, beta=None, platform: Platform | None = None, *, scale=None,
                   sconf=None) -> Tiling:
    """Compute the SwishGrad host tiling for a tensor of ``numel`` storage elements.

    The platform's SoC picks the kernel, as CANN does: an Ascend 950 gets
    the arch35 tiling (model section 9, an :data:`ARCH35_TILING_DTYPE`
    record), every other SoC the Atlas A2 one (section 3, a
    :data:`TILING_DTYPE` record).

    Parameters
    ----------
    numel : int
        Storage element count of the tensor (> 0).
    dtype : dtype-like
        float32, float16 or bfloat16.
    beta : float
        The Swish beta (default 1.0), stored as float32 in the struct's
        ``sconf`` (A2) or ``scale`` (950). ``scale=`` and ``sconf=`` are
        accepted as other names of it.
    platform : Platform, optional
        Target hardware; the A2 reference platform (model section 3) by default.

    Returns
    -------
    Tiling
    """
    n = check_numel(numel)
    info = dtype_info(dtype, argname="dtype")
    platform = check_platform(platform)
    beta32 = beta_argument(beta, {"scale": scale, "sconf": sconf})
    if platform.architecture == ARCH_950:
        return _arch35_tiling(n, info, beta32, platform)
    return _a2_tiling(n, info, beta32, platform)


def _a2_tiling(n: int, info: DTypeInfo, beta32, platform: Platform) -> Tiling:
    b, block = info.itemsize, platform.block_size
    if block % b:
        raise ValueError(f"platform.block_size ({block} bytes) must hold a whole number of {info.name} "
                         f"elements ({b} bytes)")
    accepted, block_dim, fields = spec_a2.host_tiling(n, b, platform.ub_size, platform.core_num, block)
    if not accepted:
        units = spec_a2.tile_units(b)
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the {info.name} kernel needs "
                         f"{units} tile buffers of at least one {block}-byte block ({units * block} bytes)")
    # The UB tile is the one field sized by the platform rather than by numel.
    causes = {"tileDataNum": f"platform.ub_size ({platform.ub_size} bytes)"}
    return Tiling(data=_record(TILING_DTYPE, fields, beta32, n, causes), block_dim=block_dim,
                  tiling_key=spec_a2.TILING_KEY,
                  workspace_size=platform.lib_workspace_size)


def _arch35_tiling(n: int, info: DTypeInfo, beta32, platform: Platform) -> Tiling:
    b = info.itemsize
    accepted, block_dim, fields = spec_arch35.host_tiling(n, b, platform.ub_size, platform.core_num)
    if not accepted:
        need = spec_arch35.BUFFER_NUM * spec_arch35.UB_ALIGN_BYTES
        raise ValueError(f"platform.ub_size ({platform.ub_size} bytes) is too small: the 950 kernel needs "
                         f"{spec_arch35.BUFFER_NUM} buffers of at least {spec_arch35.UB_ALIGN_BYTES} bytes "
                         f"({need} bytes)")
    # ubFormer and elemNum come from the UB size alone; coreNum from the core count capped by numel.
    ub = f"platform.ub_size ({platform.ub_size} bytes)"
    causes = {"ubFormer": ub, "elemNum": ub, "coreNum": f"platform.core_num ({platform.core_num}) with numel ({n})"}
    return Tiling(data=_record(ARCH35_TILING_DTYPE, fields, beta32, n, causes), block_dim=block_dim,
                  tiling_key=spec_arch35.tiling_key(info.arch35_template),
                  workspace_size=spec_arch35.WORKSPACE_SIZE)


def _record(dtype: np.dtype, fields, beta32, numel: int, causes: dict) -> np.void:
    """The record of ``fields``; a field that does not fit its C type is a ValueError naming
    what made it too large: ``causes[name]``, or else ``numel``."""
    layout = next(layout for layout in LAYOUTS.values() if layout.dtype == dtype)
    record = np.zeros((), dtype=dtype)
    for name, value in fields._asdict().items():
        low, high = layout.int_range(name)
        if not low <= value <= high:
            cause = causes.get(name, f"numel ({numel})")
            raise ValueError(f"{cause} is too large: the tiling field {name} = {value} does not fit its C type "
                             f"({dtype.fields[name][0].name})")
        record[name] = value
    record[layout.beta_field] = beta32
    return record[()]
