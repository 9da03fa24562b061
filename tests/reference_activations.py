"""Plain readings of the first-tier activation kernels (docs/model.md, "The
activation library: first tier"), for the tests only.

Sigmoid, SigmoidBackward, Gelu, GeluBackward, FastGelu, FastGeluBackward, as
the Atlas A2 kernels (ops-nn ``experimental/activation/<op>``) and the Ascend
950 kernels (``activation/<op>/op_kernel/arch35``) compute them, plus the
AICPU kernel SigmoidBackward falls back to for float64 and complex dtypes.

Nothing here imports the package. Every float32 instruction is one NumPy
float32 operation (one IEEE round-to-nearest-even rounding), Exp is the
correctly rounded one of tests/reference.py, 16-bit inputs are widened
exactly and results narrowed with round to nearest even (``CAST_RINT``). No
tiling: each function maps whole arrays, one instruction per line, in the
kernel's operand order.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from reference import BF16, _round_rational_to_f32, ref_exp_f32
from reference_family import narrow

F32 = np.float32
F64 = np.float64

#: The kernels this module knows, by operator.
KERNELS = {
    "sigmoid": ("a2", "arch35"),
    "sigmoid_backward": ("a2", "arch35"),
    "gelu": ("a2", "arch35"),
    # "a2" is the Atlas A2 (ascend910b, versionNum 0), "a2_310b" the same kernel
    # on ascend310b (versionNum 1, the other formula)
    "gelu_backward": ("a2", "a2_310b", "arch35"),
    "fast_gelu": ("arch35",),
    "fast_gelu_backward": ("arch35",),
}

#: Axpy models for the 950 Gelu / GeluBackward: one rounding (a fused
#: multiply-add) or two (the product rounded, then the sum).
AXPY_MODELS = ("fused", "unfused")


# ---------------------------------------------------------------- constants as the C++ writes them


def f32_literal(text: str) -> np.float32:
    """A C ``float`` literal (``1.5f``): the decimal rounded once to binary32."""
    return _round_rational_to_f32(Fraction(text))


def f32_of_double(value: float) -> np.float32:
    """A ``double`` expression stored in a ``float``: evaluated in binary64
    (Python floats are binary64), then rounded once to binary32."""
    return np.array([value], dtype=F64).astype(F32)[0]


# A2 Gelu (experimental/activation/gelu/op_kernel/gelu.h:31-32): float literals.
A2_GELU_CUBIC = f32_literal("0.0455399241")
A2_GELU_SCALE = f32_literal("-1.595769122")

# 950 Gelu (activation/gelu/op_kernel/arch35/gelu_dag.h:25-26): double expressions.
ARCH35_GELU_SCALE = f32_of_double(-1.595769121 * 0.044715)
ARCH35_GELU_LINEAR = f32_of_double(1 / 0.044715)

# A2 GeluGrad (experimental/activation/gelu_grad/op_kernel/gelu_grad.h), float literals.
A2_GELU_GRAD_V0 = dict(                         # lines 114-118, versionNum 0 (ascend910b)
    c0=f32_literal("-0.0713548162726002527220"),
    c1=f32_literal("-1.595769121605730711759"),
    c2=f32_literal("0.2140644488178007"),
    c3=f32_literal("1.595769121605730711759"),
)
A2_GELU_GRAD_V1 = dict(                         # lines 176-181, versionNum 1 (ascend310b)
    c0=f32_literal("-0.0713548162726002527220"),
    c1=f32_literal("-1.5957691216057308"),
    c2=f32_literal("-0.21406444881780074632901625683959062"),
    c3=f32_literal("-1.5957691216057307117597842397375274738"),
)

# 950 GeluGrad (activation/gelu_grad/op_kernel/arch35/gelu_grad_dag.h:30-33), float literals.
ARCH35_GELU_GRAD = dict(
    betan=f32_literal("-1.595769121605730711759"),
    an=f32_literal("-0.0713548162726002527220"),
    a3=f32_literal("0.2140644488178007"),
    beta=f32_literal("1.595769121605730711759"),
)

# FastGelu / FastGeluGrad (arch35 *_dag.h): ``T value = -1.702;`` a double literal stored in float.
FAST_GELU_SCALE = f32_of_double(-1.702)
FAST_GELU_GRAD_SCALE = f32_of_double(1.702)      # declared by the backward, never used (line 30)


# ---------------------------------------------------------------- widening, narrowing


def widen(a) -> np.ndarray:
    """A float32 / float16 / bfloat16 array as float32 (exact: ``Cast`` with CAST_NONE)."""
    return np.asarray(a).astype(F32).reshape(-1)


def narrow_like(y32: np.ndarray, like) -> np.ndarray:
    """The float32 result stored in ``like``'s dtype: as is for float32, else
    ``Cast`` with CAST_RINT (round to nearest even; NaN stays a quiet NaN)."""
    like = np.asarray(like)
    if like.dtype == np.float32:
        return y32.reshape(like.shape)
    return narrow(y32, like.dtype, ties_away=False).reshape(like.shape)


# ---------------------------------------------------------------- fused multiply-add, fast


def fma_f32(a, b, c) -> np.ndarray:
    """``a * b + c`` on float32 arrays with one rounding, vectorised.

    The product of two binary32 values is exact in binary64. The sum is
    rounded to binary64 *to odd* (TwoSum gives the exact remainder; a
    non-zero remainder on an even result moves it one binary64 step towards
    the exact value), and a round-to-odd value with 53 >= 24 + 2 bits rounds
    to binary32 exactly as the exact sum would. Infinities and NaNs follow
    binary64 arithmetic, which is IEEE's.
    """
    a64, b64, c64 = (np.asarray(v, dtype=F32).astype(F64) for v in (a, b, c))
    with np.errstate(all="ignore"):
        p = a64 * b64
        s = p + c64
        bp = s - c64
        err = (p - bp) + (c64 - (s - bp))
        inexact = np.isfinite(s) & (err != 0)
        even = (s.view(np.int64) & 1) == 0
        fix = inexact & even
        s = np.where(fix, np.nextafter(s, np.copysign(np.inf, err)), s)
        return s.astype(F32)


def axpy(dst, src, scalar, model: str) -> np.ndarray:
    """MicroAPI ``Axpy(dst, src, scalar)``: ``dst = src * scalar + dst``."""
    if model == "fused":
        return fma_f32(src, np.full_like(src, scalar), dst)
    if model == "unfused":
        with np.errstate(all="ignore"):
            return (src * F32(scalar)) + dst
    raise ValueError(model)


# ---------------------------------------------------------------- Sigmoid


def sigmoid_f32(x: np.ndarray) -> np.ndarray:
    """Both kernels (A2 sigmoid.h:113-118 / 121-124; 950 sigmoid_f*.h:100-108): the same four steps."""
    one = F32(1.0)
    with np.errstate(all="ignore"):
        t = x * F32(-1.0)          # Muls(x, -1)
        t = ref_exp_f32(t)         # Exp
        t = t + one                # Adds(t, 1)
        return one / t             # Div(ones, t)


def ref_sigmoid(x, kernel: str = "a2") -> np.ndarray:
    assert kernel in KERNELS["sigmoid"]
    return narrow_like(sigmoid_f32(widen(x)), x)


# ---------------------------------------------------------------- SigmoidBackward


def sigmoid_backward_f32(dy: np.ndarray, y: np.ndarray, kernel: str) -> np.ndarray:
    """z = dy * y * (1 - y), y the forward output, in each kernel's order."""
    one = F32(1.0)
    with np.errstate(all="ignore"):
        t = one - y                # Sub(ones, y)
        if kernel == "a2":         # sigmoid_grad.h:124-126 (132-135 float32)
            t = t * y              # Mul(t, t, y)
            return dy * t          # Mul(z, dy, t)
        if kernel == "arch35":     # sigmoid_grad_f*.h:121-123 / 126-128
            t = dy * t             # Mul(dy, t)
            return t * y           # Mul(t, y)
    raise ValueError(kernel)


