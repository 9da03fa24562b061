"""Smoke and logic tests of swishgrad_numba.benchmark and ``swishgrad bench`` (no timing assertions)."""
from __future__ import annotations

import io
import json
import math

import numba
import numpy as np
import pytest
from reference import assert_bits_equal, ref_swish_grad

from swishgrad_numba import benchmark as bm
from swishgrad_numba.cli import main
from swishgrad_numba.cli.bench import ProgressBar
from swishgrad_numba.dtypes import SUPPORTED_DTYPES

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
    # Per function: a warm-up and one calibration call; then a, b alternate.
    assert order == ["a", "a", "b", "b"] + ["a", "b"] * 3
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
    assert log == ["setup a", "a", "a", "b", "b"] + ["setup a", "a", "b"] * 2


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
    monkeypatch.setattr(bm, "torch_available", lambda: False)
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


def _synthetic(dtype, size, threads, t_emu, t_numpy, t_torch, t_flat):
    """Rows as run_comparison makes them, with chosen median times."""
    rows = []
    for variant in ("out", "alloc"):
        for beta in (1.1, 1.0):
            rows.append(dict(impl="emulator", variant=variant, beta=beta, dtype=dtype, size=size,
                             threads=threads, seconds=t_emu,
                             ratio_numpy=t_numpy / t_emu if beta == 1.1 else None,
                             ratio_torch=t_torch / t_emu if beta == 1.0 else None))
    rows.append(dict(impl="flat", variant="out", beta=1.1, dtype=dtype, size=size, threads=threads,
                     seconds=t_flat, matches_emulator=True))
    return rows


def test_targets_verdicts():
    rows = (_synthetic("float32", 2**24, 1, 2.0, 11.0, 3.1, 1.9)     # 1 thread
            + _synthetic("float32", 2**24, 2, 1.0, 11.0, 1.4, 0.95)  # 2 threads: 1.1x torch, 11x numpy
            + _synthetic("float32", 2**20, 2, 1.0, 1.0, 1.0, 1.0)    # not the target size
            + _synthetic("float32", 2**10, 2, 3.0, 1.0, 1.0, 1.0))   # 3x NumPy's time at 1,024
    cold = [dict(dtype="float32", size=2**20, total_s=1.5, process_s=1.6)]
    lines = {t["target"].split(": ", 1)[1].split(" (")[0]: t for t in bm.targets(rows, cold)}
    assert lines[">= 1.5x torch silu_backward"]["verdict"] == "MISS"
    assert lines[">= 1.5x torch silu_backward"]["value"] == pytest.approx(1.4)
    assert lines[">= 5x NumPy golden"]["verdict"] == "PASS"
    assert lines["tile structure <= 10% slower than flat loop"]["value"] == pytest.approx(1.0 / 0.95 - 1)
    assert lines["tile structure <= 10% slower than flat loop"]["verdict"] == "PASS"
    assert lines["2 threads >= 1.7x 1 thread"]["value"] == pytest.approx(2.0)
    assert lines["2 threads >= 1.7x 1 thread"]["verdict"] == "PASS"
    assert lines["at 1,024 elements <= 2x NumPy golden's time"]["verdict"] == "MISS"
    assert lines["cold start"]["verdict"] == "PASS"
    assert "2^24" in bm.format_targets(bm.targets(rows, cold))


def test_targets_fall_back_to_largest_size_and_skipped_torch():
    rows = _synthetic("float16", 2**12, 1, 1.0, 2.0, 1.0, 0.5)
    for r in rows:
        r["ratio_torch"] = None
    lines = bm.targets(rows)
    assert all("2^12" in t["target"] for t in lines if "flat" in t["target"] or "NumPy golden (" in t["target"])
    torch_line = next(t for t in lines if "torch" in t["target"])
    assert torch_line["verdict"] == "n/a" and "skipped" in torch_line["text"]
    flat_line = next(t for t in lines if "flat" in t["target"])
    assert flat_line["verdict"] == "MISS"  # twice the flat loop's time
    assert not any("threads" in t["target"] for t in lines)  # one thread count only


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


def test_progress_bar_plain_stream():
    stream = io.StringIO()
    bar = ProgressBar(stream, width=10)
    bar(1, 4, "first")
    bar(4, 4, "last")
    assert stream.getvalue().splitlines() == ["[##........] 1/4 first", "[##########] 4/4 last"]


def test_cli_bench_quick_json(tmp_path, capsys):
    path = tmp_path / "bench.json"
    assert main(["bench", "--quick", "--dtypes", "float32", "--threads", "1", "--repeat", "1",
                 "--json", str(path)]) == 0
    captured = capsys.readouterr()
    assert "targets (a report, not a test)" in captured.out
    assert "1/" in captured.err  # the progress bar
    data = json.loads(path.read_text())
    assert data["config"]["sizes"] == [1024, 4096] and data["config"]["threads"] == [1]
    assert {r["impl"] for r in data["results"]} == IMPLS
    assert {r["size"] for r in data["results"]} == {1024, 4096}
    assert data["cold_start"] == []  # --quick skips it
    assert data["machine"]["numba"] == numba.__version__
    assert all(t["verdict"] in ("PASS", "MISS", "n/a") for t in data["targets"])


def test_cli_bench_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png = tmp_path / "bench.png"
    assert main(["bench", "--quick", "--sizes", "6,8", "--dtypes", "bf16", "--repeat", "1", "--no-progress",
                 "--no-torch", "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("argv, match", [
    (["--sizes", "12:10"], "sizes"),
    (["--dtypes", "float64"], "--dtypes"),
    (["--threads", "0"], "threads"),
    (["--repeat", "0"], "--repeat"),
])
def test_cli_bench_rejects(argv, match, capsys):
    assert main(["bench", "--quick", *argv]) == 2
    err = capsys.readouterr().err
    assert "error" in err and match in err
