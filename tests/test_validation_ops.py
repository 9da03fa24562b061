"""validate_tiling and run_tiling on the registered operators' records (swishgrad_numba.tiling.operators).

Host records must validate; records broken by hand must be caught with the
right finding code; run_tiling on a host record must give the bits of the
operator's public function (itself tested against the plain references).
"""
from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import pytest

import swishgrad_numba as sg
from reference import assert_bits_equal

A2 = sg.REFERENCE_PLATFORM
P950 = sg.ASCEND950_PLATFORM
PLATFORMS = {"a2": A2, "arch35": P950}
OPS = ["swish", "silu", "silu_grad"]
DTYPES = [np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)]


def _tiling(op, numel, dtype, platform, beta=None):
    return sg.compute_tiling(numel, dtype, beta, platform, op=op)


def _broken(tiling, **fields):
    """A copy of an OpTiling with some struct fields (or blockDim, tilingKey) changed."""
    data = np.zeros((), dtype=tiling.data.dtype)    # np.array(void) would share the host record's memory
    data[()] = tiling.data
    block_dim = fields.pop("block_dim", tiling.block_dim)
    key = fields.pop("tiling_key", tiling.tiling_key)
    for name, value in fields.items():
        data[name] = value
    return dataclasses.replace(tiling, data=data[()], block_dim=block_dim, tiling_key=key)


@pytest.mark.parametrize("arch", ["a2", "arch35"])
@pytest.mark.parametrize("op", OPS)
def test_host_tilings_validate(op, arch):
    platform = PLATFORMS[arch]
    for dtype in DTYPES:
        for numel in (1, 31, 4096, 100_003, 1 << 22, 123_456_789):
            report = sg.validate_tiling(_tiling(op, numel, dtype, platform), numel, dtype, platform)
            assert report.ok, report.format()
            assert report.codes() <= {"OVERRUN_PADDING"}, report.format()
            assert report.architecture == arch


@pytest.mark.parametrize("beta", [0.0, -1.0, 2.5, 1e-30, float("inf")])
def test_950_swish_dags_validate(beta):
    # Each DAG has its own BufferNum: the UB plan the validator uses must be the DAG's.
    for dtype in DTYPES:
        for numel in (7, 1 << 20):
            t = _tiling("swish", numel, dtype, P950, beta)
            report = sg.validate_tiling(t, numel, dtype, P950)
            assert report.ok and not report.findings, report.format()
            assert report.balance is not None


def test_reports_carry_the_operators_fields():
    t = _tiling("silu_grad", 100, "float32", A2)
    report = sg.validate_tiling(t, 100, "float32")
    assert set(report.fields) == {"smallCoreDataNum", "bigCoreDataNum", "tileDataNum", "tailBlockNum"}
    t = _tiling("swish", 100, "float32", P950, 2.0)
    assert set(sg.validate_tiling(t, 100, "float32").fields) == {"dim0", "coreNum", "ubFormer", "scale"}


# ---------------------------------------------------------------- broken by hand: A2


def test_a2_swish_broken():
    n, dt = 100_000, "float32"
    t = _tiling("swish", n, dt, A2, 1.5)
    f = t.fields
    # a gap: the big cores own one tile less than they walk
    gap = _broken(t, tailBlockNum=0)
    assert "COVERAGE_GAP" in sg.validate_tiling(gap, n, dt).codes("error")
    # an overlap: the big cores' last tile is longer than their stride leaves
    over = _broken(t, bigTailDataNum=f["bigTailDataNum"] + 8)
    assert {"COVERAGE_OVERLAP", "TILE_COUNT_MISMATCH"} <= sg.validate_tiling(over, n, dt).codes("error")
    # the UB: Swish's A2 plan is two queues of two float32 buffers: 16 bytes per element
    ub_elems = A2.ub_size // 16
    big_tile = _broken(t, tileDataNum=ub_elems + 8)
    codes = sg.validate_tiling(big_tile, n, dt).codes("error")
    assert "UB_OVERFLOW" in codes
    fits = _broken(t, tileDataNum=ub_elems)
    assert "UB_OVERFLOW" not in sg.validate_tiling(fits, n, dt).codes()
    # the tiling key says another beta class
    assert "TILING_KEY_MISMATCH" in sg.validate_tiling(_broken(t, tiling_key=4), n, dt).codes("error")
    assert "BLOCK_DIM_RANGE" in sg.validate_tiling(_broken(t, block_dim=A2.core_num + 1), n, dt).codes("error")


