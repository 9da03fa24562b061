"""The transfer latency and one core's read ceiling (issue 38, items 7 and 8): small tiles are slow on a
bandwidth-bound launch, one core alone is as slow as measured.

Measured figures: the Add of two float16 [8192, 8192] tensors (2 inputs, 1 output, one Add per tile, one buffer),
msprof op Task Duration on the device, as issues 32 and 38 state them. The estimates are computed here from the
model under the checked-in defaults; nothing is read back from the bench script's table.
"""
import math

import pytest

from swishgrad_numba import devicetime as dt
from swishgrad_numba.platform import ASCEND950_PLATFORM, REFERENCE_PLATFORM

SIDE = 8192
A2_ONE_CORE_US = 5096.1 / 0.74     # issue 38 states the A2's one-core launch as 0.74x of the model's 5,096.1 us


def add_estimate(platform, cores, tile, buffers=1, params=None):
    """The Add launch: the tensor cut into tiles of ``tile`` elements (the last one short), whole tiles dealt to
    the cores, the first ones one more (written here plainly, not taken from the bench script)."""
    numel = SIDE * SIDE
    total = math.ceil(numel / tile)
    per, extra = divmod(total, cores)
    core_tiles = [[tile] * (per + (1 if c < extra else 0)) for c in range(cores)]
    core_tiles[-1 if extra == 0 else extra - 1][-1] = numel - (total - 1) * tile
    params = dt.default_params(platform) if params is None else params
    return dt.estimate_custom(dtype="float16", inputs=2, outputs=1, instructions=["Add"], core_tiles=core_tiles,
                              buffer_num=buffers, params=params, platform=platform).duration_us


def within(predicted, measured, factor=1.5):
    return measured / factor <= predicted <= measured * factor


@pytest.mark.parametrize("platform,cores,small,large,small_us,large_us", [
    (REFERENCE_PLATFORM, 48, 4096, 16384, 306.6, 268.5),
    (ASCEND950_PLATFORM, 64, 4096, 21760, 310.5, 251.7),
])
def test_small_tiles_rank_slower_as_measured(platform, cores, small, large, small_us, large_us):
    """Item 7: the larger tile is faster, each launch within 1.5x, and the measured ratio (small / large tile)
    reproduced within 1.5x. Without a transfer latency the model ranked them within 1-2 %."""
    t_small, t_large = add_estimate(platform, cores, small), add_estimate(platform, cores, large)
    assert t_large < t_small
    assert within(t_small, small_us) and within(t_large, large_us)
    assert within(t_small / t_large, small_us / large_us)
    # the gap is the latency's: the measured gap (12-19 %) is at least half there, and it closes without it
    assert t_small / t_large - 1 > 0.5 * (small_us / large_us - 1)
    no_latency = dt.default_params(platform).replace(transfer_latency_cycles=0.0)
    gap_without = add_estimate(platform, cores, small, params=no_latency) / add_estimate(
        platform, cores, large, params=no_latency) - 1
    assert gap_without < 0.5 * (small_us / large_us - 1)


@pytest.mark.parametrize("platform,measured_us", [(ASCEND950_PLATFORM, 8924.0), (REFERENCE_PLATFORM, A2_ONE_CORE_US)])
def test_one_core_alone_is_as_slow_as_measured(platform, measured_us):
    """Item 8: one core, tiles of 4096, one buffer: within 1.5x of the measured launch (was 0.57x on the 950)."""
    assert within(add_estimate(platform, 1, 4096), measured_us)


CLOCK = 1000.0
P = dt.Params(clock_mhz=CLOCK, core_read_bytes_per_cycle=32.0, core_write_bytes_per_cycle=64.0, aggregate_gbps=1e9,
              datacopy_cycles=40.0, burst_cycles=0.0, unaligned_burst_cycles=0.0, issue_cycles=0.0,
              scalar_cycles_per_tile=0.0, head_us=0.0, head_per_block_us=0.0, transfer_latency_cycles=300.0)


def stages(elements, params):
    """(copy-in, compute, copy-out) cycles of a float32 tile: two inputs, one Add, one output (pypto's Add:
    latency 6, 64 elements a repeat, 1 cycle a repeat; calls of at most 255 repeats)."""
    nbytes = math.ceil(elements * 4 / 32) * 32
    repeats = math.ceil(elements * 4 / 256)
    calls = math.ceil(repeats / 255)
    return (2 * (params.datacopy_cycles + nbytes / params.core_read_bytes_per_cycle), calls * 6 + repeats - calls,
            params.datacopy_cycles + nbytes / params.core_write_bytes_per_cycle)


@pytest.mark.parametrize("elements,n", [(4096, 1), (4096, 9), (30000, 4)])
def test_single_buffer_pays_the_latency_once_a_tile(elements, n):
    """One buffer, one core, no sharing: a tile's Compute waits for its CopyIn to land and for the previous
    CopyOut to land (its output buffer), so the period is Compute + max(CopyIn, CopyOut) + L; the launch ends
    when the last CopyOut lands."""
    a, b, c = stages(elements, P)
    L = P.transfer_latency_cycles
    est = dt.estimate_custom(dtype="float32", inputs=2, outputs=1, instructions=["Add"],
                             core_tiles=[[elements] * n], buffer_num=1, params=P)
    assert est.duration_us == pytest.approx((a + L + b + c + L + (n - 1) * (b + max(a, c) + L)) / CLOCK, rel=1e-12)
    # the latency holds no pipe: the MTE2 and MTE3 times are the pipes' own
    util = est.pipe_utilization()[0]
    assert util["aiv_mte2_time(us)"] == pytest.approx(n * a / CLOCK, rel=1e-12)
    assert util["aiv_mte3_time(us)"] == pytest.approx(n * c / CLOCK, rel=1e-12)


def test_copies_nothing_waits_on_pay_the_latency_once():
    """A copy-only launch with a buffer per tile (nothing waits for a copy to land before the next is issued, as
    in the public data_copy example): back-to-back copies, and the one latency of the last."""
    a = P.datacopy_cycles + 2048 * 4 / P.core_read_bytes_per_cycle
    est = dt.estimate_custom(dtype="float32", inputs=1, outputs=0, instructions=[], core_tiles=[[2048] * 50],
                             buffer_num=None, params=P)
    assert est.duration_us == pytest.approx((50 * a + P.transfer_latency_cycles) / CLOCK, rel=1e-12)


@pytest.mark.parametrize("outputs, instructions", [(1, []), (0, ["Add"])])
def test_nothing_waits_only_for_a_kernel_that_only_reads(outputs, instructions):
    with pytest.raises(ValueError, match="buffer_num=None"):
        dt.estimate_custom(dtype="float32", inputs=1, outputs=outputs, instructions=instructions,
                           core_tiles=[[2048] * 4], buffer_num=None, params=P)
    with pytest.raises(ValueError, match="buffer_num must be at most"):   # a buffer per tile is past the device's 64
        dt.estimate_custom(dtype="float32", inputs=1, outputs=0, instructions=[], core_tiles=[[2048] * 100],
                           buffer_num=100, params=P)


def test_the_latency_is_a_parameter_with_bounds_and_a_toml_key(tmp_path):
    with pytest.raises(ValueError, match="transfer_latency_cycles must be >= 0"):
        P.replace(transfer_latency_cycles=-1.0)
    path = tmp_path / "p.toml"
    path.write_text("[devicetime]\ntransfer_latency_cycles = 123.5\n")
    assert dt.load_params(path).transfer_latency_cycles == 123.5
