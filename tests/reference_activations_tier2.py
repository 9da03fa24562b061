"""Plain readings of the second-tier activation kernels (docs/model.md, "The
activation library: second tier"), for the tests only.

GeluV2 (none / tanh), GeluBackwardV2, Softplus, SoftplusBackward, LeakyRelu,
LeakyReluBackward, Elu and EluBackward, as the Ascend 950 kernels
(ops-nn ``activation/<op>/op_kernel/arch35``) and, where one is public, the
Atlas A2 kernels (``experimental/activation/<op>``) compute them; the Erf
library routine as asc-devkit builds it (``impl/adv_api/detail/math/erf/erf_3510_impl.h``).

Nothing here imports the package. Every float32 instruction is one NumPy
float32 operation (one IEEE round-to-nearest-even rounding); Exp and Ln are
correctly rounded (the device's rounding of both is not public); fused
multiply-adds round once; 16-bit inputs are widened exactly and results
narrowed as each kernel says (CAST_RINT, or CAST_ROUND = ties away from zero
for the 950 Softplus). No tiling: each function maps whole arrays, one
instruction per line, in the kernel's operand order.
"""
from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np

from reference import _round_rational_to_f32, ref_exp_f32
from reference_activations import (fma_f32, f32_of_double, gelu_arch35_f32, gelu_backward_arch35_f32,
                                   narrow_like, widen)
from reference_family import narrow

F32 = np.float32
F64 = np.float64

#: The kernels this module knows, by operator ("a2" = Atlas A2, "arch35" = Ascend 950).
KERNELS = {
    "gelu_v2": ("arch35",),
    "gelu_backward_v2": ("a2", "arch35"),
    "softplus": ("arch35",),
    "softplus_backward": ("a2", "arch35"),
    # "aicpu": float64 runs an AICPU kernel that ops-nn does not contain: modelled plainly
    "leaky_relu": ("arch35", "aicpu"),
    "leaky_relu_backward": ("arch35", "aicpu"),
    "elu": ("arch35",),
    "elu_backward": ("a2", "arch35"),
}

#: The two Erf algorithms of asc-devkit's 950 implementation (ErfConfig.algo).
ERF_ALGOS = ("subsection", "pade")


def f32_bits(u: int) -> np.float32:
    """``int32_as_float``: the binary32 with these bits."""
    return np.array([u], dtype=np.uint32).view(F32)[0]


# ---------------------------------------------------------------- new instructions, one each


def compare(a, b, mode: str) -> np.ndarray:
    """Compare / CompareScalar / Compares: one mask bit per element. IEEE ordered
    comparisons: any NaN operand gives false for LT/GT/LE/GE/EQ and true for NE."""
    ops = {"LT": np.less, "GT": np.greater, "LE": np.less_equal, "GE": np.greater_equal,
           "EQ": np.equal, "NE": np.not_equal}
    with np.errstate(invalid="ignore"):
        return ops[mode](a, b)


def select(mask, src0, src1) -> np.ndarray:
    """Select (VSEL_TENSOR_TENSOR_MODE, VSEL_TENSOR_SCALAR_MODE, MicroAPI Select):
    the bit set takes src0, the bit clear src1; the values pass bit for bit."""
    return np.where(mask, src0, src1).astype(np.result_type(src0, src1))


def mins(a, scalar) -> np.ndarray:
    """Mins(a, s): min with NaN propagating (the model; see docs/model.md)."""
    return np.minimum(a, F32(scalar))


def maxs(a, scalar) -> np.ndarray:
    """Maxs(a, s): max with NaN propagating."""
    return np.maximum(a, F32(scalar))


def abs_f32(a) -> np.ndarray:
    """Abs: the sign bit cleared (NaN included)."""
    return (np.asarray(a, dtype=F32).view(np.uint32) & np.uint32(0x7FFFFFFF)).view(F32)


def shift_right_u32(a, n: int) -> np.ndarray:
    """ShiftRight on the uint32 reinterpretation: a logical shift."""
    return np.asarray(a, dtype=F32).view(np.uint32) >> np.uint32(n)


def cast_i32_to_f32(i) -> np.ndarray:
    """Cast int32 -> float32, CAST_NONE: exact for |i| < 2^24 (the kernels cast 0 and 1)."""
    i = np.asarray(i).astype(np.int32)
    assert (np.abs(i.astype(np.int64)) < 2 ** 24).all()
    return i.astype(F32)


