"""Plain RmsNorm references, one per A2 tiling mode, for the tests only (issue 42).

Written from hicann/ops-nn ``norm/rms_norm`` (op_host/rms_norm_tiling.cpp, op_kernel/rms_norm.h,
rms_norm_merge_n.h, rms_norm_split_d.h, rms_norm_single_row.h, reduce_common.h) and asc-devkit's
ReduceRepeat / ReduceDataBlock pages, with NumPy float32 arithmetic (each elementwise operation one IEEE
binary32 rounding) and Python loops. Nothing here imports the package.

The order inside one 64-lane repeat is a model choice (docs/model.md, "RmsNorm"): ``"tree"`` (neighbouring
pairs, every level rounded to float32, asc-devkit's figure), ``"sequential"`` (lane 0 to 63, left to right),
``"block8"`` (each 8-lane block left to right, then the 8 block sums left to right). Masked lanes are 0.
"""
from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np

F32 = np.float32
BF16 = np.dtype(ml_dtypes.bfloat16)
ORDERS = ("tree", "sequential", "block8")


def repeat_sum(lanes, order="tree", width=64):
    """One 64-lane WholeReduceSum of ``lanes`` (at most 64 float32; the missing lanes are 0); ``width`` 8: one
    DataBlock's BlockReduceSum (orders "tree" and "sequential")."""
    v = np.zeros(width, F32)
    v[:len(lanes)] = np.asarray(lanes, F32)
    with np.errstate(all="ignore"):
        if order == "tree":
            while len(v) > 1:
                v = (v[0::2] + v[1::2]).astype(F32)
            return F32(v[0])
        if order == "sequential":
            acc = v[0]
            for i in range(1, width):
                acc = F32(acc + v[i])
            return F32(acc)
        if order == "block8":
            sums = []
            for b in range(8):
                acc = v[8 * b]
                for i in range(1, 8):
                    acc = F32(acc + v[8 * b + i])
                sums.append(acc)
            acc = sums[0]
            for s in sums[1:]:
                acc = F32(acc + s)
            return F32(acc)
    raise ValueError(order)


def largest_power_of_two(n):
    p = 1
    while p * 2 <= n:
        p *= 2
    return p


def half_interval(sq, order="tree"):
    """reduce_common.h ReduceSumHalfInterval over the float32 squares ``sq``: the part past the largest power
    of two added onto the front, halved down to 64, one repeat."""
    v = np.array(sq, F32)
    n = len(v)
    with np.errstate(all="ignore"):
        if n > 64:
            body = largest_power_of_two(n)
            tail = n - body
            v[:tail] = v[:tail] + v[body:body + tail]
            while body > 64:
                body //= 2
                v[:body] = v[:body] + v[body:2 * body]
            return repeat_sum(v[:64], order)
    return repeat_sum(v, order)


def merge_n_sum(sq, order="tree"):
    """ReduceSumMultiN for one row: whole 64-column chunks added lane by lane into a zeroed 64-lane buffer
    (chunk + buffer), then the tail chunk's lanes, then one repeat."""
    n = len(sq)
    acc = np.zeros(64, F32)
    with np.errstate(all="ignore"):
        c = 0
        while c + 64 <= n:
            acc = (np.asarray(sq[c:c + 64], F32) + acc).astype(F32)
            c += 64
        tail = n % 64
        if tail:
            acc[:tail] = np.asarray(sq[c:c + tail], F32) + acc[:tail]
    return repeat_sum(acc, order)


def split_d_sum(sq, ub_factor, order="tree"):
    """rms_norm_split_d.h ComputeFormerPrecision: each chunk of ``ub_factor`` columns (the last shorter)
    reduced by HalfInterval, the chunk sums added left to right on the scalar unit from 0."""
    acc = F32(0.0)
    with np.errstate(all="ignore"):
        for c in range(0, len(sq), ub_factor):
            acc = F32(acc + half_interval(sq[c:c + ub_factor], order))
    return acc


def _round_f32(q: Fraction) -> np.float32:
    """The float32 nearest the exact ``q``, ties to even (overflow to inf past the rounding boundary)."""
    c = F32(float(q))
    best = None
    for cand in (np.nextafter(c, F32(-np.inf)), c, np.nextafter(c, F32(np.inf))):
        if not np.isfinite(cand):
            continue
        d = abs(Fraction(float(cand)) - q)
        if best is None or d < best[0] or (d == best[0] and int(cand.view(np.uint32)) % 2 == 0):
            best = (d, cand)
    return F32(best[1])


def scalar_mean_eps(s, avg, eps, fused=False):
    """The A2 scalar unit's ``s * avg + eps``: two roundings, or one (``fused``)."""
    s, avg, eps = F32(s), F32(avg), F32(eps)
    with np.errstate(all="ignore"):
        if not fused or not (np.isfinite(s) and np.isfinite(avg) and np.isfinite(eps)):
            return F32(F32(s * avg) + eps)
    return _round_f32(Fraction(float(s)) * Fraction(float(avg)) + Fraction(float(eps)))


