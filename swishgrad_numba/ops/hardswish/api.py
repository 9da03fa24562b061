"""The public functions :func:`hardswish` and :func:`hardswish_backward`: the generic path
(:func:`..call.call`) on the registered operators (:mod:`.forward`, :mod:`.backward`)."""
from __future__ import annotations

from ...platform import Platform
from ..call import call
from . import backward, forward

__all__ = ["hardswish", "hardswish_backward"]


def hardswish(x, *, out=None, platform: Platform | None = None):
    """Hardswish, ``x * clamp(x + 3, 0, 6) / 6``, exactly as the Ascend 950's HardSwish kernel computes it
    (aclnnHardswish): ``max(x, -3) * min(max(x + 3, 0), 6) * (1.0f / 6.0f)`` in float32.

    Parameters
    ----------
    x : numpy.ndarray
        float32, float16 or ``ml_dtypes.bfloat16``; any shape and strides.
    out : numpy.ndarray, optional
        Array of x's shape and dtype to write into; may be a non-contiguous view (x itself: in place,
        as aclnnInplaceHardswish).
    platform : Platform, optional
        An Ascend 950 (the default: :data:`~swishgrad_numba.ASCEND950_PLATFORM`, the only kernel).

    Returns
    -------
    numpy.ndarray
        ``out`` if given, else a new C-contiguous array.

    Raises
    ------
    TypeError, ValueError
        Naming the argument. An Atlas A2 platform is refused (ops-nn has no A2 HardSwish kernel).

    Notes
    -----
    docs/model.md, "Hardswish and HardswishBackward": x = -inf gives -0 (the kernel clamps x to >= -3
    before it multiplies; torch gives NaN); 16-bit results are narrowed with ties away from zero.
    """
    return call(forward.NAME, (("x", x),), None, out, platform)


def hardswish_backward(grad_output, x, *, out=None, platform: Platform | None = None):
    """The gradient of :func:`hardswish` (aclnnHardswishBackward, op type HardSwishGrad), exactly as the
    kernel of ``platform``'s SoC computes it: ``grad_output * (x * 0.333333343f + 0.5)`` inside the
    kernel's bounds, ``grad_output * 0`` below, ``grad_output * 1`` above (and for NaN x).

    Parameters
    ----------
    grad_output, x : numpy.ndarray
        One dtype (float32, float16 or ``ml_dtypes.bfloat16``) and one shape (the op_api broadcasts
        nothing); any strides.
    out : numpy.ndarray, optional
        As :func:`hardswish`.
    platform : Platform, optional
        The A2 reference platform by default; the Ascend 950's kernel differs at x = -3 and x = 3 (its
        bounds are inclusive: ``-0.5 * grad`` and ``1.5 * grad``; the A2's strict: ``0`` and ``grad``).

    Returns, errors as :func:`hardswish` (TypeError for differing dtypes, ValueError for differing shapes).
    """
    return call(backward.NAME, (("grad_output", grad_output), ("x", x)), None, out, platform)
