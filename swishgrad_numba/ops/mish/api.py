"""The public function :func:`mish`: the generic path (:func:`..call.call`) on the registered operator
(:mod:`.forward`)."""
from __future__ import annotations

from ...platform import Platform
from ..call import call
from . import forward

__all__ = ["mish"]


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
