"""The public functions :func:`fast_gelu` and :func:`fast_gelu_backward`: the arguments checked, then the
registered operator's host tiling (:mod:`.fast_gelu`), the compiled pass and the walk."""
from __future__ import annotations

import functools

import numpy as np

from ..arguments import check_array, check_out, check_pair, check_platform_for
from ..dtypes import DTypeInfo, dtype_info
from ..platform import Platform
from . import fast_gelu as fg

__all__ = ["fast_gelu", "fast_gelu_backward"]


@functools.lru_cache(maxsize=256)
def _tiling(op: str, numel: int, info: DTypeInfo, platform: Platform):
    return fg.host_tiling(op, numel, info, platform)


def _launch(op: str, grad, x: np.ndarray, info: DTypeInfo, out, platform: Platform):
    check_out(out, x)
    if x.size == 0:
        return np.empty(x.shape, dtype=x.dtype) if out is None else out
    ins = (x,) if grad is None else (grad, x)
    direct = out is not None and out.flags.c_contiguous and not any(np.shares_memory(out, a) for a in ins)
    result = out if direct else np.empty(x.shape, dtype=x.dtype)
    flat = [np.ascontiguousarray(a).reshape(-1) for a in ins]
    fg.run(None if grad is None else flat[0], flat[-1], result.reshape(-1), _tiling(op, x.size, info, platform))
    if out is not None and not direct:
        out[...] = result
        return out
    return result


def fast_gelu(x, *, out=None, platform: Platform | None = None):
    """FastGELU, ``x / (1 + exp(-1.702 x))``, exactly as the Ascend 950's FastGelu kernel computes it
    (aclnnFastGelu).

    Parameters
    ----------
    x : numpy.ndarray
        float32, float16 or ``ml_dtypes.bfloat16``; any shape and strides.
    out : numpy.ndarray, optional
        Array of x's shape and dtype to write into; may be a non-contiguous view.
    platform : Platform, optional
        An Ascend 950 (the default: :data:`~swishgrad_numba.ASCEND950_PLATFORM`, the only kernel); its
        tiling decomposes the work (the result does not depend on it).

    Returns
    -------
    numpy.ndarray
        ``out`` if given, else a new C-contiguous array.

    Raises
    ------
    TypeError, ValueError
        Naming the argument. An Atlas A2 platform is refused (ValueError naming its SoC): ops-nn has no
        public A2 kernel for FastGelu. The 950 has no saturation overflow mode.

    Notes
    -----
    docs/model.md, "FastGelu and FastGeluBackward (Ascend 950 only)": ``fast_gelu(-inf)`` is NaN and below
    x = -52.129 the result is -0 (Exp overflows).
    """
    check_array(x, "x")
    info = dtype_info(x.dtype, argname="x.dtype")
    platform = check_platform_for(platform, fg.FORWARD, info)
    return _launch(fg.FORWARD, None, x, info, out, platform)


def fast_gelu_backward(grad_output, x, *, out=None, platform: Platform | None = None):
    """The gradient of FastGELU, ``grad_output * s * (1 + (1 - s) * 1.702 x)`` with
    ``s = 1 / (1 + exp(-1.702 x))``, exactly as the Ascend 950's FastGeluGrad kernel computes it
    (aclnnFastGeluBackward).

    Parameters
    ----------
    grad_output, x : numpy.ndarray
        One dtype (float32, float16 or ``ml_dtypes.bfloat16``) and one shape; any strides.
    out, platform
        As :func:`fast_gelu`.

    Returns, errors as :func:`fast_gelu` (TypeError for differing dtypes, ValueError for differing
    shapes). At x = ±inf the result is NaN (``0 * -inf``).
    """
    info = check_pair(grad_output, x)
    platform = check_platform_for(platform, fg.BACKWARD, info)
    return _launch(fg.BACKWARD, grad_output, x, info, out, platform)
