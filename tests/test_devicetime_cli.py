"""``swishgrad timeline``: output, files, modes and usage errors."""
import json

import pytest

from swishgrad_numba.cli import main
from swishgrad_numba.tiling import compute_tiling
from swishgrad_numba.tiling.io import write_tiling_bin


def test_timeline_prints_time_bottleneck_and_the_profilers_columns(capsys, tmp_path):
    trace, js = tmp_path / "t.json", tmp_path / "e.json"
    assert main(["timeline", "--numel", "100000", "--dtype", "float16", "--trace", str(trace), "--json", str(js)]) == 0
    out = capsys.readouterr().out
    assert "launch time" in out and "bottleneck" in out and "aiv_mte2_ratio" in out and "not a measurement" in out
    data = json.loads(js.read_text())
    assert data["estimate"]["duration_us"] > 0
    assert f"{data['estimate']['duration_us']:.3f} us" in out
    events = json.loads(trace.read_text())["traceEvents"]
    assert {e["args"]["name"] for e in events if e["name"] == "thread_name"} >= {"VECTOR", "MTE2", "MTE3", "SCALAR"}


def test_timeline_compare_and_best(capsys):
    assert main(["timeline", "--numel", "300000", "--compare", "buffer_num=1", "cores=4", "tileDataNum=1024",
                 "tailBlockNum=7"]) == 0
    out = capsys.readouterr().out
    assert "buffer_num=1" in out and "cores=4" in out and "INVALID" in out
    assert main(["timeline", "--numel", "300000", "--soc", "ascend950", "--best"]) == 0
    assert "valid tilings" in capsys.readouterr().out


def test_timeline_reads_a_tiling_file_and_params(capsys, tmp_path):
    t = compute_tiling(50000, "float32")
    path = tmp_path / "t.bin"
    write_tiling_bin(path, t.data)
    params = tmp_path / "p.toml"
    params.write_text("head_us = 100.0\nhead_per_block_us = 0.0\n")
    assert main(["timeline", "--numel", "50000", "--file", str(path), "--block-dim", str(t.block_dim),
                 "--params", str(params)]) == 0
    assert "head overhead 100.000 us" in capsys.readouterr().out


@pytest.mark.parametrize("argv,match", [
    (["--numel", "100", "--dtype", "int8"], "dtype"),
    (["--numel", "100", "--params", "/nonexistent.toml"], "--params"),
    (["--numel", "100", "--file", "/nonexistent.bin"], "--file"),
    (["--numel", "100", "--compare", "bogus=3"], "unknown field"),
    (["--numel", "100", "--compare", "cores"], "FIELD=INTEGER"),
    (["--numel", "100", "--best", "--compare", "cores=2"], "one of them"),
    (["--numel", "100", "--trace", "/nonexistent/dir/t.json"], "--trace"),
])
def test_timeline_usage_errors(argv, match, capsys):
    assert main(["timeline", *argv]) == 2
    assert match in capsys.readouterr().err


def test_timeline_chip_sets_cores(capsys):
    assert main(["timeline", "--numel", "10000000", "--soc", "Ascend910B4"]) == 0
    out = capsys.readouterr().out
    assert "(40 cores)" in out and "0-39" in out


@pytest.mark.parametrize("op", ["swish", "silu", "silu_grad"])
def test_timeline_of_another_operator(capsys, op):
    assert main(["timeline", "--numel", "300000", "--dtype", "bfloat16", "--op", op]) == 0
    out = capsys.readouterr().out
    assert op in out and "aiv_vec_time(us)" in out
    assert main(["timeline", "--numel", "300000", "--op", op, "--best"]) == 2
    assert "--best works on SwishGrad's tilings" in capsys.readouterr().err
