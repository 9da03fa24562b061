"""The device-time model of row programs (swishgrad_numba.devicetime.rows, issue 42): each row opcode charged as
its documented cost-table instruction, copies as transfers; RmsNorm's launches and their refusals."""
import dataclasses

import numpy as np
import pytest

from swishgrad_numba.devicetime import default_params
from swishgrad_numba.devicetime.rows import estimate_rms_norm, estimate_rows
from swishgrad_numba.devicetime.stages import instruction_cycles
from swishgrad_numba.engine import opcodes as O
from swishgrad_numba.engine.rows import RowProgram
from swishgrad_numba.ops.rms_norm.validate import host_tiling
from swishgrad_numba.platform import ASCEND950_PLATFORM, Platform


def _row(name, dst=0, a=0, b=0, count=1, k0=0, k1=0, mode=0):
    return [O.ROW_OPCODES[name], dst, a, b, count, k0, k1, mode]


def test_vector_time_is_the_named_instructions():
    params = default_params(Platform())
    stream = np.array([_row("R_GM_IN", 0, 0, count=64), _row("R_MUL", 64, 0, 0, 64),
                       _row("R_REPEAT_SUM", 128, 64, count=64), _row("R_BLOCK_SUM", 136, 64, count=8),
                       _row("R_SET_IF_EQ", 128, 128, count=1), _row("R_GM_OUT", 0, 128, count=1, mode=1)])
    prog = RowProgram([np.zeros((0, 8), np.int64), stream], [0.0], 200)
    est = estimate_rows(prog, np.array([[1, 0, 0]]), np.array([0, 1]), (4, 4), params=params, label="t")
    cyc = lambda name, n: float(instruction_cycles(name, np.array([n]), 4, params)[0])   # noqa: E731
    want = cyc("Mul", 64) + cyc("Add", 64) + cyc("Add", 64) + cyc("CompareScalar", 1) + cyc("Select", 1)
    vec = est.busy_us[0, 2] * params.cycles_per_us
    assert vec == pytest.approx(want, rel=1e-12)
    assert est.tile_bytes.tolist() == [256]


@pytest.mark.parametrize("shape, platform", [((96, 300), Platform()), ((4, 20000), Platform()),
                                             ((96, 300), ASCEND950_PLATFORM), ((4, 20000), ASCEND950_PLATFORM)])
def test_rms_norm_launch(shape, platform):
    est = estimate_rms_norm(shape, shape[-1:], np.float16, platform=platform)
    t = host_tiling(shape, shape[-1:], np.float16, platform=platform)
    assert est.valid and est.n_cores == t.block_dim and est.duration_us > est.head_us
    assert int(np.diff(est.offsets).sum()) == shape[0] + t.block_dim   # a gamma load per core, a tile per row
    assert t.mode in est.label
    # more rows on the same cores: never less time
    longer = estimate_rms_norm((shape[0] * 4,) + shape[1:], shape[-1:], np.float16, platform=platform)
    assert longer.duration_us > est.duration_us


def test_rms_norm_invalid_tiling_refused_unless_allowed():
    t = host_tiling((100, 300), (300,), np.float32)
    bad = dataclasses.replace(t, avg_factor=np.float32(0.5))
    with pytest.raises(ValueError, match="1 / numCol"):
        estimate_rms_norm((100, 300), (300,), tiling=bad)
    est = estimate_rms_norm((100, 300), (300,), tiling=bad, allow_invalid=True)
    assert not est.valid and est.findings
    with pytest.raises(ValueError, match="buffer_num"):
        estimate_rms_norm((100, 300), (300,), buffer_num=3)
