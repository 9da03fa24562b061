"""Plain references of the Relu and ThresholdBackward kernels (issue 41), instruction by instruction as
the ops-nn sources write them (``e5c3fa93``), in NumPy only: nothing from the package.

- Relu: ``experimental/activation/relu/op_kernel/relu.h`` (A2) and ``activation/relu/op_kernel/arch35/
  relu_dag.h`` (950): Relu in float32 or half; bfloat16 widened, Relu in float32, narrowed to nearest even.
  The Relu instruction: x where x > 0, NaN as is, else +0 (``activation/relu/tests/assets/golden.py``).
- ReluGrad: ``experimental/activation/relu_grad/op_kernel/relu_grad.h`` (A2; bfloat16's int constants wrap
  to 0) and ``activation/relu_grad/op_kernel/arch35/relu_grad_dag.h`` (950).
- ThresholdGradV2D: ``experimental/activation/threshold_grad_v2_d/op_kernel/threshold_grad_v2_d.h`` (A2,
  CompareScalar GT then Select(grad, 0); half compared against the threshold rounded to half) and
  ``activation/threshold_grad_v2_d/op_kernel/arch35/threshold_grad_v2_d_dag.h`` (950, Compare LE then
  Select(0, grad), in float32).
"""
import ml_dtypes
import numpy as np

F32 = np.float32
BF16 = np.dtype(ml_dtypes.bfloat16)
FLT_EPS = float(np.finfo(np.float32).eps)
FLT_MIN = np.float32(2.0 ** -126)


def _relu(v):
    """The Relu instruction on one dtype's values."""
    zero = v.dtype.type(0)
    return np.where(np.isnan(v) | (v > zero), v, zero)


def ref_relu(x):
    if x.dtype == np.uint8:
        return x.copy()
    if x.dtype.kind in "iu":
        return np.where(x > 0, x, x.dtype.type(0))
    if x.dtype == BF16:
        with np.errstate(invalid="ignore"):
            return _relu(x.astype(F32)).astype(BF16)   # Cast CAST_NONE, Relu, Cast CAST_RINT
    return _relu(x)                                # float32, or half in half


def _nan_min(a, b):
    """Min: a NaN first operand, else a NaN second, else the smaller (equal: the first)."""
    return np.where(np.isnan(a) | (a <= b), a, b)


def _nan_max(a, b):
    return np.where(np.isnan(a) | (a >= b), a, b)


def ref_relu_grad(g, x, arch):
    """ReluGrad of one float dtype on ``arch`` ("a2" or "950")."""
    with np.errstate(invalid="ignore", over="ignore"):
        if arch == "950":                               # Compare LE 0, Select(0, 1), Mul(grad, .)
            s = np.where(x.astype(F32) <= 0, F32(0), F32(1))
            return (g.astype(F32) * s).astype(g.dtype)
        if x.dtype != BF16:                             # CompareScalar LE 0, Select(0, grad)
            return np.where(x <= 0, g.dtype.type(0), g)
        t1 = _nan_min(x.astype(F32), np.full(x.shape, FLT_MIN, F32))
        t2 = _nan_max(t1, np.zeros(x.shape, F32))
        t2 = t2 * F32(0) * F32(0) * F32(0)              # (float)(int)2^38, (float)(int)2^44: both 0
        return (t2 * g.astype(F32)).astype(BF16)


def ref_threshold_grad(g, x, t32, arch):
    """ThresholdGradV2D of one float dtype on ``arch``, threshold ``t32`` (float32)."""
    with np.errstate(invalid="ignore", over="ignore"):
        if arch == "950":
            return np.where(x.astype(F32) <= t32, g.dtype.type(0), g)
        if x.dtype == np.float16:
            return np.where(x > np.float16(t32), g, g.dtype.type(0))
        return np.where(x.astype(F32) > t32, g, g.dtype.type(0))


def ref_threshold_backward(g, x, t32, arch):
    """aclnnThresholdBackward: ReluGrad where |t| <= FLT_EPSILON, else ThresholdGradV2D; integers too."""
    relu = abs(float(t32)) <= FLT_EPS
    if g.dtype.kind in "iu":
        if relu:
            return np.where(x > 0, g, g.dtype.type(0))
        with np.errstate(invalid="ignore"):
            keep = ~(x.astype(F32) <= t32) if arch == "950" else x.astype(F32) > t32
        if g.dtype == np.int32:                         # grad through float32 and back
            g = np.clip(g.astype(F32).astype(np.float64), -2.0 ** 31, 2.0 ** 31 - 1).astype(np.int32)
        return np.where(keep, g, g.dtype.type(0))
    return ref_relu_grad(g, x, arch) if relu else ref_threshold_grad(g, x, t32, arch)
