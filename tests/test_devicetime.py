"""The device-time model: closed forms, conservation, monotonicity, the trace, the API's bad-input errors.

Expected stage costs are written here plainly from the cost model's public formula (pypto:
``latency + (repeats - 1) * cycles_per_repeat`` per call of at most 255 repeats of 256 bytes), never read
back from the code under test.
"""
import dataclasses
import json
import math

import numpy as np
import pytest

from swishgrad_numba import compute_tiling
from swishgrad_numba import devicetime as dt
from swishgrad_numba.platform import ASCEND950_PLATFORM, REFERENCE_PLATFORM

CLOCK = 1000.0   # MHz: one cycle is a nanosecond
F = 50.0         # DataCopy fixed cycles
# Free of the aggregate limit, no head, no scalar unless a test sets it; one DataCopy costs F (no burst cost); a
# transfer lands as its pipe is done with it (no latency) unless a test sets one.
BASE = dt.Params(clock_mhz=CLOCK, core_read_bytes_per_cycle=32.0, core_write_bytes_per_cycle=64.0,
                 aggregate_gbps=1e9, datacopy_cycles=F, burst_cycles=0.0, unaligned_burst_cycles=0.0, issue_cycles=0.0,
                 scalar_cycles_per_tile=0.0, head_us=0.0, head_per_block_us=0.0, transfer_latency_cycles=0.0)


def add_cycles(elements, latency=6):
    """pypto's float32 Add (latency 6, 64 elements per repeat, 1 cycle per repeat), split into calls of 255."""
    repeats = math.ceil(elements * 4 / 256)
    calls = math.ceil(repeats / 255)
    return calls * latency + (repeats - calls)


def stage_cycles(elements, n_add, params, inputs=2, outputs=1):
    """(scalar, copy-in, compute, copy-out) cycles of one float32 tile."""
    nbytes = math.ceil(elements * 4 / 32) * 32
    return (params.scalar_cycles_per_tile,
            inputs * (params.datacopy_cycles + nbytes / params.core_read_bytes_per_cycle),
            n_add * add_cycles(elements),
            outputs * (params.datacopy_cycles + nbytes / params.core_write_bytes_per_cycle))


# (tile elements, Add instructions, scalar cycles): compute-bound, copy-in-bound, copy-out-bound, scalar-bound
STAGE_CASES = [(4096, 40, 0.0), (8192, 1, 10.0), (4096, 2, 0.0), (1024, 1, 900.0), (70000, 3, 5.0)]


@pytest.mark.parametrize("elements,n_add,scalar", STAGE_CASES)
@pytest.mark.parametrize("n", [1, 2, 7, 50])
def test_double_buffering_is_fill_plus_n_slowest_plus_drain(elements, n, n_add, scalar):
    p = BASE.replace(scalar_cycles_per_tile=scalar, core_write_bytes_per_cycle=8.0 if n_add == 2 else 64.0)
    stages = stage_cycles(elements, n_add, p)
    est = dt.estimate_custom(dtype="float32", inputs=2, outputs=1, instructions=["Add"] * n_add,
                             core_tiles=[[elements] * n], buffer_num=2, params=p)
    expected = (sum(stages) + (n - 1) * max(stages)) / CLOCK
    assert est.duration_us == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("elements,n_add,scalar", STAGE_CASES)
@pytest.mark.parametrize("n", [1, 3, 20])
def test_single_buffer_closed_form(elements, n, n_add, scalar):
    """buffer_num=1: tile k+1's CopyIn waits for tile k's Compute (which frees the input buffer) and its
    Compute for tile k's CopyOut, so a tile adds Compute + max(CopyIn, CopyOut) (at least the scalar stage);
    CopyIn of k+1 may overlap CopyOut of k, so this is at most n x the sum of the stages."""
    p = BASE.replace(scalar_cycles_per_tile=scalar)
    s, a, b, c = stage_cycles(elements, n_add, p)
    est = dt.estimate_custom(dtype="float32", inputs=2, outputs=1, instructions=["Add"] * n_add,
                             core_tiles=[[elements] * n], buffer_num=1, params=p)
    period = max(b + max(a, c), s)
    assert est.duration_us == pytest.approx((s + a + b + c + (n - 1) * period) / CLOCK, rel=1e-12)
    assert est.duration_us <= n * (s + a + b + c) / CLOCK * (1 + 1e-12)
    if a <= c and s == 0:   # no CopyIn to hide behind the previous CopyOut: fully serial
        assert est.duration_us == pytest.approx(n * (a + b + c) / CLOCK, rel=1e-12)


def test_single_buffer_serialises_when_copy_in_is_free():
    """With nothing to overlap (CopyIn cheaper than CopyOut), buffer_num=1 takes n x the sum of the stages."""
    p = BASE.replace(core_read_bytes_per_cycle=1e9, datacopy_cycles=0.0)
    s, a, b, c = stage_cycles(4096, 3, p)
    est = dt.estimate_custom(dtype="float32", inputs=2, outputs=1, instructions=["Add"] * 3,
                             core_tiles=[[4096] * 9], buffer_num=1, params=p)
    assert a < 1e-3 and est.duration_us == pytest.approx(9 * (s + a + b + c) / CLOCK, rel=1e-6)