# ---------------------------------------------------------------- Ln, correctly rounded


def correctly_rounded_ln_f32(t: np.float32) -> np.float32:
    """ln(t) rounded to nearest-even binary32, decided with 60-digit decimals."""
    t = F32(t)
    if np.isnan(t) or t < 0:
        return F32(np.nan)
    if t == 0:
        return F32(-np.inf)
    if np.isinf(t):
        return F32(np.inf)
    if t == 1:
        return F32(0.0)
    with localcontext() as ctx:
        ctx.prec = 60
        exact = Decimal(float(t)).ln()
    # 60 digits are far closer than any binary32 half-ulp gap can be approached by ln of a binary32
    return _round_rational_to_f32(Fraction(exact))


def _near_boundary(d: np.ndarray, rel: float = 2.0 ** -40) -> np.ndarray:
    """Mask of finite non-zero float64 values within ``rel`` of a binary32 rounding boundary."""
    a = np.abs(d)
    with np.errstate(over="ignore", invalid="ignore"):
        f = a.astype(F32)
        up = np.nextafter(f, F32(np.inf)).astype(F64)
        dn = np.nextafter(f, F32(0)).astype(F64)
        fv = f.astype(F64)
        tol = a * rel
        near = (np.abs(a - (fv + up) / 2) <= tol) | (np.abs(a - (fv + dn) / 2) <= tol)
    return near & np.isfinite(d) & (d != 0)


def ref_ln_f32(t) -> np.ndarray:
    """Correctly rounded binary32 ln of a float32 array (Ln / Log instruction model):
    ln(+-0) = -inf, ln(negative) = NaN, ln(+inf) = +inf, NaN stays NaN.

    Binary64 log rounded once is right except within a hair of a binary32
    rounding boundary; those elements are decided in 60-digit decimal.
    """
    t = np.asarray(t, dtype=F32)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.log(t.astype(F64))
        out = d.astype(F32)
    for i in np.flatnonzero(_near_boundary(d)):
        out.flat[i] = correctly_rounded_ln_f32(t.flat[i])
    return out


# ---------------------------------------------------------------- Erf (asc-devkit erf_3510_impl.h)


# ErfSubsectionCompute: the threshold and the two coefficient sets, as bit patterns.
ERF_C0 = f32_bits(0x3F8060FE)                     # ~1.0029; |x| >= it takes the large-|x| branch
ERF_P1 = [f32_bits(u) for u in (0x38EB4C3A, 0xBAAE005B, 0x3C09919F, 0xBD24D99A, 0x3E235519, 0x3F69B4F9, 0x3F210A14)]
ERF_P2 = [f32_bits(u) for u in (0x38B1E96A, 0xBA574D20, 0x3BAAD5EA, 0xBCDC1BE7, 0x3DE718AF, 0xBEC093AC, 0x3E0375D3)]

# ErfPadeCompute: double literals stored in constexpr float.
ERF_CLIP = f32_of_double(3.92)
ERF_PADE_P = [f32_of_double(v) for v in (0.29639384698e5, 0.50637915060e4, 0.13938061484e4,
                                          0.10162808918e3, 0.75517016694e1, 0.053443748819)]   # P0..P5
ERF_PADE_Q = [f32_of_double(v) for v in (0.26267224157e5, 0.13243365831e5, 0.30231248150e4,
                                          0.39856963806e3, 0.31212858877e2)]                   # Q0..Q4


