"""The checked (instrumented) run against a plain per-element walk of model section 4."""
import os
import subprocess
import sys

import numpy as np
import pytest

import swishgrad_numba
from swishgrad_numba import Platform, TILING_DTYPE, compute_tiling
from swishgrad_numba.tiling import FIELD_CAP, checked_run

NAMES = ("smallCoreDataNum", "bigCoreDataNum", "finalBigTileNum", "finalSmallTileNum",
         "tileDataNum", "smallTailDataNum", "bigTailDataNum", "tailBlockNum")
SMALL_PLATFORM = Platform(ub_size=1024, core_num=5, block_size=32)


def naive_walk(f, block_dim, numel, padded):
    """model section 4 verbatim, element by element, in Python integers.

    Returns (counts, first, last, padding counts, beyond-padding transfers).
    """
    counts = [0] * numel
    first = [-1] * numel
    last = [-1] * numel
    pad = [0] * (padded - numel)
    beyond = 0
    for i in range(block_dim):
        if i < f["tailBlockNum"]:
            tiles, tail = f["finalBigTileNum"], f["bigTailDataNum"]
            start = f["bigCoreDataNum"] * i
        else:
            tiles, tail = f["finalSmallTileNum"], f["smallTailDataNum"]
            start = (f["bigCoreDataNum"] * i
                     - (f["bigCoreDataNum"] - f["smallCoreDataNum"]) * (i - f["tailBlockNum"]))
        for t in range(tiles):
            length = f["tileDataNum"] if t < tiles - 1 else tail
            offset = start + t * f["tileDataNum"]
            for e in range(offset, offset + length):
                if e < numel:
                    counts[e] += 1
                    if first[e] < 0:
                        first[e] = i
                    last[e] = i
                elif e < padded:
                    pad[e - numel] += 1
                else:
                    beyond += 1
    return counts, first, last, pad, beyond


def make_record(f):
    rec = np.zeros((), dtype=TILING_DTYPE)
    for k, v in f.items():
        rec[k] = v
    return rec[()]


def fields_of(tiling):
    return {k: int(tiling.data[k]) for k in NAMES}


