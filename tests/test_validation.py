"""validate_tiling against a plain reference, mutation tests, balance figures, the sweep."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from swishgrad_numba import Platform, TILING_DTYPE, compute_tiling
import swishgrad_numba
from swishgrad_numba.spec import a2 as spec_a2
from swishgrad_numba.tiling import (
    CODES, buffer_plan_bytes, checked_run, parse_buffer_plan, run_sweep, swishgrad_buffer_plan, sweep_grid,
    tiling_balance, validate_tiling, vectorized_verdict,
)

NAMES = ("smallCoreDataNum", "bigCoreDataNum", "finalBigTileNum", "finalSmallTileNum",
         "tileDataNum", "smallTailDataNum", "bigTailDataNum", "tailBlockNum")
DTYPES = ("float32", "float16", "bfloat16")


# ----------------------------------------------------------------------------
# plain reference, straight from model sections 3 and 4 and the rules

def core_params(f, i):
    """(start, count, tiles, tail) of core i, model section 4 verbatim."""
    if i < f["tailBlockNum"]:
        return f["bigCoreDataNum"] * i, f["bigCoreDataNum"], f["finalBigTileNum"], f["bigTailDataNum"]
    start = f["bigCoreDataNum"] * i - (f["bigCoreDataNum"] - f["smallCoreDataNum"]) * (i - f["tailBlockNum"])
    return start, f["smallCoreDataNum"], f["finalSmallTileNum"], f["smallTailDataNum"]


def round_up_32(nbytes):
    return (nbytes + 31) // 32 * 32


def reference_ub_bytes(T, itemsize, buffers=None):
    """model section 3: grad, x and output queues of 2 buffers of the dtype, and 1 (float32)
    or 3 (16-bit) float32 TBufs, every buffer rounded up to 32 bytes by InitBuffer."""
    if buffers is None:
        buffers = [(2, itemsize)] * 3 + [(1 if itemsize == 4 else 3, 4)]
    return sum(count * round_up_32(T * nbytes) for count, nbytes in buffers)


def coverage_codes(counts):
    """COVERAGE_GAP and COVERAGE_OVERLAP from per-element write counts."""
    return ({"COVERAGE_GAP"} if 0 in counts else set()) | ({"COVERAGE_OVERLAP"} if any(c > 1 for c in counts)
                                                           else set())


def reference_codes(f, sconf, block_dim, numel, dtype, platform, buffers=None):
    b = np.dtype(dtype).itemsize
    B, T = platform.block_size, f["tileDataNum"]
    padded = -(-numel * b // B) * B // b
    codes = set()
    if not 1 <= block_dim <= platform.core_num:
        codes.add("BLOCK_DIM_RANGE")
    if reference_ub_bytes(T, b, buffers) > platform.ub_size:
        codes.add("UB_OVERFLOW")
    counts = [0] * numel
    for i in range(block_dim):
        start, count, tiles, tail = core_params(f, i)
        if tiles == 0:
            codes.add("TILE_COUNT_MISMATCH" if count else "IDLE_CORE")
        else:
            if not 0 < tail <= T:
                codes.add("TAIL_RANGE")
            if (tiles - 1) * T + tail != count:
                codes.add("TILE_COUNT_MISMATCH")
            if (tiles >= 2 and T * b % B) or tail * b % B:
                codes.add("TRANSFER_NOT_BLOCK_ALIGNED")
        touched_padding = touched_beyond = False
        for t in range(tiles):
            length = T if t < tiles - 1 else tail
            for e in range(start + t * T, start + t * T + length):
                if e < numel:
                    counts[e] += 1
                elif e < padded:
                    touched_padding = True
                else:
                    touched_beyond = True
        if touched_beyond:
            codes.add("OVERRUN_BEYOND_PADDING")
        elif touched_padding:
            codes.add("OVERRUN_PADDING")
    codes |= coverage_codes(counts)
    if not math.isfinite(sconf):
        codes.add("SCONF_NONFINITE")
    return codes


def is_error(codes):
    return any(CODES[c][0] == "error" for c in codes)


def fields_of(tiling, names=NAMES):
    return {k: int(tiling.data[k]) for k in names}


def make_record(f, sconf=1.0, dtype=TILING_DTYPE, beta_field="sconf"):
    rec = np.zeros((), dtype=dtype)
    for k, v in f.items():
        rec[k] = v
    rec[beta_field] = sconf
    return rec[()]


def mutations(f, block_dim, itemsize, platform):
    """(label, fields, block_dim, sconf) corruptions of a correct tiling."""
    per_block = platform.block_size // itemsize
    T = f["tileDataNum"]
    out = []
    for name in NAMES:
        for label, delta in (("+1 element", 1), ("-1 element", -1), ("+1 block", per_block),
                             ("-1 block", -per_block), ("+1 tile", T), ("-1 tile", -T)):
            g = dict(f)
            g[name] = max(0, g[name] + delta)
            if g != f:
                out.append((f"{name} {label}", g, block_dim, 1.0))
        g = dict(f)
        g[name] = 0
        out.append((f"{name} = 0", g, block_dim, 1.0))
    for a, b in (("smallCoreDataNum", "bigCoreDataNum"), ("finalSmallTileNum", "finalBigTileNum"),
                 ("smallTailDataNum", "bigTailDataNum")):
        g = dict(f)
        g[a], g[b] = g[b], g[a]
        out.append((f"swap {a}/{b}", g, block_dim, 1.0))
    g = dict(f)
    g["tileDataNum"] = 2 * T
    out.append(("tile doubled", g, block_dim, 1.0))
    g = dict(f)
    g["tileDataNum"] = platform.ub_size // itemsize
    out.append(("tile = whole UB", g, block_dim, 1.0))
    for bd in (block_dim + 1, block_dim - 1, platform.core_num + 1, 2 * platform.core_num, 0):
        out.append((f"block_dim {bd}", dict(f), bd, 1.0))
    out.append(("sconf nan", dict(f), block_dim, float("nan")))
    out.append(("sconf inf", dict(f), block_dim, float("inf")))
    return out


SMALL_PLATFORMS = (
    Platform(ub_size=1024, core_num=5, block_size=32),
    Platform(ub_size=2048, core_num=3, block_size=16),
    Platform(ub_size=800, core_num=8, block_size=8),
)
SMALL_CASES = [(p, dt, n) for p in SMALL_PLATFORMS for dt in DTYPES for n in (1, 5, 16, 97, 256, 700)]


def _ids(case):
    p, dt, n = case
    return f"ub{p.ub_size}-c{p.core_num}-B{p.block_size}-{dt}-{n}"


@pytest.mark.parametrize("case", SMALL_CASES, ids=[_ids(c) for c in SMALL_CASES])
def test_mutations_match_reference_and_checked_run(case):
    platform, dtype, numel = case
    tiling = compute_tiling(numel, dtype, platform=platform)
    base = fields_of(tiling)
    itemsize = np.dtype(dtype).itemsize
    host_codes = reference_codes(base, 1.0, tiling.block_dim, numel, dtype, platform)
    # the host sizes its tile in whole blocks; only a block that is not a multiple of InitBuffer's
    # 32 bytes can make the padded buffers overflow the UB (here 800 bytes with 8-byte blocks)
    assert not is_error(host_codes - {"UB_OVERFLOW"})
    assert ("UB_OVERFLOW" in host_codes) == (platform.block_size == 8 and dtype == "float32")
    for label, f, bd, sconf in [("host", base, tiling.block_dim, 1.0)] + mutations(
            base, tiling.block_dim, itemsize, platform):
        if bd < 0:
            continue
        expected = reference_codes(f, sconf, bd, numel, dtype, platform)
        report = validate_tiling(make_record(f, sconf), numel, dtype, platform, bd, checked=True)
        assert report.codes() == expected, label
        assert report.ok == (not is_error(expected)), label
        for finding in report.findings:
            assert finding.severity == CODES[finding.code][0]
            assert finding.message
        if report.ok:
            run = checked_run(make_record(f, sconf), numel, dtype, platform, bd)
            assert run.exact_coverage, label


def test_harmless_mutations_are_recognised():
    # One core, no big core: the big fields are never read, so changing them
    # is harmless; changing the small ones is not.
    tiling = compute_tiling(6, np.float32)
    assert tiling.block_dim == 1 and int(tiling.data["tailBlockNum"]) == 0
    base = fields_of(tiling)
    for name in ("bigCoreDataNum", "finalBigTileNum", "bigTailDataNum"):
        f = dict(base, **{name: base[name] + 8})
        rep = validate_tiling(make_record(f), 6, np.float32, None, 1, checked=True)
        assert rep.ok and rep.codes() == {"OVERRUN_PADDING"}
    for name in ("smallCoreDataNum", "finalSmallTileNum", "smallTailDataNum"):
        f = dict(base, **{name: base[name] + 8})
        assert not validate_tiling(make_record(f), 6, np.float32, None, 1).ok


@pytest.mark.parametrize("numel,dtype", [(1048577, "float16"), (3 * 7016 * 48 + 5, "float32"),
                                         (12345, "bfloat16")])
def test_large_mutations_agree_with_checked_run(numel, dtype):
    platform = Platform()
    tiling = compute_tiling(numel, dtype, platform=platform)
    base = fields_of(tiling)
    itemsize = np.dtype(dtype).itemsize
    for label, f, bd, sconf in mutations(base, tiling.block_dim, itemsize, platform):
        report = validate_tiling(make_record(f, sconf), numel, dtype, platform, bd, checked=True)
        # the instrumented run inside validate_tiling confirms the analysis
        assert "CHECKED_RUN_DISAGREES" not in report.codes(), label
        if report.ok:
            assert checked_run(make_record(f, sconf), numel, dtype, platform, bd).exact_coverage, label
        elif report.codes("error") <= {"BLOCK_DIM_RANGE", "UB_OVERFLOW", "TAIL_RANGE", "TILE_COUNT_MISMATCH",
                                        "TRANSFER_NOT_BLOCK_ALIGNED"}:
            # invalid by a constraint only: the coverage itself is exact
            assert checked_run(make_record(f, sconf), numel, dtype, platform, bd).exact_coverage, label


def test_findings_locate_the_problem():
    # model section 3 table: 1048576 float32 -> 32 big cores of 21848, 16 small of 21840.
    tiling = compute_tiling(1048576, np.float32)
    f = fields_of(tiling)
    f["tailBlockNum"] = 31  # one big core fewer: the last 8 elements are lost
    rep = validate_tiling(make_record(f), 1048576, np.float32, None, 48)
    assert rep.codes() == {"COVERAGE_GAP"}
    (gap,) = rep.findings
    assert (gap.core, gap.tile) == (47, 3)
    assert "[1048568, 1048576)" in gap.message and "8 elements" in gap.message
    f["tailBlockNum"] = 33  # one more: the last core runs 8 elements past the end
    rep = validate_tiling(make_record(f), 1048576, np.float32, None, 48)
    assert rep.codes() == {"OVERRUN_BEYOND_PADDING"}
    assert rep.errors[0].core == 47
    f = fields_of(tiling)
    f["smallCoreDataNum"] += 8  # small cores start 8 later each: overlap? no, gaps
    rep = validate_tiling(make_record(f), 1048576, np.float32, None, 48)
    assert "TILE_COUNT_MISMATCH" in rep.codes() and "COVERAGE_GAP" in rep.codes()


def test_absurd_records_are_reported_not_raised():
    big = (1 << 64) - 1
    f = {k: big for k in NAMES}
    rep = validate_tiling(make_record(f), 1000, np.float16, None, big, checked=True)
    assert not rep.ok
    assert {"BLOCK_DIM_RANGE", "UB_OVERFLOW", "OVERRUN_BEYOND_PADDING"} <= rep.codes()
    assert "CHECKED_RUN_DISAGREES" not in rep.codes()
    f = dict(smallCoreDataNum=0, bigCoreDataNum=0, finalBigTileNum=0, finalSmallTileNum=1 << 60,
             tileDataNum=0, smallTailDataNum=8, bigTailDataNum=0, tailBlockNum=0)
    rep = validate_tiling(make_record(f), 16, np.float32, None, 1 << 40, checked=True)
    assert {"COVERAGE_OVERLAP", "COVERAGE_GAP", "TAIL_RANGE"} <= rep.codes()
    assert "CHECKED_RUN_DISAGREES" not in rep.codes()


def test_arguments_checked():
    tiling = compute_tiling(100, np.float32)
    with pytest.raises(ValueError, match="numel"):
        validate_tiling(tiling, 0, np.float32)
    with pytest.raises(TypeError, match="numel"):
        validate_tiling(tiling, 1.5, np.float32)
    with pytest.raises(ValueError, match="dtype"):
        validate_tiling(tiling, 100, np.float64)
    with pytest.raises(TypeError, match="platform"):
        validate_tiling(tiling, 100, np.float32, platform=48)
    with pytest.raises(TypeError, match="block_dim is required"):
        validate_tiling(tiling.tobytes(), 100, np.float32)
    with pytest.raises(ValueError, match="72 bytes"):
        validate_tiling(tiling.tobytes()[:70], 100, np.float32, block_dim=1)
    assert validate_tiling(tiling.tobytes(), 100, np.float32, block_dim=1).ok


# ----------------------------------------------------------------------------
# the unified buffer: InitBuffer's 32-byte padding and other operators' plans

def test_ub_overflow_counts_initbuffer_padding():
    # Issue 12: 6 float32 elements with tileDataNum = 7017. Unpadded 7 * 7017 * 4 = 196476 bytes fit,
    # but each buffer of 28068 bytes takes 28096: 7 * 28096 = 196672 > 196608.
    f = fields_of(compute_tiling(6, np.float32))
    assert f["tileDataNum"] == 7016
    f["tileDataNum"] = 7017
    rep = validate_tiling(make_record(f), 6, np.float32, None, 1)
    assert rep.codes() == {"UB_OVERFLOW", "OVERRUN_PADDING"}
    (ub,) = [x for x in rep.findings if x.code == "UB_OVERFLOW"]
    assert "196672" in ub.message and "196608" in ub.message and "2x4,2x4,2x4,1x4" in ub.message
    assert rep.balance.ub_bytes_per_tile == 196672 == reference_ub_bytes(7017, 4)
    assert rep.buffers == ((2, 4), (2, 4), (2, 4), (1, 4))
    # exactly at the limit is fine, one byte less is not
    assert validate_tiling(make_record(f), 6, np.float32, Platform(ub_size=196672), 1).ok
    rep = validate_tiling(make_record(f), 6, np.float32, Platform(ub_size=196671), 1)
    assert "UB_OVERFLOW" in rep.codes()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16_bit_host_tile_fills_the_ub_exactly(dtype):
    # 6 buffers of 8192 * 2 bytes and 3 float32 buffers of 8192 * 4: 196608 bytes, the whole UB
    tiling = compute_tiling(1048576, dtype)
    rep = validate_tiling(tiling, 1048576, dtype)
    assert rep.ok and rep.balance.ub_bytes_per_tile == 196608 and rep.balance.ub_fraction == 1.0
    f = fields_of(tiling)
    f["tileDataNum"] += 1  # 16386 -> 16416 bytes, 32772 -> 32800: 196896
    rep = validate_tiling(make_record(f), 1048576, dtype, None, 48)
    assert "UB_OVERFLOW" in rep.codes() and "196896" in str(rep.findings[0])


@pytest.mark.parametrize("T", [1, 7, 8, 9, 15, 16, 17, 7016, 7017, 7020, 8191, 8192, 8193, 9999])
@pytest.mark.parametrize("dtype", DTYPES)
def test_plan_bytes_match_reference(T, dtype):
    itemsize = np.dtype(dtype).itemsize
    assert buffer_plan_bytes(swishgrad_buffer_plan(dtype), T) == reference_ub_bytes(T, itemsize)
    plan = [(3, 1), (1, 24)]
    assert buffer_plan_bytes(plan, T) == reference_ub_bytes(T, itemsize, plan)


def test_buffer_plan_argument_checked():
    tiling = compute_tiling(100, np.float32)
    assert validate_tiling(tiling, 100, np.float32, buffers=[[2, 4], (5, 4)]).ok
    for bad, exc in (("2x4", TypeError), (3, TypeError), ([(2, 4, 1)], TypeError), ([(2.0, 4)], TypeError),
                     ([(True, 4)], TypeError), ([(0, 4)], ValueError), ([(2, -4)], ValueError), ([], ValueError)):
        with pytest.raises(exc, match="buffers"):
            validate_tiling(tiling, 100, np.float32, buffers=bad)
    with pytest.raises(TypeError, match="buffers"):
        tiling_balance(tiling, 100, np.float32, buffers="2x4")


def test_parse_buffer_plan():
    assert parse_buffer_plan("2x4,2x4,2x4,1x4") == swishgrad_buffer_plan("float32")
    assert parse_buffer_plan(" 2X2, 2x2 ,2x2,3x4") == swishgrad_buffer_plan("bfloat16")
    for bad in ("", "2x", "x4", "2*4", "2x4,", "0x4", "2x0", "-1x4", "2x4x1", "1.5x4", "2x\u00b2", "+2x4"):
        with pytest.raises(ValueError, match="buffer plan"):
            parse_buffer_plan(bad)
    with pytest.raises(TypeError, match="tile_data_num"):
        buffer_plan_bytes([(1, 4)], 7.0)
    with pytest.raises(ValueError, match="tile_data_num"):
        buffer_plan_bytes([(1, 4)], -1)


# ops-nn's experimental silu_grad (op_host/silu_grad_tiling.cpp, op_kernel/silu_grad.h), read from its
# source and restated: the big/small-core split of model section 3 on min(cores, ceil(n/1024), blocks) cores;
# a single-buffered tile (5 float32 / 13 half-size buffers) when a small core holds at most two of them,
# else a double-buffered one (8 / 16). The kernel derives the tile counts and tails from coreDataNum.
def silu_grad_tiling(n, itemsize, ub=196608, cores=48, block=32):
    blocks = -(-n * itemsize // block)
    single_tile = (ub // block) // (5 if itemsize == 4 else 13) * block // itemsize
    double_tile = (ub // block) // (8 if itemsize == 4 else 16) * block // itemsize
    core_num = max(min(cores, -(-n // 1024), blocks), 1)
    every, tail_blocks = divmod(blocks, core_num)
    small, big = every * block // itemsize, (every + 1) * block // itemsize
    double = small > 2 * single_tile
    T = double_tile if double else single_tile
    f = dict(smallCoreDataNum=small, bigCoreDataNum=big, tileDataNum=T, tailBlockNum=tail_blocks)
    for cls, count in (("small", small), ("big", big)):
        tiles = -(-count // T)
        f["final" + cls.title() + "TileNum"] = tiles
        f[cls + "TailDataNum"] = count - (tiles - 1) * T
    queues = 2 if double else 1
    # three queues (dy, x, dx) of the dtype; float32 TBufs: two temporaries, plus three casts for 16-bit
    plan = [(queues, itemsize)] * 3 + [(2 if itemsize == 4 else 5, 4)]
    return f, core_num, plan


@pytest.mark.parametrize("n,dtype,double", [(1048576, "float16", True), (1048576, "float32", True),
                                            (5000, "float32", False), (3000, "bfloat16", False),
                                            (2_000_003, "bfloat16", True)])
def test_another_operators_plan_silu_grad(n, dtype, double):
    itemsize = np.dtype(dtype).itemsize
    f, core_num, plan = silu_grad_tiling(n, itemsize)
    assert (plan[0][0] == 2) == double
    rep = validate_tiling(make_record(f), n, dtype, None, core_num, buffers=plan, checked=True)
    assert not is_error(rep.codes()), rep.format()
    assert rep.buffers == tuple(plan)
    assert rep.balance.ub_bytes_per_tile == reference_ub_bytes(f["tileDataNum"], itemsize, plan) <= 196608
    # one block more per tile no longer fits its plan
    g = dict(f, tileDataNum=f["tileDataNum"] + 32 // itemsize)
    rep = validate_tiling(make_record(g), n, dtype, None, core_num, buffers=plan)
    assert "UB_OVERFLOW" in rep.codes()
    # under SwishGrad's plan the verdicts follow SwishGrad's buffers instead
    for h in (f, g):
        swish = validate_tiling(make_record(h), n, dtype, None, core_num).codes()
        assert ("UB_OVERFLOW" in swish) == (reference_ub_bytes(h["tileDataNum"], itemsize) > 196608)


def test_swishgrad_host_tile_does_not_fit_silu_grads_plan():
    for dtype in DTYPES:
        itemsize = np.dtype(dtype).itemsize
        plan = silu_grad_tiling(1 << 20, itemsize)[2]
        rep = validate_tiling(compute_tiling(1 << 20, dtype), 1 << 20, dtype, buffers=plan)
        assert rep.codes("error") == {"UB_OVERFLOW"}


# ----------------------------------------------------------------------------
# work: the analysis is O(cores log cores) however the cores fall

def _strided(k, length):
    """2**k one-tile cores at stride 2, each `length` elements (1: a gap after each core; 3: overlaps)."""
    f = dict(smallCoreDataNum=2, bigCoreDataNum=2, finalBigTileNum=1, finalSmallTileNum=1, tileDataNum=8,
             smallTailDataNum=length, bigTailDataNum=length, tailBlockNum=0)
    return make_record(f), 1 << k, Platform(core_num=1 << 21)


def test_many_gaps_and_overlaps_are_counted():
    k = 12
    rec, bd, platform = _strided(k, 1)
    rep = validate_tiling(rec, 2 * bd, np.float32, platform, bd)
    gaps = [f for f in rep.findings if f.code == "COVERAGE_GAP"]
    assert len(gaps) == 9 and gaps[-1].message == f"... and {bd - 8} more gaps."
    assert "[1, 2)" in gaps[0].message and "core 0 ends at 1, core 1 starts at 2" in gaps[0].message
    assert (gaps[7].core, gaps[7].tile) == (8, 0)
    rep = validate_tiling(rec, 2 * bd, np.float32, platform, bd, checked=True)
    assert "CHECKED_RUN_DISAGREES" not in rep.codes()
    rec, bd, platform = _strided(k, 3)
    rep = validate_tiling(rec, 2 * bd + 1, np.float32, platform, bd, checked=True)
    overlaps = [f for f in rep.findings if f.code == "COVERAGE_OVERLAP"]
    assert len(overlaps) == 9 and overlaps[-1].message == f"... and {bd - 1 - 8} more overlapping regions."
    assert "[2, 3)" in overlaps[0].message and "cores 0, 1" in overlaps[0].message
    assert (overlaps[0].core, overlaps[0].tile) == (1, 0)
    assert "CHECKED_RUN_DISAGREES" not in rep.codes()
    # 4096 cores at stride 1, 16 elements each, over 4090 elements (padded to 4096): the last 21 overrun
    f = dict(smallCoreDataNum=1, bigCoreDataNum=1, finalBigTileNum=1, finalSmallTileNum=1, tileDataNum=16,
             smallTailDataNum=16, bigTailDataNum=16, tailBlockNum=0)
    rep = validate_tiling(make_record(f), 4090, np.float32, platform, bd)
    pad = [f for f in rep.findings if f.code == "OVERRUN_PADDING"]
    beyond = [f for f in rep.findings if f.code == "OVERRUN_BEYOND_PADDING"]
    assert [x.core for x in pad] == list(range(4075, 4081))
    assert [x.core for x in beyond[:8]] == list(range(4081, 4089))
    assert len(beyond) == 9 and beyond[-1].message == "... and 7 more cores overrunning beyond the padding."
    expected = sum(max(0, min(i + 16, 4096) - max(i, 4090)) for i in range(bd))
    assert rep.balance.padding_overrun_elements == expected


def test_analysis_of_adversarial_records_at_the_core_cap_completes():
    """2**20 cores (the per-class cap of the analysis) with a gap, or an overlap, after each. The old
    analysis rescanned every core for every region: about 2**41 steps, many minutes; now well
    under a second. Run in a child process so that a regression fails the test instead of hanging it."""
    code = """
