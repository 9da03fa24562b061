"""SiluGrad's launches: :func:`run_a2` on the generic pass walk, :func:`run_arch35` on the broadcast
walk, and :func:`run`, the registry's launch of a checked record. Reads and writes stay inside the arrays."""
from __future__ import annotations

import functools

import numpy as np

from ... import kernel, runtime
from ...dtypes import dtype_info
from ...platform import ARCH_950, ARCH_A2
from ...program import compiled
from ..registry import OpTiling
from .a2 import A2Tiling, a2_walk_fields
from .names import NAME
from .arch35 import Arch35Tiling, run_record

__all__ = ["run_a2", "run_arch35", "run"]



def run_a2(dy: np.ndarray, x: np.ndarray, out: np.ndarray, tiling: A2Tiling, saturation: bool = False) -> np.ndarray:
    """Run the A2 kernel on flat C-contiguous arrays of one dtype and size with ``tiling``: its program
    compiled (:mod:`.program`), every instruction saturated where ``saturation`` (the device's saturation
    overflow mode).

    The generic walk (:mod:`swishgrad_numba.kernel.walk`) runs it: every
    core's passes (silu_grad.h ``Process``) of ``min(tileDataNum, left)``
    elements, the block padding past the tensor read as zeros and never
    written. schMode 0 single-buffers on the device; the bits do not depend
    on it.
    """
    info = tiling.dtype
    for name, arr in (("dy", dy), ("x", x), ("out", out)):
        if arr.dtype != info.numpy or not arr.flags.c_contiguous or arr.size != out.size:
            raise ValueError(f"{name} must be a C-contiguous {info.name} array of out's size ({out.size})")
    if int(tiling.record["tileDataNum"]) < 1:
        raise ValueError("tiling.tileDataNum is 0: the platform's UB holds no tile, the kernel would never finish")
    if out.size == 0:
        return out
    launch_plan = kernel.plan_launch(_a2_fields(tiling.record.tobytes(), tiling.record.dtype), tiling.block_dim,
                                     kernel.ARCH_A2, out.size)
    params = compiled(NAME, ARCH_A2, info.name, saturation=saturation).params()
    kernel.run_walk(params, (info.flat_bits(dy), info.flat_bits(x)), info.flat_bits(out), launch_plan)
    return out


def run_arch35(dy: np.ndarray, x: np.ndarray, out: np.ndarray, tiling: Arch35Tiling) -> np.ndarray:
    """Run the 950 kernel on C-contiguous ``dy``, ``x`` (their own shapes) and
    ``out`` (the broadcast shape), on the broadcast walk (:mod:`swishgrad_numba.kernel.broadcast`): its
    program compiled."""
    for name, arr, info in (("dy", dy, tiling.dy_dtype), ("x", x, tiling.x_dtype), ("out", out, tiling.out_dtype)):
        if arr.dtype != info.numpy or not arr.flags.c_contiguous:
            raise ValueError(f"{name} must be a C-contiguous {info.name} array")
    dy_info, x_info = tiling.dy_dtype, tiling.x_dtype
    dtypes = dy_info.name if dy_info is x_info else f"{dy_info.name}_{x_info.name}"
    params = compiled(NAME, ARCH_950, dtypes).params()
    with runtime.launch_guard():
        run_record(params, tiling.dy_dtype.flat_bits(dy), tiling.x_dtype.flat_bits(x),
                   tiling.out_dtype.flat_bits(out), tiling.block_dim, tiling.record)
    return out


@functools.lru_cache(maxsize=256)
def _a2_fields(record_bytes: bytes, record_dtype: np.dtype):
    """:func:`.a2.a2_walk_fields` of a record given by its bytes, kept (read once per record)."""
    return a2_walk_fields(np.frombuffer(record_bytes, dtype=record_dtype)[0])


def run(grad, x: np.ndarray, out: np.ndarray, tiling: OpTiling, saturation: bool = False) -> None:
    """The kernel with a checked record over flat contiguous arrays of one dtype and size, in the
    saturation overflow mode where ``saturation`` (the A2 kernel; the 950 has the Inf/NaN mode only)."""
    if grad is None:
        raise ValueError("grad must be an array for silu_grad (its gradOutput)")
    info = dtype_info(out.dtype, argname="out.dtype")
    if tiling.architecture == ARCH_950:
        if saturation:
            raise ValueError("overflow_mode 'saturation' is not supported by the Ascend 950 kernel (Inf/NaN mode only)")
        run_arch35(grad, x, out, Arch35Tiling(tiling.data, tiling.block_dim, tiling.tiling_key,
                                              tiling.workspace_size, info, info, info, out.shape))
    else:
        run_a2(grad, x, out, A2Tiling(tiling.data, tiling.block_dim, tiling.tiling_key, tiling.tiling_key,
                                      tiling.workspace_size, info), saturation=saturation)