def a2_mode(num_col, x_dtype, gamma_dtype, ub_size=196608, soc="ASCEND910B"):
    """op_host/rms_norm_tiling.cpp's A2 choice: ``(mode, ub_factor)``; mode one of merge_n, normal,
    single_row, split_d."""
    x_dtype, gamma_dtype = np.dtype(x_dtype), np.dtype(gamma_dtype)
    per_block = 8 if x_dtype == np.float32 else 16
    align = -(-num_col // per_block) * per_block
    ub = ub_size - 1024
    if x_dtype != gamma_dtype and gamma_dtype == np.float32:     # CalMixDtypeTiling
        align16 = -(-num_col // 16) * 16
        xyg = 2 * 2 * align16 + 4 * align16
        tmp = 4 * 2 * align16
        if align16 <= 2000 and soc == "ASCEND910B":
            return "merge_n", None
        if xyg + tmp + 4 * 64 + 4 * 64 < ub:
            return "normal", align16
        if 2 * align16 + 4 * align16 + tmp + 4 * 64 + 4 * 64 < ub:
            return "single_row", align16
        tmp_col = (ub - (4 * 64 + 4 * 64 + 4 * 8 * 64)) // (2 * 2 + 4 * 3)
        return "split_d", tmp_col // 16 * 16
    ub_factor = 10240 if x_dtype == np.float32 else 12288
    mode = "split_d" if align > ub_factor else "normal"
    if align <= 2000 and soc == "ASCEND910B":
        mode = "merge_n"
    if mode == "split_d":
        tiles = -(-num_col // ub_factor)
        ub_factor = -(-num_col // (tiles * 16)) * 16
        while num_col % ub_factor != 0 and num_col % ub_factor < 16:
            ub_factor -= 16
    return mode, ub_factor


def _narrow(v, dtype):
    with np.errstate(all="ignore"):
        return np.asarray(v, F32).astype(dtype)


def rms_norm_a2(x, gamma, eps=1e-6, order="tree", scalar_fused=False, soc="ASCEND910B", scalar_sqrt="float"):
    """The A2 kernel's ``(y, rstd)``, row by row in the mode the host picks. ``x``'s last ``gamma.ndim`` axes
    are the row; rstd has those axes 1."""
    x, gamma = np.asarray(x), np.asarray(gamma)
    mode, ub_factor = a2_mode(gamma.size, x.dtype, gamma.dtype, soc=soc)
    n = gamma.size
    rows = x.reshape(-1, n).astype(F32)     # exact widening
    g = gamma.reshape(-1).astype(F32)
    avg = F32(F32(1.0) / F32(n))
    eps = F32(eps)
    y = np.empty(rows.shape, F32)
    rstd = np.empty(rows.shape[0], F32)
    with np.errstate(all="ignore"):
        for r, xr in enumerate(rows):
            sq = (xr * xr).astype(F32)
            if mode == "merge_n":
                s = merge_n_sum(sq, order)
            elif mode == "split_d":
                s = split_d_sum(sq, ub_factor, order)
            else:
                s = half_interval(sq, order)
            if mode in ("normal", "single_row"):     # scalar unit: 1 / sqrt(s * avg + eps)
                t = scalar_mean_eps(s, avg, eps, scalar_fused)
                if scalar_sqrt == "double":
                    rstd[r] = F32(1.0 / math.sqrt(float(t))) if t > 0 else F32(1.0 / np.sqrt(np.float64(t)))
                    y[r] = ((xr * rstd[r]).astype(F32) * g).astype(F32)
                    continue
            else:                                    # vector Muls, Adds, Sqrt, Div(1, .)
                t = F32(F32(s * avg) + eps)
            rstd[r] = F32(F32(1.0) / F32(np.sqrt(F32(t))))
            y[r] = ((xr * rstd[r]).astype(F32) * g).astype(F32)
    out_shape = x.shape[:x.ndim - gamma.ndim] + (1,) * gamma.ndim
    return _narrow(y, x.dtype).reshape(x.shape), rstd.reshape(out_shape)


def float64_rms_norm(x, gamma, eps=1e-6):
    """The float64 value, for scale only."""
    x64 = np.asarray(x, np.float64)
    g = np.asarray(gamma, np.float64)
    axes = tuple(range(x64.ndim - g.ndim, x64.ndim))
    r = 1.0 / np.sqrt(np.mean(x64 * x64, axis=axes, keepdims=True) + float(F32(eps)))
    return x64 * r * g, r


__all__ = ["ORDERS", "repeat_sum", "half_interval", "merge_n_sum", "split_d_sum", "scalar_mean_eps", "a2_mode",
           "rms_norm_a2", "float64_rms_norm"]
