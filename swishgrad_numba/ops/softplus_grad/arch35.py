"""The Ascend 950 SoftplusV2Grad host tiling (``activation/softplus_v2_grad/op_host/arch35``).

docs/activation_tiling.md, "SoftplusV2Grad": its own broadcast tiling into ``SoftplusV2GradTilingData<RANK>``
(split axis, multicore split, ``per_buf_bytes``, shapes and strides of 4 or 8 axes, beta, threshold), for
inputs and output of one shape (the op_api checks equal shapes). Plain Python; the operator is
:mod:`swishgrad_numba.ops.softplus_grad` (``ops.softplus_grad_arch35`` before issue 40).
"""
from __future__ import annotations

import numpy as np

from ...platform import ARCH_950, Platform
from ...spec import a2 as spec_a2
from ...spec.arith import ceil_div
from ..registry import OpTiling

__all__ = ["PHYS_NODES", "arch35_record_dtype", "ARCH35_RECORD_DTYPE", "arch35_split", "tiling_key",
           "arch35_host_tiling", "arch35_walk_fields"]

NAME = "softplus_grad"


#: Physical buffers of the UB (``kPhysNodes``, ``softplus_v2_grad_tiling_struct.h:22``), 32-byte aligned.
PHYS_NODES = 4
_SPLIT = ("axis", "a_i", "a_o", "a_i_tail")
_MULTI = ("num_cores", "total_tiles", "tiles_main", "cores_tail")


def arch35_record_dtype(rank: int) -> np.dtype:
    """``SoftplusV2GradTilingData<RANK>`` (``softplus_v2_grad_tiling_struct.h:50-63``), RANK 4 or 8."""
    return np.dtype([("split", [(n, "<i8") for n in _SPLIT]), ("multicore", [(n, "<i8") for n in _MULTI]),
                     ("rank", "<i8"), ("per_buf_bytes", "<i8"), ("max_bro_shape", "<i8", (rank,)),
                     ("num_inputs", "<i8"), ("num_outputs", "<i8"), ("input_shapes", "<i8", (2, rank)),
                     ("input_strides", "<i8", (2, rank)), ("output_shapes", "<i8", (1, rank)),
                     ("output_strides", "<i8", (1, rank)), ("beta", "<f4"), ("threshold", "<f4")])


#: The RANK_4 struct: every flat (one-axis) launch of the registry's path uses it.
ARCH35_RECORD_DTYPE = arch35_record_dtype(4)


def arch35_split(shape, ub_size: int, core_num: int):
    """``(split, multicore, per_buf_bytes)`` for equal input and output shapes: all-one axes dropped
    (``ComputeBroadcastDims``), ``FindSplitAxis`` on float32 elements of ``(U / 4) & ~31`` bytes (:140-160),
    ``MultiCoreSplit`` (:179-196). ValueError where a buffer holds no float32 (the host fails)."""
    dims = [int(d) for d in shape if int(d) != 1] or [1]
    per_buf = (ub_size // PHYS_NODES) & ~31
    elems = per_buf // 4
    if elems <= 0:
        raise ValueError(f"platform.ub_size ({ub_size} bytes) is too small: the 950 SoftplusV2Grad host needs "
                         f"{PHYS_NODES} buffers of at least 32 bytes")
    inner, split = 1, None
    for k in range(len(dims) - 1, -1, -1):
        if dims[k] * inner > elems:
            # inner <= elems here, so a_i >= 1 (the host's a_i <= 0 guard cannot fire)
            a_i = elems // inner
            split = (k, a_i, ceil_div(dims[k], a_i), dims[k] % a_i or a_i)
            break
        if k == 0:
            split = (0, dims[0], 1, dims[0])
        inner *= dims[k]
    total = int(np.prod(dims[:split[0]], dtype=np.int64)) * split[2]
    cores = min(total, core_num)
    return dims, split, (cores, total, total // cores, total % cores), per_buf


def tiling_key(rank: int) -> int:
    """``GET_TPL_TILING_KEY(RANK)`` with RANK 4 (rank <= 4) or 8: taken as the position in the
    ``ASCENDC_TPL_UI_LIST`` (``softplus_v2_grad_struct.h:22-26``; the encoding is not traced)."""
    return 0 if rank <= 4 else 1


def arch35_host_tiling(shape, beta32, threshold32, platform: Platform) -> OpTiling:
    """The 950 host tiling of ``dy``, ``x`` and ``dz`` of one ``shape`` (>= 1 element)."""
    dims, split, multi, per_buf = arch35_split(shape, platform.ub_size, platform.core_num)
    rank = len(dims)
    big = 4 if rank <= 4 else 8
    pad = [1] * (big - rank) + dims
    strides = [int(np.prod(dims[d + 1:], dtype=np.int64)) if dims[d] != 1 else 0 for d in range(rank)]
    strides = [0] * (big - rank) + strides
    record = np.zeros((), dtype=arch35_record_dtype(big))
    record["split"] = (split[0] + big - rank,) + split[1:]
    record["multicore"] = multi
    record["rank"], record["per_buf_bytes"], record["max_bro_shape"] = rank, per_buf, pad
    record["num_inputs"], record["num_outputs"] = 2, 1
    record["input_shapes"], record["input_strides"] = [pad, pad], [strides, strides]
    record["output_shapes"], record["output_strides"] = [pad], [strides]
    record["beta"], record["threshold"] = np.float32(beta32), np.float32(threshold32)
    return OpTiling(NAME, ARCH_950, record[()], int(multi[0]), tiling_key(rank), 0)


def arch35_walk_fields(tiling: OpTiling) -> spec_a2.TilingFields:
    """The multicore split of a flat launch in the walk's A2 core-class form: the first ``cores_tail``
    cores take ``tiles_main + 1`` tiles of ``a_i`` elements, the others ``tiles_main`` (the last tile
    ``a_i_tail``: the walk stops at the tensor's end). One axis only (ValueError otherwise)."""
    d = tiling.data
    if int(d["rank"]) != 1:
        raise ValueError("the 950 SoftplusV2Grad walk is emulated for one-axis (flat) launches only")
    a_i = int(d["split"]["a_i"])
    main, extra = int(d["multicore"]["tiles_main"]), int(d["multicore"]["cores_tail"])
    # main >= 1: the host launches no more cores than tiles; the last tile (a_i_tail) ends at the tensor's end
    return spec_a2.TilingFields(main * a_i, (main + 1) * a_i, main + 1, main, a_i, a_i, a_i, extra)