def ref_sigmoid_backward(grad_output, output, kernel: str = "a2") -> np.ndarray:
    """The AI Core kernels (float32 / float16 / bfloat16; equal dtypes and shapes)."""
    z = sigmoid_backward_f32(widen(grad_output), widen(output), kernel)
    return narrow_like(z, grad_output)


def ref_sigmoid_backward_aicpu_real(grad_output: np.ndarray, output: np.ndarray) -> np.ndarray:
    """The AICPU kernel for float64 (sigmoid_grad_aicpu.cpp:101): ``dy * (1 - y) * y``
    evaluated left to right in the dtype (C++ ``double``)."""
    dy, y = np.asarray(grad_output), np.asarray(output)
    one = dy.dtype.type(1.0)
    with np.errstate(all="ignore"):
        return (dy * (one - y)) * y


def _annex_g_recover(a, b, c, d, x, y, real):
    """libgcc's ``__mul?c3`` recovery (C11 Annex G.5.1) for one product whose
    naive real and imaginary parts are both NaN: infinities are boxed to
    +-1 (other parts' NaNs to 0) and the product recomputed as infinity."""
    inf = real("inf")
    recalc = False
    if math.isinf(a) or math.isinf(b):
        a = math.copysign(1.0 if math.isinf(a) else 0.0, a)
        b = math.copysign(1.0 if math.isinf(b) else 0.0, b)
        if math.isnan(c):
            c = math.copysign(0.0, c)
        if math.isnan(d):
            d = math.copysign(0.0, d)
        recalc = True
    if math.isinf(c) or math.isinf(d):
        c = math.copysign(1.0 if math.isinf(c) else 0.0, c)
        d = math.copysign(1.0 if math.isinf(d) else 0.0, d)
        if math.isnan(a):
            a = math.copysign(0.0, a)
        if math.isnan(b):
            b = math.copysign(0.0, b)
        recalc = True
    if not recalc:
        return x, y
    return real(inf * (a * c - b * d)), real(inf * (a * d + b * c))


