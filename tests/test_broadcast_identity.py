"""The 950 broadcast walk's equal-shape launches on the flat launch (kernel/broadcast_identity.py,
engine/equal_shapes.py), against tests/reference_silu_grad.py's plain SiluGrad.

Seams, not timings: the walk's launch (``kernel.broadcast.launch_blocks``) and the flat shortcut
(``engine.equal_shapes.run_flat``) are wrapped to record their calls, so each case says which one ran.
"""
from __future__ import annotations

import numpy as np
import pytest

from reference import assert_bits_equal, random_inputs
from reference_silu_grad import ref_silu_grad
import swishgrad_numba as sg
from swishgrad_numba.engine import equal_shapes
from swishgrad_numba.engine import opcodes as O
from swishgrad_numba.kernel import broadcast
from swishgrad_numba.kernel.broadcast_identity import identity_pass_len
from swishgrad_numba.ops.silu_grad.host import host_tiling
from swishgrad_numba.ops.silu_grad.launch import run_arch35
from swishgrad_numba.platform import ASCEND950_PLATFORM


@pytest.fixture
def seen(monkeypatch):
    """Which of the two launches ran: ``walk`` per broadcast launch, ``flat`` per shortcut that ran."""
    calls = []
    walk, flat = broadcast.launch_blocks, equal_shapes.run_flat

    def spy_walk(*args):
        calls.append("walk")
        return walk(*args)

    def spy_flat(*args):
        ran = flat(*args)
        if ran:
            calls.append("flat")
        return ran

    monkeypatch.setattr(broadcast, "launch_blocks", spy_walk)
    monkeypatch.setattr(equal_shapes, "run_flat", spy_flat)
    return calls


CASES = {
    # equal shapes, contiguous: the identity walk, on the flat launch
    "equal float32": ((3, 1500), (3, 1500), "float32", "float32", ["flat"]),
    "equal float16": ((2, 2, 700), (2, 2, 700), "float16", "float16", ["flat"]),
    # x broadcast along the rows, dy along a middle axis: the walk
    "rows float32": ((5, 900), (900,), "float32", "float32", ["walk"]),
    "middle bfloat16": ((4, 1, 300), (4, 6, 300), "bfloat16", "bfloat16", ["walk"]),
}


@pytest.mark.parametrize("case", CASES)
def test_the_950_kernel_takes_the_flat_launch_only_on_equal_shapes(case, seen):
    dy_shape, x_shape, dy_dtype, x_dtype, want = CASES[case]
    rng = np.random.default_rng(len(case))
    g = random_inputs(rng, int(np.prod(dy_shape)), dy_dtype)[0].reshape(dy_shape)
    x = random_inputs(rng, int(np.prod(x_shape)), x_dtype)[1].reshape(x_shape)
    got = sg.silu_backward(g, x, platform=ASCEND950_PLATFORM)
    assert seen == want, case
    assert_bits_equal(got, ref_silu_grad(g, x), case)


def test_equal_shapes_of_two_widths_keep_the_walk(seen):
    """The kernel's own mixed launch (float16 dy, float32 x): the flat launch takes one itemsize."""
    g, _ = random_inputs(np.random.default_rng(5), 1200, "float16")
    _, x = random_inputs(np.random.default_rng(6), 1200, "float32")
    out = np.empty(1200, np.float32)
    run_arch35(g, x, out, host_tiling((1200,), (1200,), "float16", "float32", ASCEND950_PLATFORM))
    assert seen == ["walk"]
    assert_bits_equal(out, ref_silu_grad(g, x))


