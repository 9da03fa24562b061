"""Smoke and logic tests of swishgrad_numba.benchmark and ``swishgrad bench`` (no timing assertions)."""
from __future__ import annotations

import io
import json
import math
import os
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from reference import assert_bits_equal, ref_swish_grad, ref_swish_grad_950

from swishgrad_numba import ASCEND950_PLATFORM, Platform
from swishgrad_numba import benchmark as bm
from swishgrad_numba.benchmark import verdicts as tg
from swishgrad_numba.cli import main
from swishgrad_numba.dtypes import DTYPES, SUPPORTED_DTYPES

DTYPE_NAMES = list(SUPPORTED_DTYPES)
IMPLS = {"emulator", "numpy", "torch", "flat", "triad"}


# ------------------------------------------------------------------ parsing


@pytest.mark.parametrize("spec, exps", [
    ("10:12", [10, 11, 12]),
    ("10:16:3", [10, 13, 16]),
    ("20,10,16", [10, 16, 20]),
    ("12", [12]),
    ("12:12", [12]),
])
def test_parse_sizes(spec, exps):
    assert bm.parse_sizes(spec) == [2**e for e in exps]


@pytest.mark.parametrize("spec, match", [
    ("", "log2 exponents"),
    ("12:10", "start <= stop"),
    ("10:12:0", "step >= 1"),
    ("a:b", "log2 exponents"),
    ("1:2:3:4", "log2 exponents"),
    ("10,31", "0..30"),
    ("-1:3", "0..30"),
])
def test_parse_sizes_rejects(spec, match):
    with pytest.raises(ValueError, match=match):
        bm.parse_sizes(spec)


def test_parse_threads():
    limit = numba.config.NUMBA_NUM_THREADS
    assert bm.parse_threads(f"{limit},1,1") == sorted({1, limit})
    assert bm.parse_threads([1]) == [1]
    for bad in ("0", str(limit + 1), "x", ""):
        with pytest.raises(ValueError, match="threads"):
            bm.parse_threads(bad)


# ------------------------------------------------------------------ inputs and kernels


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_make_inputs_seeded_and_in_range(name):
    g1, x1 = bm.make_inputs(5000, name)
    g2, x2 = bm.make_inputs(5000, name)
    g3, _ = bm.make_inputs(5000, name, seed=1)
    assert g1.dtype == x1.dtype == SUPPORTED_DTYPES[name] and g1.shape == x1.shape == (5000,)
    assert np.array_equal(g1.view(np.uint8), g2.view(np.uint8)) and np.array_equal(x1.view(np.uint8),
                                                                                   x2.view(np.uint8))
    assert not np.array_equal(g1.view(np.uint8), g3.view(np.uint8))
    for a in (g1, x1):
        f = a.astype(np.float32)
        # Rounding to a 16-bit dtype may land exactly on 5.0.
        assert f.min() >= -5.0 and f.max() <= 5.0
        assert f.min() < -4.9 and f.max() > 4.9  # spread over the whole interval


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("n, chunk", [(1, 8), (1000, 64), (4099, bm.FLAT_CHUNK), (3 * 257, 257)])
def test_flat_loop_is_the_spec_arithmetic(name, n, chunk):
    g, x = bm.make_inputs(n, name, seed=n)
    # Edge values among the random ones: zeros, infinities, NaN, large |x|.
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 88.0, -100.0, 1e-30], dtype=np.float32)
    k = min(n, specials.size)
    x[:k] = specials[:k].astype(x.dtype)
    g[:k] = specials[::-1][:k].astype(x.dtype)
    g_before, x_before = g.copy(), x.copy()
    out = np.full(n, 7, dtype=x.dtype)
    assert bm.flat_loop(g, x, out, 1.1, chunk=chunk) is out
    assert_bits_equal(out, ref_swish_grad(g, x, 1.1), f"flat loop {name} n={n} chunk={chunk}")
    # The inputs are left alone even though the kernel's compute works in place.
    assert np.array_equal(g.view(np.uint8), g_before.view(np.uint8))
    assert np.array_equal(x.view(np.uint8), x_before.view(np.uint8))


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_flat_loop_on_the_950_kernel_is_its_arithmetic(name):
    g, x = bm.make_inputs(1500, name, seed=9)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 88.0, -100.0, 1e-30], dtype=np.float32)
    x[:specials.size] = specials.astype(x.dtype)
    out = bm.flat_loop(g, x, np.empty_like(x), 1.1, chunk=256, platform=ASCEND950_PLATFORM)
    assert_bits_equal(out, ref_swish_grad_950(g, x, 1.1), f"flat loop, 950 kernel, {name}")