def complex_mul_gcc(u: complex, v: complex, real, contract: bool = True):
    """One ``std::complex<T>`` product as GCC compiles it (T = ``real``:
    np.float32 or np.float64), returned as (re, im) of ``real``.

    GCC lowers the product to ``re = a*c - b*d``, ``im = a*d + b*c`` and calls
    libgcc's ``__mul?c3`` only when both parts are NaN. With ``contract``
    (GCC's default ``-ffp-contract=fast`` for C++ at ``-O2`` on a target with
    FMA) the first product of each part is fused: ``re = fma(a, c, -(b*d))``,
    ``im = fma(a, d, b*c)``.
    """
    a, b = real(u.real), real(u.imag)
    c, d = real(v.real), real(v.imag)
    with np.errstate(all="ignore"):
        bd, bc = real(b * d), real(b * c)
        if contract:
            x, y = _fma_scalar(a, c, -bd, real), _fma_scalar(a, d, bc, real)
        else:
            x, y = real(real(a * c) - bd), real(real(a * d) + bc)
        if np.isnan(x) and np.isnan(y):
            x, y = _annex_g_recover(float(a), float(b), float(c), float(d), x, y, real)
    return real(x), real(y)


def _fma_scalar(a, b, c, real):
    """Exact a*b + c rounded once to ``real``."""
    if real is np.float32:
        return fma_f32(np.array([a]), np.array([b]), np.array([c]))[0]
    a, b, c = float(a), float(b), float(c)
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return np.float64(a * b + c)        # inf/NaN: what the fused operation returns too
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        neg = (a * b == 0 and (math.copysign(1, a) * math.copysign(1, b) < 0)) and c == 0 and math.copysign(1, c) < 0
        return np.float64(-0.0 if neg else 0.0)
    # exact / correctly rounded: Fraction -> float rounds to nearest even (overflow raises)
    try:
        return np.float64(float(exact))
    except OverflowError:
        return np.float64(math.inf if exact > 0 else -math.inf)      # (copysign would convert the Fraction, and overflow)


