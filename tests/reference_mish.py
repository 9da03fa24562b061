"""Plain readings of the Mish kernels (ops-nn ``experimental/activation/mish/op_kernel/mish.h`` and
``activation/mish/op_kernel/arch35/mish_dag.h``), for the tests only.

Nothing here imports the package. One line per instruction, on whole float32 arrays (one IEEE rounding
each); Exp correctly rounded (``reference.ref_exp_f32``); the 950's Axpy fused (one rounding) or unfused
(two); 16-bit inputs widened exactly, results narrowed to nearest even (both kernels' CAST_RINT).
"""
from __future__ import annotations

import numpy as np

from reference import ref_exp_f32
from reference_activations import fma_f32
from reference_family import narrow

F32 = np.float32


def mish_a2_f32(x):
    """``ComputeHighPerf`` / ``ComputeHighPerf16`` (``mish.h:199-240``, ``:255-293``)."""
    with np.errstate(all="ignore"):
        gt = x > F32(0)                             # CompareScalar(cmp1, x, 0, GT)
        t1 = x * F32(-1)                            # Muls(tmp1, x, -1)
        t1 = ref_exp_f32(t1)                        # Exp
        t1 = t1 * F32(2)                            # Muls 2
        t1 = t1 + F32(1)                            # Adds 1
        t2 = x * F32(-2)                            # Muls(tmp2, x, -2)
        t2 = ref_exp_f32(t2)                        # Exp
        t2 = t2 * F32(2)                            # Muls 2
        t2 = t1 + t2                                # Add(tmp2, tmp1, tmp2)
        t1 = t1 / t2                                # Div: res for x > 0
        t2 = x * F32(2)                             # Muls(tmp2, x, 2)
        t2 = ref_exp_f32(t2)                        # Exp
        y = ref_exp_f32(x)                          # Exp(y, x)
        y = y * F32(2)                              # Muls(y, y, 2)
        y = y + t2                                  # Add(y, y, tmp2)
        t2 = y + F32(2)                             # Adds(tmp2, y, 2)
        y = y / t2                                  # Div: res for x <= 0
        y = np.where(gt, t1, y).astype(F32)         # Select(y, cmp1, tmp1, y)
        return y * x                                # Mul(y, y, x)


def tanh_softplus_arch35_f32(x, axpy: str = "fused"):
    """``MishCustom`` without its last multiply: ``mish_dag.h:81-99`` (and ``mish_grad_dag.h:115-134``, whose
    one difference, ``Add`` written ``n2 + n`` for ``n + n2``, is the same IEEE sum)."""
    with np.errstate(all="ignore"):
        n = x * F32(-1)                             # Muls(n, x, -1)
        d = x * F32(-2)                             # Muls(d, x, -2)
        n = ref_exp_f32(n)                          # Exp
        d = ref_exp_f32(d)                          # Exp
        n = n * F32(2)                              # Muls 2
        n = n + F32(1)                              # Adds 1
        d = d * F32(2)                              # Muls 2
        d = n + d                                   # Add(d, n, d)
        o = n / d                                   # Div(out, n, d)
        p = x * F32(2)                              # Muls(p, x, 2)
        p = ref_exp_f32(p)                          # Exp: e^2x
        q = ref_exp_f32(x)                          # Exp: e^x
        p = fma_f32(q, np.full_like(q, 2), p) if axpy == "fused" else (q * F32(2)) + p   # Axpy(p, q, 2)
        q = p + F32(2)                              # Adds(q, p, 2)
        p = p / q                                   # Div(p, p, q)
        lt = x < F32(0)                             # Compares LT 0
        return np.where(lt, p, o).astype(F32)       # Select(out, p, out, mask)


def mish_arch35_f32(x, axpy: str = "fused"):
    """``MishCustom`` (``mish_dag.h:81-100``)."""
    with np.errstate(all="ignore"):
        return tanh_softplus_arch35_f32(x, axpy) * x    # Mul(out, out, x)


def ref_mish(x, kernel: str = "a2", axpy: str = "fused") -> np.ndarray:
    x = np.asarray(x)
    w = x.astype(F32).reshape(-1)
    y = mish_a2_f32(w) if kernel == "a2" else mish_arch35_f32(w, axpy)
    if x.dtype == np.float32:
        return y.reshape(x.shape)
    return narrow(y, x.dtype, ties_away=False).reshape(x.shape)


def mish_grad_arch35_f32(g, x, axpy: str = "fused"):
    """``MishGradDAG`` (``activation/mish_grad/op_kernel/arch35/mish_grad_dag.h``): ``MishCustom`` (:115-134)
    gives t, ``MishGradCustom`` (:63-72), then ``Mul`` by grad (:175)."""
    t = tanh_softplus_arch35_f32(x, axpy)
    with np.errstate(all="ignore"):
        s = t * t                                   # Mul(sqr, t, t)
        s = s + F32(-1)                             # Adds(sqr, sqr, -1)
        s = s * x                                   # Mul(sqr, sqr, x)
        q = x * F32(-1)                             # Muls(exp2, x, -1)
        q = ref_exp_f32(q)                          # Exp
        q = q + F32(1)                              # Adds 1
        q = s / q                                   # Div(exp2, sqr, exp2)
        r = t - q                                   # Sub(out, t, exp2)
        return r * g                                # Mul(OpResult2, grad)


