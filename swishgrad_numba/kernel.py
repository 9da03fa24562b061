"""The SwishGrad AI-core kernel, emulated with Numba (SPEC sections 2 and 4).

Private: these functions only compute. They take flat arrays and the tiling
record's fields as plain integers; callers validate everything first.

The decomposition mirrors the device: a ``prange`` over the launched cores;
each core walks its contiguous range as ``tiles - 1`` full tiles and one tail
tile, each CopyIn (global -> local buffer), Compute, CopyOut (local ->
global), with two local buffers per queue used alternately (ping-pong).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from .dtypes import bf16_bits_to_f32, f16_bits_to_f32, f32_to_bf16_bits, f32_to_f16_bits
from .intrinsics import fma_f64, prefetch_read, prefetch_write

# Queue depth of the device kernel (BUFFER_NUM): two local buffers per queue.
BUFFER_NUM = 2

# Integer codes for the element type, passed to kernels as plain ints.
DTYPE_FLOAT32 = 0
DTYPE_FLOAT16 = 1
DTYPE_BFLOAT16 = 2

# Every jitted function: cache=True (compiled code kept on disk) and the
# NumPy error model (IEEE division, no ZeroDivisionError checks). Never fast-math.


# --------------------------------------------------------------------------
# Exp: correctly rounded binary32 e**t.
#
# e**t is evaluated in binary64 by a branch-free routine that vectorises:
# t = k*ln2 + r with |r| <= ln2/2, e**r by a polynomial of degree 10 in
# Horner form with fused multiply-adds (error below 2**-50.9), times 2**k
# built in the exponent bits. Its error is a few binary64 ulps, so rounding
# it to binary32 is correct unless the binary64 value lies within a few ulps
# of a binary32 rounding boundary, or the binary32 result is subnormal (where
# the boundary sits elsewhere). Those rare elements (about 2**-22 of all
# normal results) are flagged and recomputed with the platform libm's exp.
# The exhaustive test checks the outcome against the correctly rounded value
# for all 2**32 inputs.
#
# The fused multiply-adds are internal to this binary64 evaluation: the
# binary32 result is the correctly rounded e**t either way. The emulated
# binary32 instructions themselves are never fused.
# --------------------------------------------------------------------------
_INV_LN2 = 1.4426950408889634
_SHIFTER = 6755399441055744.0            # 1.5 * 2**52: adding it rounds to an integer
_SHIFTER_BITS = 0x4338000000000000       # its bit pattern; k sits in the low bits
_LN2_HI = 6.93147180369123816490e-01     # 32 significant bits: k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
# Distance (in binary64 ulps) from a binary32 rounding boundary under which
# the fast result is not trusted.
_EXP_GUARD_ULPS = 64
_MIN_NORMAL_F32 = 1.1754943508222875e-38  # 2**-126
# e**r ~ 1 + r + r**2 * q(r) on |r| <= 0.347: q of degree 8 fitted by least
# squares (weighted for relative error) at 600 Chebyshev nodes against
# 60-digit decimal values. Relative error below 2**-50.9 including the
# binary64 fused Horner evaluation, far inside the guard above.
_EXP_POLY = (
    1.0, 1.0, 0.4999999999999708, 0.16666666666610014, 0.041666666668962536,
    0.008333333371470015, 0.0013888888333666101, 0.00019841184508640286,
    2.480209672969405e-05, 2.7635270676836677e-06, 2.742419840118817e-07,
)


@njit(cache=True, error_model="numpy", inline="always")
def _exp_f64_fast(td):
    """(e**td in binary64 within a few ulps, needs_exact_path) for a binary32 td."""
    # Past these bounds the binary32 result is +inf or +0 anyway; clamping
    # keeps 2**k a normal binary64. NaN fails both tests and propagates.
    if td > 100.0:
        td = 100.0
    if td < -110.0:
        td = -110.0
    kd = fma_f64(td, _INV_LN2, _SHIFTER)
    k = np.float64(kd).view(np.int64) - _SHIFTER_BITS
    kd = kd - _SHIFTER
    r = fma_f64(-kd, _LN2_HI, td)     # exact: t - k*_LN2_HI is representable
    r = fma_f64(-kd, _LN2_LO, r)
    p = _EXP_POLY[10]
    p = fma_f64(p, r, _EXP_POLY[9])
    p = fma_f64(p, r, _EXP_POLY[8])
    p = fma_f64(p, r, _EXP_POLY[7])
    p = fma_f64(p, r, _EXP_POLY[6])
    p = fma_f64(p, r, _EXP_POLY[5])
    p = fma_f64(p, r, _EXP_POLY[4])
    p = fma_f64(p, r, _EXP_POLY[3])
    p = fma_f64(p, r, _EXP_POLY[2])
    p = fma_f64(p, r, 1.0)
    p = fma_f64(p, r, 1.0)
    d = p * np.int64((k + 1023) << 52).view(np.float64)
    # Rounding to binary32 drops the low 29 of binary64's 52 mantissa bits;
    # the rounding boundary is where they read 0x10000000.
    # One unsigned compare tests |low - 0x10000000| <= guard; bitwise |
    # rather than `or` keeps the loop free of branches so it vectorises.
    low = (np.float64(d).view(np.int64) & 0x1FFFFFFF) - (0x10000000 - _EXP_GUARD_ULPS)
    suspect = np.int64(np.uint64(low) <= np.uint64(2 * _EXP_GUARD_ULPS)) | np.int64(d < _MIN_NORMAL_F32)
    return d, suspect


@njit(cache=True, error_model="numpy", inline="always")
def exp_f32(t):
    """Correctly rounded binary32 e**t (scalar form of :func:`vexp_f32`)."""
    td = np.float64(t)
    d, suspect = _exp_f64_fast(td)
    if suspect:
        d = math.exp(td)
    return np.float32(d)


@njit(cache=True, error_model="numpy", inline="always")
def vexp_f32(dst, src, length, sign):
    """``Muls(src, sign)`` then the Exp vector instruction, into ``dst``.

    ``dst[j] = e**(sign * src[j])`` in binary32 for ``j < length``; ``sign``
    is +1 or -1 (an exact multiply); ``dst`` must not alias ``src``. The
    first loop is branch-free and vectorises; the second, rarely entered,
    redoes the elements whose fast result was not trusted.
    """
    suspects = 0
    for j in range(length):
        d, suspect = _exp_f64_fast(np.float64(src[j] * sign))
        suspects += suspect
        dst[j] = np.float32(d)
    if suspects:
        for j in range(length):
            td = np.float64(src[j] * sign)
            if _exp_f64_fast(td)[1]:
                dst[j] = np.float32(math.exp(td))


@njit(cache=True, error_model="numpy", inline="always")
def swish_grad_derivative_f32(x, beta):
    """s'(x) in float32 by the device's instruction sequence, one rounding per step.

    Each line is one vector instruction of SPEC section 2; no step may be
    fused or reordered (Numba emits no FMA unless fast-math flags are set).
    """
    one = np.float32(1.0)
    x = x * beta                      # Muls(x, beta)
    t = x * np.float32(-1.0)          # Muls(x, -1)
    t = exp_f32(t)                    # Exp
    t = t + one                       # Adds(t, 1)
    o = one / t                       # Duplicate(1) ; Div   -> sigmoid(beta*x)
    t = one - o                       # Duplicate(1) ; Sub
    x = x * t                         # Mul   beta*x*(1 - sigmoid)
    x = one + x                       # Duplicate(1) ; Add
    return o * x                      # Mul   -> s'(x)


@njit(cache=True, error_model="numpy", inline="always")
def core_range(core, small_core_data_num, big_core_data_num, final_big_tile_num,
               final_small_tile_num, small_tail_data_num, big_tail_data_num, tail_block_num):
    """(start, count, tiles, tail) of one core, as SPEC section 4 gives them."""
    if core < tail_block_num:
        return (big_core_data_num * core, big_core_data_num, final_big_tile_num, big_tail_data_num)
    start = big_core_data_num * core - (big_core_data_num - small_core_data_num) * (core - tail_block_num)
    return (start, small_core_data_num, final_small_tile_num, small_tail_data_num)


@njit(cache=True, error_model="numpy", inline="always")
def _copy_in(dst, src, offset, length, numel):
    """GM -> local buffer of ``length`` elements from ``offset``.

    On the device the last transfer may run into allocation padding past the
    tensor; here only the part inside ``[0, numel)`` is read and the rest of
    the buffer is zero-filled. Returns the number of valid elements.
    """
    valid = min(length, numel - offset) if offset < numel else 0
    if valid < 0:
        valid = 0
    # Index through a slice so the loop index is a plain 0..valid range
    # (no wraparound checks): the copy then vectorises.
    window = src[offset:offset + valid]
    for j in range(valid):
        dst[j] = window[j]
    for j in range(valid, length):
        dst[j] = 0
    return valid


@njit(cache=True, error_model="numpy", inline="always")
def _copy_out(dst, src, offset, valid):
    """Local buffer -> GM, only the elements inside the tensor."""
    window = dst[offset:offset + valid]
    for j in range(valid):
        window[j] = src[j]


@njit(cache=True, error_model="numpy", inline="always")
def compute_f32(g_buf, x_buf, o_buf, work, length, beta, derivative_table, dtype_code):
    """Compute one float32 tile: the instruction sequence of SPEC section 2.

    ``work`` is the float32 scratch buffer (``t``). Elementwise steps after
    the Exp are fused into one loop; each is still its own binary32
    operation, in the device's order.
    """
    one = np.float32(1.0)
    for j in range(length):
        x_buf[j] = x_buf[j] * beta            # Muls(x, beta)
    vexp_f32(work, x_buf, length, np.float32(-1.0))   # Muls(x, -1) ; Exp
    for j in range(length):
        t = work[j] + one                     # Adds(t, 1)
        o = one / t                           # Duplicate(1) ; Div  -> sigmoid
        t = one - o                           # Duplicate(1) ; Sub
        xb = x_buf[j] * t                     # Mul
        xb = one + xb                         # Duplicate(1) ; Add
        o = o * xb                            # Mul  -> s'(x)
        o_buf[j] = g_buf[j] * o               # Mul  -> output


@njit(cache=True, error_model="numpy", inline="always")
def compute_16(g_buf, x_buf, o_buf, work, length, beta, derivative_table, dtype_code):
    """Compute one float16/bfloat16 tile on the bit patterns.

    ``derivative_table[bits]`` is s'(x) in float32 for the 16-bit x with
    those bits, computed by the full instruction sequence
    (:func:`derivative_table_16`); what remains per element is the cast of g
    to float32 just before the last Mul, that Mul, and the RINT cast back.
    The table lookup is its own loop so that the arithmetic loop vectorises.
    """
    for j in range(length):
        work[j] = derivative_table[x_buf[j]]
    if dtype_code == DTYPE_FLOAT16:
        for j in range(length):
            o_buf[j] = f32_to_f16_bits(f16_bits_to_f32(g_buf[j]) * work[j])
    else:
        for j in range(length):
            o_buf[j] = f32_to_bf16_bits(bf16_bits_to_f32(g_buf[j]) * work[j])


def compute_tile(g_buf, x_buf, o_buf, work, length, beta, derivative_table, dtype_code):
    """Compute one tile; resolved at compile time by the buffers' element type."""
    raise NotImplementedError("compute_tile is only callable from jitted code")


