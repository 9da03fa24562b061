"""--compare variants and the --best search: every candidate is a valid tiling; the queue model against a
plain event-by-event reference of the queue rules."""
import numpy as np
import pytest

from swishgrad_numba import compute_tiling, validate_tiling
from swishgrad_numba import devicetime as dt
from swishgrad_numba.devicetime.search import candidates, template_tiling, variant
from swishgrad_numba.platform import ASCEND950_PLATFORM, REFERENCE_PLATFORM


@pytest.mark.parametrize("platform,numel,dtype", [(REFERENCE_PLATFORM, 123_457, "float16"),
                                                  (ASCEND950_PLATFORM, 2_000_000, "float32")])
def test_every_candidate_is_valid_and_best_is_not_slower(platform, numel, dtype):
    tilings = candidates(numel, dtype, platform)
    assert len(tilings) > 20
    for tiling in tilings:
        assert validate_tiling(tiling, numel, dtype, platform).ok
    best, host, tried = dt.best_tiling(numel, dtype, platform)
    assert tried == len(tilings) and best.valid and best.duration_us <= host.duration_us
    assert min(dt.estimate(t, numel, dtype, platform=platform).duration_us for t in tilings[::7]) >= \
        best.duration_us * (1 - 1e-9)


def test_variants():
    base = compute_tiling(100_000, "float32")
    label, tiling, buffers = variant("buffer_num=1", 100_000, "float32", REFERENCE_PLATFORM, base)
    assert tiling is base and buffers == 1
    _, tiling, _ = variant("cores=5", 100_000, "float32", REFERENCE_PLATFORM, base)
    assert tiling.block_dim == 5
    _, tiling, _ = variant("tileDataNum=1024", 100_000, "float32", REFERENCE_PLATFORM, base)
    assert tiling.data["tileDataNum"] == 1024
    _, fields, _ = variant("bigTailDataNum=7", 100_000, "float32", REFERENCE_PLATFORM, base)
    assert fields["bigTailDataNum"] == 7 and fields["blockDim"] == base.block_dim
    with pytest.raises(ValueError, match="tileDataNum must be a multiple of 8"):
        template_tiling(100_000, "float32", REFERENCE_PLATFORM, tile=1001)
    with pytest.raises(ValueError, match="ubFormer must be a multiple of 64"):
        template_tiling(100_000, "float32", ASCEND950_PLATFORM, tile=100)
    with pytest.raises(ValueError, match="cores must be in 1..48"):
        template_tiling(100_000, "float32", REFERENCE_PLATFORM, cores=49)


def reference_schedule(stage_times, buffer_num, latency=0.0):
    """Tile by tile, stage by stage, straight from the queue rules (docs/devicetime.md): a transfer lands
    ``latency`` after its pipe is done with it, and only Compute (and the core's end) waits for that."""
    ends = {}   # (stage, tile) -> end
    for k, (s, a, b, c) in enumerate(stage_times):
        def end(stage, j):
            return ends.get((stage, j), 0.0)

        def landed(stage, j):
            return end(stage, j) + latency if j >= 0 else 0.0
        s0 = end("S", k - 1)
        ends[("S", k)] = s0 + s
        i0 = max(ends[("S", k)], end("I", k - 1), end("C", k - buffer_num))
        ends[("I", k)] = i0 + a
        c0 = max(landed("I", k), end("C", k - 1), landed("O", k - buffer_num))
        ends[("C", k)] = c0 + b
        o0 = max(ends[("C", k)], end("O", k - 1))
        ends[("O", k)] = o0 + c
    return ends[("O", len(stage_times) - 1)] + latency


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("buffer_num", [1, 2, 3])
def test_queue_model_matches_the_rules_tile_by_tile(seed, buffer_num):
    rng = np.random.default_rng(seed)
    p = dt.Params(clock_mhz=1000.0, aggregate_gbps=1e9, head_us=0.0, head_per_block_us=0.0, burst_cycles=0.0,
                  scalar_cycles_per_tile=float(rng.integers(0, 400)),
                  datacopy_cycles=float(rng.integers(0, 300)),
                  transfer_latency_cycles=float(rng.integers(1, 900)) if seed % 2 else 0.0)
    lengths = [int(x) for x in rng.integers(1, 40_000, size=int(rng.integers(1, 30)))]
    n_add = int(rng.integers(0, 6))
    est = dt.estimate_custom(dtype="float32", inputs=2, outputs=1, instructions=["Add"] * n_add,
                             core_tiles=[lengths], buffer_num=buffer_num, params=p)
    stage_times = []
    for n in lengths:
        nbytes = -(-n * 4 // 32) * 32
        repeats = -(-n * 4 // 256)
        calls = -(-repeats // 255)
        stage_times.append((p.scalar_cycles_per_tile, 2 * (p.datacopy_cycles + nbytes / 32.0),
                            n_add * (calls * 6 + repeats - calls), p.datacopy_cycles + nbytes / 64.0))
    expected = reference_schedule(stage_times, buffer_num, p.transfer_latency_cycles)
    assert est.duration_us == pytest.approx(expected / 1000.0, rel=1e-12)
