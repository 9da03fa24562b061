"""The forward operators' entry points: :func:`swish` and :func:`silu`.

Plain Python that checks the arguments (as :func:`~swishgrad_numba.swish_backward`
does, with the same checkers) and decides; the kernel is the registered
Swish operator's (:mod:`swishgrad_numba.ops.swish`).
"""
from __future__ import annotations

import functools

import numpy as np

from . import kernel, runtime
from .arguments import check_array, check_out, check_platform_for
from .dtypes import DTypeInfo, beta_argument, dtype_info
from .ops import swish as swish_op
from .platform import Platform

__all__ = ["swish", "silu"]


@functools.lru_cache(maxsize=512)
def _host_plan(op_name: str, numel: int, info: DTypeInfo, platform: Platform, threads: int, variant: int,
               scale_bits: int):
    """The host tiling and its launch plan. On the A2 the tiling does not
    depend on beta but for the key; on the 950 the DAG decides its buffers,
    so ``variant`` is part of the key (``scale_bits`` is, too: the record
    carries it)."""
    scale32 = np.uint32(scale_bits).view(np.float32)
    tiling = swish_op.host_tiling(op_name, numel, info, scale32, platform)
    fields = swish_op.walk_fields(tiling)
    launch_plan = kernel.plan_launch(fields, tiling.block_dim, kernel.arch_code(tiling.architecture), numel, threads)
    launch_plan.pieces.flags.writeable = False
    launch_plan.bins.flags.writeable = False
    return launch_plan


def _forward(op_name: str, x, scale32: np.float32, out, platform):
    check_array(x, "x")
    info = dtype_info(x.dtype, argname="x.dtype")
    platform = check_platform_for(platform, op_name, info)
    check_out(out, x)
    if x.size == 0:
        return np.empty(x.shape, dtype=x.dtype) if out is None else out
    variant = swish_op.variant_of(platform.architecture, scale32)
    launch_plan = _host_plan(op_name, x.size, info, platform, runtime.num_threads(), variant,
                             int(np.float32(scale32).view(np.uint32)))
    flat_x = np.ascontiguousarray(x).reshape(-1)
    direct = out is not None and out.flags.c_contiguous and not np.shares_memory(out, x)
    result = out if direct else np.empty(x.shape, dtype=x.dtype)
    swish_op.launch(flat_x, result.reshape(-1), launch_plan, scale32, info, variant,
                    saturation=platform.saturation)
    if out is not None and not direct:
        out[...] = result
        return out
    return result


def swish(x, beta=1.0, *, out=None, platform: Platform | None = None):
    """Swish, ``x * sigmoid(beta * x)``, exactly as the NPU's Swish kernel computes it (aclnnSwish).

    Parameters
    ----------
    x : numpy.ndarray
        float32, float16 or ``ml_dtypes.bfloat16``; any shape and strides.
    beta : float
        The operator's ``scale`` (default 1.0); rounded to float32 once.
    out : numpy.ndarray, optional
        Array of x's shape and dtype to write into; may be a non-contiguous view.
    platform : Platform, optional
        The device: an Ascend 950 runs the arch35 kernel (whose DAG beta
        picks), every other SoC the Atlas A2 one; the A2 reference platform
        by default.

    Returns
    -------
    numpy.ndarray
        ``out`` if given, else a new C-contiguous array.

    Raises
    ------
    TypeError, ValueError
        As :func:`~swishgrad_numba.swish_backward` does (the platform rules
        every operator shares: :func:`~swishgrad_numba.arguments.check_platform_for`;
        the A2 kernel computes in the saturation overflow mode where the platform is in it); ValueError also
        where the kernel's host tiling refuses (the A2 host takes bfloat16 on
        ascend910b and ascend310b only).

    Notes
    -----
    docs/model.md, section "Swish and Silu (forward)".
    """
    beta32 = beta_argument(beta, {})
    return _forward("swish", x, beta32, out, platform)


def silu(x, *, out=None, platform: Platform | None = None):
    """SiLU, ``x * sigmoid(x)``, as the NPU computes it (aclnnSilu: the Swish kernel with scale 1.0).

    Parameters, returns and errors as :func:`swish` without ``beta``.
    """
    return _forward("silu", x, np.float32(1.0), out, platform)