def test_flat_loop_rejects_bad_arrays():
    g, x = bm.make_inputs(16, "float32")
    with pytest.raises(ValueError, match="out must be a 1-D C-contiguous float32"):
        bm.flat_loop(g, x, np.empty((4, 4), np.float32), 1.0)
    with pytest.raises(ValueError, match="x must be a 1-D C-contiguous float32"):
        bm.flat_loop(g, x.astype(np.float16), np.empty(16, np.float32), 1.0)
    with pytest.raises(ValueError, match="same size"):
        bm.flat_loop(g[:8], x, np.empty(16, np.float32), 1.0)
    with pytest.raises(ValueError, match="chunk"):
        bm.flat_loop(g, x, np.empty(16, np.float32), 1.0, chunk=0)


@pytest.mark.parametrize("parallel", [True, False])
def test_triad(parallel):
    rng = np.random.default_rng(3)
    b = rng.standard_normal(10007).astype(np.float32)
    c = rng.standard_normal(10007).astype(np.float32)
    a = np.zeros_like(b)
    bm.triad(a, b, c, 3.0, parallel=parallel)
    expected = b + np.float32(3.0) * c  # two float32 roundings, no FMA
    assert np.array_equal(a.view(np.uint32), expected.view(np.uint32))
    with pytest.raises(ValueError, match="float32"):
        bm.triad(a.astype(np.float64), b, c)


def test_time_call_counts_calls():
    calls = []
    result = bm.time_call(lambda: calls.append(1), repeat=3, min_time=0.0)
    # A warm-up, one calibration pass and three repeats of one call each.
    assert len(calls) == 1 + 1 + 3
    assert result["number"] == 1 and result["repeat"] == 3
    assert 0 < result["min_seconds"] <= result["seconds"]
    calls.clear()
    result = bm.time_call(lambda: calls.append(1), repeat=2, min_time=0.002)
    assert result["number"] > 1  # a no-op needs many calls to fill 2 ms
    with pytest.raises(ValueError, match="repeat"):
        bm.time_call(lambda: None, repeat=0)


def test_time_interleaved_takes_turns():
    order = []
    fns = {"a": lambda: order.append("a"), "b": lambda: order.append("b")}
    result = bm.time_interleaved(fns, repeat=3, min_time=0.0)
    # Per function: a warm-up and one calibration call; then the turns, in
    # alternating directions, so neither always runs right after the other.
    assert order == ["a", "a", "b", "b"] + ["a", "b", "b", "a", "a", "b"]
    assert set(result) == {"a", "b"}
    for timing in result.values():
        assert timing["number"] == 1 and timing["repeat"] == 3
        assert 0 < timing["min_seconds"] <= timing["seconds"]
    with pytest.raises(ValueError, match="repeat"):
        bm.time_interleaved(fns, repeat=0)


def test_time_interleaved_runs_setups_before_each_turn():
    log = []
    fns = {"a": lambda: log.append("a"), "b": lambda: log.append("b")}
    setups = {"a": lambda: log.append("setup a")}
    bm.time_interleaved(fns, repeat=2, min_time=0.0, setups=setups)
    assert log == ["setup a", "a", "a", "b", "b"] + ["setup a", "a", "b"] + ["b", "setup a", "a"]


# ------------------------------------------------------------------ the comparison


@pytest.fixture(scope="module")
def small_run():
    threads = sorted({1, numba.config.NUMBA_NUM_THREADS})
    return bm.run_comparison([256, 1000], ["float32", "bfloat16"], threads, repeat=1, min_time=0.0,
                             use_torch=False), threads