def ref_sigmoid_backward_aicpu_complex(grad_output, output, contract: bool = True) -> np.ndarray:
    """The AICPU kernel for complex64 / complex128 with ``complex_conj`` set (the
    op_api always sets it, sigmoid_grad.cpp:56-57; kernel line 131):
    ``conj((1 - y) * y) * dy``, element by element."""
    dy, y = np.asarray(grad_output), np.asarray(output)
    real = np.float32 if dy.dtype == np.complex64 else np.float64
    out = np.empty(dy.shape, dtype=dy.dtype)
    with np.errstate(all="ignore"):
        for i in np.ndindex(dy.shape):
            yr, yi = real(y[i].real), real(y[i].imag)
            # complex(1) - y: (1 - yr, 0 - yi); 0 - (+0) is +0, not -0
            omr, omi = real(real(1.0) - yr), real(real(0.0) - yi)
            pr, pi = complex_mul_gcc(complex(omr, omi), complex(yr, yi), real, contract)
            pr, pi = pr, real(-pi)                                  # std::conj
            zr, zi = complex_mul_gcc(complex(pr, pi), complex(real(dy[i].real), real(dy[i].imag)), real, contract)
            out[i] = complex(zr, zi)
    return out


# ---------------------------------------------------------------- Gelu


def gelu_a2_f32(x: np.ndarray) -> np.ndarray:
    """A2 gelu.h:120-127 (16-bit) / 139-146 (float32)."""
    with np.errstate(all="ignore"):
        t = x * x                  # Mul(t, x, x)
        t = t * x                  # Mul(t, t, x)
        t = t * A2_GELU_CUBIC      # Muls(t, 0.0455399241f)
        t = t + x                  # Add(t, t, x)
        t = t * A2_GELU_SCALE      # Muls(t, -1.595769122f)
        e = ref_exp_f32(t)         # Exp
        e = e + F32(1.0)           # Adds(e, 1)
        return x / e               # Div(y, x, e)


def gelu_arch35_f32(x: np.ndarray, axpy_model: str = "fused") -> np.ndarray:
    """950 gelu_dag.h:56-62, in float32 registers for every dtype."""
    with np.errstate(all="ignore"):
        sq = x * x                                       # Mul(sq, x, x)
        cub = sq * x                                     # Mul(cub, sq, x)
        cub = axpy(cub, x, ARCH35_GELU_LINEAR, axpy_model)   # Axpy(cub, x, 1/0.044715)
        cub = cub * ARCH35_GELU_SCALE                    # Muls(cub, -1.595769121*0.044715)
        e = ref_exp_f32(cub)                             # Exp
        e = e + F32(1.0)                                 # Adds(e, 1)
        return x / e                                     # Div(out, x, e)


def ref_gelu(x, kernel: str = "a2", axpy_model: str = "fused") -> np.ndarray:
    xf = widen(x)
    y = gelu_a2_f32(xf) if kernel == "a2" else gelu_arch35_f32(xf, axpy_model)
    return narrow_like(y, x)


# ---------------------------------------------------------------- GeluBackward


def gelu_backward_a2_v0_f32(dy, x):
    """A2 gelu_grad.h:127-148 (versionNum 0, ascend910b)."""
    k = A2_GELU_GRAD_V0
    one = F32(1.0)
    with np.errstate(all="ignore"):
        e = x * x                  # Mul
        e = e * k["c0"]            # Muls(., c0)
        e = e + k["c1"]            # Adds(., c1)
        e = e * x                  # Mul(., x)
        e = ref_exp_f32(e)         # Exp
        p = x * x                  # Mul
        p = p * k["c2"]            # Muls(., c2)
        p = p + k["c3"]            # Adds(., c3)
        p = p * x                  # Mul(., x)
        s = e + one                # Adds(e, 1)
        s = one / s                # Duplicate(1); Div(ones, s)
        z = e * s                  # Mul(e, s)
        z = z * p                  # Mul(., p)
        z = z * s                  # Mul(., s)
        z = z + s                  # Add(., s)
        return z * dy              # Mul(., dy)


