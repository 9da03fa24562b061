"""The host tiling: :func:`compute_tiling`, for the kernel the platform's SoC runs.

Plain Python that checks and decides, then hands over to the operator's own host tiling (SwishGrad's:
:mod:`swishgrad_numba.ops.swish_grad.host`), whose arithmetic is the templates'
(:mod:`swishgrad_numba.spec`), evaluated on Python ints (exact).
"""
from __future__ import annotations

import numbers

from ..arguments import block_size_refusal
from ..dtypes import DTypeInfo, beta_argument, dtype_info
from ..platform import ARCH_950, REFERENCE_PLATFORM, Platform

__all__ = ["ARGNAMES", "compute_tiling", "check_block_size", "check_host_input", "check_numel", "check_platform"]

#: The names the host tilings' messages give the arguments; the command line gives its options' names
#: instead (:func:`check_host_input`'s ``argnames``).
ARGNAMES = {"numel": "numel", "ub_size": "platform.ub_size", "block_size": "platform.block_size"}


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
    from ..ops.registry import get_operator   # the registry imports this package: import on use

    operator = get_operator(op)
    platform = check_platform(operator.default_platform if platform is None else platform)
    if operator.kernel_refusal(platform):
        raise ValueError(operator.kernel_refusal(platform))
    if not operator.has_beta and (beta, scale, sconf) != (None, None, None):
        raise TypeError(f"op {op!r} takes no beta")
    beta32 = beta_argument(beta, {"scale": scale, "sconf": sconf}) if operator.has_beta else None
    if platform.architecture != ARCH_950:
        check_block_size(platform.block_size, info, ARGNAMES)
    return operator.host_tiling(n, info, beta32, platform)


def check_host_input(numel, dtype, platform: Platform | None, argnames: dict) -> None:
    """Raise the error :func:`compute_tiling` would for this input, naming the
    arguments by ``argnames`` (keys ``numel``, ``ub_size``, ``block_size``;
    e.g. the command line's options), before any other work."""
    from ..ops.swish_grad.host import host_fields

    names = dict(ARGNAMES, **argnames)
    n = check_numel(numel, names["numel"])
    host_fields(n, dtype_info(dtype, argname="dtype"), check_platform(platform), names)


def check_block_size(block_size: int, info: DTypeInfo, names: dict) -> None:
    """A ValueError naming ``names['block_size']`` where the A2 template cannot tile by ``block_size``."""
    reason = block_size_refusal(block_size, info, names["block_size"])
    if reason:
        raise ValueError(reason)