def erf_subsection_f32(x: np.ndarray) -> np.ndarray:
    """ErfAlgo::SUBSECTION_POLYNOMIAL_APPROXIMATION, float32 in and out."""
    x = np.asarray(x, dtype=F32)
    with np.errstate(all="ignore"):
        a = abs_f32(x)                                        # Abs             f5
        big = compare(a, ERF_C0, "GE")                        # Compare GE      p2
        sq = x * x                                            # Mul             f6
        f7 = select(big, a, sq)                               # Select
        acc = fma_f32(select(big, ERF_P1[0], ERF_P2[0]), f7,  # Duplicate x2, Select x2, FusedMulDstAdd   f10
                      select(big, ERF_P1[1], ERF_P2[1]))
        for k in range(2, 7):                                 # f12, f14, f16, f18, f20
            acc = fma_f32(acc, f7, select(big, ERF_P1[k], ERF_P2[k]))
        neg = -a                                              # Neg             f21
        f22 = select(big, neg, x)                             # Select
        f26 = fma_f32(acc, f22, f22)                          # FusedMulDstAdd  f26
        # ErfSpecialCaseCompute
        small = compare(a, ERF_C0, "LT")                      # Abs; Compare LT
        ln2 = ref_ln_f32(np.full_like(x, 2.0))                # Duplicate(2); Log
        t = f26 * ln2                                         # Mul
        f23 = ref_exp_f32(t)                                  # Exp
        f25 = F32(1.0) - f23                                  # Duplicate(1.0 bits); Sub
        sign = x.view(np.uint32) & np.uint32(0x80000000)      # Duplicate; And
        r4 = (sign | f25.view(np.uint32)).view(F32)           # Or
        return select(small, f26, r4)                         # Select


def erf_pade_f32(x: np.ndarray) -> np.ndarray:
    """ErfAlgo::PADE_APPROXIMATION: clip to [-3.92, 3.92], then P(x) / Q(x)."""
    x = np.asarray(x, dtype=F32)
    P, Q = ERF_PADE_P, ERF_PADE_Q
    with np.errstate(all="ignore"):
        c = mins(x, ERF_CLIP)                   # Mins(x, 3.92)
        c = maxs(c, -ERF_CLIP)                  # Maxs(., -3.92)
        sq = c * c                              # Mul
        p = sq * P[5]                           # Muls
        for k in (4, 3, 2, 1):
            p = p + P[k]                        # Adds
            p = p * sq                          # Mul
        p = p + P[0]                            # Adds
        p = p * c                               # Mul
        sq = c * c                              # Mul (ErfComputeQ recomputes it)
        q = sq + Q[4]                           # Adds
        for k in (3, 2, 1, 0):
            q = q * sq                          # Mul
            q = q + Q[k]                        # Adds
        return p / q                            # Div


def erf_f32(x, algo: str) -> np.ndarray:
    if algo == "subsection":
        return erf_subsection_f32(x)
    if algo == "pade":
        return erf_pade_f32(x)
    raise ValueError(algo)


def erf_algo_for(dtype) -> str:
    """Which algorithm a GeluV2 / GeluGradV2 'none' DAG runs: float32 through opbase
    Vec::Erf (SUBSECTION, vec.h:257-263), 16-bit through the kernels' own ErfFast,
    which calls AscendC::Erf with the default config (PADE, see docs/model.md)."""
    return "subsection" if np.dtype(dtype) == np.float32 else "pade"


# ---------------------------------------------------------------- GeluV2 (950)


GELU_V2_RSQRT2 = f32_of_double(0.707106781)       # MAKE_CONST(float, 0.707106781)


def gelu_v2_none_f32(x: np.ndarray, algo: str) -> np.ndarray:
    """gelu_v2_dag.h:121-153 and GeluV2ErfPost (lines 41-77)."""
    with np.errstate(all="ignore"):
        t = x * GELU_V2_RSQRT2                     # Muls(x, 0.707106781)
        e = erf_f32(t, algo)                       # Erf
        a = e + F32(1.0)                           # Adds(erf, 1)
        m = x * F32(0.5)                           # Muls(x, 0.5)
        return a * m                               # Mul(adds, muls)


def ref_gelu_v2(x, approximate: str = "none", kernel: str = "arch35", algo: str | None = None,
                axpy_model: str = "fused") -> np.ndarray:
    assert kernel in KERNELS["gelu_v2"]
    xf = widen(x)
    if approximate == "none":
        y = gelu_v2_none_f32(xf, algo or erf_algo_for(np.asarray(x).dtype))
    elif approximate == "tanh":
        # GeluV2Tanh (lines 79-118) is the 950 Gelu's loop, constant for constant (gelu_dag.h)
        y = gelu_arch35_f32(xf, axpy_model)
    else:
        raise ValueError(approximate)
    return narrow_like(y, x)


# ---------------------------------------------------------------- GeluBackwardV2


GELU_GRAD_V2_INV_SQRT_2PI = f32_of_double(0.3989422804)     # (float)0.3989422804