def test_run_comparison_rows(small_run):
    rows, threads = small_run
    cells = {(r["dtype"], r["size"], r["threads"]) for r in rows}
    assert cells == {(d, n, k) for d in ("float32", "bfloat16") for n in (256, 1000) for k in threads}
    for d, n, k in cells:
        mine = [r for r in rows if (r["dtype"], r["size"], r["threads"]) == (d, n, k)]
        kinds = sorted((r["impl"], r["variant"], r["beta"]) for r in mine if r["impl"] != "triad")
        assert kinds == sorted([("emulator", v, b) for v in ("out", "alloc") for b in (1.1, 1.0)]
                               + [("flat", "out", 1.1), ("numpy", "alloc", 1.1),
                                  ("torch", "alloc", 1.0), ("torch", "out", 1.0)])
        assert sum(r["impl"] == "triad" for r in mine) == 1
    itemsize = {"float32": 4, "bfloat16": 2}
    for r in rows:
        assert r["impl"] in IMPLS
        assert r["log2_size"] == int(math.log2(r["size"]))
        if r["impl"] == "torch":
            assert r["skipped"] == "disabled" and r["seconds"] is None
            continue
        assert r["seconds"] > 0
        assert r["elements_per_s"] == pytest.approx(r["size"] / r["seconds"])
        assert r["gb_per_s"] == pytest.approx(3 * r["size"] * itemsize[r["dtype"]] / r["seconds"] / 1e9)
        triad = next(t for t in rows if t["impl"] == "triad" and t["dtype"] == r["dtype"]
                     and t["size"] == r["size"] and t["threads"] == r["threads"])
        assert r["roofline_pct"] == pytest.approx(100 * r["gb_per_s"] / triad["gb_per_s"])
        if r["impl"] == "flat":
            assert r["matches_emulator"] is True
        if r["impl"] == "emulator":
            numpy_row = next(t for t in rows if t["impl"] == "numpy" and t["dtype"] == r["dtype"]
                             and t["size"] == r["size"] and t["threads"] == r["threads"])
            if r["beta"] == bm.BETA_NUMPY:
                assert r["ratio_numpy"] == pytest.approx(numpy_row["seconds"] / r["seconds"])
            else:
                assert r["ratio_numpy"] is None
            assert r["ratio_torch"] is None  # torch was not timed


def test_run_comparison_restores_threads(small_run):
    before = numba.get_num_threads()
    bm.run_comparison([64], ["float16"], [1], repeat=1, min_time=0.0, use_torch=False)
    assert numba.get_num_threads() == before


def test_run_comparison_without_torch_installed(monkeypatch):
    monkeypatch.setattr(bm.peers, "torch_available", lambda: False)
    rows = bm.run_comparison([64], ["float32"], [1], repeat=1, min_time=0.0)
    torch_rows = [r for r in rows if r["impl"] == "torch"]
    assert len(torch_rows) == 2 and all(r["skipped"] == "torch not installed" for r in torch_rows)
    assert "skip" in bm.format_table(rows)


def test_run_comparison_with_torch():
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    rows = bm.run_comparison([128], ["bfloat16"], [1], repeat=1, min_time=0.0)
    assert torch.get_num_threads() == before
    for variant in ("alloc", "out"):
        t = next(r for r in rows if r["impl"] == "torch" and r["variant"] == variant)
        assert t["skipped"] is None and t["seconds"] > 0
        e = next(r for r in rows if r["impl"] == "emulator" and r["variant"] == variant and r["beta"] == 1.0)
        assert e["ratio_torch"] == pytest.approx(t["seconds"] / e["seconds"])