import numpy as np
from swishgrad_numba import Platform, TILING_DTYPE
from swishgrad_numba.tiling import validate_tiling
k = 20
for length, numel in ((1, 2 << k), (3, (2 << k) + 1)):
    rec = np.zeros((), dtype=TILING_DTYPE)
    for name, value in dict(smallCoreDataNum=2, finalSmallTileNum=1, tileDataNum=8, smallTailDataNum=length).items():
        rec[name] = value
    rep = validate_tiling(rec[()], numel, "float32", Platform(core_num=1 << 21), 1 << k)
    print(sorted(rep.codes("error")), rep.findings[-1].message)
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(swishgrad_numba.__file__)), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240, env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("['COVERAGE_GAP', 'TILE_COUNT_MISMATCH', 'TRANSFER_NOT_BLOCK_ALIGNED']")
    assert lines[1].startswith("['COVERAGE_OVERLAP', 'TILE_COUNT_MISMATCH', 'TRANSFER_NOT_BLOCK_ALIGNED']")


# ----------------------------------------------------------------------------
# balance figures

def test_balance_matches_spec_table():
    bal = tiling_balance(compute_tiling(1048576, np.float32), 1048576, np.float32)
    assert (bal.big_cores, bal.small_cores) == (32, 16)
    assert bal.max_elements == 21848
    assert bal.mean_elements == pytest.approx(1048576 / 48)
    assert bal.imbalance == pytest.approx(21848 / (1048576 / 48))
    assert (bal.min_tiles, bal.max_tiles) == (4, 4)
    assert bal.idle_cores == 0 and bal.padding_overrun_elements == 0
    assert bal.ub_bytes_per_tile == 7 * 7016 * 4
    bal = tiling_balance(compute_tiling(6, np.float32), 6, np.float32)
    assert bal.unused_cores == 47 and bal.padding_overrun_elements == 2 and bal.padding_overrun_bytes == 8
    bal = tiling_balance(compute_tiling(256, np.float16), 256, np.float16)
    assert bal.ub_bytes_per_tile == 12 * 8192 * 2


