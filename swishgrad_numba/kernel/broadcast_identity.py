"""Whether a broadcast walk's launch is the identity walk (issue 39): equal shapes, nothing broadcast.

The broadcast walk (:mod:`.broadcast`) maps each output element to the input elements its pass reads. Where
the record describes inputs of the output's shape, contiguous, and its blocks and UB loops cover the output
exactly once, that map is the identity: output element ``i`` is computed from element ``i`` of each input,
and from nothing else. An element-wise pass then gives the same bits on any schedule of the same elements,
the element-wise walk's included; :func:`identity_pass_len` says whether a launch is such a walk, so that
:func:`.broadcast.run_blocks` may hand it to its route's flat launch (the engine's). Nothing here changes
the record: the tiling, its checks and the device-time model still see the broadcast walk.

The conditions, each as the walk computes (:func:`.broadcast._first_axes`, ``_next_axes``,
``_gm_offset``, ``_in_place``):

- ``shapeLen`` in 1 .. :data:`.broadcast.MAX_RANK`, the split axis below it, every output dim at least 1;
- the output strides the contiguous ones of its dims, and both inputs' strides equal to them (no
  broadcast axis: a stride 0 is never equal to a contiguous one), the three tensors of the output's size;
- the split axis's UB steps cover it exactly: ``ubFormer * (ubOuter - 1) + ubTail`` is its dim;
- the fused index is ``(axes before the split) x ubOuter``, and the blocks cover it exactly:
  ``blockFormer * (blockNum - 1) + blockTail`` is the fused index's size.

Every loop is then a contiguous region of the output inside it, each input's region the same one
(read where it lies), and the regions tile the output without overlap.
"""
from __future__ import annotations

import functools

import numpy as np

__all__ = ["identity_pass_len"]

#: Axes of a collapsed broadcast shape (opbase's limit; :data:`.broadcast.MAX_RANK`).
_MAX_RANK = 8


def identity_pass_len(n_dy: int, n_x: int, n_out: int, block_num, block_former, block_tail, ub_former, ub_outer,
                      ub_tail, shape_len, split, fused, elem_num, out_dims, out_strides, dy_strides,
                      x_strides) -> int:
    """The longest UB loop's elements where the launch (:func:`.broadcast.launch_blocks`' arguments, the
    tensors given by their sizes) is the identity walk, else 0 (the module's conditions; ``elem_num``,
    the local buffers' length, plays no part: the identity walk reads and writes the tensors in place).
    Kept per arguments, so that a call of a few thousand elements does not spend its time here."""
    try:
        key = (int(n_dy), int(n_x), int(n_out), int(block_num), int(block_former), int(block_tail),
               int(ub_former), int(ub_outer), int(ub_tail), int(shape_len), int(split), int(fused),
               *(_values(a) for a in (out_dims, out_strides, dy_strides, x_strides)))
    except (TypeError, ValueError):   # fields that are not integers: not a walk this shortcut knows
        return 0
    return _identity(*key)


def _values(a) -> tuple:
    """An array argument's values as a tuple (a flat ndarray's, the common case, without ``asarray``)."""
    if type(a) is np.ndarray and a.ndim == 1:
        return tuple(a.tolist())
    return tuple(np.asarray(a).ravel().tolist())


@functools.lru_cache(maxsize=256)
def _identity(n_dy, n_x, n_out, block_num, block_former, block_tail, ub_former, ub_outer, ub_tail, shape_len,
              split, fused, out_dims, out_strides, dy_strides, x_strides) -> int:
    if not (1 <= shape_len <= _MAX_RANK and 0 <= split < shape_len):
        return 0
    if min(len(out_dims), len(out_strides), len(dy_strides), len(x_strides)) < shape_len:
        return 0
    dims = out_dims[:shape_len]
    if min(dims) < 1:
        return 0
    size = 1
    for a in range(shape_len - 1, -1, -1):        # contiguous output strides
        if out_strides[a] != size:
            return 0
        size *= dims[a]
    strides = tuple(out_strides[:shape_len])
    if (n_out, n_dy, n_x) != (size, size, size) or tuple(dy_strides[:shape_len]) != strides \
            or tuple(x_strides[:shape_len]) != strides:
        return 0
    if min(ub_former, ub_tail) < 0 or ub_outer < 1 or ub_former * (ub_outer - 1) + ub_tail != dims[split]:
        return 0
    outer = 1
    for a in range(split):
        outer *= dims[a]
    if fused != outer * ub_outer:
        return 0
    if block_num < 1 or min(block_former, block_tail) < 0 or block_former * (block_num - 1) + block_tail != fused:
        return 0
    return max(ub_former, ub_tail, 1) * strides[split]