def _args(dims, split, ub_former, ub_tail, block_num, block_former, block_tail, dy_strides=None, x_strides=None):
    """launch_blocks' arguments of a record over ``dims`` (contiguous output strides)."""
    strides = [int(np.prod(dims[a + 1:])) for a in range(len(dims))]
    ub_outer = -(-dims[split] // max(ub_former, 1))
    fused = int(np.prod(dims[:split])) * ub_outer
    return [block_num, block_former, block_tail, ub_former, ub_outer, ub_tail, len(dims), split, fused, 4096,
            np.array(dims), np.array(strides), np.array(dy_strides or strides), np.array(x_strides or strides)]


def test_identity_walks_are_told_from_the_rest():
    n = 6 * 40
    ok = _args([6, 40], 1, 16, 8, 3, 7, 4)                    # 6 rows of 3 UB steps: 18 loops in 7 + 7 + 4
    assert identity_pass_len(n, n, n, *ok) == 16
    assert identity_pass_len(n, n, n, *_args([240], 0, 96, 48, 2, 2, 1)) == 96
    # not the identity: a broadcast input (stride 0), another size, loops past the blocks or short of them,
    # UB steps that do not cover the split axis, strides that are not contiguous, a split past the rank
    assert identity_pass_len(6, n, n, *_args([6, 40], 1, 16, 8, 3, 7, 4, dy_strides=[1, 0])) == 0
    assert identity_pass_len(n - 1, n, n, *ok) == 0
    assert identity_pass_len(n, n, n, *_args([6, 40], 1, 16, 8, 3, 7, 5)) == 0
    assert identity_pass_len(n, n, n, *_args([6, 40], 1, 16, 8, 3, 7, 3)) == 0
    assert identity_pass_len(n, n, n, *_args([6, 40], 1, 16, 16, 3, 7, 4)) == 0
    skewed = _args([6, 40], 1, 16, 8, 3, 7, 4)
    skewed[11] = skewed[12] = skewed[13] = np.array([41, 1])
    assert identity_pass_len(n, n, n, *skewed) == 0
    beyond = _args([6, 40], 1, 16, 8, 3, 7, 4)
    beyond[7] = 2
    assert identity_pass_len(n, n, n, *beyond) == 0


def test_only_element_wise_streams_qualify():
    code = np.zeros((2, O.FIELDS), dtype=np.int64)
    code[:, O.OP] = (O.OPCODES["EXP"], O.OPCODES["MUL"])
    assert equal_shapes.elementwise(code)
    code[1, O.OP] = O.ROW_OPCODES["R_REDUCE_SUM"]
    assert not equal_shapes.elementwise(code)


def test_a_record_launch_keeps_the_identity_check_and_makes_the_walks_arguments_only_for_the_walk(monkeypatch):
    """ops.silu_grad.record_walk.run_record: the pass length it keeps per record and sizes is identity_pass_len of
    the record's walk arguments, and the arguments reach the walk only where it runs (equal shapes: the flat
    launch; x broadcast: the walk), the bits the reference's either way."""
    from swishgrad_numba.ops.silu_grad import record_walk

    made = []
    walk_args = record_walk.walk_args
    monkeypatch.setattr(record_walk, "walk_args", lambda record: made.append(1) or walk_args(record))
    monkeypatch.setattr(record_walk, "_IDENTITY", {})
    for shapes, flat in ((((4, 500), (4, 500)), True), (((4, 500), (500,)), False)):
        tiling = host_tiling(*shapes, "float32", "float32", ASCEND950_PLATFORM)
        rng = np.random.default_rng(7)
        g = random_inputs(rng, 2000, "float32")[0].reshape(shapes[0])
        x = random_inputs(rng, int(np.prod(shapes[1])), "float32")[1].reshape(shapes[1])
        for turn in range(2):
            made.clear()
            out = np.empty((4, 500), np.float32)
            run_arch35(g, x, out, tiling)
            assert_bits_equal(out, ref_silu_grad(g, x))
            # the check's arguments at the first launch of the record, the walk's at each launch that walks
            assert len(made) == (turn == 0) + (not flat), (shapes, turn)
        (key, kept), = [(k, v) for k, v in record_walk._IDENTITY.items() if k[0] == tiling.record.tobytes()]
        assert kept == identity_pass_len(g.size, x.size, out.size, tiling.block_dim, *walk_args(tiling.record))
        assert (kept > 0) == flat