def test_a2_silu_grad_broken():
    n, dt = 100_000, "float16"
    t = _tiling("silu_grad", n, dt, A2)
    f = t.fields
    assert t.block_dim > 1 and f["tailBlockNum"] > 0
    small = _broken(t, smallCoreDataNum=f["smallCoreDataNum"] - 16)
    assert "COVERAGE_GAP" in sg.validate_tiling(small, n, dt).codes("error")
    # each core walks exactly the count it is given, back to back: a larger
    # count runs past the tensor (SiluGrad's A2 walk cannot overlap itself)
    big = sg.validate_tiling(_broken(t, bigCoreDataNum=f["bigCoreDataNum"] + 16), n, dt)
    assert "OVERRUN_BEYOND_PADDING" in big.codes("error") and "COVERAGE_GAP" not in big.codes()
    zero = sg.validate_tiling(_broken(t, tileDataNum=0), n, dt)
    assert "FIELD_RANGE" in zero.codes("error") and zero.balance is None
    # schMode picks the UB plan: 16-bit double buffering is 32 bytes per element (3 x 2 x 2 + 5 x 4)
    double = _broken(t, tiling_key=1, tileDataNum=A2.ub_size // 32 + 16)
    assert "UB_OVERFLOW" in sg.validate_tiling(double, n, dt).codes("error")
    assert "UB_OVERFLOW" not in sg.validate_tiling(_broken(t, tiling_key=1, tileDataNum=A2.ub_size // 32), n,
                                                   dt).codes()
    assert "TILING_KEY_MISMATCH" in sg.validate_tiling(_broken(t, tiling_key=2), n, dt).codes("error")


def test_a2_silu_grad_checked_run_agrees():
    n, dt = 10_000, "float32"
    t = _tiling("silu_grad", n, dt, A2)
    assert sg.validate_tiling(t, n, dt, checked=True).ok
    gap = sg.validate_tiling(_broken(t, smallCoreDataNum=t["smallCoreDataNum"] - 8), n, dt, checked=True)
    assert "COVERAGE_GAP" in gap.codes() and "CHECKED_RUN_DISAGREES" not in gap.codes()


# ---------------------------------------------------------------- broken by hand: 950


def test_950_swish_broken():
    n, dt = 1 << 20, "float16"
    t = _tiling("swish", n, dt, P950, 2.0)
    # dim0 shorter than the tensor: the blocks stop short
    short = sg.validate_tiling(_broken(t, dim0=n - 1000), n, dt)
    assert "COVERAGE_GAP" in short.codes("error") and "DIM0_MISMATCH" in short.codes()
    assert "OVERRUN_BEYOND_PADDING" in sg.validate_tiling(_broken(t, dim0=n + 1000), n, dt).codes("error")
    assert "FIELD_RANGE" in sg.validate_tiling(_broken(t, ubFormer=0), n, dt).codes("error")
    assert "FIELD_RANGE" in sg.validate_tiling(_broken(t, coreNum=-1), n, dt).codes("error")
    # blocks launched past the kernel's blockNum walk former blocks' loops past the end
    extra = sg.validate_tiling(_broken(t, block_dim=t.block_dim + 1), n, dt)
    assert "BLOCK_NUM_MISMATCH" in extra.codes("error")
    # SwishOther on 16-bit: 4 slots of 2 bytes; SwishZero widens: 6 slots of 4 bytes
    ub_former = P950.ub_size // 8 // 256 * 256
    assert "UB_OVERFLOW" not in sg.validate_tiling(_broken(t, ubFormer=ub_former), n, dt).codes()
    zero = _tiling("swish", n, dt, P950, 0.0)
    assert "UB_OVERFLOW" in sg.validate_tiling(_broken(zero, ubFormer=ub_former), n, dt).codes("error")
    assert "TILING_KEY_MISMATCH" in sg.validate_tiling(_broken(t, tiling_key=zero.tiling_key), n, dt).codes()


def test_950_silu_grad_broken():
    n, dt = 1 << 20, "float32"
    t = _tiling("silu_grad", n, dt, P950)
    assert sg.validate_tiling(t, n, dt).ok
    gap = sg.validate_tiling(_broken(t, blockTail=t["blockTail"] - 1), n, dt)
    assert "COVERAGE_GAP" in gap.codes("error")
    assert "OVERRUN_BEYOND_PADDING" in sg.validate_tiling(_broken(t, block_dim=t.block_dim + 1), n, dt).codes()
    assert "TILE_COUNT_MISMATCH" in sg.validate_tiling(_broken(t, ubTail=t["ubTail"] - 1), n, dt).codes()
    assert "FIELD_RANGE" in sg.validate_tiling(_broken(t, ubFormer=0), n, dt).codes("error")
    assert "FIELD_RANGE" in sg.validate_tiling(_broken(t, shapeLen=9), n, dt).codes("error")
    over = _broken(t, elemNum=P950.ub_size, ubFormer=P950.ub_size)
    assert "UB_OVERFLOW" in sg.validate_tiling(over, n, dt).codes("error")
    assert "COVERAGE_GAP" in sg.validate_tiling(t, n + 64, dt).codes("error")
    assert "TILING_KEY_MISMATCH" in sg.validate_tiling(_broken(t, tiling_key=t.tiling_key + 10 ** 14), n,
                                                       dt).codes()


def test_argument_errors():
    t = _tiling("swish", 100, "float32", A2)
    with pytest.raises(ValueError, match="platform"):
        sg.validate_tiling(t, 100, "float32", P950)
    with pytest.raises(ValueError, match="buffers"):
        sg.validate_tiling(t, 100, "float32", buffers=[(2, 4)])
    with pytest.raises(ValueError, match="numel"):
        sg.validate_tiling(t, 0, "float32")


# ---------------------------------------------------------------- run_tiling


@pytest.mark.parametrize("arch", ["a2", "arch35"])
@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.float16)])
def test_run_tiling_matches_the_public_functions(arch, dtype):
    platform = PLATFORMS[arch]
    rng = np.random.default_rng(3)
    n = 70_001
    x = (rng.standard_normal(n) * 6).astype(dtype)
    g = rng.standard_normal(n).astype(dtype)
    for beta in (1.7, 0.0, -1.0):
        out = np.empty_like(x)
        sg.run_tiling(None, x, out, _tiling("swish", n, dtype, platform, beta))
        assert_bits_equal(out, sg.swish(x, beta, platform=platform))
    out = np.empty_like(x)
    sg.run_tiling(None, x, out, _tiling("silu", n, dtype, platform))
    assert_bits_equal(out, sg.silu(x, platform=platform))
    out = np.empty_like(x)
    sg.run_tiling(g, x, out, _tiling("silu_grad", n, dtype, platform))
    assert_bits_equal(out, sg.silu_backward(g, x, platform=platform))