@pytest.mark.parametrize("case", SMALL_CASES[::4], ids=[_ids(c) for c in SMALL_CASES[::4]])
def test_balance_per_core_matches_reference(case):
    platform, dtype, numel = case
    tiling = compute_tiling(numel, dtype, platform=platform)
    f = fields_of(tiling)
    g = dict(f, tailBlockNum=f["tailBlockNum"] + 1)  # a wrong one too
    for fields, bd in ((f, tiling.block_dim), (g, tiling.block_dim), (f, tiling.block_dim + 1)):
        elements, tiles = [], []
        for i in range(bd):
            start, count, n_tiles, tail = core_params(fields, i)
            length = 0 if n_tiles == 0 else (n_tiles - 1) * fields["tileDataNum"] + tail
            elements.append(max(0, min(start + length, numel) - min(start, numel)))
            tiles.append(n_tiles)
        bal = tiling_balance(make_record(fields), numel, dtype, platform, bd)
        np.testing.assert_array_equal(bal.elements_per_core, elements)
        np.testing.assert_array_equal(bal.tiles_per_core, tiles)
        assert bal.max_elements == max(elements)
        assert bal.idle_launched_cores == sum(e == 0 for e in elements)


# ----------------------------------------------------------------------------
# vectorised host tiling and checks, and the sweep