def padded_of(numel, itemsize, block):
    return -(-numel * itemsize // block) * block // itemsize


def assert_matches_naive(f, block_dim, numel, dtype, platform):
    itemsize = np.dtype(dtype).itemsize
    padded = padded_of(numel, itemsize, platform.block_size)
    counts, first, last, pad, beyond = naive_walk(f, block_dim, numel, padded)
    run = checked_run(make_record(f), numel, dtype, platform, block_dim)
    assert not run.truncated
    np.testing.assert_array_equal(run.write_count, counts)
    np.testing.assert_array_equal(run.first_writer, first)
    np.testing.assert_array_equal(run.last_writer, last)
    np.testing.assert_array_equal(run.padding_count, pad)
    assert run.padding_transfers == sum(pad)
    assert run.beyond_transfers == beyond
    return run


CASES = [(n, dt) for dt in ("float32", "float16", "bfloat16")
         for n in (1, 7, 8, 9, 31, 32, 33, 100, 160, 161, 300, 641, 777)]


@pytest.mark.parametrize("numel,dtype", CASES)
def test_host_tilings_cover_exactly(numel, dtype):
    tiling = compute_tiling(numel, dtype, platform=SMALL_PLATFORM)
    run = assert_matches_naive(fields_of(tiling), tiling.block_dim, numel, dtype, SMALL_PLATFORM)
    assert run.exact_coverage
    assert run.beyond_transfers == 0


@pytest.mark.parametrize("platform", [SMALL_PLATFORM, Platform(ub_size=1024, core_num=5, block_size=256)])
def test_random_corrupt_records_match_naive_walk(platform):
    rng = np.random.default_rng(1234)
    for _ in range(300):
        dtype = ("float32", "float16", "bfloat16")[rng.integers(3)]
        numel = int(rng.integers(1, 200))
        f = {
            "smallCoreDataNum": int(rng.integers(0, 80)),
            "bigCoreDataNum": int(rng.integers(0, 80)),
            "finalBigTileNum": int(rng.integers(0, 5)),
            "finalSmallTileNum": int(rng.integers(0, 5)),
            "tileDataNum": int(rng.integers(0, 40)),
            "smallTailDataNum": int(rng.integers(0, 50)),
            "bigTailDataNum": int(rng.integers(0, 50)),
            "tailBlockNum": int(rng.integers(0, 8)),
        }
        block_dim = int(rng.integers(0, 9))
        assert_matches_naive(f, block_dim, numel, dtype, platform)


def test_mutated_host_tilings_match_naive_walk():
    platform = Platform(ub_size=2048, core_num=6, block_size=32)
    for numel, dtype in ((500, "float32"), (1001, "float16"), (64, "bfloat16")):
        tiling = compute_tiling(numel, dtype, platform=platform)
        base = fields_of(tiling)
        for name in NAMES:
            for delta in (-1, 1, 8, -8):
                f = dict(base)
                f[name] = max(0, f[name] + delta)
                for bd in (tiling.block_dim, tiling.block_dim + 1, max(tiling.block_dim - 1, 0)):
                    assert_matches_naive(f, bd, numel, dtype, platform)


def test_writers_identify_cores():
    # model section 3, table row 3: 48 cores, 32 big ones of 21848 elements, then 21840.
    tiling = compute_tiling(1048576, np.float32)
    run = checked_run(tiling, 1048576, np.float32)
    assert run.exact_coverage
    assert run.padding_transfers == 0
    assert run.tiles == 48 * 4
    expected = np.concatenate([np.repeat(np.arange(32), 21848), np.repeat(np.arange(32, 48), 21840)])
    np.testing.assert_array_equal(run.last_writer, expected)
    np.testing.assert_array_equal(run.first_writer, expected)


MAX = (1 << 64) - 1


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_huge_records_run_safely(dtype):
    numel = 100
    every = {k: MAX for k in NAMES}
    # every field 2**64-1: core 0 is big, starts at 0, its first tile covers
    # the whole tensor, padding and far beyond; every other core starts past it.
    run = checked_run(make_record(every), numel, dtype, None, MAX)
    assert np.all(run.write_count == 1)
    assert run.beyond_transfers == FIELD_CAP  # saturated
    assert not run.truncated
    assert run.coverage_codes() == {"OVERRUN_BEYOND_PADDING"}


def test_two_to_the_sixty_tiles_of_one_element():
    f = dict(smallCoreDataNum=64, bigCoreDataNum=64, finalBigTileNum=0, finalSmallTileNum=1 << 60,
             tileDataNum=1, smallTailDataNum=1, bigTailDataNum=1, tailBlockNum=0)
    run = checked_run(make_record(f), 33, "float16", None, 1)
    # the core walks element by element: 33 writes, 15 padding slots, the rest beyond
    assert np.all(run.write_count == 1)
    np.testing.assert_array_equal(run.padding_count, np.ones(15))
    assert run.beyond_transfers == (1 << 60) - 48
    assert run.tiles == 1 << 60


def test_zero_length_tiles_and_identical_cores():
    # tileDataNum 0: 2**60 - 1 empty full tiles, then the tail at the start.
    # smallCoreDataNum 0: every one of 2**40 cores starts at 0.
    f = dict(smallCoreDataNum=0, bigCoreDataNum=0, finalBigTileNum=0, finalSmallTileNum=1 << 60,
             tileDataNum=0, smallTailDataNum=8, bigTailDataNum=0, tailBlockNum=0)
    run = checked_run(make_record(f), 10, "float32", None, 1 << 40)
    np.testing.assert_array_equal(run.write_count, [1 << 40] * 8 + [0, 0])
    assert run.first_writer[0] == 0 and run.last_writer[0] == (1 << 40) - 1
    assert run.coverage_codes() == {"COVERAGE_GAP", "COVERAGE_OVERLAP"}


def test_overlapping_cores_stop_early():
    # core i covers [i, i + numel): the walk stops once it has written more
    # elements than the tensor holds; an overlap is certain then.
    numel = 5000
    f = dict(smallCoreDataNum=1, bigCoreDataNum=0, finalBigTileNum=0, finalSmallTileNum=1,
             tileDataNum=numel, smallTailDataNum=numel, bigTailDataNum=0, tailBlockNum=0)
    run = checked_run(make_record(f), numel, "float32", None, MAX)
    assert run.truncated
    assert "COVERAGE_OVERLAP" in run.coverage_codes()
    assert run.write_count.sum() <= 4 * numel + (1 << 16) + numel


def _staircase(k):
    """One float32 element in a 2**k-element block: core i of 2**k starts at i and walks 2**k one-element
    tiles, so padding slot j is written j + 1 times and core i transfers i elements past the padding."""
    f = dict(smallCoreDataNum=1, bigCoreDataNum=1, finalBigTileNum=0, finalSmallTileNum=1 << k, tileDataNum=1,
             smallTailDataNum=1, bigTailDataNum=0, tailBlockNum=0)
    return make_record(f), Platform(block_size=4 << k), 1 << k


def test_tiles_past_the_tensor_are_accounted_at_once():
    rec, platform, p = _staircase(10)
    run = checked_run(rec, 1, "float32", platform, p)
    assert run.write_count.tolist() == [1] and run.first_writer[0] == 0 and run.last_writer[0] == 0
    np.testing.assert_array_equal(run.padding_count, np.arange(2, p + 1))
    assert run.padding_transfers == (p - 1) * (p + 2) // 2
    assert run.beyond_transfers == p * (p - 1) // 2 and run.beyond_cores == p - 1
    assert run.padding_only_transfers == p - 1  # core 0 ends at the padded end: slots 1..p-1 once
    assert run.tiles == p * p
    assert_matches_naive(dict(smallCoreDataNum=1, bigCoreDataNum=1, finalBigTileNum=0, finalSmallTileNum=64,
                              tileDataNum=1, smallTailDataNum=1, bigTailDataNum=0, tailBlockNum=0),
                         64, 1, "float32", Platform(block_size=256))


def test_large_block_padding_walk_completes():
    """2**20 padding slots, each core's 2**20 tiles running through them: the old walk took a step per
    tile, about 2**39 steps (hours); now a step per core. In a child process, so that a regression
    fails the test instead of hanging it."""
    code = """
from swishgrad_numba import Platform, TILING_DTYPE
from swishgrad_numba.tiling import checked_run
import numpy as np
k = 20
rec = np.zeros((), dtype=TILING_DTYPE)
for name, value in dict(smallCoreDataNum=1, finalSmallTileNum=1 << k, tileDataNum=1, smallTailDataNum=1).items():
    rec[name] = value
run = checked_run(rec[()], 1, "float32", Platform(block_size=4 << k), 1 << k)
print(run.padding_transfers, run.beyond_transfers, run.tiles, int(run.padding_count[-1]))
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(swishgrad_numba.__file__)), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240, env=env)
    assert done.returncode == 0, done.stderr
    p = 1 << 20
    assert done.stdout.split() == [str((p - 1) * (p + 2) // 2), str(p * (p - 1) // 2), str(p * p), str(p)]


def test_block_dim_zero_writes_nothing():
    tiling = compute_tiling(100, np.float32)
    run = checked_run(tiling, 100, np.float32, block_dim=0)
    assert not run.write_count.any()
    assert run.coverage_codes() == {"COVERAGE_GAP"}


def test_arguments_checked():
    tiling = compute_tiling(100, np.float32)
    with pytest.raises(ValueError, match="numel"):
        checked_run(tiling, 0, np.float32)
    with pytest.raises(ValueError, match="numel"):
        checked_run(tiling, 1000, np.float32, max_numel=999)
    with pytest.raises(TypeError, match="numel"):
        checked_run(tiling, 10.0, np.float32)
    with pytest.raises(ValueError, match="max_writes"):
        checked_run(tiling, 100, np.float32, max_writes=99)
    with pytest.raises(ValueError, match="dtype"):
        checked_run(tiling, 100, np.int32)
    with pytest.raises(TypeError, match="block_dim"):
        checked_run(tiling.data, 100, np.float32)
    with pytest.raises(TypeError, match="platform"):
        checked_run(tiling, 100, np.float32, platform="ascend910b")
    with pytest.raises(ValueError, match="block_size"):
        checked_run(tiling, 100, np.float32, Platform(block_size=1 << 30), max_numel=1000)


# ----------------------------------------------------------------------------
# Ascend 950 records: the same walk over blocks of UB loops

def _record_950(**fields):
    from swishgrad_numba import ARCH35_TILING_DTYPE

    rec = np.zeros((), dtype=ARCH35_TILING_DTYPE)
    for k, v in fields.items():
        rec[k] = v
    return rec[()]


def test_arch35_huge_records_run_safely():
    big64, big32 = (1 << 63) - 1, (1 << 31) - 1
    names = ("dim0", "blockFormer", "blockNum", "ubLoopOfFormerBlock", "ubLoopOfTailBlock", "ubTailOfFormerBlock",
             "ubTailOfTailBlock", "elemNum", "scheMode")
    rec = _record_950(coreNum=big32, ubFormer=big32, **{k: big64 for k in names})
    # block 0 is a former block at 0 whose first UB loop covers the tensor and far beyond; block 1 starts
    # at 2**63 - 1 and every later one past it
    run = checked_run(rec, 100, "float32", None, MAX)
    assert np.all(run.write_count == 1) and run.padded_numel == 100
    assert run.beyond_transfers == FIELD_CAP and run.padding_transfers == 0 and not run.truncated
    assert run.coverage_codes() == {"OVERRUN_BEYOND_PADDING"}


def test_arch35_negative_lengths_are_refused():
    host = compute_tiling(100, "float32", platform=Platform(soc_version="ascend950"))
    rec = host.data.copy()
    rec["ubLoopOfTailBlock"] = -1
    with pytest.raises(ValueError, match="ubLoopOfTailBlock must be >= 0"):
        checked_run(rec, 100, "float32", block_dim=1)
    run = checked_run(host, 100, "float32")
    assert run.exact_coverage and run.tiles == 1 and run.padding_count.size == 0
