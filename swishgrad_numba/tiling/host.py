"""The host tiling: :func:`compute_tiling`, for the kernel the platform's SoC runs.

Plain Python that checks and decides; the arithmetic itself is the spec/ package's
core's (:mod:`swishgrad_numba.spec`), evaluated on Python ints (exact).
"""
from __future__ import annotations

import numbers

import numpy as np

from ..arguments import block_size_refusal
from ..dtypes import DTypeInfo, beta_argument, dtype_info
from ..platform import ARCH_950, REFERENCE_PLATFORM, Platform
from ..spec import a2 as spec_a2
from ..spec import arch35 as spec_arch35
from .records import ARCH35_TILING_DTYPE, LAYOUTS, TILING_DTYPE, UB_SIZED_FIELDS, Tiling

__all__ = ["compute_tiling", "check_host_input", "check_numel", "check_platform", "ub_buffer_units"]

# The names compute_tiling's messages give the arguments; the command line
# gives its options' names instead (check_host_input's argnames).
_ARGNAMES = {"numel": "numel", "ub_size": "platform.ub_size", "block_size": "platform.block_size"}


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
                   sconf=None, op: str = "swish_grad"):
    """Compute an operator's host tiling for a tensor of ``numel`` storage elements.

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
        Target hardware; the A2 reference platform (model section 3) by default (the 950's for an
        operator without an A2 kernel, which refuses an A2 platform).
    op : str
        The operator: ``"swish_grad"`` (default) or another registered one
        (``"swish"``, ``"silu"``; see :mod:`swishgrad_numba.ops`).

    Returns
    -------
    Tiling
        For ``"swish_grad"``; another operator's is an
        :class:`~swishgrad_numba.ops.OpTiling` whose fields carry the C
        names of that operator's struct.
    """
    n = check_numel(numel)
    info = dtype_info(dtype, argname="dtype")
    if op != "swish_grad":
        from ..ops import get_operator   # the registry imports this package: import on use
        operator = get_operator(op)
        platform = check_platform(operator.default_platform if platform is None else platform)
        if operator.kernel_refusal(platform):
            raise ValueError(operator.kernel_refusal(platform))
        if not operator.has_beta and (beta, scale, sconf) != (None, None, None):
            raise TypeError(f"op {op!r} takes no beta")
        beta32 = beta_argument(beta, {"scale": scale, "sconf": sconf}) if operator.has_beta else None
        if platform.architecture != ARCH_950:
            _check_block_size(platform.block_size, info, _ARGNAMES)
        return operator.host_tiling(n, info, beta32, platform)
    platform = check_platform(platform)
    beta32 = beta_argument(beta, {"scale": scale, "sconf": sconf})
    block_dim, fields = _host_fields(n, info, platform, _ARGNAMES)
    if platform.architecture == ARCH_950:
        return Tiling(data=_record(ARCH35_TILING_DTYPE, fields, beta32), block_dim=block_dim,
                      tiling_key=spec_arch35.tiling_key(info.arch35_template),
                      workspace_size=spec_arch35.WORKSPACE_SIZE)
    return Tiling(data=_record(TILING_DTYPE, fields, beta32), block_dim=block_dim, tiling_key=spec_a2.TILING_KEY,
                  workspace_size=platform.lib_workspace_size)


def check_host_input(numel, dtype, platform: Platform | None, argnames: dict) -> None:
    """Raise the error :func:`compute_tiling` would for this input, naming the
    arguments by ``argnames`` (keys ``numel``, ``ub_size``, ``block_size``;
    e.g. the command line's options), before any other work."""
    names = dict(_ARGNAMES, **argnames)
    n = check_numel(numel, names["numel"])
    _host_fields(n, dtype_info(dtype, argname="dtype"), check_platform(platform), names)


def _host_fields(n: int, info: DTypeInfo, platform: Platform, names: dict) -> tuple:
    """``(block_dim, fields)`` of the host tiling, or a ValueError naming the argument at fault."""
    b, ub = info.itemsize, platform.ub_size
    if platform.architecture == ARCH_950:
        accepted, block_dim, fields = spec_arch35.host_tiling(n, b, ub, platform.core_num)
        if not accepted:
            need = spec_arch35.BUFFER_NUM * spec_arch35.UB_ALIGN_BYTES
            raise ValueError(f"{names['ub_size']} ({ub} bytes) is too small: the 950 kernel needs "
                             f"{spec_arch35.BUFFER_NUM} buffers of at least {spec_arch35.UB_ALIGN_BYTES} bytes "
                             f"({need} bytes)")
    else:
        block = platform.block_size
        _check_block_size(block, info, names)
        accepted, block_dim, fields = spec_a2.host_tiling(n, b, ub, platform.core_num, block)
        if not accepted:
            units = spec_a2.tile_units(b)
            raise ValueError(f"{names['ub_size']} ({ub} bytes) is too small: the {info.name} kernel needs "
                             f"{units} tile buffers of at least one {block}-byte block ({units * block} bytes)")
    # The fields sized by the platform rather than by numel: the UB's (UB_SIZED_FIELDS)
    # and coreNum (the cores, capped by numel).
    ub = f"{names['ub_size']} ({ub} bytes)"
    causes = dict.fromkeys(UB_SIZED_FIELDS, ub)
    causes["coreNum"] = f"platform.core_num ({platform.core_num}) with {names['numel']} ({n})"
    layout = LAYOUTS[platform.architecture]
    for name, value in fields._asdict().items():
        low, high = layout.int_range(name)
        if not low <= value <= high:
            cause = causes.get(name, f"{names['numel']} ({n})")
            raise ValueError(f"{cause} is too large: the tiling field {name} = {value} does not fit its C type "
                             f"({layout.dtype.fields[name][0].name})")
    return block_dim, fields


def _check_block_size(block_size: int, info: DTypeInfo, names: dict) -> None:
    reason = block_size_refusal(block_size, info, names["block_size"])
    if reason:
        raise ValueError(reason)


def _record(dtype: np.dtype, fields, beta32) -> np.void:
    """The record of ``fields`` (checked to fit by :func:`_host_fields`)."""
    layout = next(layout for layout in LAYOUTS.values() if layout.dtype == dtype)
    record = np.zeros((), dtype=dtype)
    for name, value in fields._asdict().items():
        record[name] = value
    record[layout.beta_field] = beta32
    return record[()]