def ref_mish_backward(g, x, axpy: str = "fused") -> np.ndarray:
    """The 950 kernel's result on same-shaped inputs of one dtype."""
    x, g = np.asarray(x), np.asarray(g)
    y = mish_grad_arch35_f32(g.astype(F32).reshape(-1), x.astype(F32).reshape(-1), axpy)
    if x.dtype == np.float32:
        return y.reshape(x.shape)
    return narrow(y, x.dtype, ties_away=False).reshape(x.shape)


def _packed_guard(m1, m2):
    """``mish_grad.h:197-200`` as the device lays it out: each mask packed one bit per element (8 to a byte,
    element 0 in bit 0), the bytes cast to half (CAST_NONE, exact), added in half, cast back to bytes
    (CAST_RINT), unpacked. Two masks never both 1 add without a carry: the sum's bits are their union."""
    b1 = np.packbits(m1, bitorder="little").astype(np.float16)
    b2 = np.packbits(m2, bitorder="little").astype(np.float16)
    s = (b1 + b2).astype(np.float64)                        # half sums of bytes: exact below 2048
    byte = np.clip(np.rint(s), 0, 255).astype(np.uint8)
    return np.unpackbits(byte, bitorder="little")[:m1.size].astype(bool)


def mish_grad_a2_f32(g, x):
    """The A2 ``KernelMishGrad::Compute`` without tanhx (``experimental/activation/mish_grad/op_kernel/
    mish_grad.h:239-285``; the 16-bit branch :156-205 is the same on widened copies)."""
    with np.errstate(all="ignore"):
        m1 = x > F32(0)                             # CompareScalar(mask1, x, 0, GT)
        t1 = x * F32(-1)                            # Muls(tmp1, x, -1)
        t2 = x * F32(-2)                            # Muls(tmp2, x, -2)
        t1 = ref_exp_f32(t1)                        # Exp
        t2 = ref_exp_f32(t2)                        # Exp
        t0 = t1 * F32(2)                            # Muls(tmp0, tmp1, 2)
        t2 = t2 * F32(2)                            # Muls(tmp2, tmp2, 2)
        o = t0 + F32(1)                             # Adds(out, tmp0, 1)
        t0 = t0 + t2                                # Add(tmp0, tmp0, tmp2)
        t0 = t0 + F32(1)                            # Adds(tmp0, tmp0, 1)
        o = o / t0                                  # Div(out, out, tmp0)
        t1 = t1 + F32(1)                            # Adds(tmp1, tmp1, 1)
        t1 = x / t1                                 # Div(tmp1, x, tmp1)
        t0 = o * o                                  # Mul(tmp0, out, out)
        t3 = np.ones_like(x)                        # Duplicate(tmp3, 1)
        t0 = t3 - t0                                # Sub(tmp0, tmp3, tmp0)
        t0 = t1 * t0                                # Mul(tmp0, tmp1, tmp0)
        t0 = o + t0                                 # Add(tmp0, out, tmp0)
        o = np.where(m1, t0, F32(0)).astype(F32)    # Select(out, mask1, tmp0, 0)
        m2 = x <= F32(0)                            # CompareScalar(mask2, x, 0, LE)
        t0 = x * F32(2)                             # Muls(tmp0, x, 2)
        t1 = ref_exp_f32(x)                         # Exp(tmp1, x)
        t2 = t1 * F32(2)                            # Muls(tmp2, tmp1, 2)
        t0 = ref_exp_f32(t0)                        # Exp(tmp0, tmp0)
        t0 = t2 + t0                                # Add(tmp0, tmp2, tmp0)
        t2 = t0 + F32(2)                            # Adds(tmp2, tmp0, 2)
        t2 = t0 / t2                                # Div(tmp2, tmp0, tmp2)
        t0 = x * t1                                 # Mul(tmp0, x, tmp1)
        t1 = t1 + F32(1)                            # Adds(tmp1, tmp1, 1)
        t0 = t0 / t1                                # Div(tmp0, tmp0, tmp1)
        t1 = t2 * t2                                # Mul(tmp1, tmp2, tmp2)
        t1 = t3 - t1                                # Sub(tmp1, tmp3, tmp1)
        t1 = t0 * t1                                # Mul(tmp1, tmp0, tmp1)
        t1 = t2 + t1                                # Add(tmp1, tmp2, tmp1)
        t1 = np.where(m2, t1, F32(0)).astype(F32)   # Select(tmp1, mask2, tmp1, 0)
        o = o + t1                                  # Add(out, out, tmp1)
        keep = _packed_guard(m1, m2)                # Cast, Cast, Add (half), Cast back
        o = np.where(keep, o, x).astype(F32)        # Select(out, mask2, out, x)
        return o * g                                # Mul(out, out, grad)


def ref_mish_backward_a2(g, x) -> np.ndarray:
    """The A2 kernel's result on same-shaped inputs of one dtype."""
    x, g = np.asarray(x), np.asarray(g)
    y = mish_grad_a2_f32(g.astype(F32).reshape(-1), x.astype(F32).reshape(-1))
    if x.dtype == np.float32:
        return y.reshape(x.shape)
    return narrow(y, x.dtype, ties_away=False).reshape(x.shape)
