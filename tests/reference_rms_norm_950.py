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


def split_chunk(xs, count, power, x_itemsize, order="tree"):
    """ComputeFormerHandle + ComputeFormerImplV2: ``count`` values zero-padded to 512 bytes, folded at
    ``power``, 128-blocks' halves added, each 64 lanes a repeat, the block sums reduced."""
    cal = -(-count * x_itemsize // 512) * 512 // x_itemsize
    v = np.zeros(cal, F32)
    v[:count] = xs
    with np.errstate(all="ignore"):
        sq = (v * v).astype(F32)
        remain = cal - power
        work = []
        for i in range(remain // 128):        # main + tail, both halves, then the halves
            a = (sq[128 * i:128 * i + 64] + sq[power + 128 * i:power + 128 * i + 64]).astype(F32)
            b = (sq[128 * i + 64:128 * i + 128] + sq[power + 128 * i + 64:power + 128 * i + 128]).astype(F32)
            work.append(repeat_sum((a + b).astype(F32), order))
        for i in range((power - remain) // 128):
            m = remain + 128 * i
            work.append(repeat_sum((sq[m:m + 64] + sq[m + 64:m + 128]).astype(F32), order))
        work = np.array(work, F32)
        merges = (power // 128) // 128
        for i in range(merges):
            work[i] = repeat_sum((work[128 * i:128 * i + 64] + work[128 * i + 64:128 * i + 128]).astype(F32), order)
        return repeat_sum(work[:merges or power // 128], order)


def level_merge(buf, order="tree"):
    with np.errstate(all="ignore"):
        a = (buf[0:64] + buf[64:128]).astype(F32)
        c = (buf[128:192] + buf[192:256]).astype(F32)
        return repeat_sum((a + c).astype(F32), order)


def split_row_sum(xr, ub, x_itemsize, order="tree"):
    """ComputeFormer of one row (ubFactor ``ub``), with its three level buffers."""
    n = len(xr)
    ub_loop = 1
    while ub_loop * 2 * ub <= n:
        ub_loop *= 2
    col_tail = n - ub_loop * ub
    tail, tail_loop = col_tail % ub, col_tail // ub
    master = ub_loop - tail_loop - (1 if tail else 0)
    levels = [np.zeros(256, F32) for _ in range(3)]
    count = [0, 0, 0]
    pos = 0

    def take(c, p):
        nonlocal pos
        out = split_chunk(xr[pos:pos + c], c, p, x_itemsize, order)
        pos += c
        return out

    def push(value):
        levels[0][count[0]] = value
        count[0] += 1
        for k in (0, 1):
            if count[k] == 256:
                levels[k + 1][count[k + 1]] = level_merge(levels[k], order)
                count[k] = 0
                count[k + 1] += 1

    with np.errstate(all="ignore"):
        for _ in range(tail_loop):
            a = take(ub, ub)
            push(F32(a + take(ub, ub)))
        if 0 < tail <= ub // 2:
            a = take(ub // 2 + tail, ub // 2)
            push(F32(a + take(ub // 2, ub // 2)))
        elif tail > ub // 2:
            a = take(ub, ub)
            push(F32(a + take(tail, ub // 2)))
        for _ in range(master):
            push(take(ub, ub))
    final = 0 if 0 < count[0] < 256 else 1 if 0 < count[1] < 256 else 2
    return level_merge(levels[final], order)


def rms_norm_950(x, gamma, eps=1e-6, order="tree", mula_fused=True, split_ub=8192):
    """The 950 kernel's ``(y, rstd)``: full_load, or split (chunks of ``split_ub``, rstd by Sqrt and Div)."""
    x, gamma = np.asarray(x), np.asarray(gamma)
    n = gamma.size
    fits, align, fold = full_load_fits(n, x.dtype, gamma.dtype)
    rows = x.reshape(-1, n).astype(F32)
    g = gamma.reshape(-1).astype(F32)
    avg = F32(F32(1.0) / F32(n))
    y = np.empty(rows.shape, F32)
    rstd = np.empty(rows.shape[0], F32)
    with np.errstate(all="ignore"):
        for r, xr in enumerate(rows):
            if fits:
                rstd[r] = newton_raphson_rstd(square_sum(xr, align, fold, order), avg, F32(eps), mula_fused)
            else:
                s = split_row_sum(xr, split_ub, x.dtype.itemsize, order)
                rstd[r] = F32(F32(1.0) / np.sqrt(F32(F32(s * avg) + F32(eps))))
            y[r] = ((xr * rstd[r]).astype(F32) * g).astype(F32)
    out_shape = x.shape[:x.ndim - gamma.ndim] + (1,) * gamma.ndim
    return _narrow(y, x.dtype).reshape(x.shape), rstd.reshape(out_shape)