def test_vectorized_verdict_matches_validate_tiling():
    count = 0
    for platform, dtype, numel in SMALL_CASES[::2] + [(Platform(), "float32", 1048576),
                                                      (Platform(), "float16", 1048577)]:
        tiling = compute_tiling(numel, dtype, platform=platform)
        itemsize = np.dtype(dtype).itemsize
        muts = [m for m in mutations(fields_of(tiling), tiling.block_dim, itemsize, platform)
                if m[2] >= 0 and math.isfinite(m[3])]
        fields = {k: [m[1][k] for m in muts] for k in NAMES}
        bds = [m[2] for m in muts]
        err, pad = vectorized_verdict(fields, bds, numel, itemsize, platform.ub_size, platform.core_num,
                                      platform.block_size)
        for j, (label, f, bd, _) in enumerate(muts):
            rep = validate_tiling(make_record(f), numel, dtype, platform, bd)
            assert bool(err[j]) == (not rep.ok), label
            if rep.ok:
                assert bool(pad[j]) == ("OVERRUN_PADDING" in rep.codes()), label
            count += 1
    assert count > 500


def test_vectorized_verdict_plans_and_large_fields():
    # around the padded UB limit, SwishGrad's plan per itemsize and a given plan
    platform = Platform(ub_size=196608, core_num=1, block_size=32)
    plan = [(2, 4), (2, 4), (2, 4), (2, 4)]
    rows = []
    for dtype in DTYPES:
        base = fields_of(compute_tiling(8, dtype))
        for T in (6143, 6144, 6145, 7016, 7017, 7019, 8191, 8192, 8193):
            rows.append((dtype, dict(base, tileDataNum=T)))
    for buffers in (None, plan):
        err, _ = vectorized_verdict({k: [f[k] for _, f in rows] for k in NAMES}, 1, 8,
                                    [np.dtype(d).itemsize for d, _ in rows], platform.ub_size, 1, 32, buffers)
        for (dtype, f), e in zip(rows, err):
            assert bool(e) == (not validate_tiling(make_record(f), 8, dtype, platform, 1, buffers=buffers).ok)
    # (tiles - 1) * tileDataNum = 2**39 * 2**25 wraps to 0 in int64: still a mismatch, as validate_tiling says
    f = dict(fields_of(compute_tiling(8, "float32")), finalSmallTileNum=(1 << 39) + 1, tileDataNum=1 << 25)
    huge = Platform(ub_size=1 << 62)
    assert not validate_tiling(make_record(f), 8, "float32", huge, 1).ok
    err, _ = vectorized_verdict({k: [f[k]] for k in NAMES}, 1, 8, 4, huge.ub_size, 48, 32)
    assert err[0]


