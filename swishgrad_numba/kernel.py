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
from numba import njit, prange

from .dtypes import bf16_bits_to_f32, f16_bits_to_f32, f32_to_bf16_bits, f32_to_f16_bits

# Queue depth of the device kernel (BUFFER_NUM): two local buffers per queue.
BUFFER_NUM = 2

# Integer codes for the element type, passed to kernels as plain ints.
DTYPE_FLOAT32 = 0
DTYPE_FLOAT16 = 1
DTYPE_BFLOAT16 = 2

_NJIT = dict(cache=True, error_model="numpy")


@njit(**_NJIT, inline="always")
def exp_f32(t):
    """Correctly rounded binary32 e**t.

    The exponential is evaluated in binary64 (the platform libm, error below
    one binary64 ulp) and rounded once to binary32. The exhaustive test
    proves over all 2**32 inputs that this lands on the correctly rounded
    binary32 value: no e**t lies close enough to a binary32 rounding
    boundary for the binary64 error to matter.
    """
    return np.float32(math.exp(np.float64(t)))


@njit(**_NJIT, inline="always")
def swish_grad_derivative_f32(x, beta):
    """s'(x) in float32 by the device's instruction sequence, one rounding per step.

    Each line is one vector instruction of SPEC section 2; no step may be
    fused or reordered (Numba without fastmath emits no FMA).
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


@njit(**_NJIT, inline="always")
def core_range(core, small_core_data_num, big_core_data_num, final_big_tile_num,
               final_small_tile_num, small_tail_data_num, big_tail_data_num, tail_block_num):
    """(start, count, tiles, tail) of one core, as SPEC section 4 gives them."""
    if core < tail_block_num:
        return (big_core_data_num * core, big_core_data_num, final_big_tile_num, big_tail_data_num)
    start = big_core_data_num * core - (big_core_data_num - small_core_data_num) * (core - tail_block_num)
    return (start, small_core_data_num, final_small_tile_num, small_tail_data_num)


@njit(**_NJIT, inline="always")
def _copy_in(dst, src, offset, length, numel):
    """GM -> local buffer of ``length`` elements from ``offset``.

    On the device the last transfer may run into allocation padding past the
    tensor; here only the part inside ``[0, numel)`` is read and the rest of
    the buffer is zero-filled. Returns the number of valid elements.
    """
    valid = min(length, numel - offset) if offset < numel else 0
    if valid < 0:
        valid = 0
    for j in range(valid):
        dst[j] = src[offset + j]
    for j in range(valid, length):
        dst[j] = 0
    return valid


@njit(**_NJIT, inline="always")
def _copy_out(dst, src, offset, valid):
    """Local buffer -> GM, only the elements inside the tensor."""
    for j in range(valid):
        dst[offset + j] = src[j]


@njit(**_NJIT, inline="always")
def compute_f32(g_buf, x_buf, o_buf, length, beta, derivative_table, dtype_code):
    for j in range(length):
        o_buf[j] = g_buf[j] * swish_grad_derivative_f32(x_buf[j], beta)


@njit(**_NJIT, inline="always")
def compute_16(g_buf, x_buf, o_buf, length, beta, derivative_table, dtype_code):
    # derivative_table[bits] is s'(x) in float32 for the 16-bit x with those
    # bits, computed by the same instruction sequence; only the final Mul
    # (g cast to float32 just before it) and the RINT cast back remain.
    if dtype_code == DTYPE_FLOAT16:
        for j in range(length):
            o_buf[j] = f32_to_f16_bits(f16_bits_to_f32(g_buf[j]) * derivative_table[x_buf[j]])
    else:
        for j in range(length):
            o_buf[j] = f32_to_bf16_bits(bf16_bits_to_f32(g_buf[j]) * derivative_table[x_buf[j]])


@njit(**_NJIT, inline="always")
def _run_core(compute, core, grad, x, out, fields, beta, derivative_table, dtype_code,
              g_local, x_local, o_local):
    """One AI core: walk its tiles with ping-pong local buffers."""
    numel = out.shape[0]
    tile_data_num = fields[4]
    start, count, tiles, tail = core_range(core, fields[0], fields[1], fields[2], fields[3],
                                           fields[5], fields[6], fields[7])
    capacity = g_local.shape[1]
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
        _copy_in(g_buf, grad, offset, length, numel)
        # Compute: the whole tile, padding included, as the vector unit does.
        compute(g_buf, x_buf, o_buf, length, beta, derivative_table, dtype_code)
        # CopyOut
        _copy_out(out, o_buf, offset, valid)


@njit(parallel=True, **_NJIT)
def swish_grad_launch(compute, grad, x, out, fields, block_dim, beta, derivative_table, dtype_code):
    """Launch ``block_dim`` emulated cores over flat ``grad``/``x``/``out``.

    ``fields`` holds the tiling record's eight integer fields in struct
    order as int64; ``beta`` is its ``sconf``. Each core allocates its own
    local buffers and writes only its own range.
    """
    capacity = max(fields[4], fields[5], fields[6])
    for core in prange(block_dim):
        g_local = np.empty((BUFFER_NUM, capacity), dtype=grad.dtype)
        x_local = np.empty((BUFFER_NUM, capacity), dtype=x.dtype)
        o_local = np.empty((BUFFER_NUM, capacity), dtype=out.dtype)
        _run_core(compute, core, grad, x, out, fields, beta, derivative_table, dtype_code,
                  g_local, x_local, o_local)


@njit(**_NJIT)
def swish_grad_launch_serial(compute, grad, x, out, fields, block_dim, beta, derivative_table, dtype_code):
    """:func:`swish_grad_launch` without threads, for small launches."""
    capacity = max(fields[4], fields[5], fields[6])
    g_local = np.empty((BUFFER_NUM, capacity), dtype=grad.dtype)
    x_local = np.empty((BUFFER_NUM, capacity), dtype=x.dtype)
    o_local = np.empty((BUFFER_NUM, capacity), dtype=out.dtype)
    for core in range(block_dim):
        _run_core(compute, core, grad, x, out, fields, beta, derivative_table, dtype_code,
                  g_local, x_local, o_local)


@njit(parallel=True, **_NJIT)
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
