"""SwishGrad's hand-written pass (:class:`SwishGradPass`), its 16-bit s'(x) tables, its saturated flat
loop and :func:`run_flat`, kept for the benchmark until the compiled program
(:func:`swishgrad_numba.ops.swish_grad.launch`) is measured at least as fast.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .. import runtime
from ..dtypes import FLOAT32, DTypeInfo
from . import ARCH_A2, Plan, TableCache, flat, run_walk, saturation, sequence
from .walk import register_pass

__all__ = ["SwishGradPass", "derivative_table", "launch_hand_written", "run_flat"]


class SwishGradPass(NamedTuple):
    """A SwishGrad launch's parameters: beta, the 16-bit kernels' s'(x)
    table (empty for float32), the dtype code and the kernel (``kernel.ARCH_*``)."""

    beta: np.float32
    table: np.ndarray
    dtype_code: int
    arch: int


@register_pass(SwishGradPass)
@njit(cache=True, error_model="numpy", inline="always")
def _swish_grad_pass(params, in_bufs, o_buf, work, a, b):
    # in_bufs: gradOutput, then x (overwritten with beta * x, as in UB)
    sequence.compute_tile(in_bufs[0], in_bufs[1], o_buf, work[0], a, b, params.beta, params.table,
                          params.dtype_code, params.arch)


_EMPTY_TABLE = np.empty(0, dtype=np.float32)

# s'(x) tables of the 16-bit kernels, keyed by (arch, dtype code, beta bits, saturation).
_DERIVATIVE_TABLES = TableCache()


def derivative_table(arch: int, info: DTypeInfo, beta: np.float32, saturation: bool = False) -> np.ndarray:
    """s'(x) of kernel ``arch`` for all 65,536 x of a 16-bit dtype, cached.

    ``saturation``: every instruction saturated (the device's saturation
    overflow mode).
    """
    key = (arch, info.code, int(np.float32(beta).view(np.uint32)), bool(saturation))
    return _DERIVATIVE_TABLES.get(key, lambda: sequence.derivative_table(np.float32(beta), info.code, arch,
                                                                         bool(saturation)))


def _bits(arr: np.ndarray, info: DTypeInfo) -> np.ndarray:
    return arr if info is FLOAT32 else arr.view(np.uint16)


def launch_hand_written(grad: np.ndarray, x: np.ndarray, out: np.ndarray, launch_plan: Plan,
                        beta: np.float32, info: DTypeInfo, arch: int, saturation: bool = False) -> None:
    """:func:`swishgrad_numba.ops.swish_grad.launch` by the hand-written pass (and, saturated, the flat loop of :mod:`.saturation`);
    kept until the compiled pass is benchmarked against it."""
    g, xb, o = _bits(grad, info), _bits(x, info), _bits(out, info)
    if saturation:
        _launch_saturated(g, xb, o, beta, info, arch)
        return
    table = _EMPTY_TABLE if info is FLOAT32 else derivative_table(arch, info, beta)
    run_walk(SwishGradPass(np.float32(beta), table, info.code, arch), (g, xb), o, launch_plan)


def _launch_saturated(g, x, o, beta, info: DTypeInfo, arch: int) -> None:
    table = None if info is FLOAT32 else derivative_table(arch, info, beta, saturation=True)
    with runtime.launch_guard():
        if table is None:
            saturation.launch_saturated_f32(g, x, o, np.float32(beta), arch)
        else:
            saturation.launch_saturated_16(g, x, o, table, info.code)


def run_flat(grad: np.ndarray, x: np.ndarray, out: np.ndarray, beta: np.float32, info: DTypeInfo,
             arch: int = ARCH_A2, chunk: int = flat.FLAT_CHUNK) -> None:
    """The same arithmetic as :func:`launch` in one flat chunked loop (no tiles,
    no local buffers, no ping-pong), into ``out``; for the benchmark."""
    g, xb, o = _bits(grad, info), _bits(x, info), _bits(out, info)
    table = _EMPTY_TABLE if info is FLOAT32 else derivative_table(arch, info, beta)
    with runtime.launch_guard():
        flat.flat_launch(g, xb, o, chunk, beta, table, info.code, arch)