@pytest.mark.parametrize("cores,tiles,elements", [(48, 20, 8192), (8, 3, 100_000), (40, 1, 4096)])
def test_pure_transfers_on_a_saturated_gm_take_bytes_over_aggregate_plus_head(cores, tiles, elements):
    """No fixed costs and no compute: some transfer moves bytes at every instant, and the cores' caps together
    exceed the aggregate, so the GM is saturated throughout: the launch takes exactly head + bytes / aggregate."""
    p = BASE.replace(aggregate_gbps=50.0, head_us=3.0, head_per_block_us=0.25, datacopy_cycles=0.0)
    est = dt.estimate_custom(dtype="float32", inputs=2, outputs=1, instructions=[],
                             core_tiles=[[elements] * tiles] * cores, params=p)
    nbytes = cores * tiles * 3 * math.ceil(elements * 4 / 32) * 32
    assert est.bottleneck == "aggregate bandwidth" and est.gm_saturated == pytest.approx(1.0)
    assert est.head_us == pytest.approx(3.0 + 0.25 * cores)
    assert est.duration_us == pytest.approx(3.0 + 0.25 * cores + nbytes / (50.0 * 1e9) * 1e6, rel=1e-9)


# ------------------------------------------------------------------ GM sharing against a plain fluid reference

def water_fill(caps, total):
    """Max-min fair rates: every transfer gets the same share of ``total``, no more than its cap; what a capped
    transfer leaves is shared by the others. ``caps``: key -> cap."""
    rates, left = {}, total
    waiting = sorted(caps.items(), key=lambda kv: kv[1])
    while waiting:
        share = left / len(waiting)
        key, cap = waiting[0]
        if cap <= share:
            rates[key] = cap
            left -= cap
            waiting.pop(0)
        else:
            for key, _ in waiting:
                rates[key] = share
            break
    return rates


