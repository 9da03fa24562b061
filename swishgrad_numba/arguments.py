"""The argument checks every public function shares: arrays, (grad_output, x) pairs, ``out``, and the
platform an operator runs on (:func:`check_platform_for`: the rules every operator shares, written once).

Each raises a TypeError or ValueError that names the argument and the rule.
"""
from __future__ import annotations

import functools

import numpy as np

from .dtypes import BFLOAT16, DTypeInfo, dtype_info
from .platform import ARCH_A2, BF16_SOC_VERSIONS, Platform

__all__ = ["check_array", "check_out", "check_out_like", "check_pair", "check_platform_for", "block_size_refusal",
           "bfloat16_refusal", "overflow_mode_refusal"]


def check_array(value, argname: str) -> np.ndarray:
    """``value`` if it is a plain ``numpy.ndarray``, else the TypeError naming ``argname``."""
    if type(value) is np.ndarray:   # the common case, without the subclass checks below
        return value
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{argname} must be a numpy.ndarray, got {type(value).__name__}")
    if isinstance(value, np.ma.MaskedArray):
        raise TypeError(f"{argname} must be a plain numpy.ndarray, not a masked array (the kernel has no "
                        f"mask and would compute masked elements too); pass {argname}.filled(...) or .data")
    return value


def check_pair(grad_output, x):
    """The dtype row of a (grad_output, x) pair of one dtype and shape, or the error naming the argument."""
    check_array(grad_output, "grad_output")
    check_array(x, "x")
    dtype_info(grad_output.dtype, argname="grad_output.dtype")
    info = dtype_info(x.dtype, argname="x.dtype")
    if grad_output.dtype != x.dtype:
        raise TypeError(f"grad_output and x must have the same dtype, got {grad_output.dtype} and {x.dtype}")
    if grad_output.shape != x.shape:
        raise ValueError(f"grad_output and x must have the same shape, got {grad_output.shape} and {x.shape}")
    return info


def may_share(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a`` and ``b`` may share memory, as ``numpy.may_share_memory`` answers (their bounds meet),
    answered where it can without releasing the GIL: two arrays whose memory lies in two different buffers
    that NumPy owns share none. ``may_share_memory`` releases the GIL for its bounds test, and while another
    Python thread waits for the GIL each release wakes it in vain, which cost a 4,096-element call 20-25 us
    (bench/RESULTS.md, nothread)."""
    owner_a, owner_b = _owner(a), _owner(b)
    if owner_a is not None and owner_b is not None and owner_a is not owner_b:
        return False
    return bool(np.may_share_memory(a, b))


def _owner(a: np.ndarray):
    """The array that owns ``a``'s memory (``a``, or the base a view keeps), or None where NumPy does not."""
    if a.flags.owndata:
        return a
    base = a.base       # NumPy points a view of a view at the owner
    return base if isinstance(base, np.ndarray) and base.flags.owndata else None


def check_out(out, x) -> None:
    """``out`` (when given) must be a writeable array of ``x``'s dtype and shape."""
    check_out_like(out, x.shape, x.dtype)


def check_out_like(out, shape: tuple, dtype) -> None:
    """``out`` (when given) must be a writeable array of ``dtype`` and ``shape``."""
    if out is None:
        return
    check_array(out, "out")
    if isinstance(out, np.matrix):
        # A matrix stays 2-D when reshaped, so the flat view the kernel writes through is not flat.
        raise TypeError("out must be a plain numpy.ndarray, not a numpy.matrix (a matrix cannot be viewed as "
                        "1-D); pass numpy.asarray(out)")
    if out.dtype != dtype:
        raise TypeError(f"out must have dtype {np.dtype(dtype)}, got {out.dtype}")
    if out.shape != tuple(shape):
        raise ValueError(f"out must have shape {tuple(shape)}, got {out.shape}")
    if not out.flags.writeable:
        raise ValueError("out must be writeable")

# ---------------------------------------------------------------- the platform, for an operator


def block_size_refusal(block_size: int, info: DTypeInfo, argname: str = "platform.block_size") -> str | None:
    """Why an A2 kernel cannot run ``info``'s elements with ``block_size``-byte blocks, or None.

    Every A2 host tiling counts the tensor in blocks and converts blocks to
    elements by dividing by the element size: a block that holds no whole
    number of elements loses elements (which the kernel then never writes).
    """
    if block_size % info.itemsize:
        return (f"{argname} ({block_size} bytes) must hold a whole number of {info.name} elements "
                f"({info.itemsize} bytes)")
    return None


def bfloat16_refusal(platform: Platform) -> str | None:
    """Why ``platform`` takes no bfloat16, or None: the op_api's SoC gate, one rule for every operator
    (bfloat16 on the ASCEND910B..ASCEND910E families of CANN's enum only)."""
    if platform.supports_bfloat16:
        return None
    return (f"bfloat16 is only supported on ASCEND910B..ASCEND910E ({', '.join(BF16_SOC_VERSIONS)}); the "
            f"platform's soc_version {platform.soc_version!r} is family {platform.soc_family}")


@functools.lru_cache(maxsize=1)
def _registry():
    """The operator registry, imported on first use (the operators import this module) and kept."""
    from .ops import registry

    return registry


def overflow_mode_refusal(platform: Platform, op: str) -> str | None:
    """Why operator ``op`` cannot run on ``platform``'s overflow mode, or None: an operator computes in the
    saturation mode only where its registry entry says so (``Operator.saturation``)."""
    if platform.saturation and not _registry().get_operator(op).saturation:
        return (f"platform.overflow_mode 'saturation' is not emulated for {op} (only infnan is); computing it "
                f"in the Inf/NaN mode would give what the device does not")
    return None


def check_platform_for(platform, op: str, *infos: DTypeInfo) -> Platform:
    """``platform`` (the operator's default platform for None: the reference platform, or the 950's for an
    operator without an A2 kernel) checked for operator ``op`` on inputs of dtypes ``infos``: a TypeError
    for a non-Platform, else a ValueError naming the platform (no kernel there), the platform field or
    dtype and the rule (:func:`overflow_mode_refusal`, :func:`bfloat16_refusal`, :func:`block_size_refusal` on the
    A2 kernels). A platform that passed is kept per (operator, platform, dtypes): all of them immutable."""
    operator = _registry().get_operator(op)
    platform = operator.default_platform if platform is None else platform
    if not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    key = (op, platform, infos)
    if _PASSED.get(key) is operator:
        return platform
    # no kernel on the platform's architecture (FastGelu on an A2): that reason before any other
    reason = operator.kernel_refusal(platform) or overflow_mode_refusal(platform, op)
    if reason is None and BFLOAT16 in infos:
        reason = bfloat16_refusal(platform)
        reason = reason and f"dtype {reason}"
    if reason is None and platform.architecture == ARCH_A2:
        reason = next(filter(None, (block_size_refusal(platform.block_size, info) for info in infos)), None)
    if reason is not None:
        raise ValueError(reason)
    if len(_PASSED) >= _PASSED_KEPT:
        _PASSED.clear()
    _PASSED[key] = operator
    return platform


#: ``(op, platform, dtype rows) -> the operator`` for the platforms :func:`check_platform_for` passed (the
#: operator object too: one registered anew under the name is checked again); bounded.
_PASSED: dict = {}
_PASSED_KEPT = 256