def gelu_backward_v2_none_arch35_f32(dy, x, algo: str):
    """gelu_grad_v2_dag.h:170-204 with GeluGradV2ErfPost (lines 44-99)."""
    with np.errstate(all="ignore"):
        t = x * GELU_V2_RSQRT2                     # Muls(x, 0.707106781)
        e = erf_f32(t, algo)                       # Erf
        cdf = e * F32(0.5)                         # Muls(erf, 0.5)
        cdf = cdf + F32(0.5)                       # Adds(., 0.5)
        sq = x * x                                 # Mul(x, x)
        pm = sq * F32(-0.5)                        # Muls(., -0.5)
        pe = ref_exp_f32(pm)                       # Exp
        pdf = pe * GELU_GRAD_V2_INV_SQRT_2PI       # Muls(., 0.3989422804)
        mr = pdf * x                               # Mul(pdf, x)
        ar = cdf + mr                              # Add(cdf, mul)
        return ar * dy                             # Mul(add, dy)


# A2 gelu_grad_v2.h:130-166: constants are static_cast<float>(double literal).
A2_GGV2_NUM = [f32_of_double(v) for v in (-0.7978849236182753, -6.223065142195392, -20.451359645895863,
                                           -29.633095101286557, -4.474629239730099, 30.9817411426)]
A2_GGV2_DEN = [f32_of_double(v) for v in (7.79950327625, 26.6304065815, 44.965039885, 30.9817411527)]
A2_GGV2_TANH = dict(c0=f32_of_double(-0.0713548162726002527220), c1=f32_of_double(-1.595769121605730711759),
                    c2=f32_of_double(0.2140644488178007), c3=f32_of_double(1.595769121605730711759))


def gelu_backward_v2_none_a2_f32(dy, x):
    """A2 gelu_grad_v2.h:130-166 (float32; 16-bit at 181-219 on widened copies, dy widened
    just before the last Mul)."""
    N, D = A2_GGV2_NUM, A2_GGV2_DEN
    with np.errstate(all="ignore"):
        s = shift_right_u32(x, 31)                 # ShiftRight(bits, 31): the sign bit, 0 or 1
        s = cast_i32_to_f32(s.view(np.int32))      # Cast int32 -> float, CAST_NONE
        s = s + F32(-0.5)                          # Adds(., -0.5): -0.5 for +x, +0.5 for -x (and -0, -NaN)
        a = abs_f32(x)                             # Abs
        a = mins(a, 30.0)                          # Mins(|x|, 30)
        z = a * N[0]                               # Muls
        for k in (1, 2, 3, 4):
            z = z + N[k]                           # Adds
            z = z * a                              # Mul
        z = z + N[5]                               # Adds(., 30.9817411426)
        d = a + D[0]                               # Adds(|x|, 7.79950327625)
        for k in (1, 2):
            d = d * a                              # Mul
            d = d + D[k]                           # Adds
        d = d * a                                  # Mul
        d = d + D[3]                               # Adds(., 30.9817411527)
        z = z / d                                  # Div
        a = a * a                                  # Mul
        a = a * F32(-0.5)                          # Muls(., -0.5)
        a = ref_exp_f32(a)                         # Exp
        z = z * a                                  # Mul
        z = s * z                                  # Mul(sign, z)
        t = s + F32(-0.5)                          # Adds(sign, -0.5): -1 or 0
        z = z - t                                  # Sub
        return z * dy                              # Mul(z, dy)


def gelu_backward_v2_tanh_a2_f32(dy, x):
    """A2 gelu_grad_v2.h:364-395 (float32; 16-bit at 411-445): the A2 GeluGrad formula
    with a NaN guard built from Compare EQ, a half-precision Select, an int8 round trip
    and Compare GT."""
    k = A2_GGV2_TANH
    one = F32(1.0)
    with np.errstate(all="ignore"):
        t0 = x * x                                 # Mul
        z = t0 * k["c0"]                           # Muls
        z = z + k["c1"]                            # Adds
        z = z * x                                  # Mul
        z = ref_exp_f32(z)                         # Exp
        t1 = z + one                               # Adds
        t1 = np.full_like(x, one) / t1             # Duplicate(1); Div
        z = z * t1                                 # Mul
        t0 = t0 * k["c2"]                          # Muls
        t0 = t0 + k["c3"]                          # Adds
        t0 = t0 * x                                # Mul
        z = z * t0                                 # Mul
        z = z * t1                                 # Mul
        keep = compare(z, z, "EQ")                 # Compare EQ: false only for NaN
        h = select(keep, np.float16(1.0), np.float16(0.0))   # Duplicate(half 1); Select(., half 0, scalar mode)
        i8 = h.astype(np.int8)                     # Cast half -> int8, CAST_NONE (0 and 1 are exact)
        h = i8.astype(np.float16)                  # Cast int8 -> half
        keep = compare(h, np.float16(0.0), "GT")   # Duplicate(half 0); Compare GT
        z = select(keep, z, F32(0.0))              # Select(z, 0, scalar mode)
        z = z + t1                                 # Add
        return z * dy                              # Mul(z, dy)


