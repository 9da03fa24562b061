"""A plain SwiGlu reference for the tests only (issue 41), written instruction by instruction from hicann/ops-nn
``activation/swi_glu/op_kernel`` (``swi_glu_impl.hpp``, ``swi_glu_bf16.hpp``; ``arch35/`` has the same
Compute) with NumPy float32 arithmetic, each step one IEEE binary32 rounding. Nothing here imports the
package.

x viewed as ``(rowLen, 2 * colLen)`` (``SetTotalShape``): rowLen the product of the axes before dim, colLen
half the product of dim and the axes after it; a the first colLen of each row, b the next.
"""
from __future__ import annotations

import math

import numpy as np

from reference import ref_exp_f32

F32 = np.float32


def split(x, dim):
    d = dim % x.ndim
    rows = math.prod(x.shape[:d])
    cols = math.prod(x.shape[d:]) // 2
    v = np.ascontiguousarray(x).reshape(rows, 2 * cols)
    return v[:, :cols], v[:, cols:], d


def swiglu_ref(x, dim=-1):
    """The kernel's out for x (float32, float16 or bfloat16), x's dtype, dim halved."""
    a, b, d = split(x, dim)
    shape = x.shape[:d] + (x.shape[d] // 2,) + x.shape[d + 1:]
    with np.errstate(all="ignore"):
        if x.dtype == np.float32:
            c = (a * F32(-1.0)).astype(F32)            # Muls(c, a, beta = -1)
            c = ref_exp_f32(c)                         # Exp
            c = (c + F32(1.0)).astype(F32)             # Adds(c, c, 1)
            c = (np.ones_like(c) / c).astype(F32)      # Div(c, ones, c)
            c = (c * a).astype(F32)                    # Mul(c, c, a)
            c = (c * b).astype(F32)                    # Mul(c, c, b)
            return c.reshape(shape)
        aw, bw = a.astype(F32), b.astype(F32)          # Cast CAST_NONE (exact)
        c = (aw * F32(-1.0)).astype(F32)               # Muls(c, a, -1)
        c = ref_exp_f32(c)                             # Exp
        c = (c + F32(1.0)).astype(F32)                 # Adds(c, c, 1)
        c = (aw / c).astype(F32)                       # Div(c, a, c)
        c = (c * bw).astype(F32)                       # Mul(c, c, b)
        return c.astype(x.dtype).reshape(shape)        # Cast CAST_RINT: to nearest even


def swiglu_grad_a2_ref(grad_output, x, dim=-1):
    """The A2 SwiGluGrad kernel (``swi_glu_grad_float.hpp``, ``swi_glu_grad_bf16.hpp``, beta = -1): grad_x."""
    a, b, d = split(x, dim)
    lw = np.ascontiguousarray(grad_output).reshape(a.shape).astype(F32)
    aw, bw = a.astype(F32), b.astype(F32)
    with np.errstate(all="ignore"):
        sig = (aw * F32(-1.0)).astype(F32)                   # Muls(sig, a, beta)
        sig = ref_exp_f32(sig)                               # Exp
        sig = (sig + F32(1.0)).astype(F32)                   # Adds(sig, sig, 1)
        sig = (np.ones_like(sig) / sig).astype(F32)          # Div(sig, ones, sig)
        n = (sig * aw).astype(F32)                           # Mul(n, sig, a)
        n = (n * lw).astype(F32)                             # Mul(n, n, l)
        t = (sig * F32(-1.0)).astype(F32)                    # Muls(tmp, sig, -1)
        t = (t + F32(1.0)).astype(F32)                       # Adds(tmp, tmp, 1)
        m = (sig * t).astype(F32)                            # Mul(m, sig, tmp)
        m = (m * aw).astype(F32)                             # Mul(m, m, a)
        m = (m * F32(1.0)).astype(F32)                       # Muls(m, m, -beta)
        m = (m + sig).astype(F32)                            # Add(m, m, sig)
        if x.dtype == np.float32:
            m = (m * bw).astype(F32)                         # Mul(m, m, b)
            m = (m * lw).astype(F32)                         # Mul(m, m, l)
        else:
            m = (m * lw).astype(F32)                         # Mul(m, m, l)
            m = (m * bw).astype(F32)                         # Mul(m, m, b)
        out = np.concatenate([m, n], axis=1)
        return out.astype(x.dtype).reshape(x.shape)          # 16-bit: CAST_RINT


def swiglu_grad_950_ref(grad_output, x, dim=-1):
    """The Ascend 950 SwiGluGrad Compute (``arch35/swi_glu_grad_base.h:186-204``, beta = -1, one order for every
    dtype; loads widen exactly, stores narrow with CAST_RINT): grad_x."""
    a, b, d = split(x, dim)
    grad = np.ascontiguousarray(grad_output).reshape(a.shape).astype(F32)
    src_a, src_b = a.astype(F32), b.astype(F32)
    with np.errstate(all="ignore"):
        dst_b = (src_a * F32(-1.0)).astype(F32)              # Muls(dstB, srcA, beta)
        dst_b = ref_exp_f32(dst_b)                           # Exp(dstB, dstB)
        dst_b = (dst_b + F32(1.0)).astype(F32)               # Adds(dstB, dstB, -beta)
        dst_a = np.full_like(dst_b, F32(1.0))                # Duplicate(dstA, -beta)
        dst_b = (dst_a / dst_b).astype(F32)                  # Div(dstB, dstA, dstB): sig
        dst_a = (dst_b * F32(-1.0)).astype(F32)              # Muls(dstA, dstB, beta)
        dst_a = (dst_a + F32(1.0)).astype(F32)               # Adds(dstA, dstA, -beta)
        dst_a = (dst_a * src_a).astype(F32)                  # Mul(dstA, dstA, srcA)
        dst_a = (dst_a + F32(1.0)).astype(F32)               # Adds(dstA, dstA, -beta)
        temp = (grad * dst_b).astype(F32)                    # Mul(tempReg, grad, dstB)
        dst_a = (dst_a * temp).astype(F32)                   # Mul(dstA, dstA, tempReg)
        dst_a = (dst_a * src_b).astype(F32)                  # Mul(dstA, dstA, srcB)
        dst_b = (dst_b * grad).astype(F32)                   # Mul(dstB, dstB, grad)
        dst_b = (dst_b * src_a).astype(F32)                  # Mul(dstB, dstB, srcA)
        out = np.concatenate([dst_a, dst_b], axis=1)
        return out.astype(x.dtype).reshape(x.shape)          # StoreOneTensor: CAST_RINT (NO_SAT)
