"""Slow, obviously-correct re-statements of the model (docs/model.md), for the tests only.

Nothing here imports the package's kernels or tiling: each function is
written straight from docs/model.md with plain Python/NumPy so that the package
is checked against an independent reading.
"""
from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import ml_dtypes
import numpy as np

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16}


# ---------------------------------------------------------------- tiling


def ref_tiling(n, itemsize, ub=196608, cores=48, block=32, beta=1.0):
    """model section 3, line by line. Returns (fields dict, block_dim)."""
    ub_num = 7 if itemsize == 4 else 12
    tile_block_num = (ub // block) // ub_num
    tile_data_num = tile_block_num * block // itemsize
    aligned_bytes = math.ceil(n * itemsize / block) * block
    blocks = aligned_bytes // block
    c = 1 if tile_data_num >= n else min(cores, blocks)
    every = blocks // c
    tail_block_num = blocks % c
    small_core = every * block // itemsize
    small_tiles = every // tile_block_num
    final_small = small_tiles + (1 if every % tile_block_num else 0)
    small_tail = small_core - tile_data_num * small_tiles
    if small_tail == 0:
        small_tail = tile_data_num
    every += 1
    big_core = every * block // itemsize
    big_tiles = every // tile_block_num
    final_big = big_tiles + (1 if every % tile_block_num else 0)
    big_tail = big_core - tile_data_num * big_tiles
    if big_tail == 0:
        big_tail = tile_data_num
    fields = dict(
        smallCoreDataNum=small_core, bigCoreDataNum=big_core, finalBigTileNum=final_big,
        finalSmallTileNum=final_small, tileDataNum=tile_data_num, smallTailDataNum=small_tail,
        bigTailDataNum=big_tail, tailBlockNum=tail_block_num,
    )
    return fields, c


def ref_tiling_arch35(n, dtype, ub=253952, cores=64):
    """The Ascend 950 host tiling (opbase ElewiseTiling for SwishGrad's DAG, model section 9), step by step.

    SwishGrad's DAG keeps 6 buffers of the input dtype (grad, x and the
    output, pinged and ponged) and has one dtype, so its smallest and
    largest dtype sizes are both the input's. All int64 arithmetic with
    ceil(a / b) written (a + b - 1) // b, as the C++ does. Returns (fields
    dict, block_dim, tiling_key), or None where the tiling fails (a UB too
    small for one aligned loop).
    """
    itemsize = {"float32": 4, "float16": 2, "bfloat16": 2}[dtype]
    template = {"float16": 1, "bfloat16": 2, "float32": 3}[dtype]      # TPL_FP16, TPL_BF16, TPL_FP32
    bits = itemsize * 8
    core_num = min(cores, (n * bits + 32768 - 1) // 32768)             # a core per 4 KiB of the smallest dtype
    share = (n + core_num - 1) // core_num
    block_former = (share + 512 - 1) // 512 * 512                        # rounded up to 512 elements
    block_num = (n + block_former - 1) // block_former
    block_tail = n - (block_num - 1) * block_former
    max_elem = (ub * 8) // (6 * bits)                                    # U * 8 / (BufferNum * maxBits)
    align = 256 * 8 // bits                                              # one 256-byte register
    ub_former = (max_elem // align) * align
    if ub_former == 0:
        return None
    loops_former = (block_former + ub_former - 1) // ub_former
    loops_tail = (block_tail + ub_former - 1) // ub_former
    fields = dict(
        dim0=n, coreNum=core_num, ubFormer=ub_former, blockFormer=block_former, blockNum=block_num,
        ubLoopOfFormerBlock=loops_former, ubLoopOfTailBlock=loops_tail,
        ubTailOfFormerBlock=block_former - (loops_former - 1) * ub_former,
        ubTailOfTailBlock=block_tail - (loops_tail - 1) * ub_former,
        elemNum=ub_former, scheMode=1,
    )
    # tiling key: schedule mode 1's index in {0, 1} in bit 0, the dtype template above it
    return fields, block_num, 1 + (template << 1)


# ---------------------------------------------------------------- exp


def _f32_exact(bits):
    """Exact Decimal value of a finite float32 bit pattern."""
    return Decimal(float(np.uint32(bits).view(np.float32)))


def correctly_rounded_exp_f32(t: np.float32) -> np.float32:
    """e**t rounded to nearest-even binary32, decided with 60-digit decimals."""
    t = np.float32(t)
    if np.isnan(t):
        return np.float32(np.nan)
    with localcontext() as ctx:
        ctx.prec = 60
        exact = Decimal(float(t)).exp()
        max_bits = 0x7F7FFFFF
        # Largest finite's upper rounding boundary: (2 - 2^-24) * 2^127.
        if exact >= (Decimal(2) - Decimal(2) ** -24) * Decimal(2) ** 127:
            return np.float32(np.inf)
        # Binary search the float32 bit pattern whose value is just below.
        lo, hi = 0, max_bits
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if _f32_exact(mid) <= exact:
                lo = mid
            else:
                hi = mid - 1
        below, above = lo, lo + 1
        if _f32_exact(below) == exact:
            return np.uint32(below).view(np.float32)
        d_below = exact - _f32_exact(below)
        d_above = _f32_exact(above) - exact
        if d_below < d_above or (d_below == d_above and below % 2 == 0):
            return np.uint32(below).view(np.float32)
        return np.uint32(above).view(np.float32)


def near_rounding_boundary(d: np.ndarray, rel: float = 2.0**-40) -> np.ndarray:
    """Mask of float64 values of e**t within ``rel`` of a binary32 rounding boundary."""
    d = np.asarray(d, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        f = d.astype(np.float32)
        fb = f.view(np.uint32).astype(np.int64)
        inf_bits = 0x7F800000
        # Neighbours of f (all values here are >= 0); treat +inf as 2^128.
        as64 = lambda b: np.where(b >= inf_bits, 2.0**128, np.clip(b, 0, inf_bits - 1).astype(np.uint32).view(np.float32).astype(np.float64))
        fv = as64(fb)
        up = as64(fb + 1)
        dn = np.where(fb > 0, as64(fb - 1), -as64(np.ones_like(fb)))
        tol = np.abs(d) * rel + 2.0**-1100
        near = (np.abs(d - (fv + up) / 2) <= tol) | (np.abs(d - (fv + dn) / 2) <= tol)
    return near & np.isfinite(d)


def ref_exp_f32(t: np.ndarray) -> np.ndarray:
    """Correctly rounded binary32 exp of a float32 array.

    Binary64 exp rounded once is right except within a hair of a binary32
    rounding boundary; those few elements are decided in 60-digit decimal.
    """
    t = np.asarray(t, dtype=np.float32)
    with np.errstate(over="ignore", under="ignore"):
        d = np.exp(t.astype(np.float64))
        out = d.astype(np.float32)
    for i in np.flatnonzero(near_rounding_boundary(d)):
        out.flat[i] = correctly_rounded_exp_f32(t.flat[i])
    return out


# ---------------------------------------------------------------- inputs


#: Values every kernel test mixes into its inputs: NaNs, infinities, signed
#: zeros, subnormals, the ends of each dtype's range, the Exp thresholds.
SPECIALS = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-40, -3e-39,
                     1.17549435e-38, 6e-8, -6e-8, 65504.0, -65504.0, 3.0e38, -3.4e38, 88.72, -88.72,
                     103.9, -103.9, 1e-7, 0.5, -0.5, 5.0, -5.0, 20.0, -20.0, 1e4, -1e4], dtype=np.float64)


def random_inputs(rng, n, dtype, special_fraction=0.1):
    """Seeded ``(grad, x)`` of ``dtype``: uniform in [-5, 5), a fifth of x spread
    over 80 decades, and ``special_fraction`` of each drawn from :data:`SPECIALS`."""
    g = rng.uniform(-5, 5, n)
    x = rng.uniform(-5, 5, n)
    wide = rng.random(n) < 0.2
    x[wide] = rng.standard_normal(wide.sum()) * 10.0 ** rng.integers(-40, 39, wide.sum())
    for arr in (g, x):
        sp = rng.random(n) < special_fraction
        arr[sp] = rng.choice(SPECIALS, sp.sum())
    dt = DTYPES[dtype] if isinstance(dtype, str) else np.dtype(dtype)
    with np.errstate(over="ignore"):
        return g.astype(np.float32).astype(dt), x.astype(np.float32).astype(dt)


# ---------------------------------------------------------------- the formula


def ref_float64_truth(grad, x, beta):
    """model section 1 in float64, on the inputs as given and beta rounded to float32."""
    g = np.asarray(grad).astype(np.float64)
    xb = float(np.float32(beta)) * np.asarray(x).astype(np.float64)
    with np.errstate(over="ignore"):
        sig = 1.0 / (1.0 + np.exp(-xb))
    return g * sig * (1.0 + xb * (1.0 - sig))


# ---------------------------------------------------------------- kernel


def ref_swish_grad(grad: np.ndarray, x: np.ndarray, beta) -> np.ndarray:
    """model section 2 step by step on float32 NumPy arrays (no tiling)."""
    dtype = x.dtype
    b = np.float32(beta)
    one = np.float32(1.0)
    with np.errstate(all="ignore"):
        xv = np.asarray(x).astype(np.float32).reshape(-1)
        xv = xv * b                       # Muls
        t = xv * np.float32(-1.0)         # Muls
        t = ref_exp_f32(t)                # Exp
        t = t + one                       # Adds
        o = one / t                       # Div
        t = one - o                       # Sub
        xv = xv * t                       # Mul
        xv = one + xv                     # Add
        o = o * xv                        # Mul
        gv = np.asarray(grad).astype(np.float32).reshape(-1)
        o = gv * o                        # Mul
        return o.astype(dtype).reshape(np.shape(x))


def bits(a: np.ndarray) -> np.ndarray:
    """Bit patterns of a float array, every NaN mapped to one pattern."""
    a = np.asarray(a)
    width = {8: np.uint64, 4: np.uint32, 2: np.uint16, 1: np.uint8}[a.dtype.itemsize]
    b = a.view(width).copy()
    if a.dtype.kind in "iub":   # an integer array (Relu's, issue 41): its bits as they are
        return b
    wide = np.float64 if a.dtype.itemsize == 8 else np.float32
    b[np.isnan(a.astype(wide))] = np.iinfo(width).max
    return b


def assert_bits_equal(actual, expected, context=""):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    ba, be = bits(actual).reshape(-1), bits(expected).reshape(-1)
    bad = np.flatnonzero(ba != be)
    if bad.size:
        i = bad[0]
        raise AssertionError(
            f"{bad.size} of {ba.size} elements differ {context}; first at flat index {i}: "
            f"got {actual.reshape(-1)[i]!r} (0x{int(ba[i]):x}), expected {expected.reshape(-1)[i]!r} (0x{int(be[i]):x})"
        )


# ---------------------------------------------------------------- Ascend 950 (model section 9)


def _round_rational_to_f32(v: Fraction) -> np.float32:
    """An exact rational rounded once to binary32 (nearest, ties to even; subnormals kept)."""
    if v == 0:
        return np.float32(0.0)
    sign = -1 if v < 0 else 1
    a = abs(v)
    # exponent e with 2**e <= a < 2**(e+1), from the integer bit lengths
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    quantum = Fraction(2) ** (max(e, -126) - 23)   # binary32 spacing at a (the subnormal one below 2**-126)
    n, r = divmod(a, quantum)
    if r > quantum / 2 or (r == quantum / 2 and n % 2 == 1):
        n += 1
    rounded = n * quantum
    if rounded >= Fraction(2) ** 128:
        return np.float32(sign * np.inf)
    return np.float32(sign * float(rounded))   # exactly representable, so the float conversion is exact


def fma_f32_exact(a, b, c) -> np.float32:
    """``a * b + c`` on binary32 values, computed exactly and rounded once (IEEE 754 fusedMultiplyAdd)."""
    a, b, c = np.float32(a), np.float32(b), np.float32(c)
    if np.isnan(a) or np.isnan(b) or np.isnan(c):
        return np.float32(np.nan)
    if np.isinf(a) or np.isinf(b):
        if a == 0 or b == 0:
            return np.float32(np.nan)          # inf * 0
        prod_sign = np.signbit(a) != np.signbit(b)
        if np.isinf(c) and np.signbit(c) != prod_sign:
            return np.float32(np.nan)          # inf - inf
        return np.float32(-np.inf if prod_sign else np.inf)
    if np.isinf(c):
        return c
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if exact == 0:
        # an exact zero: -0 only when both addends are -0 (x*y is a signed zero then)
        prod_neg = (np.signbit(a) != np.signbit(b))
        both_neg_zero = Fraction(float(a)) * Fraction(float(b)) == 0 and prod_neg and c == 0 and np.signbit(c)
        return np.float32(-0.0) if both_neg_zero else np.float32(0.0)
    return _round_rational_to_f32(exact)


def fma_f32_array(a, b, c) -> np.ndarray:
    """:func:`fma_f32_exact` over float32 arrays, vectorised: tests/reference_activations.fma_f32 (round to
    odd in binary64, checked against :func:`fma_f32_exact` in tests/test_reference_activations.py), every
    NaN the one quiet NaN :func:`fma_f32_exact` returns."""
    from reference_activations import fma_f32      # on use: reference_activations imports this module

    r = fma_f32(a, b, c)
    r[np.isnan(r)] = np.float32(np.nan)
    return r


def ref_swish_grad_950(grad: np.ndarray, x: np.ndarray, beta) -> np.ndarray:
    """model section 9, step by step on float32 NumPy arrays (no tiling): the Ascend 950 sequence.

    MulDstAdd is a fused multiply-add with one rounding, computed exactly here.
    """
    dtype = x.dtype
    b = np.float32(beta)
    one = np.float32(1.0)
    with np.errstate(all="ignore"):
        xs = np.asarray(x).astype(np.float32).reshape(-1) * b      # Muls(x, beta)
        t = -xs                                                     # Neg
        t = ref_exp_f32(t)                                          # Exp
        t = t + one                                                 # Adds(t, 1)
        s = one / t                                                 # Div(1, t)
        o = one - s                                                 # Sub(1, s)
        o = o * xs                                                  # Mul(o, xs)
        o = fma_f32_array(o, s, s)                                  # MulDstAdd
        g = np.asarray(grad).astype(np.float32).reshape(-1)
        o = o * g                                                   # Mul(o, grad)
        return o.astype(dtype).reshape(np.shape(x))


# ---------------------------------------------------------------- the device's error envelope (model section 10)


def _flush(v: np.float32) -> np.float32:
    """A subnormal binary32 becomes the zero of its sign."""
    if v != 0 and abs(float(v)) < 2.0**-126:
        return np.float32(np.copysign(np.float32(0.0), v))
    return v


def ulp_neighbourhood(c, k_max: int, ftz: bool) -> list:
    """Every binary32 within ``k_max`` ulps of ``c`` on c's side of zero, by
    walking ``np.nextafter`` outwards (it treats -0 and +0 as one point and
    keeps c's sign on reaching zero); a walk stops at an infinity and at a
    zero it would cross. A NaN reaches only itself. With ``ftz`` each value
    is flushed afterwards."""
    c = np.float32(c)
    if np.isnan(c):
        return [c]
    found = [c]
    for direction in (np.float32(np.inf), np.float32(-np.inf)):
        v = c
        for _ in range(k_max):
            if v == direction or (v == 0 and np.signbit(direction) != np.signbit(c)):
                break
            v = np.nextafter(v, direction, dtype=np.float32)
            found.append(v)
    return [_flush(v) for v in found] if ftz else found


def ref_envelope_members(g, x, beta, exp_ulp, div_ulp, ftz, kernel, dtype) -> set:
    """The set of reachable outputs of one element: bit patterns as Python ints, "nan" for any NaN.

    ``kernel`` is "a2" or "arch35"; ``g`` and ``x`` are scalars of ``dtype``.
    Every step in numpy float32, one at a time (model sections 2, 9, 10).
    """
    one = np.float32(1.0)
    out_dt = DTYPES[dtype]
    width = {4: np.uint32, 2: np.uint16}[out_dt.itemsize]
    found = set()
    with np.errstate(all="ignore"):
        gf = np.float32(np.array(g, dtype=out_dt).astype(np.float32))
        xf = np.float32(np.array(x, dtype=out_dt).astype(np.float32))
        xb = xf * np.float32(beta)                                   # Muls(x, beta)
        t = xb * np.float32(-1.0)                                    # Muls(xb, -1) / Neg
        e0 = ref_exp_f32(np.array([t], dtype=np.float32))[0]         # Exp, correctly rounded
        for e in ulp_neighbourhood(e0, exp_ulp, ftz):
            q0 = one / (e + one)                                     # Adds ; Div, correctly rounded
            for s in ulp_neighbourhood(q0, div_ulp, ftz):
                if kernel == "a2":
                    o = s
                    t2 = one - o                                     # Sub
                    xb2 = xb * t2                                    # Mul
                    xb2 = one + xb2                                  # Add
                    o = o * xb2                                      # Mul
                    r = gf * o                                       # Mul(g, o)
                else:
                    o = one - s                                      # Sub(1, s)
                    o = o * xb                                       # Mul(o, xb)
                    o = fma_f32_exact(o, s, s)                       # MulDstAdd
                    r = o * gf                                       # Mul(o, g)
                v = np.array([r], dtype=np.float32).astype(out_dt)   # Cast (round to nearest even)
                found.add("nan" if np.isnan(v.astype(np.float32))[0] else int(v.view(width)[0]))
    return found


def ref_saturated_swish_grad(grad, x, beta, dtype) -> np.ndarray:
    """The A2 sequence in the device's saturation overflow mode (model section 2): after every
    instruction an infinite result becomes the largest finite of its sign and NaN becomes +0; the
    final Cast saturates to the 16-bit dtype's largest finite. One element at a time."""
    fmax = np.float32(np.finfo(np.float32).max)
    out_dt = DTYPES[dtype]

    def sat(v):
        v = np.float32(v)
        if np.isnan(v):
            return np.float32(0.0)
        if np.isinf(v):
            return fmax if v > 0 else -fmax
        return v

    one = np.float32(1.0)
    g32 = np.asarray(grad).astype(np.float32).reshape(-1)
    x32 = np.asarray(x).astype(np.float32).reshape(-1)
    out = np.empty(x32.size, dtype=out_dt)
    big = float(np.finfo(np.float16).max) if dtype == "float16" else float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)
    with np.errstate(all="ignore"):
        for i in range(x32.size):
            xb = sat(x32[i] * np.float32(beta))
            t = sat(xb * np.float32(-1.0))
            e = sat(ref_exp_f32(np.array([t], dtype=np.float32))[0])
            t = sat(e + one)
            o = sat(one / t)
            t = sat(one - o)
            xb = sat(xb * t)
            xb = sat(one + xb)
            o = sat(o * xb)
            r = sat(g32[i] * o)
            v = np.array([r], dtype=np.float32).astype(out_dt)
            if dtype != "float32" and np.isinf(v.astype(np.float32))[0]:
                v = np.array([np.copysign(big, r)]).astype(out_dt)
            out[i] = v[0]
    return out.reshape(np.shape(x))