def test_sweep_host_errors_are_padded_buffers_on_blocks_below_32_bytes():
    grid = sweep_grid(sizes_per_case=560)
    result = run_sweep(grid)
    assert result.accepted >= 1_000_000
    assert result.combinations == grid["numel"].size
    # Every error is on a platform whose block is not a multiple of InitBuffer's 32 bytes: the host
    # sizes its tile in whole blocks, so a padded buffer can overflow the UB there (and only there).
    assert sum(result.error_block_sizes.values()) == result.error_combinations
    assert result.error_block_sizes[16] > 0
    assert all(block % 32 for block in result.error_block_sizes), result.format()
    assert set(result.error_codes) == {"UB_OVERFLOW"}, result.format()
    # ... and nothing but the UB: with room for the padding, no host tiling of the grid has an error
    a2 = grid["kernel"] == 0
    n, b, ub, cores, block = (grid[k][a2] for k in ("numel", "itemsize", "ub_size", "core_num", "block_size"))
    accepted, block_dim, fields = spec_a2.host_tiling(n, b, ub, cores, block)
    sel = np.flatnonzero(accepted)
    err, _ = vectorized_verdict({k: getattr(fields, k)[sel] for k in NAMES}, block_dim[sel], n[sel], b[sel],
                                ub[sel] + 12 * 32, cores[sel], block[sel])
    assert not err.any()
    # the grid exercises the platforms the host refuses
    assert result.rejected_reasons["block size not a multiple of the dtype size"] > 0
    assert result.rejected_reasons["unified buffer below one block per tile buffer"] > 0
    assert result.padding_combinations > 0


# ----------------------------------------------------------------------------
# Ascend 950 (arch35) tilings: a plain reference, mutations, the checked walk

from swishgrad_numba import ARCH35_TILING_DTYPE, ASCEND950_PLATFORM, REFERENCE_PLATFORM, Tiling  # noqa: E402
from swishgrad_numba.tiling import vectorized_verdict_arch35  # noqa: E402

NAMES_950 = ("dim0", "coreNum", "ubFormer", "blockFormer", "blockNum", "ubLoopOfFormerBlock", "ubLoopOfTailBlock",
             "ubTailOfFormerBlock", "ubTailOfTailBlock", "elemNum", "scheMode")
WALK_950 = ("blockFormer", "ubFormer", "ubLoopOfFormerBlock", "ubLoopOfTailBlock", "ubTailOfFormerBlock",
            "ubTailOfTailBlock")
KEY_950 = {"float16": 3, "bfloat16": 5, "float32": 7}


def arch35_platform(**kw):
    return Platform(soc_version="ascend950", **kw)


def block_params(f, i):
    """(start, loops, tail, length the block should hold) of block i: ElementwiseSch.Process verbatim."""
    if i == f["blockNum"] - 1:
        return (f["blockFormer"] * i, f["ubLoopOfTailBlock"], f["ubTailOfTailBlock"],
                f["dim0"] - (f["blockNum"] - 1) * f["blockFormer"])
    return f["blockFormer"] * i, f["ubLoopOfFormerBlock"], f["ubTailOfFormerBlock"], f["blockFormer"]


