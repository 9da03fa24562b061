"""What the row instructions compute, defined once (issue 42): Sqrt, the 64-lane repeat's sum, BlockReduceSum,
the level-2 ReduceSum, and the scalar unit's fused ``a * b + c``.

Read against asc-devkit's pages (docs/model.md, "RmsNorm"):

- ``Sqrt``: the correctly rounded binary32 square root (as the model's other instructions: the device's
  rounding is not public); sqrt(-x) is NaN, sqrt(-0) is -0.
- One repeat's sum (``WholeReduceSum`` / ``ReduceRepeat<SUM>``, and each repeat of ``ReduceSum``): asc-devkit
  says a binary tree of neighbouring pairs (ReduceDataBlock, "关键特性说明": data1+data2, data3+data4, ...,
  then the pair sums pairwise). Whether every level rounds to binary32 is not stated: the model rounds every
  level (``ORDER_TREE``, the default). ``ORDER_SEQUENTIAL`` (lane 0 to the last, left to right) and
  ``ORDER_BLOCK8`` (each 8-lane block left to right, then the block sums left to right) are the options.
  Masked lanes (a repeat of fewer than 64 lanes) count as +0.
- ``BlockReduceSum``: each 8-lane block (one 32-byte DataBlock) by the same order on 8 lanes.
- ``ReduceSum`` over a row (A2, "tensor前n个数据", 方式一): each 64-lane repeat by the order above, the
  repeat sums added left to right.

- ``rsqrt_f64``: the A2 scalar ``1 / sqrt(t)`` read with a double ``sqrt`` (an option; the default is two
  float32 roundings, Sqrt then Div).
- ``Mula(dst, src0, src1)`` (the 950's multiply-add, R_MULA): ``src0 * src1 + dst``; rounded once by
  default (:func:`fused_mul_add`, asc-devkit's MulAddDst page), or the product first (an option).

Numba contracts no ``a * b + c`` into an FMA unless asked, so every ``+`` here is one binary32 rounding.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..intrinsics import fma_f32, pair_tree_sum_8, pair_tree_sum_64
from . import semantics as S

__all__ = ["ORDER_TREE", "ORDER_SEQUENTIAL", "ORDER_BLOCK8", "sqrt_", "repeat_sum", "block_sum", "reduce_sum",
           "fused_mul_add", "rsqrt_f64", "EXTREME_MAX", "EXTREME_MIN", "lanes_extreme", "reduce_extreme"]

ORDER_TREE, ORDER_SEQUENTIAL, ORDER_BLOCK8 = 0, 1, 2
_ZERO = np.float32(0.0)


@njit(cache=True, error_model="numpy", inline="always")
def sqrt_(src):
    return np.sqrt(src)


@njit(cache=True, error_model="numpy", inline="always")
def rsqrt_f64(t):
    """``1 / sqrt(t)`` with ``t`` widened to double, the double square root and division, rounded once to
    float32 (a scalar ``1 / sqrt(x)`` compiled with the C library's double ``sqrt``)."""
    return np.float32(1.0 / np.sqrt(np.float64(t)))


@njit(cache=True, error_model="numpy", inline="always")
def fused_mul_add(a, b, c):
    """``a * b + c`` rounded once."""
    return fma_f32(a, b, c)


@njit(cache=True, error_model="numpy")
def _lanes_sum(a, start, count, width, order):
    """The sum of ``a[start:start + count]`` as one repeat of ``width`` lanes (a power of two), the lanes from
    ``count`` on +0, in ``order``."""
    buf = np.zeros(width, dtype=np.float32)
    for i in range(count):
        buf[i] = a[start + i]
    if order == ORDER_SEQUENTIAL:
        acc = buf[0]
        for i in range(1, width):
            acc = np.float32(acc + buf[i])
        return acc
    if order == ORDER_BLOCK8 and width > 8:
        total = _ZERO
        for b in range(width // 8):
            acc = buf[8 * b]
            for i in range(1, 8):
                acc = np.float32(acc + buf[8 * b + i])
            total = acc if b == 0 else np.float32(total + acc)
        return total
    if order == ORDER_BLOCK8:
        acc = buf[0]
        for i in range(1, width):
            acc = np.float32(acc + buf[i])
        return acc
    n = width
    while n > 1:
        n //= 2
        for i in range(n):
            buf[i] = np.float32(buf[2 * i] + buf[2 * i + 1])
    return buf[0]


# A whole repeat or DataBlock in the tree order (the default) is the tree as vector adds, inlined into the
# caller: the same bits as _lanes_sum's scalar tree, 12 times faster (a call alone costs 6 times the tree).
@njit(cache=True, error_model="numpy", inline="always")
def repeat_sum(a, start, count, order):
    """One 64-lane repeat over ``count`` (1..64) elements from ``a[start]`` (``a`` a C-contiguous float32 array:
    the row machine's arena)."""
    if order == ORDER_TREE and count == 64:
        return pair_tree_sum_64(a, start)
    return _lanes_sum(a, start, count, 64, order)


@njit(cache=True, error_model="numpy", inline="always")
def block_sum(a, start, order):
    """One 8-lane DataBlock's sum (BlockReduceSum's per-block result)."""
    if order == ORDER_TREE:
        return pair_tree_sum_8(a, start)
    return _lanes_sum(a, start, 8, 8, order)


@njit(cache=True, error_model="numpy")
def reduce_sum(a, start, count, order):
    """ReduceSum over ``count`` elements: each 64-lane repeat by ``order``, the repeat sums left to right."""
    acc = _ZERO
    for r in range(0, count, 64):
        s = repeat_sum(a, start + r, min(64, count - r), order)
        acc = s if r == 0 else np.float32(acc + s)
    return acc


# ---------------------------------------------------------------- max and min (issue 39)
# WholeReduceMax/Min, BlockReduceMax/Min and ReduceMax/Min, value only (the index of ORDER_VALUE_INDEX is not
# modelled). asc-devkit's pages give no NaN or -0 rule; the model takes its Max/Min instructions' (semantics.max_,
# min_: NaN propagates, a tie keeps the earlier operand), folded over the lanes in lane order, the masked lanes
# (past ``count``) left out. Under that rule the result is the same for any reduction order that keeps lane
# order within each pair (a tree of neighbouring pairs, or left to right): the first NaN in lane order if any,
# else the first lane holding the extreme (so of +0 and -0 the earlier lane's). No order option is needed.
EXTREME_MAX, EXTREME_MIN = 0, 1


@njit(cache=True, error_model="numpy")
def lanes_extreme(a, start, count, which):
    """The max (``which`` 0) or min (1) of ``a[start:start + count]`` (``count`` >= 1) in lane order."""
    acc = a[start]
    for i in range(1, count):
        v = a[start + i]
        acc = S.max_(acc, v, False) if which == EXTREME_MAX else S.min_(acc, v, False)
    return acc


@njit(cache=True, error_model="numpy")
def reduce_extreme(a, start, count, which):
    """ReduceMax/Min over ``count`` elements: each 64-lane repeat's, then the repeats' left to right."""
    acc = lanes_extreme(a, start, min(64, count), which)
    for r in range(64, count, 64):
        v = lanes_extreme(a, start + r, min(64, count - r), which)
        acc = S.max_(acc, v, False) if which == EXTREME_MAX else S.min_(acc, v, False)
    return acc