def ref_gelu_backward_v2(grad_output, x, approximate: str = "none", kernel: str = "arch35",
                         algo: str | None = None, axpy_model: str = "fused") -> np.ndarray:
    dy, xf = widen(grad_output), widen(x)
    if kernel == "arch35":
        if approximate == "none":
            z = gelu_backward_v2_none_arch35_f32(dy, xf, algo or erf_algo_for(np.asarray(x).dtype))
        else:
            # GeluGradV2TanhCustom (lines 101-168) is the 950 GeluGrad's loop (gelu_grad_dag.h)
            z = gelu_backward_arch35_f32(dy, xf, axpy_model)
    elif kernel == "a2":
        z = (gelu_backward_v2_none_a2_f32 if approximate == "none" else gelu_backward_v2_tanh_a2_f32)(dy, xf)
    else:
        raise ValueError(kernel)
    # the A2's float16 narrowing is Cast with CAST_NONE, which rounds as CAST_RINT
    return narrow_like(z, x)


# ---------------------------------------------------------------- Softplus (950)


FLT_EPSILON = F32(2.0 ** -23)


def softplus_inv_beta(beta) -> np.float32:
    """Host SafeInvBeta (softplus_v2_tiling.cpp:37-43): +inf when |beta| <= FLT_EPSILON
    (whatever beta's sign), else 1.0f / beta in float."""
    beta = F32(beta)
    if np.abs(beta) <= FLT_EPSILON:
        return F32(np.inf)
    with np.errstate(all="ignore"):
        return F32(1.0) / beta


def softplus_arch35_f32(x, beta, threshold):
    """softplus_v2.h:179-239 (float32) and 242-323 (16-bit, computed in float32)."""
    beta, threshold, inv = F32(beta), F32(threshold), softplus_inv_beta(beta)
    one = F32(1.0)
    with np.errstate(all="ignore"):
        bx = x * beta                              # Muls(x, beta)
        big = compare(bx, threshold, "GT")         # Duplicate(threshold); Compare GT
        bx = select(big, F32(0.0), bx)             # Duplicate(0); Select: 0 where big
        e = ref_exp_f32(bx)                        # Exp
        u = e + one                                # Adds(e, 1)
        m1 = compare(u, one, "EQ")                 # Duplicate(1); Compare EQ
        v = u + F32(-1.0)                          # Adds(u, -1)
        lu = ref_ln_f32(u)                         # Log
        r = e / v                                  # Div(e, v)
        out = lu * r                               # Mul(log_u, ratio)
        out = select(m1, e, out)                   # Select: e where 1 + e == 1
        u2 = e + one                               # Adds(e, 1)
        m2 = compare(u2, F32(np.inf), "EQ")        # Duplicate(inf); Compare EQ
        out = select(m2, F32(np.inf), out)         # Select: inf where 1 + e == inf
        sp = out * inv                             # Muls(., invBeta)
        return select(big, x, sp)                  # Select: x where beta*x > threshold


def ref_softplus(x, beta=1.0, threshold=20.0, kernel: str = "arch35") -> np.ndarray:
    assert kernel in KERNELS["softplus"]
    y = softplus_arch35_f32(widen(x), beta, threshold)
    x = np.asarray(x)
    if x.dtype == np.float32:
        return y.reshape(x.shape)
    return narrow(y, x.dtype, ties_away=True).reshape(x.shape)      # Cast CAST_ROUND (line 322)


# ---------------------------------------------------------------- SoftplusBackward


