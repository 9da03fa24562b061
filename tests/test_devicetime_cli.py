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


@pytest.mark.parametrize("argv,match", [
    (["--compare", "tailBlockNum=-5"], "tailBlockNum is a uint64 field"),
    (["--compare", "tailBlockNum=99999999999999999999"], "tailBlockNum is a uint64 field"),
    (["--compare", "buffer_num=2**40"], "FIELD=INTEGER"),
    (["--compare", "buffer_num=2199023255552"], "--compare 'buffer_num=2199023255552': buffer_num must be at most 21"),
    (["--json", "/proc/version"], "--json: cannot write '/proc/version'"),
    (["--trace", "/dev/full"], "--trace: cannot write '/dev/full'"),
    (["--json", "/dev/full"], "--json: cannot write '/dev/full'"),
    (["--plot", "/dev/full"], "--plot: cannot write '/dev/full'"),
])
def test_timeline_errors_are_usage_errors_not_tracebacks(argv, match, capsys):
    assert main(["timeline", "--numel", "100000", *argv]) == 2
    assert match in capsys.readouterr().err


def test_timeline_params_errors_name_the_option(tmp_path, capsys):
    path = tmp_path / "p.toml"
    for content in (b"devicetime = 5\n", b"soc = \"\xff\"\n", b"datacopy_cycles = 1e308\n"):
        path.write_bytes(content)
        assert main(["timeline", "--numel", "100000", "--params", str(path)]) == 2
        err = capsys.readouterr().err
        assert "--params: params file" in err and "p.toml" in err


@pytest.mark.parametrize("text", ["buffer_num=1099511627776", "buffer_num=22", "buffer_num=0", "cores=0",
                                  "core_num=49", "block_dim=1099511627776", "tileDataNum=7", "tileDataNum=0"])
def test_timeline_compare_is_checked_as_the_estimates_own_arguments(text, capsys):
    # issue 38: buffer_num=2**40 exited 0; every --compare key is refused (exit 2, naming --compare, the text
    # and the rule) by the rule the estimate and the host tiling apply to their own arguments, before any output
    import swishgrad_numba.devicetime as dt

    assert main(["timeline", "--numel", "100000", "--compare", "buffer_num=2", text]) == 2
    out, err = capsys.readouterr()
    assert out == "" and f"--compare {text!r}: " in err
    name, value = text.split("=")
    if name == "buffer_num":
        with pytest.raises(ValueError) as own:
            dt.estimate(None, 100000, "float32", buffer_num=int(value))
    else:
        from swishgrad_numba.devicetime.search import template_tiling
        from swishgrad_numba.platform import REFERENCE_PLATFORM
        with pytest.raises(ValueError) as own:
            template_tiling(100000, "float32", REFERENCE_PLATFORM,
                            **({"tile": int(value)} if name == "tileDataNum" else {"cores": int(value)}))
    assert err.strip().endswith(str(own.value))


def test_timeline_compare_takes_buffer_num_up_to_the_rule(capsys):
    assert main(["timeline", "--numel", "100000", "--compare", "buffer_num=21"]) == 0
    assert "buffer_num=21" in capsys.readouterr().out


def test_timeline_best_reports_progress_off_a_terminal_and_skips_walks_too_long(capsys):
    assert main(["timeline", "--numel", str(1 << 31), "--best"]) == 0
    captured = capsys.readouterr()
    assert "tilings: 1/" in captured.err
    assert "skipped: their walks are longer" in captured.out and "best of" in captured.out


def test_timeline_best_with_a_file_gains_against_the_files_tiling(tmp_path, capsys):
    t = compute_tiling(300000, "float32")
    fields = {name: t.data[name].item() for name in t.data.dtype.names}
    from swishgrad_numba.devicetime.search import template_tiling
    from swishgrad_numba.platform import REFERENCE_PLATFORM

    slow = template_tiling(300000, "float32", REFERENCE_PLATFORM, cores=2)     # a slow tiling in the file
    path = tmp_path / "t.bin"
    write_tiling_bin(path, slow.data)
    assert main(["timeline", "--numel", "300000", "--file", str(path), "--block-dim", str(slow.block_dim),
                 "--best"]) == 0
    out = capsys.readouterr().out
    file_us = float(out.split("launch time")[1].split("us")[0])
    assert f"the file's tiling {file_us:.3f} us" in out
    assert fields  # the host's fields are not what the gain is against


@pytest.mark.parametrize("soc", ["ascend910b", "ascend950"])
@pytest.mark.parametrize("op", ["relu", "threshold_backward"])
def test_timeline_relu_and_threshold_backward(op, soc, capsys):
    # issue 41: both described operators get an estimate on each kernel, over the cores their host tiling gives
    args = ["--op", op, "--numel", "131072", "--dtype", "bfloat16", "--soc", soc]
    assert main(["tiling", "--json"] + args) == 0
    block_dim = json.loads(capsys.readouterr().out)["tiling"]["blockDim"]
    assert main(["timeline"] + args) == 0
    out = capsys.readouterr().out
    walk = ", broadcast walk" if (op, soc) == ("threshold_backward", "ascend950") else ""
    assert f"{op} bfloat16 numel=131072 on {soc} ({block_dim} cores{walk})" in out
    assert "launch time" in out and "bottleneck" in out
    if (op, soc) == ("threshold_backward", "ascend910b"):
        # the A2 kernels copy whole 256-byte blocks (docs/model.md): a length that is not a multiple of them
        # overruns the padding, refused unless --allow-invalid
        short = ["timeline", "--op", op, "--numel", "100000", "--dtype", "bfloat16", "--soc", soc]
        assert main(short) == 2
        assert "OVERRUN_BEYOND_PADDING" in capsys.readouterr().err
        assert main(short + ["--allow-invalid"]) == 0
        assert "launch time" in capsys.readouterr().out
    # the integer dtypes aclnn accepts have no device-time model: refused, naming the argument
    assert main(["timeline", "--op", op, "--numel", "1000", "--dtype", "int32", "--soc", soc]) == 2
    assert "dtype must be one of" in capsys.readouterr().err
