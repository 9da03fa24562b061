"""The public functions :func:`fast_gelu` and :func:`fast_gelu_backward`: each the generic path
(:func:`.call.call`: the arguments checked, the registered operator's host tiling (:mod:`.fast_gelu`), its
compiled pass on the walk)."""
from __future__ import annotations

from ..platform import Platform
from . import fast_gelu as fg
from .call import call

__all__ = ["fast_gelu", "fast_gelu_backward"]


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
    return call(fg.FORWARD, (("x", x),), None, out, platform)


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
    return call(fg.BACKWARD, (("grad_output", grad_output), ("x", x)), None, out, platform)