def softplus_backward_arch35_f32(dy, x, beta, threshold):
    """softplus_v2_grad_kernel.h:95-121 (SoftplusV2GradVF), float32 registers."""
    beta, threshold = F32(beta), F32(threshold)
    with np.errstate(all="ignore"):
        t1 = x * beta                              # Muls(x, beta)
        t2 = -t1                                   # Neg
        t3 = ref_exp_f32(t2)                       # Exp
        t4 = t3 + F32(1.0)                         # Adds(., 1)
        t5 = dy / t4                               # Div(dy, .)
        zero = t1 - t1                             # Sub(t1, t1): 0, or NaN where t1 is +-inf or NaN
        thr = zero + threshold                     # Adds(., threshold)
        big = compare(t1, thr, "GT")               # Compare GT
        return select(big, dy, t5)                 # Select(dy, t5)


def softplus_backward_a2_f32(dy, x, beta, threshold):
    """A2 softplus_v2_grad.cpp:172-184."""
    beta, threshold = F32(beta), F32(threshold)
    one = F32(1.0)
    with np.errstate(all="ignore"):
        bx = x * beta                              # Muls(x, beta)
        big = compare(bx, threshold, "GT")         # CompareScalar GT
        bx = bx * F32(-1.0)                        # Muls(., -1)
        e = ref_exp_f32(bx)                        # Exp
        t2 = e + one                               # Adds(., 1)
        ones = np.full_like(x, one)                # Duplicate(1)
        s = ones / t2                              # Div(ones, t2)
        s = select(big, ones, s)                   # Select(ones, s)
        return dy * s                              # Mul(dy, s)


def ref_softplus_backward(grad_output, x, beta=1.0, threshold=20.0, kernel: str = "arch35") -> np.ndarray:
    dy, xf = widen(grad_output), widen(x)
    f = {"arch35": softplus_backward_arch35_f32, "a2": softplus_backward_a2_f32}[kernel]
    return narrow_like(f(dy, xf, beta, threshold), grad_output)


# ---------------------------------------------------------------- LeakyRelu, LeakyReluBackward (950)


def leaky_relu_f32(x, slope):
    """leaky_relu_dag.h:48-50."""
    with np.errstate(all="ignore"):
        neg = x * F32(slope)                       # Muls(x, negativeSlope)
        pos = compare(x, F32(0.0), "GT")           # Compare GT against a register of zeros
        return select(pos, x, neg)                 # Select(x, neg)


def ref_leaky_relu(x, negative_slope=0.01, kernel: str = "arch35") -> np.ndarray:
    """950 leaky_relu_dag.h; ``kernel="aicpu"``: the float64 AICPU kernel, which is not public,
    modelled plainly as ``x > 0 ? x : x * slope`` in binary64, the slope attribute (a float) widened."""
    if kernel == "aicpu":
        xx = np.asarray(x, dtype=F64)
        with np.errstate(all="ignore"):
            return np.where(xx > 0, xx, xx * F64(F32(negative_slope)))
    assert kernel == "arch35"
    return narrow_like(leaky_relu_f32(widen(x), negative_slope), x)


def ref_leaky_relu_backward(grad_output, x, negative_slope=0.01, kernel: str = "arch35") -> np.ndarray:
    """950 leaky_relu_grad_dag.h:31-47; ``kernel="aicpu"``: the float64 AICPU kernel,
    which is not public, modelled plainly as ``x > 0 ? dy : dy * slope`` in binary64
    with the slope attribute (a float) widened exactly."""
    if kernel == "aicpu":
        dy, xx = np.asarray(grad_output, dtype=F64), np.asarray(x, dtype=F64)
        with np.errstate(all="ignore"):
            return np.where(xx > 0, dy, dy * F64(F32(negative_slope)))
    assert kernel == "arch35"
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        pos = compare(x.reshape(-1), x.dtype.type(0), "GT")   # Compare GT in x's own dtype (exact)
        dy = widen(grad_output)                                # Cast (widening)
        dm = dy * F32(negative_slope)                          # Muls(dy, slope)
        z = select(pos, dy, dm)                                # Select(dy, dm)
    return narrow_like(z, grad_output)


# ---------------------------------------------------------------- Elu (950)


