"""The public :func:`sigmoid` and :func:`sigmoid_backward`: plain Python that checks the arguments and
decides; the kernels are the registered operators' through the generic path (:func:`..call.call`:
the shared checks, the cached host tiling, the compiled kernel) and, for SigmoidBackward's float64
and complex dtypes, the AICPU kernel (:mod:`.aicpu`)."""
from __future__ import annotations

import numpy as np

from ...arguments import check_array, check_out_like
from ...platform import Platform
from ..call import call
from . import aicpu
from .backward import NAME as GRAD_NAME
from .forward import NAME as FORWARD_NAME

__all__ = ["sigmoid", "sigmoid_backward", "MAX_DIMS"]

#: aclnnSigmoidBackward's rank limit (``aclnn_sigmoid_backward.cpp:68-75``).
MAX_DIMS = 8
_NO_AICPU_SIGMOID = (np.dtype(np.float64), np.dtype(np.complex64), np.dtype(np.complex128))


def sigmoid(x, *, out=None, platform: Platform | None = None):
    """Sigmoid, ``1 / (1 + exp(-x))``, exactly as the NPU's Sigmoid kernel computes it (aclnnSigmoid).

    Parameters
    ----------
    x : numpy.ndarray
        float32, float16 or ``ml_dtypes.bfloat16``; any shape and strides.
    out : numpy.ndarray, optional
        Array of x's shape and dtype to write into; may be a non-contiguous view, or ``x`` itself
        (aclnnInplaceSigmoid).
    platform : Platform, optional
        The device: an Ascend 950 runs the arch35 kernel, every other SoC the Atlas A2 one; the A2
        reference platform by default. The two kernels give the same bits.

    Raises
    ------
    TypeError, ValueError
        Naming the argument and the rule: not an array, a dtype without a public kernel (aclnnSigmoid
        sends float64 and complex to an AICPU kernel ops-nn does not publish), ``out`` of another
        shape or dtype, the platform rules every operator shares
        (:func:`~swishgrad_numba.arguments.check_platform_for`).

    Notes
    -----
    docs/model.md, "Sigmoid (aclnnSigmoid, aclnnInplaceSigmoid)". Where ``x < -88.72`` Exp
    overflows and the result is +0 where sigmoid is still a (subnormal) float32.
    """
    check_array(x, "x")
    if x.dtype in _NO_AICPU_SIGMOID:
        raise TypeError(f"x.dtype {x.dtype} is not emulated for sigmoid: aclnnSigmoid sends it to an AICPU "
                        f"Sigmoid kernel that ops-nn does not publish; float32, float16 and bfloat16 run on the "
                        f"AI Core kernels")
    return call(FORWARD_NAME, (("x", x),), None, out, platform)


def sigmoid_backward(grad_output, output, *, out=None, platform: Platform | None = None):
    """Gradient of Sigmoid from its output, ``grad_output * output * (1 - output)``, exactly as the NPU
    computes it (aclnnSigmoidBackward; ``output`` is the forward's result).

    Parameters
    ----------
    grad_output, output : numpy.ndarray
        One dtype: float32, float16 or ``ml_dtypes.bfloat16`` (the AI Core kernels, each kernel in its
        own multiplication order), or float64, complex64 or complex128 (the AICPU kernel, whatever the
        platform). Shapes that broadcast to one shape (at most 8 dimensions), as the op_api's
        BroadcastTo allows; any strides.
    out : numpy.ndarray, optional
        Array of the broadcast shape and the dtype to write into; may be a non-contiguous view.
    platform : Platform, optional
        The device: an Ascend 950 runs the arch35 kernel, every other SoC the Atlas A2 one.

    Raises
    ------
    TypeError, ValueError
        Naming the argument and the rule: not arrays, dtypes outside the list or differing (cast
        first), shapes that do not broadcast or over 8 dimensions, ``out`` of another shape or dtype,
        the platform rules every operator shares.

    Notes
    -----
    docs/model.md, "SigmoidBackward (aclnnSigmoidBackward)".
    """
    check_array(grad_output, "grad_output")
    check_array(output, "output")
    if grad_output.dtype != output.dtype:
        raise TypeError(f"grad_output and output must have the same dtype, got {grad_output.dtype} and "
                        f"{output.dtype} (cast one first)")
    try:
        shape = tuple(np.broadcast_shapes(grad_output.shape, output.shape))
    except ValueError:
        raise ValueError(f"grad_output and output must broadcast against each other, got {grad_output.shape} and "
                         f"{output.shape}") from None
    if len(shape) > MAX_DIMS:
        raise ValueError(f"grad_output and output have at most {MAX_DIMS} dimensions, got {len(shape)}")
    dy, y = (np.ascontiguousarray(np.broadcast_to(a, shape)) for a in (grad_output, output))
    if grad_output.dtype in aicpu.DTYPES:
        if platform is not None and not isinstance(platform, Platform):
            raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
        check_out_like(out, shape, grad_output.dtype)
        result = aicpu.sigmoid_grad(dy, y)
        if out is None:
            return result
        out[...] = result
        return out
    # the op_api's BroadcastTo done, the kernel sees two arrays of one shape
    return call(GRAD_NAME, (("grad_output", dy), ("output", y)), None, out, platform)
