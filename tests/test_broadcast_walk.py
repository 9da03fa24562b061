"""The broadcast walk (kernel/broadcast.py) on the engine, against a plain walk written here.

The engine's pass reads a UB loop's input where it lies when the region is contiguous and inside the
tensor, and writes its result straight into the output when the region lies inside it; every other
loop goes through the local buffers. These records (hand-made, some of them broken on purpose) put
loops on both sides of each of those lines, in one launch.
"""
from __future__ import annotations

import numpy as np
import pytest

from reference_silu_grad import ref_silu_grad
from swishgrad_numba import runtime
from swishgrad_numba.kernel import broadcast
from swishgrad_numba.platform import ARCH_950
from swishgrad_numba.program import compiled

SENTINEL = 0x7FC0DEAD   # a NaN no kernel writes: an element left untouched keeps it


def _walk_reference(dy, x, out, rec):
    """The launch's UB loops in plain Python: the axes of each loop, each input's values laid out as the
    output's region (0 where an index falls outside the input), SiluGrad of them, the part of the region
    inside ``out`` written."""
    dims, o_st, d_st, x_st = (rec[k] for k in ("dims", "out_strides", "dy_strides", "x_strides"))
    split, rank = rec["split"], len(dims)
    for blk in range(rec["block_num"]):
        loops = rec["block_tail"] if blk == rec["block_num"] - 1 else rec["block_former"]
        for loop in range(loops):
            g = blk * rec["block_former"] + loop          # the fused index of (axes before split, UB step)
            step = g % rec["ub_outer"]
            outer = g // rec["ub_outer"]
            axes = [0] * rank
            for a in range(split - 1, -1, -1):
                axes[a] = outer % dims[a]
                outer //= dims[a]
            size = rec["ub_tail"] if step == rec["ub_outer"] - 1 else rec["ub_former"]
            count = size * o_st[split]
            ks = np.arange(count)
            index = {}
            for name, st in (("out", o_st), ("dy", d_st), ("x", x_st)):
                j = sum(axes[a] * st[a] for a in range(split)) + step * rec["ub_former"] * st[split]
                j = j + np.zeros(count, dtype=np.int64)
                rem = ks.copy()
                for a in range(rank - 1, split, -1):
                    j += (rem % dims[a]) * st[a]
                    rem //= dims[a]
                index[name] = j + rem * st[split]
            vals = [np.where((index[n] >= 0) & (index[n] < a.size), a[np.clip(index[n], 0, a.size - 1)], 0)
                    .astype(a.dtype) for n, a in (("dy", dy), ("x", x))]
            got = ref_silu_grad(*vals)
            inside = (index["out"] >= 0) & (index["out"] < out.size)
            out[index["out"][inside]] = got[inside]


def _launch(dy, x, out, rec):
    params = compiled("silu_grad", ARCH_950, "float32").params()
    with runtime.launch_guard():
        broadcast.run_blocks(params, dy, x, out, rec["block_num"], rec["block_former"], rec["block_tail"],
                             rec["ub_former"], rec["ub_outer"], rec["ub_tail"], len(rec["dims"]), rec["split"],
                             rec["fused"], rec["elem_num"], np.array(rec["dims"]), np.array(rec["out_strides"]),
                             np.array(rec["dy_strides"]), np.array(rec["x_strides"]))


def _record(dims, split, ub_former, ub_tail, block_num, block_former, block_tail, dy_strides, x_strides,
            elem_num=None):
    o_st = [int(np.prod(dims[a + 1:])) for a in range(len(dims))]
    ub_outer = -(-dims[split] // ub_former)
    fused = int(np.prod(dims[:split])) * ub_outer
    return dict(dims=dims, split=split, ub_former=ub_former, ub_outer=ub_outer, ub_tail=ub_tail,
                block_num=block_num, block_former=block_former, block_tail=block_tail, fused=fused,
                elem_num=elem_num or max(ub_former, ub_tail) * o_st[split], out_strides=o_st,
                dy_strides=dy_strides, x_strides=x_strides)


CASES = {
    # equal shapes, contiguous: every input read and every result written where it lies
    "equal": (_record([1000], 0, 96, 40, 3, 4, 3, [1], [1]), 1000, 1000, 1000),
    # the last UB loop runs 96 long past both tensors' ends (a broken record): its inputs read as 0 past
    # the end and its result written only inside; dy shorter still (its last two loops copied, zero-filled)
    "past the end": (_record([1000], 0, 96, 96, 3, 4, 3, [1], [1]), 950, 1000, 1000),
    # dy broadcast along the inner axis (stride 0: copied, reused two loops on), x where it lies
    "inner broadcast": (_record([6, 40], 1, 8, 8, 4, 8, 6, [1, 0], [40, 1]), 6, 240, 240),
    # 3 axes split on the middle one: x gathered with a broadcast middle axis, dy where it lies
    "gathered rows": (_record([4, 5, 7], 1, 2, 1, 3, 4, 4, [35, 7, 1], [7, 0, 1]), 140, 28, 140),
}


@pytest.mark.parametrize("case", CASES)
def test_the_engine_walk_matches_a_plain_walk(case):
    rec, n_dy, n_x, n_out = CASES[case]
    rng = np.random.default_rng(len(case))
    dy = rng.uniform(-6, 6, n_dy).astype(np.float32)
    x = rng.uniform(-6, 6, n_x).astype(np.float32)
    out = np.full(n_out, SENTINEL, dtype=np.uint32).view(np.float32)
    want = out.copy()
    _walk_reference(dy, x, want, rec)
    _launch(dy, x, out, rec)
    np.testing.assert_array_equal(out.view(np.uint32), want.view(np.uint32), err_msg=case)


def test_the_engine_walk_refuses_tensors_of_other_widths():
    # the engine's pass is wide only (raw float32 or 16-bit elements): a 1- or 8-byte tensor is refused before
    # anything runs, the output left as it was
    rec = CASES["equal"][0]
    for odd in (np.int8, np.float64):
        dy = np.ones(1000, np.float32)
        x = np.ones(1000, odd)
        out = np.full(1000, SENTINEL, dtype=np.uint32).view(np.float32)
        with pytest.raises(ValueError, match="2 or 4 bytes an element"):
            _launch(dy, x, out, rec)
        assert (out.view(np.uint32) == SENTINEL).all()
