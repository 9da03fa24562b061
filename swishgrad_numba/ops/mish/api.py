"""The public functions :func:`mish` and :func:`mish_backward`: the generic path (:func:`..call.call`) on the
registered operators (:mod:`.forward`, :mod:`.backward`)."""
from __future__ import annotations

import numpy as np

from ...dtypes import dtype_info, promoted_float_dtype
from ...platform import Platform
from ..call import call
from . import forward

__all__ = ["mish", "mish_backward"]


def mish(x, *, out=None, platform: Platform | None = None):
    """Mish, ``x * tanh(softplus(x))``, exactly as the Mish kernel of ``platform``'s SoC computes it
    (aclnnMish): two branch forms from ``e^-x, e^-2x`` and ``e^x, e^2x``, one picked by the sign of x,
    times x, in float32.

    ``x``, ``out`` and the result as :func:`~swishgrad_numba.hardswish`'s (``out=x``: aclnnInplaceMish);
    ``platform``: the A2 reference platform by default, the 950's ``Axpy`` rounding as its
    ``axpy_rounding``.

    Notes
    -----
    docs/model.md, "Mish": ``mish(-inf)`` is NaN (``-inf * 0``) on both kernels, as torch gives; where
    ``e^2x`` overflows the x < 0 form is NaN, and it is never picked there.
    """
    return call(forward.NAME, (("x", x),), None, out, platform)


def mish_backward(grad_output, x, *, out=None, platform: Platform | None = None):
    """The gradient of :func:`mish` (aclnnMishBackward, op type MishGrad), as the kernel computes it:
    ``grad_output * (t - (t * t - 1) * x / (e^-x + 1))`` with ``t = tanh(softplus(x))`` by the Mish
    kernel's branch forms, in float32.

    As the op_api does, two dtypes that differ are both cast to their promoted dtype (float16 with
    bfloat16: float32) and the two shapes broadcast against each other; the result has the promoted
    dtype and the broadcast shape. float32, float16 and ``ml_dtypes.bfloat16`` only. ``out`` as
    :func:`mish`'s; ``platform``: the A2 reference platform by default (its NaN guard gives x where x is NaN), or an Ascend 950.
    """
    from .backward import NAME

    infos = [dtype_info(getattr(a, "dtype", None), argname=f"{n}.dtype")
             for n, a in (("grad_output", grad_output), ("x", x))]
    kernel_dtype = promoted_float_dtype(*(i.numpy for i in infos))
    try:
        shape = np.broadcast_shapes(np.shape(grad_output), np.shape(x))
    except ValueError:
        raise ValueError(f"grad_output and x must broadcast, got shapes {np.shape(grad_output)} and "
                         f"{np.shape(x)}") from None
    g, v = (np.broadcast_to(np.asarray(a).astype(kernel_dtype, copy=False), shape) for a in (grad_output, x))
    return call(NAME, (("grad_output", g), ("x", v)), None, out, platform)