def reference_codes_950(f, scale, block_dim, key, numel, dtype, platform):
    """The rules of docs/validation.md for a 950 record, and its walk element by element."""
    b, U = np.dtype(dtype).itemsize, f["ubFormer"]
    codes = set()
    if not 1 <= block_dim <= platform.core_num:
        codes.add("BLOCK_DIM_RANGE")
    if block_dim != f["blockNum"]:
        codes.add("BLOCK_NUM_MISMATCH")
    if not f["blockNum"] <= f["coreNum"] <= platform.core_num:
        codes.add("CORE_NUM_RANGE")
    if f["dim0"] != numel:
        codes.add("DIM0_MISMATCH")
    if f["elemNum"] != U:
        codes.add("ELEM_NUM_MISMATCH")
    if f["scheMode"] != 1:
        codes.add("SCHE_MODE_UNKNOWN")
    if not math.isfinite(scale):
        codes.add("SCONF_NONFINITE")
    if key is not None and key != KEY_950[dtype]:
        codes.add("TILING_KEY_MISMATCH")
    # the fields each launched block reads: the tail block its own loops and tail, every other the former's
    read = {"blockFormer", "ubFormer"} if block_dim >= 1 else set()
    for i in range(block_dim):
        kind = "Tail" if i == f["blockNum"] - 1 else "Former"
        read |= {f"ubLoopOf{kind}Block", f"ubTailOf{kind}Block"}
    if any(f[name] < 0 for name in set(WALK_950) - read):
        codes.add("FIELD_NEGATIVE_UNREAD")
    if any(f[name] < 0 for name in read):
        return codes | {"FIELD_NEGATIVE"}
    if round_up_32(6 * U * b) > platform.ub_size:
        codes.add("UB_OVERFLOW")
    if U * b % 32:
        codes.add("UB_FORMER_NOT_BLOCK_ALIGNED")
    elif U % (256 // b):
        codes.add("UB_FORMER_NOT_REGISTER_ALIGNED")
    if f["blockFormer"] % 512:
        codes.add("BLOCK_FORMER_NOT_ALIGNED")
    counts, past_end = [0] * numel, False
    for i in range(block_dim):
        start, loops, tail, length = block_params(f, i)
        if loops < 1:
            codes.add("TILE_COUNT_MISMATCH")   # on the device loopNum - 1 wraps; the emulator walks nothing
            continue
        if not 1 <= tail <= U:
            codes.add("TAIL_RANGE")
        if (loops - 1) * U + tail != length:
            codes.add("TILE_COUNT_MISMATCH")
        for t in range(loops):
            offset = start + t * U
            if offset >= numel:       # the passes abut: the rest lies past the end too
                past_end = past_end or (loops - 1 - t) * U + tail > 0
                break
            end = offset + (U if t < loops - 1 else tail)
            for e in range(offset, min(end, numel)):
                counts[e] += 1
            past_end = past_end or end > numel
    if past_end:
        codes.add("OVERRUN_BEYOND_PADDING")
    return codes | coverage_codes(counts)


def fields_950(tiling):
    return fields_of(tiling, NAMES_950)


def make_record_950(f, scale=1.0):
    return make_record(f, scale, ARCH35_TILING_DTYPE, "scale")


def mutations_950(f, block_dim, platform):
    """(label, fields, block_dim, scale, key) corruptions of a correct 950 tiling."""
    U = f["ubFormer"]
    out = []
    for name in NAMES_950:
        for label, delta in (("+1", 1), ("-1", -1), ("+512", 512), ("-512", -512), ("+ubFormer", U),
                             ("-ubFormer", -U)):
            g = dict(f)
            g[name] = g[name] + delta if name != "scheMode" else max(0, g[name] + delta)
            if g != f:
                out.append((f"{name} {label}", g, block_dim, 1.0, None))
        out.append((f"{name} = 0", dict(f, **{name: 0}), block_dim, 1.0, None))
    for a, b in (("ubLoopOfFormerBlock", "ubLoopOfTailBlock"), ("ubTailOfFormerBlock", "ubTailOfTailBlock")):
        out.append((f"swap {a}/{b}", dict(f, **{a: f[b], b: f[a]}), block_dim, 1.0, None))
    out.append(("ubFormer one block more", dict(f, ubFormer=U + 32 // 4), block_dim, 1.0, None))
    for bd in (block_dim + 1, block_dim - 1, platform.core_num + 1, 0):
        out.append((f"block_dim {bd}", dict(f), bd, 1.0, None))
    out.append(("scale nan", dict(f), block_dim, float("nan"), None))
    out.append(("scale -inf", dict(f), block_dim, float("-inf"), None))
    for key in (3, 5, 6, 7, 0):
        out.append((f"key {key}", dict(f), block_dim, 1.0, key))
    return out


SMALL_950 = (
    arch35_platform(ub_size=1536 * 2, core_num=5),    # ubFormer 128 (float32) or 256 (16-bit)
    arch35_platform(ub_size=8192, core_num=3),
    arch35_platform(ub_size=4000, core_num=8),
)
CASES_950 = [(p, dt, n) for p in SMALL_950 for dt in DTYPES for n in (1, 33, 512, 513, 1536, 2100, 5000)]


def _ids_950(case):
    p, dt, n = case
    return f"ub{p.ub_size}-c{p.core_num}-{dt}-{n}"


def _tiling_950(f, block_dim, scale, key):
    rec = make_record_950(f, scale)
    return rec if key is None else Tiling(data=rec, block_dim=block_dim, tiling_key=key)


@pytest.mark.parametrize("case", CASES_950, ids=[_ids_950(c) for c in CASES_950])
def test_arch35_mutations_match_reference_and_checked_run(case):
    platform, dtype, numel = case
    tiling = compute_tiling(numel, dtype, platform=platform)
    base = fields_950(tiling)
    assert validate_tiling(tiling, numel, dtype, platform, checked=True).findings == ()
    for label, f, bd, scale, key in [("host", base, tiling.block_dim, 1.0, KEY_950[dtype])] + mutations_950(
            base, tiling.block_dim, platform):
        expected = reference_codes_950(f, scale, bd, key, numel, dtype, platform)
        report = validate_tiling(_tiling_950(f, bd, scale, key), numel, dtype, platform, bd, checked=True)
        assert report.codes() == expected, label
        assert report.ok == (not is_error(expected)), label
        for finding in report.findings:
            assert finding.severity == CODES[finding.code][0] and finding.message
        if "FIELD_NEGATIVE" in expected:
            assert report.balance is None
            with pytest.raises(ValueError, match="must be >= 0"):
                checked_run(make_record_950(f), numel, dtype, platform, bd)
        elif not report.codes("error") & {"COVERAGE_GAP", "COVERAGE_OVERLAP", "OVERRUN_BEYOND_PADDING"}:
            # valid, or invalid by a rule only: the walk itself covers the tensor exactly
            assert checked_run(make_record_950(f), numel, dtype, platform, bd).exact_coverage, label


# Example D of the 950 facts (float32, 65600 elements, 64 cores): 43 blocks of 1536 elements, the last 1088,
# one UB loop each (ubFormer 10560). Each row breaks one field; the findings worked out by hand:
BROKEN_D = [
    # the tail block should hold 65601 - 42*1536 = 1089 elements; the walk still covers the 65600 exactly
    ("dim0", 65601, {"DIM0_MISMATCH", "TILE_COUNT_MISMATCH"}),
    ("coreNum", 65, {"CORE_NUM_RANGE"}),
    ("coreNum", 42, {"CORE_NUM_RANGE"}),
    # 10568 floats are 42272 bytes, whole 32-byte blocks but not whole 64-float registers; elemNum stays 10560
    ("ubFormer", 10568, {"UB_FORMER_NOT_REGISTER_ALIGNED", "ELEM_NUM_MISMATCH"}),
    ("ubFormer", 10561, {"UB_FORMER_NOT_BLOCK_ALIGNED", "ELEM_NUM_MISMATCH"}),
    # blocks start 1537 apart but hold 1536: a gap after each former block, the tail block ends 42 past the end
    ("blockFormer", 1537, {"BLOCK_FORMER_NOT_ALIGNED", "TILE_COUNT_MISMATCH", "COVERAGE_GAP",
                           "OVERRUN_BEYOND_PADDING"}),
    # 43 blocks launched, but the kernel takes block 43 as the tail: block 42 runs 1536 elements from 64512
    ("blockNum", 44, {"BLOCK_NUM_MISMATCH", "OVERRUN_BEYOND_PADDING"}),
    ("ubLoopOfFormerBlock", 2, {"TILE_COUNT_MISMATCH", "COVERAGE_OVERLAP", "OVERRUN_BEYOND_PADDING"}),
    ("ubLoopOfFormerBlock", 0, {"TILE_COUNT_MISMATCH", "COVERAGE_GAP"}),
    ("ubTailOfFormerBlock", 0, {"TAIL_RANGE", "TILE_COUNT_MISMATCH", "COVERAGE_GAP"}),
    ("ubTailOfTailBlock", 1089, {"TILE_COUNT_MISMATCH", "OVERRUN_BEYOND_PADDING"}),
    ("ubTailOfTailBlock", 10561, {"TAIL_RANGE", "TILE_COUNT_MISMATCH", "OVERRUN_BEYOND_PADDING"}),
    ("elemNum", 1, {"ELEM_NUM_MISMATCH"}),
    ("scheMode", 0, {"SCHE_MODE_UNKNOWN"}),
    ("blockFormer", -1536, {"FIELD_NEGATIVE"}),
    ("ubTailOfTailBlock", -1, {"FIELD_NEGATIVE"}),
]


@pytest.mark.parametrize("name, value, codes", BROKEN_D, ids=[f"{n}={v}" for n, v, _ in BROKEN_D])
def test_arch35_each_broken_field_gives_its_finding(name, value, codes):
    host = compute_tiling(65600, "float32", platform=ASCEND950_PLATFORM)
    assert host.block_dim == 43 and int(host.data["ubTailOfTailBlock"]) == 1088
    f = dict(fields_950(host), **{name: value})
    rep = validate_tiling(make_record_950(f), 65600, "float32", None, 43, checked=True)
    assert rep.codes() == codes, rep.format()
    assert rep.platform == ASCEND950_PLATFORM


def test_arch35_launch_findings():
    host = compute_tiling(65600, "float32", platform=ASCEND950_PLATFORM)
    # 65 cores on a 64-core part: blocks 43..64 run former loops from 66048, past the end
    rep = validate_tiling(host, 65600, "float32", block_dim=65)
    assert rep.codes() == {"BLOCK_DIM_RANGE", "BLOCK_NUM_MISMATCH", "OVERRUN_BEYOND_PADDING"}
    beyond = [x for x in rep.findings if x.code == "OVERRUN_BEYOND_PADDING"]
    assert beyond[0].core == 43 and "66048" in beyond[0].message and "tensor's end (65600)" in beyond[0].message
    for key in (3, 5, 6):
        rep = validate_tiling(Tiling(data=host.data, block_dim=43, tiling_key=key), 65600, "float32")
        assert rep.codes() == {"TILING_KEY_MISMATCH"}
    rep = validate_tiling(make_record_950(fields_950(host), float("nan")), 65600, "float32", block_dim=43)
    assert rep.ok and rep.codes() == {"SCONF_NONFINITE"} and "scale is nan" in rep.findings[0].message
    # a bare record carries no key: nothing to check
    assert validate_tiling(host.data, 65600, "float32", block_dim=43).findings == ()
    # the same tiling as bytes and as a mapping (which may carry blockDim and tilingKey)
    assert validate_tiling(host.tobytes(), 65600, "float32", block_dim=43, checked=True).ok
    mapping = dict(fields_950(host), scale=1.0, blockDim=43, tilingKey=5)
    assert validate_tiling(mapping, 65600, "float32").codes() == {"TILING_KEY_MISMATCH"}


def test_arch35_overrun_is_an_error_without_padding():
    # float16 n=33: on the A2 the last block would be padding; the 950's DMA is exact, so one element
    # more is past the end
    host = compute_tiling(33, "float16", platform=ASCEND950_PLATFORM)
    f = dict(fields_950(host), ubTailOfTailBlock=34, dim0=34)
    rep = validate_tiling(make_record_950(f), 33, "float16", None, 1, checked=True)
    assert rep.codes() == {"DIM0_MISMATCH", "OVERRUN_BEYOND_PADDING"}
    (x,) = rep.errors
    assert (x.core, x.tile) == (0, 0) and "up to element 34, 1 element(s) past the tensor's end" in x.message
    run = checked_run(make_record_950(f), 33, "float16", None, 1)
    assert run.padded_numel == 33 and run.beyond_transfers == 1 and run.padding_transfers == 0
    assert run.coverage_codes() == {"OVERRUN_BEYOND_PADDING"}


def test_arch35_platform_follows_the_record():
    a2 = compute_tiling(1000, "float32")
    x35 = compute_tiling(1000, "float32", platform=ASCEND950_PLATFORM)
    assert validate_tiling(a2, 1000, "float32").platform == REFERENCE_PLATFORM
    assert validate_tiling(x35, 1000, "float32").platform == ASCEND950_PLATFORM
    for tiling, platform, words in ((x35, REFERENCE_PLATFORM, ("ascend910b", "Ascend 950", "88-byte")),
                                    (a2, ASCEND950_PLATFORM, ("ascend950", "Atlas A2", "72-byte"))):
        for call in (validate_tiling, tiling_balance, checked_run):
            with pytest.raises(ValueError, match="platform") as exc:
                call(tiling, 1000, "float32", platform)
            assert all(w in str(exc.value) for w in words) and "record" in str(exc.value)
    with pytest.raises(ValueError, match="buffers"):
        validate_tiling(x35, 1000, "float32", buffers=[(2, 4)])
    f = dict(fields_950(x35), ubFormer=-64)
    with pytest.raises(ValueError, match="ubFormer"):
        tiling_balance(make_record_950(f), 1000, "float32", block_dim=1)


def test_arch35_balance():
    # example C: 48 blocks of 2048 bfloat16 elements and a tail of 1696 on 64 cores
    bal = tiling_balance(compute_tiling(100000, "bfloat16", platform=ASCEND950_PLATFORM), 100000, "bfloat16")
    assert bal.core_classes == (("former", 48), ("tail", 1), ("extra", 0))
    assert (bal.big_cores, bal.small_cores) == (0, 0)
    np.testing.assert_array_equal(bal.elements_per_core, [2048] * 48 + [1696])
    np.testing.assert_array_equal(bal.tiles_per_core, [1] * 49)
    assert bal.max_elements == 2048 and bal.mean_elements == pytest.approx(100000 / 49)
    assert bal.unused_cores == 15 and bal.idle_launched_cores == 0 and bal.padding_overrun_elements == 0
    assert bal.ub_bytes_per_tile == 6 * 21120 * 2 == 253440 and bal.ub_size == 253952
    assert bal.as_dict()["former_cores"] == 48 and "UB loops per core   : 1..1" in bal.format()
    assert "padding" not in bal.format()


@pytest.mark.parametrize("platform", [arch35_platform(ub_size=3072, core_num=5), arch35_platform(core_num=3)],
                         ids=["small", "950"])
def test_arch35_random_records_checked_run_matches_naive_walk(platform):
    rng = np.random.default_rng(35)
    for _ in range(200):
        dtype = DTYPES[int(rng.integers(3))]
        numel = int(rng.integers(1, 300))
        f = {"dim0": numel, "coreNum": 3, "elemNum": 0, "scheMode": 1,
             "ubFormer": int(rng.integers(0, 70)), "blockFormer": int(rng.integers(0, 120)),
             "blockNum": int(rng.integers(0, 6)), "ubLoopOfFormerBlock": int(rng.integers(0, 5)),
             "ubLoopOfTailBlock": int(rng.integers(0, 5)), "ubTailOfFormerBlock": int(rng.integers(0, 80)),
             "ubTailOfTailBlock": int(rng.integers(0, 80))}
        bd = int(rng.integers(0, 7))
        counts = [0] * numel
        beyond = 0
        for i in range(bd):
            start, loops, tail, _ = block_params(f, i)
            for t in range(loops):
                offset = start + t * f["ubFormer"]
                for e in range(offset, offset + (f["ubFormer"] if t < loops - 1 else tail)):
                    if e < numel:
                        counts[e] += 1
                    else:
                        beyond += 1
        run = checked_run(make_record_950(f), numel, dtype, platform, bd)
        np.testing.assert_array_equal(run.write_count, counts)
        assert run.beyond_transfers == beyond and run.padding_transfers == 0
        rep = validate_tiling(make_record_950(f), numel, dtype, platform, bd, checked=True)
        assert "CHECKED_RUN_DISAGREES" not in rep.codes()
        assert rep.codes() == reference_codes_950(f, 1.0, bd, None, numel, dtype, platform)


def test_arch35_vectorized_verdict_matches_validate_tiling():
    count = 0
    for platform, dtype, numel in CASES_950[::3] + [(ASCEND950_PLATFORM, "float32", 1048576),
                                                   (ASCEND950_PLATFORM, "bfloat16", 100000)]:
        tiling = compute_tiling(numel, dtype, platform=platform)
        itemsize = np.dtype(dtype).itemsize
        muts = [m for m in mutations_950(fields_950(tiling), tiling.block_dim, platform)
                if m[2] >= 0 and math.isfinite(m[3]) and m[4] is None]
        err, warn = vectorized_verdict_arch35({k: [m[1][k] for m in muts] for k in NAMES_950}, [m[2] for m in muts],
                                              numel, itemsize, platform.ub_size, platform.core_num)
        for j, (label, f, bd, _, _) in enumerate(muts):
            rep = validate_tiling(make_record_950(f), numel, dtype, platform, bd)
            assert bool(err[j]) == (not rep.ok), label
            assert bool(warn[j]) == bool(rep.codes("warning")), label
            count += 1
    assert count > 300


def test_sweep_covers_both_kernels():
    result = run_sweep(sweep_grid(sizes_per_case=40, max_numel=1 << 30))
    x35 = result.by_kernel["arch35"]
    assert x35["accepted"] > 10_000 and x35["rejected"] > 0
    # the 950's host tilings have no error and no warning anywhere on the grid
    assert x35["error_combinations"] == 0 and x35["warning_combinations"] == 0
    assert result.by_kernel["a2"]["accepted"] + x35["accepted"] == result.accepted
    text = result.format()
    assert "both kernels" in text and "Atlas A2 kernel" in text and "Ascend 950 kernel" in text
    assert result.rejected_reasons["950: unified buffer below six slots of 256 bytes"] == x35["rejected"]


@pytest.mark.parametrize("name", ["ubLoopOfFormerBlock", "ubTailOfFormerBlock"])
def test_arch35_negative_field_no_block_reads_is_a_warning(name):
    """Issue 22 item 7: one block (the tail block) launched, so the former blocks' fields are unread."""
    host = compute_tiling(1000, "float32", platform=ASCEND950_PLATFORM)
    assert host.block_dim == 1
    f = dict(fields_950(host), **{name: -5})
    rep = validate_tiling(make_record_950(f), 1000, "float32", None, 1, checked=True)
    assert rep.ok and rep.codes() == {"FIELD_NEGATIVE_UNREAD"}, rep.format()
    assert rep.warnings[0].severity == "warning" and name in rep.warnings[0].message
    assert rep.balance is not None and checked_run(make_record_950(f), 1000, "float32", None, 1).exact_coverage
    err, warn = vectorized_verdict_arch35(f, 1, 1000, 4, ASCEND950_PLATFORM.ub_size, ASCEND950_PLATFORM.core_num)
    assert not err[0] and warn[0]
    # on two blocks the former block reads it: an error, and the walk is not analysed
    rep = validate_tiling(make_record_950(dict(f, blockNum=2)), 1000, "float32", None, 2)
    assert "FIELD_NEGATIVE" in rep.codes("error") and rep.balance is None


def test_more_cores_than_analysed_one_by_one_give_no_false_gap():
    """Issue 22 item 5: 2**20 + 2 abutting cores; the analysis stays exact (a warning, no false gap)."""
    from swishgrad_numba.tiling.coverage import MAX_EXPLICIT_CORES

    cores = MAX_EXPLICIT_CORES + 2
    p = Platform(core_num=cores)
    n = 8 * cores
    host = compute_tiling(n, "float32", platform=p)
    assert host.block_dim == cores
    rep = validate_tiling(host, n, "float32", p)
    assert rep.ok and rep.codes() == {"ANALYSIS_TRUNCATED"}, rep.format()
    # a real gap past the last core is still found, and only that one
    rep = validate_tiling(host, n + 8, "float32", p)
    gaps = [f for f in rep.findings if f.code == "COVERAGE_GAP"]
    assert len(gaps) == 1 and f"[{n}, {n + 8})" in gaps[0].message, rep.format()
