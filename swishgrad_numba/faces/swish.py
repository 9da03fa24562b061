"""The forward operators' entry points: :func:`swish` and :func:`silu`.

Each is the generic path (:func:`swishgrad_numba.ops.call.call`: the
shared argument checks, the operator's host tiling, its compiled kernel) on
the registered Swish operator (:mod:`swishgrad_numba.ops.swish`).
"""
from __future__ import annotations

from ..dtypes import beta_argument
from ..ops.call import call
from ..platform import Platform

__all__ = ["swish", "silu"]


def swish(x, beta=1.0, *, out=None, platform: Platform | None = None):
    """Swish, ``x * sigmoid(beta * x)``, exactly as the NPU's Swish kernel computes it (aclnnSwish).

    Parameters
    ----------
    x : numpy.ndarray
        float32, float16 or ``ml_dtypes.bfloat16``; any shape and strides.
    beta : float
        The operator's ``scale`` (default 1.0); rounded to float32 once.
    out : numpy.ndarray, optional
        Array of x's shape and dtype to write into; may be a non-contiguous view.
    platform : Platform, optional
        The device: an Ascend 950 runs the arch35 kernel (whose DAG beta
        picks), every other SoC the Atlas A2 one; the A2 reference platform
        by default.

    Returns
    -------
    numpy.ndarray
        ``out`` if given, else a new C-contiguous array.

    Raises
    ------
    TypeError, ValueError
        As :func:`~swishgrad_numba.swish_backward` does (the platform rules
        every operator shares: :func:`~swishgrad_numba.arguments.check_platform_for`;
        the A2 kernel computes in the saturation overflow mode where the platform is in it); ValueError also
        where the kernel's host tiling refuses (the A2 host takes bfloat16 on
        ascend910b and ascend310b only).

    Notes
    -----
    docs/model.md, section "Swish and Silu (forward)".
    """
    beta32 = beta_argument(beta, {})
    return call("swish", (("x", x),), beta32, out, platform)


def silu(x, *, out=None, platform: Platform | None = None):
    """SiLU, ``x * sigmoid(x)``, as the NPU computes it (aclnnSilu: the Swish kernel with scale 1.0).

    Parameters, returns and errors as :func:`swish` without ``beta``.
    """
    return call("silu", (("x", x),), None, out, platform)