def test_run_tiling_runs_the_family_in_the_saturation_mode():
    # Issue 27.4: an operator's record was refused in the saturation mode ("SwishGrad's records only").
    sat = sg.Platform(overflow_mode="saturation")
    n = 5000
    x = np.linspace(-120, 6, n).astype(np.float32)
    g = np.linspace(1, 2, n).astype(np.float32)
    for op, beta, grad, expected in (("swish", 1.7, None, sg.swish(x, 1.7, platform=sat)),
                                     ("silu", None, None, sg.silu(x, platform=sat)),
                                     ("silu_grad", None, g, sg.silu_backward(g, x, platform=sat))):
        out = np.empty_like(x)
        sg.run_tiling(grad, x, out, _tiling(op, n, np.dtype(np.float32), PLATFORMS["a2"], beta),
                      overflow_mode="saturation")
        assert_bits_equal(out, expected)
        assert out[0] != 0                      # the Inf/NaN mode gives (-)0 there
    with pytest.raises(ValueError, match="not supported by the Ascend 950"):
        sg.run_tiling(None, x, np.empty_like(x), _tiling("silu", n, np.dtype(np.float32), PLATFORMS["arch35"]),
                      overflow_mode="saturation")


def test_run_tiling_refuses_broken_records_and_bad_arrays():
    n = 4096
    x = np.linspace(-3, 3, n, dtype=np.float32)
    out = np.full(n, 7.0, dtype=np.float32)
    t = _tiling("swish", n, "float32", P950, 1.0)
    with pytest.raises(ValueError, match="COVERAGE_GAP"):
        sg.run_tiling(None, x, out, _broken(t, dim0=n - 512))
    with pytest.raises(ValueError, match="FIELD_RANGE"):
        sg.run_tiling(None, x, out, _broken(_tiling("silu_grad", n, "float32", A2), tileDataNum=0))
    assert (out == 7.0).all()
    with pytest.raises(ValueError, match="grad must be None"):
        sg.run_tiling(x, x, out, t)
    with pytest.raises(ValueError, match="grad must be an array"):
        sg.run_tiling(None, x, out, _tiling("silu_grad", n, "float32", A2))
    with pytest.raises(ValueError, match="x must have out's size"):
        sg.run_tiling(None, x[:-1], out, t)
    with pytest.raises(ValueError, match="1-D C-contiguous"):
        sg.run_tiling(None, x.astype(np.float16), out, t)


def test_a2_transfer_alignment_is_swishs_rule_only():
    # Swish's A2 kernel moves tiles with DataCopy (whole blocks); SiluGrad's with
    # DataCopyPad of exact bytes: an odd tile is an error for the first only.
    n, dt = 100_000, "float32"
    swish_t = _tiling("swish", n, dt, A2)
    odd = _broken(swish_t, tileDataNum=1001, finalBigTileNum=3, finalSmallTileNum=3,
                  bigTailDataNum=swish_t["bigCoreDataNum"] - 2002, smallTailDataNum=swish_t["smallCoreDataNum"] - 2002)
    assert "TRANSFER_NOT_BLOCK_ALIGNED" in sg.validate_tiling(odd, n, dt).codes("error")
    silu_t = _tiling("silu_grad", n, dt, A2)
    report = sg.validate_tiling(_broken(silu_t, tileDataNum=1001), n, dt)
    assert report.ok, report.format()


def test_tiling_balance_of_op_records():
    t = _tiling("swish", 100_003, "float16", P950)
    assert sg.tiling_balance(t, 100_003, "float16").block_dim == t.block_dim
    with pytest.raises(ValueError, match="silu_grad kernel's walk is not analysed per core"):
        sg.tiling_balance(_tiling("silu_grad", 100_003, "float16", P950), 100_003, "float16")
    with pytest.raises(ValueError, match="tileDataNum=0"):
        sg.tiling_balance(_broken(_tiling("silu_grad", 1000, "float16", A2), tileDataNum=0), 1000, "float16")
