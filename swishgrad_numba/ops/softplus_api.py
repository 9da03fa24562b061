"""The public functions :func:`softplus` and :func:`softplus_backward`: each the generic path
(:func:`.call.call`: the arguments checked, the registered operator's host tiling, its compiled pass on
the walk). docs/model.md, "Softplus (aclnnSoftplus, 950 only)" and "SoftplusBackward"."""
from __future__ import annotations

from ..arguments import bfloat16_refusal, check_array, check_out_like
from ..dtypes import BFLOAT16, promoted_float_dtype, to_float32
from ..platform import Platform
from . import softplus as sp
from . import softplus_grad as spg
from .call import call

__all__ = ["softplus", "softplus_backward"]


def softplus(x, beta=1.0, threshold=20.0, *, out=None, platform: Platform | None = None):
    """Softplus, ``log(1 + exp(beta x)) / beta`` (``x`` where ``beta x > threshold``), exactly as the
    Ascend 950's SoftplusV2 kernel computes it (aclnnSoftplus).

    Parameters
    ----------
    x : numpy.ndarray
        float32, float16 or ``ml_dtypes.bfloat16``; any shape and strides.
    beta, threshold : real
        Rounded to float32 once (the op_api's ``aclScalar::ToFloat``); any value, inf and NaN included.
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
        public A2 kernel for SoftplusV2. The 950 has no saturation overflow mode.

    Notes
    -----
    Quirks of the kernel (docs/model.md): ``1 / beta`` is +inf wherever ``|beta| <= 2**-23`` (so beta 0
    gives +inf for threshold >= 0); below ``beta x`` of about -16.6 the result is ``exp(beta x) / beta``,
    not ``log1p``'s rounding of it; 16-bit results are narrowed ties away from zero (CAST_ROUND).
    """
    attrs = (to_float32(beta, "beta"), to_float32(threshold, "threshold"))
    return call(sp.NAME, (("x", x),), attrs, out, platform)


def softplus_backward(grad_output, x, beta=1.0, threshold=20.0, *, out=None, platform: Platform | None = None):
    """The gradient of Softplus, ``grad_output * sigmoid(beta x)`` (``grad_output`` where ``beta x >
    threshold``), exactly as the NPU's SoftplusV2Grad kernel computes it (aclnnSoftplusBackward).

    Parameters
    ----------
    grad_output, x : numpy.ndarray
        One shape, any strides. ``grad_output`` float32, float16, ``ml_dtypes.bfloat16`` or float64; ``x``
        also an integer or bool dtype. As aclnnSoftplusBackward's op_api: where the two differ in dtype
        or either is outside float32/float16/bfloat16, both are cast to float32 (round to nearest even)
        and the kernel's float32 result is cast to the result's dtype, PyTorch's promotion of the two
        (:func:`~swishgrad_numba.dtypes.promoted_float_dtype`: float64 where either is).
    beta, threshold, out
        As :func:`softplus`.
    platform : Platform, optional
        The device (the A2 reference platform by default): its SoC picks the kernel. The A2's computes
        ``dy * (1 / (exp(-beta x) + 1))`` (two roundings), the 950's ``dy / (exp(-beta x) + 1)`` (one).

    Returns, errors as :func:`softplus` (ValueError for a dtype outside the lists or differing shapes;
    the A2 kernel computes in the saturation overflow mode where the platform is in it).
    """
    attrs = (to_float32(beta, "beta"), to_float32(threshold, "threshold"))
    check_array(grad_output, "grad_output")
    check_array(x, "x")
    refusal = spg.dtype_refusal(grad_output.dtype, x.dtype)
    if refusal:
        raise ValueError(refusal)
    kernel = spg.kernel_dtype(grad_output.dtype, x.dtype)     # the op_api's rule, as aclnn's face uses it
    result = promoted_float_dtype(grad_output.dtype, x.dtype)
    if grad_output.dtype == x.dtype == result == kernel.numpy:
        return call(spg.NAME, (("grad_output", grad_output), ("x", x)), attrs, out, platform)
    if BFLOAT16.numpy in (grad_output.dtype, x.dtype) and platform is not None:
        reason = isinstance(platform, Platform) and bfloat16_refusal(platform)
        if reason:
            raise ValueError(f"dtype {reason}")
    if grad_output.shape != x.shape:
        raise ValueError(f"grad_output and x must have the same shape, got {grad_output.shape} and {x.shape}")
    check_out_like(out, x.shape, result)
    # the op_api's Casts: both inputs to the kernel's dtype (round to nearest even), the result to gradInput's
    computed = call(spg.NAME, (("grad_output", grad_output.astype(kernel.numpy)), ("x", x.astype(kernel.numpy))),
                    attrs, None, platform)
    if out is None:
        return computed.astype(result)
    out[...] = computed
    return out