@overload(compute_tile, inline="always")
def _compute_tile_overload(g_buf, x_buf, o_buf, work, length, beta, derivative_table, dtype_code):
    # float32 buffers take the full instruction sequence; uint16 buffers hold
    # float16/bfloat16 bits. Choosing here (not by passing a function as an
    # argument) keeps the launch functions cacheable on disk.
    if isinstance(g_buf, types.Array) and g_buf.dtype == types.float32:
        return compute_f32.py_func
    if isinstance(g_buf, types.Array) and g_buf.dtype == types.uint16:
        return compute_16.py_func
    return None


# Compute runs over a tile in slices of this many elements; between slices
# the core prefetches the matching share of the next tile's GM lines.
COMPUTE_SLICE = 128
_CACHE_LINE_BYTES = 64


@njit(cache=True, error_model="numpy", inline="always")
def _prefetch_tile_share(grad, x, out, start, stop, step):
    """Prefetch GM lines of elements ``[start, stop)`` (inside the tensor):
    the next tile's inputs for reading, its output for writing."""
    for p in range(start, stop, step):
        prefetch_read(x, p)
        prefetch_read(grad, p)
        prefetch_write(out, p)


@njit(cache=True, error_model="numpy", inline="always")
def _run_core(core, grad, x, out, fields, beta, derivative_table, dtype_code,
              g_local, x_local, o_local, work):
    """One AI core: walk its tiles with ping-pong local buffers.

    On the device MTE2 fills the other buffer of each queue while the vector
    unit computes. Here the core does the same work in turn; to overlap the
    memory traffic with the arithmetic it computes each tile in slices and,
    after each slice, prefetches an equal share of the next tile's GM lines,
    so that the next CopyIn and CopyOut find them in cache.
    """
    numel = out.shape[0]
    tile_data_num = fields[4]
    start, count, tiles, tail = core_range(core, fields[0], fields[1], fields[2], fields[3],
                                           fields[5], fields[6], fields[7])
    capacity = g_local.shape[1]
    line = max(_CACHE_LINE_BYTES // out.itemsize, 1)   # elements per cache line
    for tile in range(tiles):
        length = tile_data_num if tile < tiles - 1 else tail
        if length > capacity:  # never index past the local buffer
            length = capacity
        offset = start + tile * tile_data_num
        ping = tile % BUFFER_NUM
        g_buf = g_local[ping]
        x_buf = x_local[ping]
        o_buf = o_local[ping]
        # CopyIn
        valid = _copy_in(x_buf, x, offset, length, numel)
        if valid == 0:  # a tile wholly past the tensor writes nothing back
            continue
        _copy_in(g_buf, grad, offset, length, numel)
        # The next tile of this core, clipped to the tensor (empty if none).
        next_start = min(offset + tile_data_num, numel)
        next_stop = next_start
        if tile + 1 < tiles:
            next_stop = min(next_start + (tile_data_num if tile + 1 < tiles - 1 else tail), numel)
        slices = (length + COMPUTE_SLICE - 1) // COMPUTE_SLICE
        share = ((next_stop - next_start + slices - 1) // slices + line - 1) // line * line
        # Compute: the whole tile, padding included, as the vector unit
        # does; element-wise, so slicing it changes no bit.
        for s in range(slices):
            a = s * COMPUTE_SLICE
            b = min(a + COMPUTE_SLICE, length)
            p = next_start + s * share
            _prefetch_tile_share(grad, x, out, p, min(p + share, next_stop), line)
            compute_tile(g_buf[a:b], x_buf[a:b], o_buf[a:b], work[a:b], b - a, beta,
                         derivative_table, dtype_code)
        # CopyOut
        _copy_out(out, o_buf, offset, valid)


@njit(cache=True, error_model="numpy", inline="always")
def _buffer_capacity(fields, numel):
    """Elements per local buffer: one tile, but never more than the tensor
    plus a block's worth of padding (longer tiles are computed only up to
    that, which covers every element that is written back)."""
    return max(min(max(fields[4], fields[5], fields[6]), numel + 64), 1)


@njit(parallel=True, cache=True, error_model="numpy")
def swish_grad_launch(grad, x, out, fields, block_dim, beta, derivative_table, dtype_code):
    """Launch ``block_dim`` emulated cores over flat ``grad``/``x``/``out``.

    ``fields`` holds the tiling record's eight integer fields in struct
    order as int64; ``beta`` is its ``sconf``. Each core allocates its own
    local buffers and writes only its own range.
    """
    capacity = _buffer_capacity(fields, out.shape[0])
    for core in prange(block_dim):
        g_local = np.empty((BUFFER_NUM, capacity), dtype=grad.dtype)
        x_local = np.empty((BUFFER_NUM, capacity), dtype=x.dtype)
        o_local = np.empty((BUFFER_NUM, capacity), dtype=out.dtype)
        work = np.empty(capacity, dtype=np.float32)
        _run_core(core, grad, x, out, fields, beta, derivative_table, dtype_code,
                  g_local, x_local, o_local, work)


@njit(cache=True, error_model="numpy")
def swish_grad_launch_serial(grad, x, out, fields, block_dim, beta, derivative_table, dtype_code):
    """:func:`swish_grad_launch` without threads, for small launches."""
    capacity = _buffer_capacity(fields, out.shape[0])
    g_local = np.empty((BUFFER_NUM, capacity), dtype=grad.dtype)
    x_local = np.empty((BUFFER_NUM, capacity), dtype=x.dtype)
    o_local = np.empty((BUFFER_NUM, capacity), dtype=out.dtype)
    work = np.empty(capacity, dtype=np.float32)
    for core in range(block_dim):
        _run_core(core, grad, x, out, fields, beta, derivative_table, dtype_code,
                  g_local, x_local, o_local, work)


@njit(parallel=True, cache=True, error_model="numpy")
def derivative_table_16(beta, dtype_code):
    """s'(x) in float32 for each of the 65536 bit patterns of a 16-bit x."""
    table = np.empty(65536, dtype=np.float32)
    for bits in prange(65536):
        if dtype_code == DTYPE_FLOAT16:
            xf = f16_bits_to_f32(np.uint16(bits))
        else:
            xf = bf16_bits_to_f32(np.uint16(bits))
        table[bits] = swish_grad_derivative_f32(xf, beta)
    return table
