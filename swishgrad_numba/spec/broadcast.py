"""opbase atvoss ``BroadcastTiling``'s template facts (``broadcast_tiling_base.h/.cpp``), for every
operator on the 950's BroadcastSch: its constants and ``DimensionCollapse``. An operator's own op keys,
compute parameters and struct stay in its module (SiluGrad's: :mod:`swishgrad_numba.ops.silu_grad.arch35`).
"""
from __future__ import annotations

__all__ = ["OP_KEY_OFFSET", "COMPUTE_KEY", "COMPUTE_KEY_OFFSET", "MAX_NDDMA_DIM", "SCHEDULE_KEYS", "REPEAT_BYTES",
           "dimension_collapse"]

OP_KEY_OFFSET = 10 ** 14            # BROADCAST_OP_KEY_OFFSET
COMPUTE_KEY = 1                     # BROADCAST_COMPUTE_KEY
COMPUTE_KEY_OFFSET = 10 ** 6        # BROADCAST_COMPUTE_KEY_OFFSET
MAX_NDDMA_DIM = 5
SCHEDULE_KEYS = (100, 1100)         # SCHEDULE_KEY_1 (<= 5 axes in UB), SCHEDULE_KEY_2
REPEAT_BYTES = 256                  # BROADCAST_REPEAT_BYTES


def dimension_collapse(in_shapes, out_shape):
    """opbase ``DimensionCollapse``: the inputs' and output's dims after merging axes, and their strides.

    Returns ``(dims, strides)``: one list per input, then the output's. An
    input's stride is 0 on an axis it broadcasts. Raises ValueError where an
    input's axis is neither 1 nor the output's, or not positive.
    """
    out = [int(d) for d in out_shape]
    rank = len(out)
    shapes = []
    for i, shape in enumerate(in_shapes):
        if len(shape) > rank:
            raise ValueError(f"input {i} has more dimensions ({len(shape)}) than the output ({rank})")
        shapes.append([1] * (rank - len(shape)) + [int(d) for d in shape])
    # flags[axis]: bit (inputs - 1 - i) set where input i is 1 on that axis.
    flags = []
    for axis in range(rank):
        flag = 0
        for i, shape in enumerate(shapes):
            flag <<= 1
            if shape[axis] != 1 and shape[axis] != out[axis]:
                raise ValueError(f"input {i}'s axis {axis} ({shape[axis]}) is neither 1 nor the output's "
                                 f"({out[axis]})")
            if shape[axis] <= 0:
                raise ValueError(f"input {i}'s axis {axis} must be positive, got {shape[axis]}")
            flag += shape[axis] == 1
        flags.append(flag)
    target = (1 << len(shapes)) - 1

    def collapse(values):
        merged = [values[0]]
        prev = flags[0]
        for j in range(1, rank):
            if prev == flags[j] or (prev == target and out[j - 1] == 1):
                merged[-1] *= values[j]
                prev = flags[j]
                continue
            if flags[j] == target and out[j] == 1:
                continue
            prev = flags[j]
            merged.append(values[j])
        return merged

    dims = [collapse(shape) for shape in shapes] + [collapse(out)]
    strides = []
    for i, d in enumerate(dims):
        base, rev = 1, []
        for j in range(len(d) - 1, -1, -1):
            if d[j] == 1 and i != len(dims) - 1 and dims[-1][j] != 1:
                rev.append(0)
            else:
                rev.append(base)
                base *= d[j]
        strides.append(rev[::-1])
    return dims, strides
