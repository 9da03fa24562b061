"""One path from a public function to the launch, for every element-wise operator of the registry.

:func:`call` checks the arguments (with the checkers every public function
shares, :mod:`swishgrad_numba.arguments`), asks the operator for its host
tiling on the platform's kernel (cached per shape, dtype, platform and
attribute), and launches that kernel's ``run`` (its compiled program on the
walk) into ``out`` or a new array. A public function is then one line:
``swish(x, beta)`` is ``call("swish", (("x", x),), beta32, out, platform)``.

It serves operators whose inputs share one shape and one dtype; the generated
functional faces (:mod:`swishgrad_numba.faces.functional`) Cast and broadcast
first where the description says so (the 950 SiluGrad's inputs).
"""
from __future__ import annotations

import functools

import numpy as np

from ..arguments import check_array, check_out, check_platform_for
from ..dtypes import DTypeInfo, dtype_info
from ..platform import Platform
from .registry import OpTiling, get_operator

__all__ = ["call", "host_tiling", "overlap"]


@functools.lru_cache(maxsize=512)
def _cached_tiling(op_name: str, numel: int, info: DTypeInfo, platform: Platform, attr_bits) -> OpTiling:
    return get_operator(op_name).host_tiling(numel, info, _from_bits(attr_bits), platform)


def _to_bits(attr):
    if attr is None or isinstance(attr, tuple):
        return None if attr is None else tuple(_to_bits(a) for a in attr)
    return int(np.float32(attr).view(np.uint32))


def _from_bits(bits):
    if bits is None or isinstance(bits, tuple):
        return None if bits is None else tuple(_from_bits(b) for b in bits)
    return np.uint32(bits).view(np.float32)


def host_tiling(op_name: str, numel: int, info: DTypeInfo, attr32, platform: Platform) -> OpTiling:
    """Operator ``op_name``'s host tiling of ``numel`` (>= 1) elements, cached; ``attr32`` its float32
    attribute (beta, scale), a tuple of them (Elu's alpha, scale, inputScale) or None. The record is
    read-only, so one object serves every caller."""
    return _cached_tiling(op_name, numel, info, platform, _to_bits(attr32))


def _check_inputs(inputs) -> DTypeInfo:
    """The dtype row of the inputs, checked to be arrays of one supported dtype and one shape."""
    (first_name, first), *rest = inputs
    check_array(first, first_name)
    info = dtype_info(first.dtype, argname=f"{first_name}.dtype")
    for name, arr in rest:
        check_array(arr, name)
        dtype_info(arr.dtype, argname=f"{name}.dtype")
        if arr.dtype != first.dtype:
            raise TypeError(f"{first_name} and {name} must have the same dtype, got {first.dtype} and {arr.dtype}")
        if arr.shape != first.shape:
            raise ValueError(f"{first_name} and {name} must have the same shape, got {first.shape} and "
                             f"{arr.shape}")
    return info


def overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a`` and ``b`` share memory: the bounds first (``may_share_memory``, constant time), the exact
    answer (``shares_memory``) only where the bounds meet."""
    return bool(np.may_share_memory(a, b)) and bool(np.shares_memory(a, b))


def call(op_name: str, inputs: tuple, attr32, out, platform: Platform | None) -> np.ndarray:
    """Operator ``op_name`` over ``inputs`` (``((name, array), ...)`` in the kernel's order, the names
    those of the public function's arguments), as the kernel of ``platform``'s SoC computes it.

    Returns ``out`` (any strides; written through a contiguous result where it is not contiguous or
    overlaps an input) or a new C-contiguous array.
    """
    info = _check_inputs(inputs)
    platform = check_platform_for(platform, op_name, info)
    reference = inputs[-1][1]
    check_out(out, reference)
    if reference.size == 0:
        return np.empty(reference.shape, dtype=reference.dtype) if out is None else out
    tiling = host_tiling(op_name, reference.size, info, attr32, platform)
    flat = [np.ascontiguousarray(arr).reshape(-1) for _name, arr in inputs]
    direct = out is not None and out.flags.c_contiguous and not any(overlap(out, arr)
                                                                   for _name, arr in inputs)
    result = out if direct else np.empty(reference.shape, dtype=reference.dtype)
    grad = flat[0] if len(flat) == 2 else None
    op = get_operator(op_name)
    extra = {"saturation": True} if platform.saturation else {}
    if op.axpy:
        extra["axpy_rounding"] = platform.axpy_rounding
    op.kernels[tiling.architecture].run(grad, flat[-1], result.reshape(-1), tiling, **extra)
    if out is not None and not direct:
        out[...] = result
        return out
    return result
