"""pytest-benchmark: the device-time model's speed (issue 21's targets).

    SWISHGRAD_BENCH_FULL=1 python -m pytest bench/bench_devicetime.py --benchmark-enable --benchmark-only -n 0

runs the full sizes: 48 cores with 10^4 tiles each (distinct cores, so every tile is simulated; and equal
cores, which the model schedules once), the host tiling of 2^27 float32 elements, and --best over the
template at 2^24 float32. The default test run calls each once at small sizes. Figures: bench/RESULTS.md.
"""
import os

import pytest

from swishgrad_numba import devicetime as dt
from swishgrad_numba.platform import ASCEND950_PLATFORM, REFERENCE_PLATFORM

FULL = os.environ.get("SWISHGRAD_BENCH_FULL", "") not in ("", "0")
TILES = 10_000 if FULL else 100
NUMEL = 1 << 27 if FULL else 1 << 16
BEST_NUMEL = 1 << 24 if FULL else 1 << 14


@pytest.mark.parametrize("cores", ["distinct", "equal"])
def test_custom_48_cores(benchmark, cores):
    # distinct: core k's tiles are 4096 + 32 k elements, so no two cores share a schedule
    tiles = [[4096 + 32 * (k if cores == "distinct" else 0)] * TILES for k in range(48)]
    est = benchmark(dt.estimate_custom, dtype="float32", inputs=2, outputs=1, instructions=["Mul", "Exp", "Add"],
                    core_tiles=tiles)
    assert est.n_cores == 48


@pytest.mark.parametrize("platform", [REFERENCE_PLATFORM, ASCEND950_PLATFORM], ids=["a2", "950"])
def test_host_tiling(benchmark, platform):
    est = benchmark(dt.estimate, None, NUMEL, "float32", platform=platform)
    assert est.valid


@pytest.mark.parametrize("platform", [REFERENCE_PLATFORM, ASCEND950_PLATFORM], ids=["a2", "950"])
def test_best(benchmark, platform):
    best, host, tried = benchmark.pedantic(dt.best_tiling, args=(BEST_NUMEL, "float32", platform), rounds=1,
                                           iterations=1)
    assert best.duration_us <= host.duration_us and tried > 0
