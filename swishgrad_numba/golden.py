"""Goldens: the float64 truth, and the operator's own float32 Python goldens (model section 7).

:func:`float64_truth` is the package's one evaluation of the formula in
float64 (the demo, the accuracy survey and the notebooks use it): the
yardstick for "how close to the exact derivative". The others are the operator's test goldens, for comparison:

The operator's tests compute the expected output with NumPy in float32
(16-bit inputs upcast first) and cast back to the input dtype. This is not
the kernel's instruction sequence: NumPy's ``exp`` is not correctly rounded
and the products are grouped differently, so a golden may differ from the
emulator in the last bits. It is the yardstick the operator's precision
standard is measured against, and the baseline the benchmarks compare with.

Two groupings of the final products exist in the operator's test code, and
they can differ in the last bits of a float32 result (issue 12 reports 10,285
of the 33,105 float32 ATK elements differing, by up to 2 ULP):

- :func:`atk_golden`, the ATK test executor's grouping, ``(g * sig) * f``;
  :func:`numpy_golden` is this function under its older name. The
  benchmarks (``swishgrad bench``, ``bench/``) and ``bench/accuracy_survey.py``
  use it.
- :func:`operator_test_golden`, the grouping of ops-nn's
  ``tests/assets/golden.py``, ``g * (sig * f)``.

Both share ``sig = 1 / (1 + exp(-beta * x))`` and
``f = 1 + beta * x * (1 - sig)``. ``swishgrad compare`` uses neither: it
measures a device dump against the emulator.
"""
from __future__ import annotations

import numpy as np

from .dtypes import SUPPORTED_DTYPES

__all__ = ["atk_golden", "float64_truth", "numpy_golden", "operator_test_golden"]


def _check_inputs(grad_output, x) -> None:
    for name, a in (("grad_output", grad_output), ("x", x)):
        if not isinstance(a, np.ndarray):
            raise TypeError(f"{name} must be a numpy.ndarray, got {type(a).__name__}")
        if a.dtype not in SUPPORTED_DTYPES.values():
            raise TypeError(f"{name}.dtype must be float32, float16 or bfloat16, got {a.dtype}")
    if grad_output.dtype != x.dtype:
        raise TypeError(f"grad_output and x must have the same dtype, got {grad_output.dtype} and {x.dtype}")
    if grad_output.shape != x.shape:
        raise ValueError(f"grad_output and x must have the same shape, got {grad_output.shape} and {x.shape}")


def float64_truth(grad_output: np.ndarray, x: np.ndarray, beta: float = 1.0) -> np.ndarray:
    """SwishGrad (model section 1) in float64, from the values the kernel sees.

    The inputs in their own dtype (widened exactly), beta rounded to float32
    first, then ``g * sig * (1 + beta x (1 - sig))`` with
    ``sig = 1 / (1 + exp(-beta x))``, all in float64. Its error is a few
    float64 ulps, far below any of the supported dtypes' resolution, so it
    stands for the exact derivative (where ``exp`` overflows the sigmoid is
    0, as in the limit).

    Parameters
    ----------
    grad_output, x : numpy.ndarray
        Same shape and dtype: float32, float16 or ``ml_dtypes.bfloat16``.
    beta : float
        Rounded to float32.

    Returns
    -------
    numpy.ndarray
        float64, of the inputs' shape.
    """
    _check_inputs(grad_output, x)
    beta64 = float(np.float32(beta))
    with np.errstate(invalid="ignore"):  # signalling-NaN patterns widen with a flag
        g = np.asarray(grad_output).astype(np.float64)
        xb = beta64 * np.asarray(x).astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        sig = 1.0 / (1.0 + np.exp(-xb))
        return g * sig * (1.0 + xb * (1.0 - sig))


def _float32_terms(grad_output, x, beta):
    """Check the inputs; return ``(g, sig, f, dtype)`` with ``g``, ``sig``, ``f`` float32 arrays."""
    _check_inputs(grad_output, x)
    g = np.asarray(grad_output, dtype=np.float32)
    xf = np.asarray(x, dtype=np.float32)
    beta32 = np.float32(beta)
    with np.errstate(over="ignore", invalid="ignore"):
        sig = np.float32(1.0) / (np.float32(1.0) + np.exp(-beta32 * xf))
        f = np.float32(1.0) + beta32 * xf * (np.float32(1.0) - sig)
    return g, sig, f, x.dtype


def atk_golden(grad_output: np.ndarray, x: np.ndarray, beta: float = 1.0) -> np.ndarray:
    """SwishGrad by the ATK test executor's float32 NumPy recipe, ``(g * sig) * f``.

    Parameters
    ----------
    grad_output, x : numpy.ndarray
        Same shape and dtype: float32, float16 or ``ml_dtypes.bfloat16``.
        16-bit inputs are upcast to float32 (exactly) first.
    beta : float
        Rounded to float32.

    Returns
    -------
    numpy.ndarray
        The float32 result cast back to the inputs' dtype (round to nearest
        even).

    Raises
    ------
    TypeError, ValueError
        For non-arrays, unsupported or unequal dtypes, or unequal shapes.
    """
    g, sig, f, dtype = _float32_terms(grad_output, x, beta)
    with np.errstate(over="ignore", invalid="ignore"):
        return ((g * sig) * f).astype(dtype)


numpy_golden = atk_golden  # the original name; same function, same grouping


def operator_test_golden(grad_output: np.ndarray, x: np.ndarray, beta: float = 1.0) -> np.ndarray:
    """SwishGrad by the grouping of ops-nn's ``tests/assets/golden.py``, ``g * (sig * f)``.

    Parameters, return value and errors as :func:`atk_golden`; only the order
    of the two final float32 products differs. It is the kernel's own order
    (model section 2), so this golden differs from the emulator only where
    NumPy's ``exp`` is not correctly rounded.
    """
    g, sig, f, dtype = _float32_terms(grad_output, x, beta)
    with np.errstate(over="ignore", invalid="ignore"):
        return (g * (sig * f)).astype(dtype)