def fluid_reference(core_stages, buffer_num, read_cap, write_cap, aggregate, latency=0.0):
    """Every core on its own, event by event: ``core_stages[c][k]`` = (scalar, copy-in fixed, copy-in bytes,
    compute, copy-out fixed, copy-out bytes) of tile k. A transfer's fixed part moves nothing; then its bytes
    share ``aggregate`` max-min with every other transfer moving bytes; it lands ``latency`` after that, and
    Compute waits for its CopyIn and for the CopyOut that frees its buffer to land. Returns each core's end
    (cycles): its last CopyOut landed."""
    cores = len(core_stages)
    done = [[0] * 4 for _ in range(cores)]
    landed = [[0, 0] for _ in range(cores)]      # CopyIns, CopyOuts landed
    landings = []                                 # [time, core, 0 (in) or 1 (out)]
    running = {}                       # (core, pipe) -> [fixed left, bytes left, bytes at the start]
    ends = [0.0] * cores
    t = 0.0

    def ready(c, p, k):
        return (p == 0 or (p == 1 and done[c][0] > k and done[c][2] > k - buffer_num)
                or (p == 2 and landed[c][0] > k and landed[c][1] > k - buffer_num) or (p == 3 and done[c][2] > k))

    def land(c, q):
        landed[c][q] += 1
        if q == 1 and landed[c][1] == len(core_stages[c]):
            ends[c] = t

    def finish(c, p):
        done[c][p] += 1
        if p in (1, 3):
            landings.append([t + latency, c, p // 2])

    while True:
        started = True
        while started:
            started = False
            for c in range(cores):
                for p in range(4):
                    k = done[c][p]
                    if (c, p) in running or k >= len(core_stages[c]) or not ready(c, p, k):
                        continue
                    s = core_stages[c][k]
                    fixed, nbytes = [(s[0], 0.0), (s[1], s[2]), (s[3], 0.0), (s[4], s[5])][p]
                    if fixed == 0 and nbytes == 0:
                        finish(c, p)
                        started = True
                    else:
                        running[(c, p)] = [fixed, nbytes, nbytes]
        for item in [x for x in landings if x[0] <= t + 1e-9 * max(t, 1.0)]:
            landings.remove(item)
            land(item[1], item[2])
            started = True
        if started:
            continue
        if not running and not landings:
            return ends
        movers = {key: (read_cap if key[1] == 1 else write_cap) for key, r in running.items() if r[0] == 0}
        rates = water_fill(movers, aggregate)
        step = min([r[0] if r[0] > 0 else r[1] / rates[key] for key, r in running.items()]
                   + [max(x[0] - t, 0.0) for x in landings])
        t += step
        for key in list(running):
            r = running[key]
            if r[0] > 0:
                r[0] = 0.0 if r[0] - step <= 1e-9 * max(t, 1.0) else r[0] - step
                if r[0] == 0 and r[1] == 0:
                    del running[key]
                    finish(*key)
            else:
                r[1] -= rates[key] * step
                if r[1] <= 1e-9 * r[2]:
                    del running[key]
                    finish(*key)


def reference_stages(core_tiles, n_add, p, inputs=2, outputs=1):
    return [[stage_cycles(n, n_add, p, inputs, outputs)[:1]
             + (inputs * p.datacopy_cycles, inputs * math.ceil(n * 4 / 32) * 32, n_add * add_cycles(n),
                outputs * p.datacopy_cycles, outputs * math.ceil(n * 4 / 32) * 32) for n in tiles]
            for tiles in core_tiles]


@pytest.mark.parametrize("seed", range(12))
def test_gm_sharing_matches_a_plain_fluid_max_min_reference(seed):
    rng = np.random.default_rng(seed)
    p = BASE.replace(aggregate_gbps=float(rng.choice([20.0, 90.0, 250.0, 1e9])),
                     datacopy_cycles=float(rng.integers(0, 200)), scalar_cycles_per_tile=float(rng.integers(0, 50)),
                     core_read_bytes_per_cycle=float(rng.choice([8.0, 32.0])),
                     core_write_bytes_per_cycle=float(rng.choice([16.0, 64.0])),
                     transfer_latency_cycles=float(rng.choice([0.0, 150.0, 700.0])))
    kinds = [[int(n) for n in rng.integers(8, 20_000, size=int(rng.integers(1, 7)))] for _ in range(3)]
    core_tiles = [kinds[int(rng.integers(0, 3))] for _ in range(int(rng.integers(1, 7)))]   # some cores alike
    n_add, buffer_num = int(rng.integers(0, 4)), int(rng.integers(1, 4))
    est = dt.estimate_custom(dtype="float32", inputs=2, outputs=1, instructions=["Add"] * n_add,
                             core_tiles=core_tiles, buffer_num=buffer_num, params=p)
    ends = fluid_reference(reference_stages(core_tiles, n_add, p), buffer_num, p.core_read_bytes_per_cycle,
                           p.core_write_bytes_per_cycle, p.aggregate_gbps * 1e3 / CLOCK, p.transfer_latency_cycles)
    assert est.core_end_us == pytest.approx(np.array(ends) / CLOCK, rel=1e-9)
    assert est.duration_us == pytest.approx(max(ends) / CLOCK, rel=1e-9)


def test_a_long_core_pays_for_the_traffic_beside_it():
    """47 cores moving 10 tiles each beside one moving 27 (issue 32): the averaged model charged nothing; shared
    event by event, the long core is slowed while the others run (the plain reference agrees)."""
    p = BASE.replace(aggregate_gbps=1600.0, clock_mhz=1850.0)
    alone = dt.estimate_custom(dtype="float16", inputs=2, outputs=1, instructions=["Add"], core_tiles=[[8192] * 27],
                               params=p)
    tiles = [[8192] * 10] * 47 + [[8192] * 27]
    shared = dt.estimate_custom(dtype="float16", inputs=2, outputs=1, instructions=["Add"], core_tiles=tiles, params=p)
    assert shared.duration_us > alone.duration_us + 5.0
    # the same launch, core by core, through the reference (float16 tiles: half the bytes of float32 ones)
    stages = [[(0.0, 2 * p.datacopy_cycles, 2 * n * 2, add_cycles(n // 2), p.datacopy_cycles, n * 2) for n in t]
              for t in tiles]
    ends = fluid_reference(stages, 2, 32.0, 64.0, 1600.0 * 1e3 / 1850.0)
    assert shared.duration_us == pytest.approx(max(ends) / 1850.0, rel=1e-9)


def test_conservation_busy_time_is_sum_of_costs_and_trace_agrees(tmp_path):
    # 3 cores x (2 x 32 + 64) bytes per cycle stay under the 300 GB/s (300 B/cycle) aggregate: no sharing
    p = BASE.replace(scalar_cycles_per_tile=7.0, aggregate_gbps=300.0, head_us=1.5)
    tiles = [[4096, 4096, 100], [2048] * 5, [64]]
    est = dt.estimate_custom(dtype="float32", inputs=2, outputs=1, instructions=["Add", "Add"], core_tiles=tiles,
                             params=p)
    rows = est.pipe_utilization()
    for core, lengths in enumerate(tiles):
        row = rows[core]
        assert row["aiv_vec_time(us)"] == pytest.approx(sum(2 * add_cycles(n) for n in lengths) / CLOCK, rel=1e-12)
        assert row["aiv_scalar_time(us)"] == pytest.approx(7.0 * len(lengths) / CLOCK, rel=1e-12)
        # copies: the fixed part, plus the bytes at the per-core rate
        nbytes = [math.ceil(n * 4 / 32) * 32 for n in lengths]
        mte2 = sum(2 * (F + b / 32.0) for b in nbytes) / CLOCK
        mte3 = sum(F + b / 64.0 for b in nbytes) / CLOCK
        assert row["aiv_mte2_time(us)"] == pytest.approx(mte2, rel=1e-9)
        assert row["aiv_mte3_time(us)"] == pytest.approx(mte3, rel=1e-9)
        for key in ("vec", "mte2", "mte3", "scalar"):
            assert row[f"aiv_{key}_ratio"] == pytest.approx(row[f"aiv_{key}_time(us)"] / row["aiv_time(us)"])
    assert est.duration_us == pytest.approx(1.5 + max(r["aiv_time(us)"] for r in rows))
    path = tmp_path / "t.json"
    est.write_trace(path)
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    busy = {}
    for e in events:
        if e["ph"] == "X" and e["pid"] > 0:
            busy[(e["pid"], names[(e["pid"], e["tid"])])] = busy.get((e["pid"], names[(e["pid"], e["tid"])]), 0.0) \
                + e["dur"]
            assert e["ts"] >= 1.5 and set(e["args"]) == {"tile", "elements", "bytes"}
    columns = {"VECTOR": "aiv_vec_time(us)", "MTE2": "aiv_mte2_time(us)", "MTE3": "aiv_mte3_time(us)",
               "SCALAR": "aiv_scalar_time(us)"}
    for core in range(3):
        for pipe, col in columns.items():
            assert busy[(core + 1, pipe)] == pytest.approx(rows[core][col], rel=1e-12)
    assert sum(e["ph"] == "X" for e in events) == 1 + 4 * sum(map(len, tiles))
    procs = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
    assert procs == {0: "launch", 1: "core 0", 2: "core 1", 3: "core 2"}
    # each pipe's events on one core never overlap
    for core in range(3):
        for tid in range(4):
            ev = sorted((e["ts"], e["dur"]) for e in events if e["ph"] == "X" and e["pid"] == core + 1
                        and e["tid"] == tid)
            assert all(t0 + d0 <= t1 + 1e-9 for (t0, d0), (t1, _) in zip(ev, ev[1:]))


@pytest.mark.parametrize("aggregate", [1e9, 400.0, 20.0])
def test_more_bytes_are_never_faster(aggregate):
    p = BASE.replace(aggregate_gbps=aggregate, head_us=2.0, scalar_cycles_per_tile=30.0)
    last = 0.0
    for n in [1, 31, 32, 64, 1000, 4096, 4097, 20000, 65536, 300000]:
        est = dt.estimate_custom(dtype="float16", inputs=2, outputs=1, instructions=["Mul", "Exp"],
                                 core_tiles=[[n] * 3] * 4, params=p)
        assert est.duration_us >= last * (1 - 1e-12)
        last = est.duration_us
    # the host tiling with every core launched (below that, one core takes a small tensor whole, and more
    # bytes over more cores can be faster)
    last = 0.0
    for numel in [70000, 70001, 1 << 20, 3 << 20, 1 << 24, 1 << 26]:
        est = dt.estimate(None, numel, "float32", params=dt.default_params().replace(aggregate_gbps=aggregate))
        assert est.duration_us >= last * (1 - 1e-12)
        last = est.duration_us


@pytest.mark.parametrize("cost_model", dt.COST_MODELS)
def test_more_instructions_are_never_faster(cost_model):
    """Exactly monotone when the GM is not shared. Shared, greedy max-min sharing has timing anomalies (a longer
    Compute can shift transfers to where they share better), as real schedules do: bounded here by 2 %."""
    sequence = ["Muls", "Exp", "Adds", "Div", "Sub", "Mul", "Add", "Cast", "Duplicate", "MulDstAdd"]
    for aggregate, slack in ((1e9, 1e-12), (200.0, 0.02)):
        p = BASE.replace(cost_model=cost_model, aggregate_gbps=aggregate)
        last = 0.0
        for k in range(len(sequence) + 1):
            est = dt.estimate_custom(dtype="float32", inputs=2, outputs=1, instructions=sequence[:k],
                                     core_tiles=[[8000] * 5] * 6, params=p)
            assert est.duration_us >= last * (1 - slack)
            last = max(last, est.duration_us)


def test_swish_grad_tiles_follow_the_host_tiling():
    for platform, numel, dtype in [(REFERENCE_PLATFORM, 10_000_019, "float32"), (ASCEND950_PLATFORM, 777_777, "float16"),
                                   (REFERENCE_PLATFORM, 1, "bfloat16")]:
        est = dt.estimate(None, numel, dtype, platform=platform)
        assert est.valid
        tiling = compute_tiling(numel, dtype, platform=platform)
        assert est.n_cores == tiling.block_dim
        covered = int(est.tile_elements.sum())
        assert numel <= covered < numel + 32 * est.n_cores   # the A2 pads to whole blocks
        assert est.duration_us > est.head_us
        rows = est.pipe_utilization()
        assert len(rows) == est.n_cores and all(r["aiv_vec_time(us)"] > 0 for r in rows)


def test_estimate_uses_the_kernels_instruction_list():
    """A 16-bit tile runs the float32 sequence plus three Casts (x, g in; the result out), each on float32 data:
    pypto's default for an operation it does not list, latency 10, one cycle per repeat."""
    one_tile = {"smallCoreDataNum": 4096, "bigCoreDataNum": 4096, "finalBigTileNum": 1, "finalSmallTileNum": 1,
                "tileDataNum": 4096, "smallTailDataNum": 4096, "bigTailDataNum": 4096, "tailBlockNum": 0,
                "sconf": 1.0, "blockDim": 1}
    e32 = dt.estimate(one_tile, 4096, "float32", params=BASE)
    e16 = dt.estimate(one_tile, 4096, "float16", params=BASE)
    assert e32.n_cores == 1 and e32.tile_elements.tolist() == [4096]
    repeats = 4096 * 4 // 256
    cast = 10 + (repeats - 1)
    vec32 = e32.pipe_utilization()[0]["aiv_vec_time(us)"]
    assert e16.pipe_utilization()[0]["aiv_vec_time(us)"] == pytest.approx(vec32 + 3 * cast / CLOCK, rel=1e-12)
    # the A2 float32 sequence: 2 Muls, Exp, Adds, 3 Duplicates, Div, Sub, 3 Muls, Add (pypto's latencies)
    per = {"Muls": 7, "Exp": 12, "Adds": 6, "Duplicate": 10, "Div": 13, "Sub": 6, "Mul": 7, "Add": 6}
    count = {"Muls": 2, "Exp": 1, "Adds": 1, "Duplicate": 3, "Div": 1, "Sub": 1, "Mul": 3, "Add": 1}
    per_repeat = {"Exp": 2}
    expected = sum(count[k] * (per[k] + (repeats - 1) * per_repeat.get(k, 1)) for k in per)
    assert vec32 == pytest.approx(expected / CLOCK, rel=1e-12)


def test_invalid_tiling_is_refused_unless_allowed():
    t = compute_tiling(1 << 20, "float32")
    fields = {name: int(v) for name, v in zip(t.data.dtype.names, t.data.tolist()) if name != "sconf"}
    fields["tileDataNum"] = 100_000   # past the unified buffer
    fields["sconf"] = 1.0
    fields["blockDim"] = t.block_dim
    with pytest.raises(ValueError, match="tiling: the validator rejects it"):
        dt.estimate(fields, 1 << 20, "float32")
    est = dt.estimate(fields, 1 << 20, "float32", allow_invalid=True)
    assert not est.valid and est.findings


@pytest.mark.parametrize("kwargs,exc,match", [
    ({"instructions": ["Add", "Frobnicate"]}, ValueError, r"instructions: unknown instruction name\(s\) \['Frobnicate'\]"),
    ({"instructions": "Add"}, TypeError, "instructions must be a list"),
    ({"core_tiles": [[4096], [-5]]}, ValueError, r"core_tiles\[1\]: tile lengths must be >= 1"),
    ({"core_tiles": [[4096], [0]]}, ValueError, r"core_tiles\[1\]: tile lengths must be >= 1"),
    ({"core_tiles": [[4096], []]}, ValueError, r"core_tiles\[1\] must be a non-empty"),
    ({"core_tiles": []}, ValueError, "core_tiles must be a non-empty"),
    ({"core_tiles": [[1.5]]}, TypeError, r"core_tiles\[0\] must hold integers"),
    ({"buffer_num": 0}, ValueError, "buffer_num must be >= 1"),
    ({"inputs": 0}, ValueError, "inputs must be >= 1"),
    ({"dtype": "complex256"}, ValueError, "dtype: element size"),
    ({"params": {"clock_mhz": 1}}, TypeError, "params must be a devicetime.Params"),
])
def test_estimate_custom_bad_input(kwargs, exc, match):
    args = dict(dtype="float32", inputs=2, outputs=1, instructions=["Add"], core_tiles=[[4096]])
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        dt.estimate_custom(**args)


def test_estimate_bad_input():
    with pytest.raises(ValueError, match="op must be one of"):
        dt.estimate(None, 100, "float32", op="selu")
    with pytest.raises(ValueError, match="numel"):
        dt.estimate(None, 0, "float32")
    with pytest.raises(ValueError, match="dtype"):
        dt.estimate(None, 100, "int8")


def test_params_validation_and_toml_round_trip(tmp_path):
    with pytest.raises(ValueError, match="params.clock_mhz must be > 0"):
        dt.Params(clock_mhz=0)
    with pytest.raises(ValueError, match="params.cost_model"):
        dt.Params(cost_model="guess")
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['bogus'\]"):
        BASE.replace(bogus=1)
    p = BASE.replace(cost_model="pto-isa", issue_cycles=35.0, aggregate_gbps=1234.5e-3)
    path = tmp_path / "p.toml"
    dt.save_params(p, path)
    assert dt.load_params(path) == p
    path.write_text("[devicetime]\nhead_us = 4.0\n")
    assert dt.load_params(path, base=BASE) == BASE.replace(head_us=4.0)
    path.write_text("head_us = \n")
    with pytest.raises(ValueError, match="not valid TOML"):
        dt.load_params(path)
    path.write_text("frequency = 3\n")
    with pytest.raises(ValueError, match="unknown parameter"):
        dt.load_params(path)
    with pytest.raises(ValueError, match="cannot read it"):
        dt.load_params(tmp_path / "missing.toml")


def test_default_params_follow_the_soc():
    assert dt.default_params(REFERENCE_PLATFORM).soc == "Ascend910B1"
    assert dt.default_params(ASCEND950_PLATFORM).soc == "Ascend950DT_9581"
    from swishgrad_numba.platform import Platform
    assert dt.default_params(Platform(soc_version="Ascend910B4")).clock_mhz == 1500


def test_plot_draws_every_pipe():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    est = dt.estimate_custom(dtype="float32", inputs=2, outputs=1, instructions=["Add"], core_tiles=[[4096] * 3] * 2,
                             params=BASE)
    ax = est.plot()
    assert len(ax.collections) == 2 * 4
    plt.close("all")


def test_bare_record_takes_block_dim():
    t = compute_tiling(1 << 20, "float32")
    with pytest.raises(TypeError, match="block_dim is required"):
        dt.estimate(t.data, 1 << 20, "float32")
    assert dt.estimate(t.data, 1 << 20, "float32", block_dim=t.block_dim).duration_us == \
        dt.estimate(t, 1 << 20, "float32").duration_us


# ------------------------------------------------------------------ the family (issue 20's registry)

@pytest.mark.parametrize("op", ["swish", "silu", "silu_grad"])
@pytest.mark.parametrize("kernel", ["a2", "950"])
def test_every_operator_on_the_template_walk_is_modelled(op, kernel):
    from swishgrad_numba import ASCEND950_PLATFORM, compute_tiling
    from swishgrad_numba.ops import get_operator

    platform = ASCEND950_PLATFORM if kernel == "950" else None
    if op == "silu_grad" and kernel == "950":      # the broadcast walk (tests/test_devicetime_broadcast.py)
        est = dt.estimate(None, 1 << 20, "float32", op=op, platform=platform)
        assert "broadcast walk" in est.label and int(est.tile_elements.sum()) == 1 << 20
        return
    est = dt.estimate(None, 1 << 20, "float16", op=op, platform=platform)
    host = compute_tiling(1 << 20, "float16", platform=platform, op=op)
    assert len(est.pipe_utilization()) == host.block_dim
    if kernel == "a2":
        # The same launch written out by hand from the struct (model section 4's walk: the first
        # tailBlockNum cores big, tiles of tileDataNum, then the tail) and the kernel's instruction list
        # from docs/model.md, through estimate_custom: the registry wiring gives the same schedule.
        # (SiluGrad's A2 walk: passes of min(tileDataNum, what is left of the core's data).)
        f = host.fields
        tiles = []
        for core in range(host.block_dim):
            big = core < f["tailBlockNum"]
            if op == "silu_grad":
                data = f["bigCoreDataNum" if big else "smallCoreDataNum"]
                whole, rest = divmod(data, f["tileDataNum"])
                tiles.append([f["tileDataNum"]] * whole + ([rest] if rest else []))
                continue
            count = f["finalBigTileNum" if big else "finalSmallTileNum"]
            tail = f["bigTailDataNum" if big else "smallTailDataNum"]
            tiles.append([f["tileDataNum"]] * (count - 1) + [tail])
        steps = {"swish": ["Muls", "Exp", "Adds", "Div"], "silu": ["Muls", "Exp", "Adds", "Div"],
                 "silu_grad": ["Muls", "Exp", "Adds", "Duplicate", "Div", "Sub", "Mul", "Adds", "Mul", "Mul"]}[op]
        casts = ["Cast"] * (2 if get_operator(op).inputs == 2 else 1)
        by_hand = dt.estimate_custom(dtype="float16", compute_dtype="float32", inputs=get_operator(op).inputs,
                                     outputs=1, instructions=casts + steps + ["Cast"], core_tiles=tiles,
                                     buffer_num=1 if (op == "silu_grad" and host.tiling_key == 0) else 2)
        assert by_hand.duration_us == pytest.approx(est.duration_us, rel=1e-9)


def test_an_operators_record_must_be_its_own():
    from swishgrad_numba import compute_tiling

    with pytest.raises(TypeError, match="must be an 'swish' record"):
        dt.estimate(compute_tiling(4096, "float32"), 4096, "float32", op="swish")


# ------------------------------------------------------------------ issue 32: per-SoC rates, limits, clear errors

def test_the_950_runs_exp_and_div_at_a_quarter_of_add_and_mul():
    """Stated 950 rates: Add/Mul float32 256 B per cycle (one 256-byte repeat a cycle), Exp and Div 64 B per cycle
    (4 cycles a repeat); pypto's latencies stay. A2: Exp at pypto's 2 cycles a repeat, Div at 1."""
    p950 = dt.default_params(ASCEND950_PLATFORM).replace(issue_cycles=0.0)
    p_a2 = dt.default_params().replace(issue_cycles=0.0)
    repeats = 255                                     # one full call of float32 data
    n = repeats * 64
    per_repeat = {("950", "Add"): 1, ("950", "Mul"): 1, ("950", "Exp"): 4, ("950", "Div"): 4,
                  ("a2", "Add"): 1, ("a2", "Mul"): 1, ("a2", "Exp"): 2, ("a2", "Div"): 1}
    latency = {"Add": 6, "Mul": 7, "Exp": 12, "Div": 13}
    for (soc, name), cycles in per_repeat.items():
        p = p950 if soc == "950" else p_a2
        est = dt.estimate_custom(dtype="float32", inputs=1, outputs=1, instructions=[name], core_tiles=[[n]],
                                 params=p)
        expected = (latency[name] + (repeats - 1) * cycles) / p.clock_mhz
        assert est.pipe_utilization()[0]["aiv_vec_time(us)"] == pytest.approx(expected, rel=1e-12), (soc, name)


def test_buffer_num_past_the_tiles_changes_nothing_and_costs_nothing():
    """More buffers than tiles never wait."""
    args = dict(dtype="float32", inputs=2, outputs=1, instructions=["Add"], core_tiles=[[4096] * 4] * 3, params=BASE)
    four = dt.estimate_custom(buffer_num=4, **args)
    for many in (5, 21):
        assert dt.estimate_custom(buffer_num=many, **args).duration_us == four.duration_us


def test_buffer_num_is_refused_past_the_devices_64_buffers():
    """Issue 38: buffer_num=2**40 was estimated. A kernel's queues hold at most 64 buffers in all (AscendC
    TPipe::InitBuffer): with 2 inputs and 1 output, 21 per queue."""
    args = dict(dtype="float32", inputs=2, outputs=1, instructions=["Add"], core_tiles=[[4096] * 4], params=BASE)
    assert dt.estimate_custom(buffer_num=21, **args).duration_us > 0
    for bad in (22, 2 ** 40, 2 ** 41):
        with pytest.raises(ValueError, match=rf"buffer_num must be at most 21, got {bad}: a kernel's queues hold "
                                             r"at most 64 buffers in all .* 3 queues"):
            dt.estimate_custom(buffer_num=bad, **args)
    args.update(inputs=1, outputs=0)
    assert dt.estimate_custom(buffer_num=64, **args).duration_us > 0
    with pytest.raises(ValueError, match="buffer_num must be at most 64, got 65"):
        dt.estimate_custom(buffer_num=65, **args)
    # the operators' estimates: their inputs and output (swish: 2 queues, swish_grad: 3)
    assert dt.estimate(None, 1 << 20, "float32", op="swish", buffer_num=32).duration_us > 0
    for op, most in (("swish", 32), ("swish_grad", 21)):
        with pytest.raises(ValueError, match=f"buffer_num must be at most {most}, got {most + 1}"):
            dt.estimate(None, 1 << 20, "float32", op=op, buffer_num=most + 1)


@pytest.mark.parametrize("core_tiles,match", [
    ([[2 ** 63 - 1]], r"core_tiles\[0\]: tile lengths must be at most"),
    ([np.array([2 ** 64 - 1], dtype=np.uint64)], r"core_tiles\[0\]: tile lengths must be at most"),
    ([np.ones(dt.MAX_TILES + 1, dtype=np.int64)], "more than 4000000 tiles"),
])
def test_tile_counts_and_lengths_are_capped(core_tiles, match):
    with pytest.raises(ValueError, match=match):
        dt.estimate_custom(dtype="float32", inputs=1, outputs=1, instructions=[], core_tiles=core_tiles)


def test_equal_cores_share_one_simulation_and_so_pass_the_tile_cap():
    tiles = [[64] * 100_000] * 48       # 4.8 million tiles, one distinct core
    est = dt.estimate_custom(dtype="float32", inputs=1, outputs=1, instructions=[], core_tiles=tiles, params=BASE)
    assert est.n_cores == 48


def test_a_trace_past_its_cap_is_refused_before_anything_is_written(tmp_path):
    est = dt.estimate_custom(dtype="float32", inputs=1, outputs=1, instructions=[], core_tiles=[[64] * 100] * 3,
                             params=BASE)
    path = tmp_path / "t.json"
    with pytest.raises(ValueError, match="the trace would hold 1201 events"):
        est.write_trace(path, max_events=1000)
    assert not path.exists()
    est.write_trace(path, max_events=1201)
    json.loads(path.read_text())


@pytest.mark.parametrize("text,match", [
    ("head_us = 1.0\n[devicetime]\ndatacopy_cycles = 3.0\n", r"key\(s\) \['head_us'\] outside the \[devicetime\]"),
    ("devicetime = 5\n", "devicetime must be a table"),
    ("repeat_bytes = 1\n", "repeat_bytes must be a multiple of 32"),
    ("datacopy_cycles = 1e308\n", r"datacopy_cycles must lie in"),
    ("aggregate_gbps = 1e-300\n", r"aggregate_gbps must lie in"),
])
def test_params_files_that_would_mislead_are_refused(tmp_path, text, match):
    path = tmp_path / "p.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        dt.load_params(path)


def test_a_non_utf8_params_file_is_named(tmp_path):
    path = tmp_path / "p.toml"
    path.write_bytes(b"soc = \"\xff\xfe\"\n")
    with pytest.raises(ValueError, match=r"params file '.*p.toml': not UTF-8"):
        dt.load_params(path)


@pytest.mark.parametrize("soc", ['say "hi"', "back\\slash", "tab\tand\nnewline", "\x7f\U0001F600"])
def test_save_params_round_trips_any_string(tmp_path, soc):
    p = BASE.replace(soc=soc)
    dt.save_params(p, tmp_path / "p.toml")
    assert dt.load_params(tmp_path / "p.toml") == p


@pytest.mark.parametrize("bursts", [1, 64])
def test_a_dataCopy_pays_per_burst_and_more_per_unaligned_burst(bursts):
    """One core, no sharing: a copy's fixed part is datacopy + bursts x (burst + unaligned burst if unaligned)."""
    p = BASE.replace(burst_cycles=0.5, unaligned_burst_cycles=40.0)
    for aligned, per_burst in ((True, 0.5), (False, 40.5)):
        est = dt.estimate_custom(dtype="float16", inputs=1, outputs=0, instructions=[], core_tiles=[[4096] * 3],
                                 bursts=bursts, gm_aligned=aligned, params=p)
        expected = 3 * (F + bursts * per_burst + 8192 / 32.0) / CLOCK
        assert est.duration_us == pytest.approx(expected, rel=1e-12)


def test_every_instruction_of_the_program_form_has_a_cost_in_both_models():
    from swishgrad_numba.devicetime.params import INSTRUCTION_COSTS, VIEW_INSTRUCTIONS
    from swishgrad_numba.program.isa import INSTRUCTIONS

    for model, table in INSTRUCTION_COSTS.items():
        missing = sorted(set(INSTRUCTIONS) - set(table) - VIEW_INSTRUCTIONS)
        assert not missing, f"{model} has no cost for {missing}"


def test_a_view_costs_no_cycle_in_either_model():
    # a ReinterpretCast issues nothing: not even the fixed part a one-element instruction pays
    from swishgrad_numba.devicetime.params import COST_MODELS, VIEW_INSTRUCTIONS, default_params
    from swishgrad_numba.devicetime.stages import instruction_cycles

    assert "Reinterpret" in VIEW_INSTRUCTIONS
    for model in COST_MODELS:
        params = dataclasses.replace(default_params(), cost_model=model)
        assert instruction_cycles("Reinterpret", np.array([0, 1, 4096]), 2, params).tolist() == [0.0, 0.0, 0.0]
        assert instruction_cycles("Add", np.array([1]), 2, params)[0] > 0


def test_every_registered_operator_is_estimated_or_refused_with_the_reason():
    # the model charges a kernel's program (Gelu gives no list of its own); a kernel whose walk is not in
    # core-class form (the 950's BroadcastSch, the A2 EluGradV2's), or no kernel on the platform, is refused by
    # name, never a crash
    import re

    from swishgrad_numba import ASCEND950_PLATFORM, REFERENCE_PLATFORM
    from swishgrad_numba.ops import OPERATORS

    refused = set()
    for name, op in sorted(OPERATORS.items()):
        for platform in (None, REFERENCE_PLATFORM, ASCEND950_PLATFORM):
            arch = (platform or op.default_platform).architecture
            kernel = op.kernels.get(arch)
            try:
                est = dt.estimate(None, 1 << 16, "float16", op=name, platform=platform)
            except ValueError as exc:
                assert re.search("cannot run|not on the template's walk", str(exc)), (name, arch, exc)
                assert kernel is None or (kernel.walk != "broadcast" and "not on the template's walk" in str(exc))
                refused.add((name, arch))
                continue
            assert est.duration_us > 0, name
    # the template's operators and the first tier's are modelled on every kernel they have, the 950's
    # broadcast walk too (issue 38, 6d)
    for name in ("swish_grad", "swish", "silu", "sigmoid", "sigmoid_grad", "gelu", "gelu_grad", "fast_gelu", "leaky_relu",
                 "silu_grad", "leaky_relu_grad", "gelu_grad_v2"):
        assert not {(name, arch) for arch in OPERATORS[name].kernels} & refused, name
