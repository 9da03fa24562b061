"""Max and min reductions on the row machine (issue 39): WholeReduceMax/Min, BlockReduceMax/Min and
ReduceMax/Min, value only, against a plain reference written here: NaN propagates (the first NaN in lane order,
its payload kept), otherwise the first lane holding the extreme (so of +0 and -0 the earlier lane's)."""
import math

import numpy as np
import pytest

from swishgrad_numba.engine import opcodes as O
from swishgrad_numba.engine.rows import RowProgram

_SPECIALS = np.array([0x7FC00000, 0x7FC00001, 0xFFC00123, 0x7F800000, 0xFF800000, 0x00000000, 0x80000000,
                      0x00000001, 0x80000001, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000],
                     dtype=np.uint32).view(np.float32)


def ref_extreme(values, which):
    """The reference: a plain scan, written from the rule in the docstring."""
    for v in values:
        if math.isnan(v):
            return v
    best = max(values) if which == 0 else min(values)
    for v in values:
        if v == best:
            return v


def _row(name, dst=0, a=0, b=0, count=1, mode=0):
    return [O.ROW_OPCODES[name], dst, a, b, count, 0, 0, mode]


def _run(stream, n_in, n_out, data, arena=256):
    prog = RowProgram([np.zeros((0, 8), np.int64), np.array(stream, dtype=np.int64)], [0.0], arena)
    gm = np.concatenate([data.astype(np.float32), np.zeros(n_out, np.float32)])
    prog.run(gm, [[0, n_in], [n_in, n_out]], [[1, 0, n_in]], [0, 1])
    return gm[n_in:]


def _sample(rng, n):
    pick = rng.random(n) < 0.3
    vals = rng.standard_normal(n).astype(np.float32)
    vals[pick] = rng.choice(_SPECIALS, pick.sum())
    return vals


@pytest.mark.parametrize("which", [0, 1])
def test_whole_reduce_one_repeat(which):
    rng = np.random.default_rng(7 + which)
    for _ in range(60):
        count = int(rng.integers(1, 65))
        data = _sample(rng, count)
        if rng.random() < 0.5:            # no NaN: the zero-sign and inf rules alone
            data = data[~np.isnan(data)] if (~np.isnan(data)).any() else np.zeros(1, np.float32)
        count = data.size
        got = _run([_row("R_GM_IN", 0, 0, count=count), _row("R_REPEAT_EXTREME", 100, 0, count=count, mode=which),
                    _row("R_GM_OUT", 0, 100, count=1, mode=1)], count, 1, data)
        want = np.float32(ref_extreme(list(data), which))
        assert got.view(np.uint32)[0] == want.view(np.uint32), (data, which)


@pytest.mark.parametrize("which", [0, 1])
def test_block_reduce_per_block(which):
    rng = np.random.default_rng(11 + which)
    blocks = 6
    data = _sample(rng, 8 * blocks)
    data[8:16] = np.float32([0.0, -0.0, -0.0, 0.0, -1.0, -2.0, -0.0, -3.0])   # a block whose extreme is a zero
    got = _run([_row("R_GM_IN", 0, 0, count=8 * blocks), _row("R_BLOCK_EXTREME", 100, 0, count=blocks, mode=which),
                _row("R_GM_OUT", 0, 100, count=blocks, mode=1)], 8 * blocks, blocks, data)
    want = np.array([ref_extreme(list(data[8 * i:8 * i + 8]), which) for i in range(blocks)], np.float32)
    assert got.view(np.uint32).tolist() == want.view(np.uint32).tolist()


@pytest.mark.parametrize("which, count", [(0, 200), (1, 200), (0, 64), (1, 129)])
def test_reduce_over_repeats(which, count):
    rng = np.random.default_rng(count + which)
    for trial in range(8):
        data = _sample(rng, count) if trial % 2 else rng.choice(_SPECIALS[3:], count)
        got = _run([_row("R_GM_IN", 0, 0, count=count), _row("R_REDUCE_EXTREME", 250, 0, count=count, mode=which),
                    _row("R_GM_OUT", 0, 250, count=1, mode=1)], count, 1, data, arena=256)
        want = np.float32(ref_extreme(list(data), which))
        assert got.view(np.uint32)[0] == want.view(np.uint32)


def test_signed_zero_ties_take_the_earlier_lane():
    for first, second in ((0.0, -0.0), (-0.0, 0.0)):
        data = np.float32([first, second, -5.0])
        for which in (0,):
            got = _run([_row("R_GM_IN", 0, 0, count=3), _row("R_REPEAT_EXTREME", 100, 0, count=3, mode=which),
                        _row("R_GM_OUT", 0, 100, count=1, mode=1)], 3, 1, data)
            assert math.copysign(1.0, got[0]) == math.copysign(1.0, first)


@pytest.mark.parametrize("row, words", [
    (_row("R_REPEAT_EXTREME", 100, 0, count=65), "count 65"),
    (_row("R_REPEAT_EXTREME", 100, 0, count=8, mode=2), "mode 2"),
    (_row("R_BLOCK_EXTREME", 0, 0, count=40), "leave the arena"),
    (_row("R_REDUCE_EXTREME", 0, 250, count=10), "leave the arena"),
])
def test_malformed_stream_refused(row, words):
    with pytest.raises(ValueError, match=words):
        _run([row], 8, 1, np.zeros(8, np.float32))