def gelu_backward_a2_v1_f32(dy, x):
    """A2 gelu_grad.h:190-209 (versionNum 1, ascend310b)."""
    k = A2_GELU_GRAD_V1
    one = F32(1.0)
    with np.errstate(all="ignore"):
        s = x * x                  # Mul
        s = s * k["c0"]            # Muls(., c0)
        s = s + k["c1"]            # Adds(., c1)
        s = s * x                  # Mul(., x)
        s = ref_exp_f32(s)         # Exp
        s = s + one                # Adds(., 1)
        s = one / s                # Duplicate(1); Div(ones, s)      g1
        t = s + F32(-1.0)          # Adds(s, -1)
        t = t * x                  # Mul(., x)
        g = x * x                  # Mul
        g = g * k["c2"]            # Muls(., c2)
        g = g + k["c3"]            # Adds(., c3)                      g2
        t = t * g                  # Mul(t, g2)
        t = t + one                # Adds(., 1)
        t = t * s                  # Mul(., g1)
        return t * dy              # Mul(., dy)


def gelu_backward_arch35_f32(dy, x, axpy_model: str = "fused"):
    """950 gelu_grad_dag.h:78-96, with its NaN guard (Compare EQ + Select)."""
    k = ARCH35_GELU_GRAD
    one = F32(1.0)
    with np.errstate(all="ignore"):
        sq = x * x                                              # Mul(sq, x, x)
        px = axpy(np.full_like(x, k["betan"]), sq, k["an"], axpy_model)   # Duplicate(betan); Axpy(px, sq, an)
        px = px * x                                             # Mul(px, px, x)
        px = ref_exp_f32(px)                                    # Exp
        res0 = axpy(np.full_like(x, k["beta"]), sq, k["a3"], axpy_model)  # Duplicate(beta); Axpy(res0, sq, a3)
        res0 = res0 * x                                         # Mul(res0, res0, x)
        t = px + one                                            # Adds(px, 1)
        div = one / t                                           # Div(ones, t)
        resp = px * div                                         # Mul(px, div)
        resp = resp * res0                                      # Mul(., res0)
        resp = resp * div                                       # Mul(., div)
        keep = resp == resp                                     # Compare EQ: false only for NaN
        sel = np.where(keep, resp, F32(0.0))                    # Select(resp, zeros, mask)
        resp = sel + div                                        # Add(sel, div)
        return dy * resp                                        # Mul(dy, resp)


def ref_gelu_backward(grad_output, x, kernel: str = "a2", axpy_model: str = "fused") -> np.ndarray:
    """Equal dtypes and shapes (the 950's broadcasting is the walk's business, not the sequence's)."""
    dy, xf = widen(grad_output), widen(x)
    if kernel == "a2":
        z = gelu_backward_a2_v0_f32(dy, xf)
    elif kernel == "a2_310b":
        z = gelu_backward_a2_v1_f32(dy, xf)
    elif kernel == "arch35":
        z = gelu_backward_arch35_f32(dy, xf, axpy_model)
    else:
        raise ValueError(kernel)
    return narrow_like(z, x)


# ---------------------------------------------------------------- FastGelu, FastGeluBackward (950 only)


def fast_gelu_f32(x):
    """fast_gelu_dag.h:47-51."""
    with np.errstate(all="ignore"):
        d = x * FAST_GELU_SCALE    # Muls(x, -1.702)
        d = ref_exp_f32(d)         # Exp
        d = d + F32(1.0)           # Adds(., 1)
        return x / d               # Div(x, .)   (float32: precisionMode Div; 16-bit: the default Div)


