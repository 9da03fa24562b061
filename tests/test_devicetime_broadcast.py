"""The device-time model on the 950's broadcast walk (issue 38, 6d): each UB loop charged as the
element-wise walk's tile is (a CopyIn per input it loads, the Compute, one CopyOut), against figures
worked by hand from the records and the walk's skip rule written out plainly here."""
from __future__ import annotations

import numpy as np
import pytest

from swishgrad_numba import ASCEND950_PLATFORM, compute_tiling
from swishgrad_numba import devicetime as dt
from swishgrad_numba.devicetime.broadcast import broadcast_tiles
from swishgrad_numba.devicetime.queue import PIPES
from swishgrad_numba.dtypes import dtype_info
from swishgrad_numba.ops import leaky_relu_grad

BROADCAST_OPS = ("silu_grad", "gelu_grad", "leaky_relu_grad", "gelu_grad_v2")
MTE2 = PIPES.index("MTE2")


def _loops_by_hand(r, block_dim):
    """Per block, its UB loops ``(elements, CopyIns)`` as the kernel runs them (kernel/broadcast.py,
    written out: a counter over the fused index; an input of stride 0 on the split axis is copied in only
    on a block's first two loops and where the step along the split axis is 0 or 1)."""
    split, outer = int(r["ubSplitAxis"]), int(r["ubOuter"])
    blocks = []
    for blk in range(block_dim):
        loops = int(r["blockTail"] if blk == block_dim - 1 else r["blockFormer"])
        tiles = []
        for loop in range(loops):
            g = blk * int(r["blockFormer"]) + loop
            step = g % outer if split > 0 else g
            size = int(r["ubTail"] if step == outer - 1 else r["ubFormer"])
            loads = sum(1 for name in ("input0Strides", "input1Strides")
                        if int(r[name][split]) != 0 or loop <= 1 or g % outer <= 1)
            tiles.append((size * int(r["outputStrides"][split]), loads))
        blocks.append(tiles)
    return blocks


def test_a_flat_launch_moves_every_element_once_in_its_ub_loops():
    # the 950 GeluGrad, float16, 2^20 elements, same-shape inputs: 149 UB loops, 148 of ubFormer and the
    # last of ubTail; 2 CopyIns and one CopyOut each, whole 32-byte blocks: 4 MiB in, 2 MiB out
    numel = 1 << 20
    t = compute_tiling(numel, "float16", platform=ASCEND950_PLATFORM, op="gelu_grad")
    r = t.data
    assert (int(r["ubOuter"]), int(r["ubFormer"]), int(r["ubTail"])) == (149, 7040, 6656)
    assert 148 * 7040 + 6656 == numel
    est = dt.estimate(t, numel, "float16", op="gelu_grad", platform=ASCEND950_PLATFORM)
    assert est.valid and est.n_cores == t.block_dim and "broadcast walk" in est.label
    hand = _loops_by_hand(r, t.block_dim)
    assert [int(n) for n in np.diff(est.offsets)] == [len(b) for b in hand]
    assert est.tile_elements.tolist() == [size for b in hand for size, _ in b]
    assert sum(len(b) for b in hand) == 149 and int(est.tile_elements.sum()) == numel
    assert all(loads == 2 for b in hand for _, loads in b)
    assert 2 * int(est.tile_bytes.sum()) == 4 << 20 and int(est.tile_bytes.sum()) == 2 << 20
    classes, offsets, tiles, loads = broadcast_tiles(r, t.block_dim, 1 << 20)
    assert int(loads[offsets[classes[0]]:offsets[classes[0] + 1]].sum()) == 2 * len(hand[0])


def test_an_input_broadcast_along_the_split_axis_is_copied_in_less_often():
    # LeakyReluGrad, float16, dy (512, 4096) against x (1, 4096): one row per loop, 8 loops a block on 64
    # blocks; x (stride 0 on the split axis) is copied in on a block's first two loops only: 8 + 2
    # CopyIns a block, 640 in the launch, where the same record with x's strides dy's takes 16 a block
    from dataclasses import replace

    info = dtype_info("float16")
    bcast = leaky_relu_grad.host_tiling((512, 4096), (1, 4096), info, None, ASCEND950_PLATFORM)
    data = bcast.data.copy()
    data["input1Strides"] = data["input0Strides"]
    unbroadcast = replace(bcast, data=data)
    for t, per_block in ((bcast, 10), (unbroadcast, 16)):
        hand = _loops_by_hand(t.data, t.block_dim)
        assert t.block_dim == 64 and all(len(b) == 8 for b in hand)
        assert [sum(loads for _, loads in b) for b in hand] == [per_block] * 64
        classes, offsets, tiles, loads = broadcast_tiles(t.data, t.block_dim, 1 << 20)
        got = [loads[offsets[c]:offsets[c + 1]].tolist() for c in classes]
        assert got == [[loads for _, loads in b] for b in hand]
        assert [tiles[offsets[c]:offsets[c + 1]].tolist() for c in classes] == [[s for s, _ in b] for b in hand]
    n = 512 * 4096
    e_b, e_u = (dt.estimate(t, n, "float16", op="leaky_relu_grad", platform=ASCEND950_PLATFORM, allow_invalid=True)
                for t in (bcast, unbroadcast))
    assert e_b.valid
    assert (e_b.busy_us[:, MTE2] < e_u.busy_us[:, MTE2]).all()
    assert e_b.duration_us <= e_u.duration_us


@pytest.mark.parametrize("op", BROADCAST_OPS)
def test_a_broadcast_walk_launch_grows_with_its_size(op):
    sizes = (1 << 10, 1 << 14, 1 << 18, 1 << 22)
    ests = [dt.estimate(None, n, "float16", op=op, platform=ASCEND950_PLATFORM) for n in sizes]
    times = [e.duration_us for e in ests]
    assert all(a < b for a, b in zip(times, times[1:])), times
    for n, e in zip(sizes, ests):
        assert int(e.tile_elements.sum()) == n


def test_a_broken_broadcast_record_is_refused_or_marked_invalid():
    from dataclasses import replace

    numel = 1 << 20
    t = compute_tiling(numel, "float32", platform=ASCEND950_PLATFORM, op="silu_grad")
    with pytest.raises(ValueError, match="buffer_num must be >= 1"):
        dt.estimate(t, numel, "float32", op="silu_grad", platform=ASCEND950_PLATFORM, buffer_num=0)
    with pytest.raises(ValueError, match="distinct blocks run more than 3 UB loops"):
        broadcast_tiles(t.data, t.block_dim, 3)      # 2 loops a block; the last block differs
    data = t.data.copy()
    data["blockFormer"] = 1 << 40
    with pytest.raises(ValueError, match="a block runs more than"):
        broadcast_tiles(data, t.block_dim, 1 << 20)
    data = t.data.copy()
    data["blockFormer"] += 1                   # loops past the tensor: the validator's finding
    broken = replace(t, data=data)
    with pytest.raises(ValueError, match="validator rejects it"):
        dt.estimate(broken, numel, "float32", op="silu_grad", platform=ASCEND950_PLATFORM)
    est = dt.estimate(broken, numel, "float32", op="silu_grad", platform=ASCEND950_PLATFORM, allow_invalid=True)
    assert not est.valid and est.findings
