"""Plain references of the Ascend 950 RmsNorm full_load kernel, for the tests only (issue 42).

Written from hicann/ops-nn ``norm/rms_norm/op_host/rms_norm_tiling_arch35.cpp`` (the mode),
``op_kernel/rms_norm_apt.cpp`` (key 5000: ``KernelRmsNormRegBasePerf``), ``arch35/rms_norm_regbase_perf.h`` and
``norm_common/op_kernel/reduce_common_regbase.h`` (``CalculateSquareReduceSum``, ``ComputeRstdNewtonRaphson``),
with NumPy float32 arithmetic. The repeat's order as :func:`reference_rms_norm.repeat_sum`.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from reference_rms_norm import _narrow, _round_f32, repeat_sum

F32 = np.float32
FLT_MAX = F32(3.4028234663852886e38)     # the source's POS_INF 3.40282366920938E+38 as a float


def full_load_fits(num_col, x_dtype, gamma_dtype, ub_size=253952):
    """TilingArch354RmsNorm's test: ``(fits, numColAlign, foldPoint)``."""
    xb, gb = np.dtype(x_dtype).itemsize, np.dtype(gamma_dtype).itemsize
    ub = ub_size - 1024                              # Tiling4RmsNorm's UB_USED
    align = -(-num_col * xb // 32) * 32 // xb
    fold = 2 ** int(math.floor(math.log(align - 1) / math.log(2))) if align > 1 else 1
    first_vcadd = -(-(-(-fold // 64)) // 32) * 32
    factor = (ub - 2048 - align * gb) // (align * xb * 2 * 2 + 4 * (2 + 1) + first_vcadd)
    return factor >= 1 and align <= 16384, align, fold


def square_sum(xr, align, fold, order="tree"):
    """CalculateSquareReduceSum of one row (``xr``: the row's float32 values), branching on the padded length
    ``align``, reducing its ``len(xr)`` columns around the fold point ``fold``."""
    n = len(xr)
    with np.errstate(all="ignore"):
        sq = (np.asarray(xr, F32) * np.asarray(xr, F32)).astype(F32)
        if align <= 64:
            return repeat_sum(sq, order)
        if align <= 128:
            v = sq[:64].copy()
            v[:n - 64] = v[:n - 64] + sq[64:n]
            return repeat_sum(v, order)
        tail = n - fold
        v = sq[:fold].copy()
        v[:tail] = v[:tail] + sq[fold:n]
        sums = np.array([repeat_sum(v[j:j + 64], order) for j in range(0, fold, 64)], F32)
        if align <= 8192:
            return repeat_sum(sums, order)
        w = sums[:64].copy()
        w = (w + sums[64:128]).astype(F32)
        return repeat_sum(w, order)


def _mula(dst, a, b, fused):
    """``a * b + dst``: rounded once (``fused``) or twice."""
    dst, a, b = F32(dst), F32(a), F32(b)
    with np.errstate(all="ignore"):
        if not fused:
            return F32(F32(a * b) + dst)
        if not all(np.isfinite(v) for v in (dst, a, b)):     # inf and NaN propagate as in any order
            return F32(np.float64(a) * np.float64(b) + np.float64(dst))
    q = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(dst))
    if abs(q) >= Fraction(float(FLT_MAX)) + Fraction(2) ** 103:  # past FLT_MAX by half an ulp or more
        return F32(np.inf if q > 0 else -np.inf)
    return _round_f32(q)


def newton_raphson_rstd(s, avg, eps, fused=True):
    """ComputeRstdNewtonRaphson<false, true> of one row's sum ``s``."""
    with np.errstate(all="ignore"):
        var = F32(F32(s) * F32(avg))
        var = F32(var + F32(eps))
        r = F32(F32(1.0) / var)
        y = F32(np.sqrt(r))
        t = F32(var * F32(-0.5))
        t = F32(t * y)
        t1 = _mula(F32(1.5), t, y, fused)
        rstd = F32(y * t1)
        t3 = F32(var * F32(-1.0))
        s1 = _mula(F32(1.0), t3, r, fused)
        t4 = F32(rstd * F32(-1.0))
        r = _mula(r, t4, rstd, fused)
        s1 = _mula(s1, var, r, fused)
        s1 = F32(s1 * rstd)
        rstd = _mula(rstd, s1, F32(0.5), fused)
        if var == FLT_MAX:
            rstd = F32(0.0)
        if var == F32(0.0):
            rstd = FLT_MAX
    return F32(rstd)


def rms_norm_950(x, gamma, eps=1e-6, order="tree", mula_fused=True):
    """The 950 full_load kernel's ``(y, rstd)``; ValueError where the host would pick split."""
    x, gamma = np.asarray(x), np.asarray(gamma)
    n = gamma.size
    fits, align, fold = full_load_fits(n, x.dtype, gamma.dtype)
    if not fits:
        raise ValueError("split mode")
    rows = x.reshape(-1, n).astype(F32)
    g = gamma.reshape(-1).astype(F32)
    avg = F32(F32(1.0) / F32(n))
    y = np.empty(rows.shape, F32)
    rstd = np.empty(rows.shape[0], F32)
    with np.errstate(all="ignore"):
        for r, xr in enumerate(rows):
            rstd[r] = newton_raphson_rstd(square_sum(xr, align, fold, order), avg, F32(eps), mula_fused)
            y[r] = ((xr * rstd[r]).astype(F32) * g).astype(F32)
    out_shape = x.shape[:x.ndim - gamma.ndim] + (1,) * gamma.ndim
    return _narrow(y, x.dtype).reshape(x.shape), rstd.reshape(out_shape)