def ref_fast_gelu(x, kernel: str = "arch35") -> np.ndarray:
    assert kernel == "arch35"
    return narrow_like(fast_gelu_f32(widen(x)), x)


def fast_gelu_backward_f32(dy, x):
    """fast_gelu_grad_dag.h:56-67."""
    one = F32(1.0)
    with np.errstate(all="ignore"):
        m = x * FAST_GELU_SCALE    # Muls(m, x, -1.702)
        t = ref_exp_f32(m)         # Exp
        t = t + one                # Adds(., 1)
        s = one / t                # Div(ones, t)  (precisionMode)
        u = s + F32(-1.0)          # Adds(s, -1)
        u = u * m                  # Mul(u, m)
        u = u + one                # Adds(., 1)
        s = u * s                  # Mul(u, s)
        return dy * s              # Mul(dy, .)


def ref_fast_gelu_backward(grad_output, x, kernel: str = "arch35") -> np.ndarray:
    assert kernel == "arch35"
    return narrow_like(fast_gelu_backward_f32(widen(grad_output), widen(x)), x)


# ---------------------------------------------------------------- float64 truths of each kernel's formula


def _sig64(u):
    """1 / (1 + exp(u)) in binary64, without overflow warnings."""
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(u))


def truth_sigmoid(x):
    return _sig64(-np.asarray(x, dtype=F64))


def truth_sigmoid_backward(dy, y):
    dy, y = np.asarray(dy, dtype=F64), np.asarray(y, dtype=F64)
    return dy * (1.0 - y) * y


def truth_gelu(x, kernel):
    """The formula each kernel evaluates, with its float32 constants, in binary64."""
    x = np.asarray(x, dtype=F64)
    with np.errstate(all="ignore"):
        if kernel == "a2":
            u = float(A2_GELU_SCALE) * (x + float(A2_GELU_CUBIC) * x ** 3)
        else:
            u = float(ARCH35_GELU_SCALE) * (x ** 3 + float(ARCH35_GELU_LINEAR) * x)
        return x * _sig64(u)


def truth_gelu_backward(dy, x, kernel):
    """dy * (s + s * (1 - s) * p) with s = 1/(1+exp(u)), as the kernels' algebra, in binary64."""
    dy, x = np.asarray(dy, dtype=F64), np.asarray(x, dtype=F64)
    with np.errstate(all="ignore"):
        if kernel in ("a2", "a2_310b"):
            k = A2_GELU_GRAD_V0 if kernel == "a2" else A2_GELU_GRAD_V1
            u = (float(k["c0"]) * x * x + float(k["c1"])) * x
            # v1's c2, c3 carry the sign of -(1 - s): p is the same polynomial
            sign = 1.0 if kernel == "a2" else -1.0
            p = sign * (float(k["c2"]) * x * x + float(k["c3"])) * x
        else:
            k = ARCH35_GELU_GRAD
            u = (float(k["an"]) * x * x + float(k["betan"])) * x
            p = (float(k["a3"]) * x * x + float(k["beta"])) * x
        s, one_minus_s = _sig64(u), _sig64(-u)
        return dy * (s + s * one_minus_s * p)


def truth_fast_gelu(x):
    x = np.asarray(x, dtype=F64)
    return x * _sig64(float(FAST_GELU_SCALE) * x)


def truth_fast_gelu_backward(dy, x):
    dy, x = np.asarray(dy, dtype=F64), np.asarray(x, dtype=F64)
    m = float(FAST_GELU_SCALE) * x
    s, one_minus_s = _sig64(m), _sig64(-m)
    with np.errstate(all="ignore"):
        return dy * s * (1.0 - one_minus_s * m)


__all__ = [name for name in dir() if name.startswith(("ref_", "truth_", "f32_", "fma_", "complex_"))] + [
    "KERNELS", "AXPY_MODELS", "BF16", "narrow_like", "widen", "axpy"]