@pytest.mark.parametrize("kwargs, match", [
    (dict(sizes=[]), "sizes"),
    (dict(sizes=[0]), "sizes"),
    (dict(sizes=[8], dtypes_=["int8"]), "dtypes"),
    (dict(sizes=[8], threads=[0]), "threads"),
    (dict(sizes=[8], repeat=0), "repeat"),
])
def test_run_comparison_rejects(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        bm.run_comparison(**kwargs)


def test_table_lists_every_cell(small_run):
    rows, threads = small_run
    table = bm.format_table(rows)
    body = [line for line in table.splitlines() if line.startswith(("float32 ", "bfloat16 "))]
    assert len(body) == 2 * 2 * len(threads)
    assert any("2^8" in line for line in body)


# ------------------------------------------------------------------ targets


def _rows(dtype, size, threads, *, emu, numpy=None, torch=None, flat=None, roofline_pct=None):
    """Rows of one cell as run_comparison makes them, from chosen median seconds (None: not timed)."""
    itemsize = DTYPES[dtype].itemsize

    def row(impl, variant, beta, seconds, **extra):
        timed = seconds is not None
        mine = impl in ("emulator", "flat")
        return dict(impl=impl, variant=variant, beta=beta, dtype=dtype, size=size, log2_size=int(math.log2(size)),
                    threads=threads, seconds=seconds, elements_per_s=size / seconds if timed else None,
                    gb_per_s=3 * size * itemsize / seconds / 1e9 if timed else None, ratio_torch=None,
                    ratio_numpy=None, roofline_pct=None, skipped=None if timed else "disabled",
                    kernel="a2" if mine else None, soc="ascend910b" if mine else None, **extra)

    rows = []
    for variant in ("out", "alloc"):
        for beta in (bm.BETA_NUMPY, bm.BETA_TORCH):
            r = row("emulator", variant, beta, emu)
            if beta == bm.BETA_NUMPY and numpy is not None:
                r["ratio_numpy"] = numpy / emu
            if beta == bm.BETA_TORCH and torch is not None:
                r["ratio_torch"] = torch / emu
            rows.append(r)
    rows.append(row("flat", "out", bm.BETA_NUMPY, emu if flat is None else flat, matches_emulator=True))
    rows.append(row("numpy", "alloc", bm.BETA_NUMPY, numpy))
    rows += [row("torch", variant, bm.BETA_TORCH, torch) for variant in ("alloc", "out")]
    # a triad over the same bytes that puts the emulator at roofline_pct
    pct = 100.0 if roofline_pct is None else roofline_pct
    rows.append(row("triad", "parallel", None, emu * pct / 100.0))
    for r in rows:
        if r["gb_per_s"] is not None:
            r["roofline_pct"] = 100.0 * r["gb_per_s"] / rows[-1]["gb_per_s"]
    return rows


def _scaling(dtype, cores, t1, t2):
    rows = []
    for k, t in ((1, t1), (2, t2)):
        rows.append(dict(impl="emulator", variant="out", dtype=dtype, size=bm.SCALING_SIZE, threads=k, cores=cores,
                         seconds=t, speedup=t1 / t, kernel="a2", soc="ascend910b"))
    return rows


def _line(lines, dtype, fragment):
    found = [t for t in lines if t["target"].startswith(f"{dtype}:") and fragment in t["target"]]
    assert len(found) == 1, (dtype, fragment, [t["target"] for t in lines])
    return found[0]


@pytest.fixture(scope="module")
def synthetic_targets():
    rows = (_rows("float32", 2**24, 1, emu=2.0, torch=1.0)                   # 1 thread: not the figure used
            + _rows("float32", 2**24, 2, emu=1.0, torch=0.9, flat=0.95)      # 0.9x < 1.0: MISS
            + _rows("float32", 2**20, 2, emu=1.0, torch=0.8)                 # 0.8x >= 0.7: PASS
            + _rows("float32", 2**10, 2, emu=1.0, numpy=1.25)                # faster than NumPy: PASS
            + _rows("float16", 2**20, 2, emu=1.0, torch=1.6)                 # PASS
            + _rows("float16", 2**24, 2, emu=1.0, torch=1.4, roofline_pct=60.0)  # MISS; roofline PASS
            + _rows("float16", 2**10, 2, emu=1.0, numpy=0.9)                 # slower than NumPy: MISS
            + _rows("bfloat16", 2**24, 2, emu=1.0, roofline_pct=40.0))       # torch skipped; roofline MISS
    scaling = _scaling("float32", 1, 2.0, 1.1) + _scaling("float32", 3, 2.0, 1.2)  # 1.82x PASS, 1.67x MISS
    cold = [dict(dtype="float32", size=2**20, total_s=0.8, process_s=1.0),
            dict(dtype="float16", size=2**20, total_s=1.2, process_s=1.4)]
    mib = 1 << 20
    memory = [dict(dtype="float32", size=2**24, threads=2, growth_bytes=mib, output_bytes=64 * mib, kernel="a2",
                   soc="ascend910b"),
              dict(dtype="float16", size=2**24, threads=2, growth_bytes=32 * mib, output_bytes=32 * mib,
                   kernel="a2", soc="ascend910b")]
    return bm.targets(rows, cold, scaling, memory)


@pytest.mark.parametrize("dtype, fragment, verdict, value", [
    ("float32", ">= 1x torch silu_backward (out=), 2^24, 2 thr", "MISS", 0.9),
    ("float32", ">= 0.7x torch silu_backward (out=), 2^20, 2 thr", "PASS", 0.8),
    ("float16", ">= 1.5x torch silu_backward (out=), 2^20", "PASS", 1.6),
    ("float16", ">= 1.5x torch silu_backward (out=), 2^24", "MISS", 1.4),
    ("float16", ">= 50% of the triad roofline, 2^24", "PASS", 60.0),
    ("bfloat16", ">= 50% of the triad roofline, 2^24", "MISS", 40.0),
    ("float32", "a 1-core launch on 2 threads >= 1.7x", "PASS", 2.0 / 1.1),
    ("float32", "a 3-core launch on 2 threads >= 1.8x", "MISS", 2.0 / 1.2),
    ("float32", "1,024-element call no slower than the NumPy golden", "PASS", 1.25),
    ("float16", "1,024-element call no slower than the NumPy golden", "MISS", 0.9),
    ("float32", "tile structure <= 10% slower than flat loop (2^24, 2 thr)", "PASS", 1.0 / 0.95 - 1),
    ("float32", "cold start (import + first 2^20 call, warm cache) within 1 s", "PASS", 0.8),
    ("float16", "cold start", "MISS", 1.2),
    ("float32", "memory of one 2^24 call", "PASS", 1 << 20),
    ("float16", "memory of one 2^24 call", "MISS", 32 << 20),
])
def test_targets_verdicts(synthetic_targets, dtype, fragment, verdict, value):
    line = _line(synthetic_targets, dtype, fragment)
    assert line["verdict"] == verdict
    assert line["value"] == pytest.approx(value)


@pytest.mark.parametrize("dtype, fragment, text", [
    ("bfloat16", "torch silu_backward (out=), 2^24", "skipped"),
    ("bfloat16", "torch silu_backward (out=), 2^20", "2^20 not measured"),
    ("bfloat16", "1,024-element call", "not measured"),
    ("float16", "a 1-core launch", "not measured"),
    ("bfloat16", "cold start", "not measured"),
    ("bfloat16", "memory", "not measured"),
])
def test_targets_not_measured_are_listed(synthetic_targets, dtype, fragment, text):
    line = _line(synthetic_targets, dtype, fragment)
    assert line["verdict"] == "n/a" and line["value"] is None and text in line["text"]


def test_targets_name_their_peer_and_figures(synthetic_targets):
    torch_line = _line(synthetic_targets, "float32", "torch silu_backward (out=), 2^24")
    assert torch_line["peer"] == "torch silu_backward (out=)" and torch_line["kernel"] == "a2 (ascend910b)"
    assert torch_line["text"].startswith("0.90x: torch") and "G elt/s" in torch_line["text"]
    assert _line(synthetic_targets, "float32", "NumPy golden")["peer"] == "NumPy golden"
    assert _line(synthetic_targets, "float32", "1-core launch")["text"].startswith("1.82x: 2000.00 ms on 1 thread")
    text = bm.format_targets(synthetic_targets)
    assert "both timed in this run" in text and "Emulator kernel: a2 (ascend910b)." in text
    assert text.splitlines()[0].startswith("PASS  float32: emulator (out=) >= 0.7x torch")


def test_targets_fall_back_to_largest_size_and_skipped_torch():
    rows = _rows("float16", 2**12, 1, emu=1.0, numpy=2.0, flat=0.5)
    lines = bm.targets(rows)
    flat_line = next(t for t in lines if "flat" in t["target"])
    assert "2^12" in flat_line["target"]
    assert flat_line["verdict"] == "MISS"  # twice the flat loop's time
    torch_lines = [t for t in lines if "torch" in t["target"]]
    assert torch_lines and all(t["verdict"] == "n/a" for t in torch_lines)
    # one thread count, no scaling run: the scaling targets are listed but not judged
    scaling_lines = [t for t in lines if "launch on 2 threads" in t["target"]]
    assert len(scaling_lines) == len(tg.SCALING_TARGETS) and all(t["verdict"] == "n/a" for t in scaling_lines)
    assert bm.format_targets([]) == "targets: nothing measured"


def test_memory_allowance_grows_with_threads():
    assert tg.memory_allowance(1) == tg.MEMORY_FIXED_BYTES + tg.MEMORY_PER_THREAD_BYTES
    assert tg.memory_allowance(16) - tg.memory_allowance(1) == 15 * tg.MEMORY_PER_THREAD_BYTES


# ------------------------------------------------------------------ thread scaling


def test_thread_scaling_rows():
    limit = numba.config.NUMBA_NUM_THREADS
    before = numba.get_num_threads()
    rows = bm.thread_scaling(size=1 << 16, dtypes_=["float32", "bfloat16"], cores=(1, 3), threads=[limit],
                             repeat=1, min_time=0.0, platform=ASCEND950_PLATFORM)
    assert numba.get_num_threads() == before
    threads = sorted({1, limit})  # 1 thread is always measured: the speed-ups are against it
    assert [(r["dtype"], r["cores"], r["threads"]) for r in rows] == [
        (d, c, k) for d in ("float32", "bfloat16") for c in (1, 3) for k in threads]
    for r in rows:
        assert (r["impl"], r["variant"], r["size"], r["beta"]) == ("emulator", "out", 1 << 16, bm.BETA_NUMPY)
        assert (r["kernel"], r["soc"]) == ("arch35", "ascend950")
        assert r["seconds"] > 0 and r["elements_per_s"] == pytest.approx(r["size"] / r["seconds"])
        one = bm.find_row(rows, dtype=r["dtype"], cores=r["cores"], threads=1)
        assert r["speedup"] == pytest.approx(one["seconds"] / r["seconds"])
    table = bm.format_scaling(rows)
    assert "arch35 (ascend950)" in table and len(table.splitlines()) == 2 + len(rows) + 1


@pytest.mark.parametrize("kwargs, match", [
    (dict(size=0), "size"),
    (dict(cores=()), "cores"),
    (dict(cores=(0,)), "cores"),
    (dict(threads=[0]), "threads"),
    (dict(platform="ascend950"), "platform"),
])
def test_thread_scaling_rejects(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        bm.thread_scaling(**{"size": 64, **kwargs})


# ------------------------------------------------------------------ the 950 kernel, torch glue


def test_run_comparison_on_the_950_kernel():
    rows = bm.run_comparison([5000], ["float16"], [1], repeat=1, min_time=0.0, use_torch=False,
                             platform=Platform(soc_version="Ascend950PR_9599"))
    for r in rows:
        mine = r["impl"] in ("emulator", "flat")
        assert (r["kernel"], r["soc"]) == (("arch35", "ascend950") if mine else (None, None))
    assert bm.find_row(rows, impl="flat")["matches_emulator"] is True
    assert "arch35 (ascend950)" in bm.format_table(rows).splitlines()[0]


def test_torch_tensor_follows_the_dtype_table():
    torch = pytest.importorskip("torch")
    for info in DTYPES.values():
        g, _ = bm.make_inputs(100, info.name)
        t = bm.torch_tensor(g)
        assert t.dtype == getattr(torch, info.torch_name) and t.data_ptr() == g.ctypes.data
        assert np.array_equal(t.float().numpy(), g.astype(np.float32))


# ------------------------------------------------------------------ memory


def test_memory_growth_in_a_fresh_process():
    m = bm.memory_growth("float32", size=1 << 22)
    out_bytes = 4 << 22
    assert (m["dtype"], m["size"], m["output_bytes"]) == ("float32", 1 << 22, out_bytes)
    assert m["method"] in ("VmHWM after clear_refs", "ru_maxrss")
    assert m["threads"] >= 1 and (m["kernel"], m["soc"]) == ("a2", "ascend910b")
    # inputs and output are resident before the call: the measurement sees resident memory
    assert m["before_bytes"] > 3 * out_bytes
    assert m["peak_bytes"] >= m["before_bytes"]
    assert m["growth_bytes"] == m["peak_bytes"] - m["before_bytes"]
    # the call copies neither its output nor an input
    assert 0 <= m["growth_bytes"] < out_bytes
    assert "fresh process" in bm.format_memory([m])
    with pytest.raises(ValueError, match="size"):
        bm.memory_growth("float32", size=0)


# ------------------------------------------------------------------ cold start, machine


def test_cold_start_reports_the_last_fresh_process():
    res = bm.cold_start("float16", size=1024, runs=1)
    assert res["dtype"] == "float16" and res["size"] == 1024 and len(res["runs"]) == 1
    assert 0 < res["first_call_s"] < res["total_s"] < res["process_s"]
    with pytest.raises(ValueError, match="runs"):
        bm.cold_start("float32", runs=0)


def test_machine_info():
    info = bm.machine_info()
    assert info["cpu_count"] >= 1 and info["numpy"] == np.__version__ and info["numba"] == numba.__version__


# ------------------------------------------------------------------ CLI


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_cli_bench_quick_json(tmp_path, capsys, monkeypatch):
    path = tmp_path / "bench.json"
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["bench", "--quick", "--dtypes", "float32", "--threads", "1", "--repeat", "1",
                 "--json", str(path)]) == 0
    captured = capsys.readouterr()
    assert "targets (a report, not a test)" in captured.out
    assert "100%" in terminal.getvalue() and "step" in terminal.getvalue()  # tqdm's bar, on a terminal
    data = json.loads(path.read_text())
    assert data["config"]["sizes"] == [1024, 4096] and data["config"]["threads"] == [1]
    assert {r["impl"] for r in data["results"]} == IMPLS
    assert {r["size"] for r in data["results"]} == {1024, 4096}
    assert data["cold_start"] == [] and data["memory"] == []  # --quick skips them
    assert (data["config"]["soc"], data["config"]["kernel"]) == ("ascend910b", "a2")
    scaling = data["thread_scaling"]
    assert {(r["cores"], r["threads"]) for r in scaling} == {(c, k) for c in bm.SCALING_CORES
                                                             for k in {1, min(2, numba.config.NUMBA_NUM_THREADS)}}
    assert all(r["size"] == bm.SCALING_SIZE for r in scaling)
    assert "thread scaling: the a2 (ascend910b) kernel" in captured.out
    assert data["machine"]["numba"] == numba.__version__
    assert all(t["verdict"] in ("PASS", "MISS", "n/a") for t in data["targets"])


def test_cli_bench_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png = tmp_path / "bench.png"
    assert main(["bench", "--quick", "--sizes", "6,8", "--dtypes", "bf16", "--repeat", "1", "--no-progress",
                 "--no-torch", "--no-scaling", "--soc", "ascend950", "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    captured = capsys.readouterr()
    assert captured.err == ""
    assert "the arch35 (ascend950) kernel" in captured.out and "thread scaling: not measured" in captured.out


@pytest.mark.parametrize("argv, match", [
    (["--sizes", "12:10"], "sizes"),
    (["--dtypes", "float64"], "--dtypes"),
    (["--threads", "0"], "threads"),
    (["--repeat", "0"], "--repeat"),
    (["--soc", "ascend999"], "--soc"),
])
def test_cli_bench_rejects(argv, match, capsys):
    assert main(["bench", "--quick", *argv]) == 2
    err = capsys.readouterr().err
    assert "error" in err and match in err


def test_torch_is_loaded_with_passive_openmp_workers():
    # Issue: torch's spinning OpenMP workers took the cores from the call
    # timed after it; the benchmark loads torch with passive workers.
    code = """
import json, os, sys
from swishgrad_numba.benchmark import peers
ok = peers.torch_available()
print(json.dumps([ok, os.environ.get("OMP_WAIT_POLICY"), peers.torch_omp_wait_policy()]))
"""
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    ok, env_policy, policy = json.loads(out.stdout.strip().splitlines()[-1])
    if not ok:
        pytest.skip("torch is not installed")
    assert env_policy == "PASSIVE" and policy == "PASSIVE"
