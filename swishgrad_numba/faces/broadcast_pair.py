"""A backward's two inputs as the broadcasting kernels take them (GeluGrad's and GeluGradV2's op_apis).

:func:`broadcast_pair` checks ``grad_output`` and ``x``, promotes two different dtypes to float32 as the
op_api's PromoteType does (an exact widening for any two of ours), broadcasts their shapes, and lays them
out for the platform's kernel: on the 950 unequal shapes go to the broadcast walk as they are; otherwise
(equal shapes, or the A2's BroadcastTo, a copy) both become one flat axis.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..arguments import check_array, check_out_like, check_platform_for
from ..dtypes import FLOAT32, DTypeInfo, dtype_info
from ..kernel import broadcast
from ..platform import ARCH_950, Platform

__all__ = ["BroadcastPair", "broadcast_pair"]


class BroadcastPair(NamedTuple):
    """The checked pair: its dtype row, platform and result shape; ``dy``/``x`` contiguous (None where
    the result is empty) with the shapes the kernel walks them by."""

    info: DTypeInfo
    platform: Platform
    shape: tuple
    dy: np.ndarray | None
    x: np.ndarray | None
    dy_shape: tuple
    x_shape: tuple

    @property
    def on_950(self) -> bool:
        return self.platform.architecture == ARCH_950


def broadcast_pair(grad_output, x, op: str, platform, out) -> BroadcastPair:
    """``grad_output`` and ``x`` checked (and ``out`` against their broadcast shape) for operator ``op``."""
    check_array(grad_output, "grad_output")
    check_array(x, "x")
    g_info = dtype_info(grad_output.dtype, argname="grad_output.dtype")
    x_info = dtype_info(x.dtype, argname="x.dtype")
    platform = check_platform_for(platform, op, g_info, x_info)
    info = g_info
    if x_info is not g_info:   # PromoteType: float32 for any two of ours that differ, an exact widening
        info = FLOAT32
        grad_output, x = grad_output.astype(np.float32), x.astype(np.float32)
    try:
        shape = tuple(np.broadcast_shapes(grad_output.shape, x.shape))
    except ValueError:
        raise ValueError(f"grad_output and x must broadcast against each other, got {grad_output.shape} and "
                         f"{x.shape}") from None
    on_950 = platform.architecture == ARCH_950
    if on_950 and grad_output.shape != x.shape and len(shape) > broadcast.MAX_RANK:
        raise ValueError(f"broadcasting grad_output and x supports at most {broadcast.MAX_RANK} dimensions, "
                         f"got {grad_output.ndim} and {x.ndim}")
    check_out_like(out, shape, info.numpy)
    if grad_output.size == 0 or x.size == 0:
        return BroadcastPair(info, platform, shape, None, None, (), ())
    if on_950 and grad_output.shape != x.shape:
        dy_c, x_c = np.ascontiguousarray(grad_output), np.ascontiguousarray(x)
        dy_shape, x_shape = grad_output.shape, x.shape
    else:   # equal shapes (or the A2's BroadcastTo, a copy): one flat axis
        dy_c, x_c = (np.ascontiguousarray(a) if a.shape == shape else np.broadcast_to(a, shape).copy()
                     for a in (grad_output, x))
        dy_shape = x_shape = (dy_c.size,)
    if dy_c.flags.writeable != x_c.flags.writeable:   # the walk takes its inputs as one tuple
        dy_c, x_c = (a if a.flags.writeable else a.copy() for a in (dy_c, x_c))
    return BroadcastPair(info, platform, shape, dy_c, x_c, dy_shape, x_shape)
