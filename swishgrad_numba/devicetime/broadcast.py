"""The device-time model of a launch on the broadcast walk (atvoss ``BroadcastTiling``, arch35: the 950
SiluGrad, GeluGrad, LeakyReluGrad, GeluGradV2): :func:`broadcast_tiles` and :func:`estimate_broadcast`.

What the walk does per UB loop (:mod:`swishgrad_numba.kernel.broadcast`) is what the element-wise
walk's tile does, and it is charged the same way (:func:`.estimate.simulate`): a CopyIn per input of
the loop's ``count`` elements (``ubFormer``, ``ubTail`` on the split axis's last step, times the
output's stride on that axis), the Compute over ``count`` elements, one CopyOut of ``count``. An input
broadcast along the split axis (stride 0 there) is copied in only where its buffer from two loops back
does not hold the same data, as the kernel skips it; such a loop charges fewer CopyIns. Blocks run in
parallel, their loops through the ping-pong queues (two buffers).
"""
from __future__ import annotations

import numpy as np

__all__ = ["broadcast_tiles", "estimate_broadcast"]

_INPUT_STRIDES = ("input0Strides", "input1Strides")


def broadcast_tiles(record, block_dim: int, max_tiles: int) -> tuple:
    """``(classes, offsets, tile_elements, loads)`` of a broadcast record's UB loops: per block its
    distinct block's index; the distinct blocks' loops cut by ``offsets``, each loop's elements and the
    CopyIns it issues (inputs not skipped). A ValueError where the blocks' distinct loops exceed
    ``max_tiles`` or a field is out of range."""
    names = record.dtype.names
    f = {n: int(record[n]) for n in ("blockFormer", "blockTail", "ubFormer", "ubOuter", "ubTail", "ubSplitAxis")}
    split, ub_outer = f["ubSplitAxis"], f["ubOuter"]
    if block_dim < 1 or min(f.values()) < 0 or ub_outer < 1 or split >= len(record["outputStrides"]):
        raise ValueError(f"tiling: its broadcast fields give no walk the model can follow: {f}, "
                         f"block_dim {block_dim}")
    stride = int(record["outputStrides"][split])
    split_strides = [int(record[n][split]) for n in _INPUT_STRIDES if n in names]
    loops_of = [f["blockTail"] if blk == block_dim - 1 else f["blockFormer"] for blk in range(block_dim)]
    if max(loops_of) > max_tiles:
        raise ValueError(f"tiling: a block runs more than {max_tiles} UB loops; not modelled")
    seen, classes, parts, total = {}, [], [], 0
    for blk, loops in enumerate(loops_of):
        fused = blk * f["blockFormer"] + np.arange(loops, dtype=np.int64)    # the loops' fused indices
        step = fused % ub_outer if split > 0 else fused    # axes[split]: it wraps only below an outer axis
        count = np.where(step == ub_outer - 1, f["ubTail"], f["ubFormer"]).astype(np.int64) * stride
        reload = (np.arange(loops) <= 1) | (fused % ub_outer <= 1)
        loads = sum((np.ones(loops, np.int64) if s != 0 else reload.astype(np.int64) for s in split_strides),
                    np.zeros(loops, np.int64))
        key = count.tobytes() + b"/" + loads.tobytes()
        if key not in seen:
            total += loops
            if total > max_tiles:
                raise ValueError(f"tiling: its distinct blocks run more than {max_tiles} UB loops; not modelled")
            seen[key] = len(parts)
            parts.append((count, loads))
        classes.append(seen[key])
    offsets = np.concatenate([[0], np.cumsum([p[0].shape[0] for p in parts])]).astype(np.int64)
    tiles = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)
    loads = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, np.int64)
    return np.asarray(classes, np.int64), offsets, tiles, loads


def estimate_broadcast(operator, tiling, numel: int, info, platform, params, *, allow_invalid: bool,
                       buffer_num, label, block_dim):
    """:func:`.estimate.estimate` of an operator's record on the broadcast walk (``Kernel.walk ==
    "broadcast"``): the validator's verdict first, then the UB loops simulated."""
    from ..tiling.validate import validate_tiling
    from .checks import check_params, positive_int
    from .estimate import MAX_TILES, instructions_of, simulate

    block_dim = int(tiling.block_dim if block_dim is None else block_dim)
    report = validate_tiling(tiling, numel, info.numpy, platform, block_dim)
    findings = tuple(str(f) for f in report.errors)
    if not report.ok and not allow_invalid:
        raise ValueError("tiling: the validator rejects it (pass allow_invalid=True to estimate it anyway): "
                         + "; ".join(findings))
    classes, offsets, tiles, loads = broadcast_tiles(tiling.data, block_dim, MAX_TILES)
    kernel = operator.kernels[tiling.architecture]
    if buffer_num is None:       # the walk's ping and pong buffers
        buffer_num = kernel.queue_buffers(tiling) if kernel.queue_buffers is not None else 2
    buffer_num = positive_int(buffer_num, "buffer_num")
    params = check_params(params, platform)
    instructions = instructions_of(operator, tiling.architecture, tiling, info, platform)
    name = label or (f"{operator.name} {info.name} numel={numel} on {platform.soc_version} ({block_dim} cores, "
                     f"broadcast walk)")
    return simulate(offsets, np.maximum(tiles, 0), info.itemsize, 4, loads, 1, instructions, buffer_num, params,
                    name, valid=report.ok, findings=findings, classes=classes, blocks=block_dim)