ELU_C = dict(c5=F32(1.0) / F32(120.0), c4=F32(1.0) / F32(24.0), c3=F32(1.0) / F32(6.0),
             c2=F32(1.0) / F32(2.0), c1=F32(1.0))           # constexpr float 1.0f / 120.0f, ...
ELU_EXPM1_THRESHOLD = F32(0.1)                             # 0.1f


def elu_arch35_f32(x, alpha, scale, input_scale, wide: bool):
    """elu_dag.h:76-104 (float32, degree-5 polynomial) / 116-145 (16-bit, degree 4)."""
    c = ELU_C
    with np.errstate(all="ignore"):
        z = x * F32(input_scale)                   # Muls(x, inputScale)
        if wide:
            t = z * c["c5"]                        # Muls(z, 1/120)
            t = t + c["c4"]                        # Adds(1/24)
            t = t * z                              # Mul
        else:
            t = z * c["c4"]                        # Muls(z, 1/24)
        t = t + c["c3"]                            # Adds(1/6)
        t = t * z                                  # Mul
        t = t + c["c2"]                            # Adds(1/2)
        t = t * z                                  # Mul
        t = t + c["c1"]                            # Adds(1)
        poly = t * z                               # Mul
        em = ref_exp_f32(z)                        # Exp
        em = em + F32(-1.0)                        # Adds(-1)
        az = abs_f32(z)                            # Abs
        small = compare(az, ELU_EXPM1_THRESHOLD, "LT")   # Compares LT 0.1
        r = select(small, poly, em)                # Select(poly, exp - 1)
        r = r * F32(alpha)                         # Muls(alpha)
        pos = compare(x, F32(0.0), "GT")           # Compares GT 0
        o = select(pos, x, r)                      # Select(x, r)
        return o * F32(scale)                      # Muls(scale)


def elu_inf_nan_path_f32(x, alpha, scale):
    """aclnn_elu.cpp:121-150, taken when alpha or inputScale is inf or NaN: Threshold(x, 0, -alpha)
    then Muls(scale), in float32 (16-bit cast first). Those kernels are outside this tier;
    modelled plainly: (x > 0 ? x : -alpha) * scale."""
    with np.errstate(all="ignore"):
        neg_alpha = F32(alpha) * F32(-1.0)
        return select(compare(x, F32(0.0), "GT"), x, neg_alpha) * F32(scale)


def ref_elu(x, alpha=1.0, scale=1.0, input_scale=1.0, kernel: str = "arch35") -> np.ndarray:
    assert kernel in KERNELS["elu"]
    xf = widen(x)
    if not (np.isfinite(F32(alpha)) and np.isfinite(F32(input_scale))):
        return narrow_like(elu_inf_nan_path_f32(xf, alpha, scale), x)
    wide = np.asarray(x).dtype == np.float32
    return narrow_like(elu_arch35_f32(xf, alpha, scale, input_scale, wide), x)


# ---------------------------------------------------------------- EluBackward


def elu_backward_arch35_f32(g, a, alpha, scale, input_scale, is_result: bool):
    """elu_grad_v2_dag.h:25-84; negcoef = alpha * scale in float on the host
    (elu_grad_v2_tiling_arch35.cpp:167)."""
    negcoef = F32(alpha) * F32(scale)
    with np.errstate(all="ignore"):
        if is_result:
            ad = a + negcoef                       # Adds(a, negcoef)
            m1 = g * F32(input_scale)              # Muls(g, inputScale)
            neg = m1 * ad                          # Mul
        else:
            m1 = a * F32(input_scale)              # Muls(a, inputScale)
            e = ref_exp_f32(m1)                    # Exp
            m2 = g * F32(input_scale)              # Muls(g, inputScale)
            m3 = m2 * negcoef                      # Muls(., negcoef)
            neg = m3 * e                           # Mul(., exp)
        pos = g * F32(scale)                       # Muls(g, scale)
        le = compare(a, F32(0.0), "LE")            # Compare LE 0 (NaN: false, so g * scale)
        return select(le, neg, pos)                # Select(neg, pos)


#: Which Muls by a factor within (0.999, 1.001) each A2 kernel variant leaves out
#: (elu_grad_v2.h): "none" for KernelEluGradV2's chunked paths and MixedAlignedFast,
#: "input_scale" for KernelEluGradV2's float32 result mode, "all" for the 16-bit
#: direct single-tile path, KernelEluGradV2SingleTile and Float16AlignedFast.
A2_ELU_SKIPS = ("none", "input_scale", "all")


def _nearly_one(v: np.float32) -> bool:
    return bool(F32(0.999) < v < F32(1.001))


def elu_backward_a2_f32(g, a, alpha, scale, input_scale, is_result: bool, skips: str = "none"):
    """A2 elu_grad_v2.h: factors computed in float on the core (lines 76-79), then
    CompareScalar LE, the negative branch, Muls(g, scale), Select."""
    scale, input_scale = F32(scale), F32(input_scale)
    with np.errstate(all="ignore"):
        factor_neg = (F32(alpha) * scale) * input_scale
        bias = F32(0.0) if input_scale == 0 else factor_neg / input_scale
    skip_is = skips in ("input_scale", "all") and _nearly_one(input_scale)
    skip_neg = skips == "all" and _nearly_one(factor_neg)
    skip_pos = skips == "all" and _nearly_one(scale)
    with np.errstate(all="ignore"):
        le = compare(a, F32(0.0), "LE")            # CompareScalar LE 0
        if is_result:
            t = a + bias                           # Adds(a, factorNeg / inputScale)
            if not skip_is:
                t = t * input_scale                # Muls(inputScale)
            t = t * g                              # Mul(., g)
        else:
            t = a if skip_is else a * input_scale  # Muls(a, inputScale)
            t = ref_exp_f32(t)                     # Exp
            if not skip_neg:
                t = t * factor_neg                 # Muls(factorNeg)
            t = t * g                              # Mul(., g)
        p = g if skip_pos else g * scale           # Muls(g, scale)
        return select(le, t, p)                    # Select(t, p)


def ref_elu_backward(grad_output, x_or_result, alpha=1.0, scale=1.0, input_scale=1.0, is_result=False,
                     kernel: str = "arch35", a2_skips: str = "none") -> np.ndarray:
    g, a = widen(grad_output), widen(x_or_result)
    if kernel == "arch35":
        z = elu_backward_arch35_f32(g, a, alpha, scale, input_scale, is_result)
    elif kernel == "a2":
        z = elu_backward_a2_f32(g, a, alpha, scale, input_scale, is_result, a2_skips)
    else:
        raise ValueError(kernel)
    return narrow_like(z, grad_output)


# ---------------------------------------------------------------- float64 truths


def truth_gelu(x):
    from math import erf
    x = np.asarray(x, dtype=F64)
    return np.array([0.5 * v * (1.0 + erf(v / np.sqrt(2.0))) for v in x.reshape(-1)]).reshape(x.shape)


def truth_erf(x):
    from math import erf
    x = np.asarray(x, dtype=F64)
    return np.vectorize(erf, otypes=[F64])(x)


def truth_gelu_backward(dy, x):
    """dy * (Phi(x) + x phi(x))."""
    dy, x = np.asarray(dy, dtype=F64), np.asarray(x, dtype=F64)
    with np.errstate(all="ignore"):
        return dy * (0.5 * (1.0 + truth_erf(x / np.sqrt(2.0))) + x * np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi))


def truth_softplus(x, beta, threshold):
    x = np.asarray(x, dtype=F64)
    b = float(F32(beta))
    with np.errstate(all="ignore"):
        bx = b * x
        return np.where(bx > float(F32(threshold)), x, np.log1p(np.exp(bx)) / b)


def truth_softplus_backward(dy, x, beta, threshold):
    dy, x = np.asarray(dy, dtype=F64), np.asarray(x, dtype=F64)
    b = float(F32(beta))
    with np.errstate(all="ignore"):
        bx = b * x
        return np.where(bx > float(F32(threshold)), dy, dy / (1.0 + np.exp(-bx)))


def truth_elu(x, alpha, scale, input_scale):
    x = np.asarray(x, dtype=F64)
    with np.errstate(all="ignore"):
        return float(F32(scale)) * np.where(x > 0, x, float(F32(alpha)) * np.expm1(float(F32(input_scale)) * x))


__all__ = [name for name in dir() if name.startswith(("ref_", "truth_", "erf_", "softplus_", "elu_", "gelu_"))] + [
    "KERNELS", "ERF_ALGOS", "compare", "select", "mins", "maxs", "abs_f32", "shift_right_u32", "cast_i32_to_f32"]
