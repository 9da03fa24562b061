"""Bad arguments to every ``swishgrad`` command: exit 2, one line on stderr naming the option, no traceback.

Sizes past what the tools can hold, and output paths that cannot be written,
are refused before any work; input paths that are not regular files are
refused before they are opened.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import stat
import threading

import numpy as np
import pytest
from numpy.lib import format as npy_format

import swishgrad_numba
from swishgrad_numba import benchmark
from swishgrad_numba.cli import main

BIG_NUMEL = 1 << 60         # the host tiling takes it, the balance analysis does not
HUGE_CORE_NUM = 1 << 63
MAX_UINT64 = (1 << 64) - 1


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_usage_error(code, err, *words):
    """Exit 2 and a single ``swishgrad CMD: error: ...`` line holding every word."""
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("swishgrad ") and ": error: " in lines[0], err
    for word in words:
        assert word in lines[0], (word, err)


@pytest.fixture
def bad_outputs(tmp_path):
    """Output paths that cannot be written, whoever runs the tests (root included)."""
    a_file = tmp_path / "a_file"
    a_file.write_bytes(b"")
    return {
        "directory": (str(tmp_path), "directory"),
        "missing folder": (str(tmp_path / "no" / "such" / "out"), "does not exist"),
        "folder is a file": (str(a_file / "out"), "not a folder"),
        "trailing separator": (str(tmp_path / "new") + os.sep, "names a folder"),
    }


BAD_OUTPUT_KINDS = ["directory", "missing folder", "folder is a file", "trailing separator"]

needs_non_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                                    reason="root may write anywhere")


# ----------------------------------------------------------------------------
# swishgrad tiling

def test_tiling_huge_numel_prints_tiling_and_skips_balance(capsys):
    code, out, err = run(capsys, "tiling", "--numel", BIG_NUMEL)
    assert code == 0 and err == ""
    fields = {}
    for line in out.splitlines():
        name, sep, value = line.strip().partition(" = ")
        if sep and name.strip() in ("smallCoreDataNum", "bigCoreDataNum", "tailBlockNum", "blockDim"):
            fields[name.strip()] = int(value)
    # 2**60 float32 elements: whole 32-byte blocks, shared by the 48 cores of the reference platform
    assert fields["blockDim"] == 48
    small, big, tail = fields["smallCoreDataNum"], fields["bigCoreDataNum"], fields["tailBlockNum"]
    assert small * (48 - tail) + big * tail == BIG_NUMEL
    skipped = [line for line in out.splitlines() if line.startswith("load balance")]
    assert len(skipped) == 1 and "skipped" in skipped[0] and "--numel" in skipped[0]


@pytest.mark.parametrize("numel, core_num", [(BIG_NUMEL, HUGE_CORE_NUM), (MAX_UINT64, HUGE_CORE_NUM),
                                             (MAX_UINT64, 48)])
def test_tiling_huge_sizes_json(tmp_path, capsys, numel, core_num):
    path = tmp_path / "t.bin"
    code, out, err = run(capsys, "tiling", "--numel", numel, "--core-num", core_num, "--json", "--write", path)
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["balance"] is None and "--numel" in doc["balance_skipped"]
    assert doc["numel"] == numel and doc["platform"]["core_num"] == core_num
    assert path.read_bytes().hex() == doc["struct_hex"] and len(doc["struct_hex"]) == 144


def test_tiling_balance_still_reported(capsys):
    code, out, err = run(capsys, "tiling", "--numel", 1 << 20, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["balance_skipped"] is None and doc["balance"]["block_dim"] == 48


@pytest.mark.parametrize("kind", BAD_OUTPUT_KINDS)
def test_tiling_write_unwritable(bad_outputs, capsys, kind):
    path, reason = bad_outputs[kind]
    code, out, err = run(capsys, "tiling", "--numel", 1024, "--write", path)
    assert_usage_error(code, err, "--write", reason)
    assert out == "" and not os.path.isfile(path.rstrip(os.sep))


@needs_non_root
def test_tiling_write_no_permission(tmp_path, capsys):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        code, out, err = run(capsys, "tiling", "--numel", 1024, "--write", folder / "t.bin")
    finally:
        folder.chmod(stat.S_IRWXU)
    assert_usage_error(code, err, "--write", "permission denied")
    assert out == ""


def test_tiling_platform_errors_name_the_option(capsys):
    code, _, err = run(capsys, "tiling", "--numel", 10, "--block-size", 3)
    assert_usage_error(code, err, "--block-size")
    code, _, err = run(capsys, "tiling", "--numel", 10, "--ub-size", 32)
    assert_usage_error(code, err, "--ub-size")


# ----------------------------------------------------------------------------
# swishgrad validate

@pytest.mark.parametrize("numel, core_num", [(BIG_NUMEL, 48), (MAX_UINT64, HUGE_CORE_NUM)])
def test_validate_huge_numel_names_numel(capsys, numel, core_num):
    code, out, err = run(capsys, "validate", "--numel", numel, "--core-num", core_num, "--host")
    assert_usage_error(code, err, "--numel", "too large")
    assert out == ""


def test_validate_file_fifo_is_refused(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    fifo = tmp_path / "tiling.fifo"
    os.mkfifo(fifo)
    result = {}

    def target():
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                result["code"] = main(["validate", "--numel", "1024", "--file", str(fifo), "--block-dim", "1"])
        except BaseException as exc:  # noqa: BLE001 - reported by the assertions below
            result["exc"] = exc
        result["err"] = err.getvalue()

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(60)
    if thread.is_alive():
        # unblock the reader so the thread ends, then fail
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        thread.join(10)
        pytest.fail("swishgrad validate --file blocked on a FIFO")
    assert "exc" not in result, result.get("exc")
    assert_usage_error(result["code"], result["err"], "--file", "not a regular file")


def test_validate_file_directory_and_missing(tmp_path, capsys):
    code, _, err = run(capsys, "validate", "--numel", 1024, "--file", tmp_path, "--block-dim", 1)
    assert_usage_error(code, err, "--file", "not a regular file")
    code, _, err = run(capsys, "validate", "--numel", 1024, "--file", tmp_path / "nope.bin", "--block-dim", 1)
    assert_usage_error(code, err, "--file", "does not exist")


def test_validate_sweep_sizes_per_case_limit(capsys):
    code, out, err = run(capsys, "validate", "--sweep", "--sizes-per-case", 10 ** 12, "--no-progress")
    assert_usage_error(code, err, "--sizes-per-case")
    assert out == ""


# ----------------------------------------------------------------------------
# swishgrad bench: output paths checked before the run

@pytest.fixture
def no_bench_run(monkeypatch):
    """Make the timing run fail loudly: the checks must come before it."""
    def refuse(*args, **kwargs):
        raise AssertionError("the benchmark ran before its output paths were checked")

    monkeypatch.setattr(benchmark, "run_comparison", refuse)
    monkeypatch.setattr(benchmark, "cold_start", refuse)


@pytest.mark.parametrize("option", ["--json", "--plot"])
@pytest.mark.parametrize("kind", BAD_OUTPUT_KINDS)
def test_bench_unwritable_output(bad_outputs, no_bench_run, capsys, option, kind):
    if option == "--plot":
        pytest.importorskip("matplotlib")
    path, reason = bad_outputs[kind]
    code, out, err = run(capsys, "bench", "--quick", "--no-progress", option, path)
    assert_usage_error(code, err, option, reason)
    assert out == ""


@needs_non_root
def test_bench_json_no_permission(tmp_path, no_bench_run, capsys):
    target = tmp_path / "ro.json"
    target.write_text("")
    target.chmod(stat.S_IRUSR)
    try:
        code, _, err = run(capsys, "bench", "--quick", "--no-progress", "--json", target)
    finally:
        target.chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert_usage_error(code, err, "--json", "permission denied")


def test_bench_plot_unknown_format(tmp_path, no_bench_run, capsys):
    pytest.importorskip("matplotlib")
    code, out, err = run(capsys, "bench", "--quick", "--no-progress", "--plot", tmp_path / "bench.notaformat")
    assert_usage_error(code, err, "--plot", ".notaformat")
    assert out == ""


# ----------------------------------------------------------------------------
# swishgrad compare: sizes and paths

@pytest.fixture
def dumps(tmp_path):
    x = np.linspace(-3, 3, 6, dtype=np.float32)
    paths = {}
    for name in ("g", "x", "o"):
        paths[name] = tmp_path / f"{name}.npy"
        np.save(paths[name], x)
        paths[name + "bin"] = tmp_path / f"{name}.bin"
        paths[name + "bin"].write_bytes(x.tobytes())
    paths["dir"] = tmp_path
    return paths


@pytest.mark.parametrize("shape, words", [
    ("99999999999999999999", ["--shape", "99999999999999999999"]),
    ("4294967296,4294967296", ["--shape", "18446744073709551616 elements"]),
    ("2147483648,2147483648", ["--shape", "18446744073709551616 bytes"]),
    ("0,99999999999999999999", ["--shape", "dimension"]),
])
def test_compare_huge_shape(dumps, capsys, shape, words):
    code, out, err = run(capsys, "compare", "--grad", dumps["gbin"], "--x", dumps["xbin"], "--output",
                         dumps["obin"], "--dtype", "float32", "--shape", shape)
    assert_usage_error(code, err, *words)
    assert out == ""


def write_npy_header(path, shape, descr="<f4", data=b"\0" * 64):
    """A .npy file whose header claims ``shape`` but which holds only ``data``."""
    with open(path, "wb") as f:
        npy_format.write_array_header_1_0(f, {"descr": descr, "fortran_order": False, "shape": shape})
        f.write(data)
    return path


@pytest.mark.parametrize("arg", ["--grad", "--x", "--output"])
def test_compare_npy_header_claims_more_than_the_file(dumps, capsys, arg):
    lying = write_npy_header(dumps["dir"] / "lying.npy", (1 << 40,))
    files = {"--grad": dumps["g"], "--x": dumps["x"], "--output": dumps["o"], arg: lying}
    code, out, err = run(capsys, "compare", *[v for kv in files.items() for v in kv])
    assert_usage_error(code, err, arg, "header claims", "4398046511104 data bytes")
    assert out == ""


def test_compare_npy_header_beyond_addressing(dumps, capsys):
    lying = write_npy_header(dumps["dir"] / "lying.npy", (1 << 62, 4))
    code, _, err = run(capsys, "compare", "--grad", lying, "--x", dumps["x"], "--output", dumps["o"])
    assert_usage_error(code, err, "--grad", "at most")


def test_compare_npy_header_checked_before_the_data(dumps, capsys):
    # a float64 file is refused by its header's dtype, and a short file by its size
    f64 = write_npy_header(dumps["dir"] / "f64.npy", (6,), descr="<f8", data=b"\0" * 48)
    code, _, err = run(capsys, "compare", "--grad", dumps["g"], "--x", f64, "--output", dumps["o"])
    assert_usage_error(code, err, "--x", "float64")
    short = write_npy_header(dumps["dir"] / "short.npy", (6,), data=b"\0" * 23)
    code, _, err = run(capsys, "compare", "--grad", dumps["g"], "--x", dumps["x"], "--output", short)
    assert_usage_error(code, err, "--output", "header claims")


@pytest.mark.parametrize("kind", BAD_OUTPUT_KINDS)
def test_compare_json_unwritable_before_the_work(bad_outputs, dumps, capsys, monkeypatch, kind):
    def refuse(*args, **kwargs):
        raise AssertionError("compare ran before its --json path was checked")

    monkeypatch.setattr(swishgrad_numba, "swish_backward", refuse)
    path, reason = bad_outputs[kind]
    code, out, err = run(capsys, "compare", "--grad", dumps["g"], "--x", dumps["x"], "--output", dumps["o"],
                         "--json", path)
    assert_usage_error(code, err, "--json", reason)
    assert out == ""


@pytest.mark.parametrize("argv, words", [
    (["tiling", "--numel", 10, "--soc", "ascend950", "--ub-size", 1000], ["--ub-size", "too small"]),
    (["tiling", "--numel", 10, "--block-size", 3], ["--block-size", "whole number"]),
    (["tiling", "--numel", 10, "--soc", "nonsense"], ["--soc", "nonsense"]),
    (["validate", "--numel", 10, "--host", "--ub-size", 100], ["--ub-size", "too small"]),
    (["tiling", "--numel", MAX_UINT64, "--core-num", 1], ["--numel", "too large"]),
])
def test_options_checked_by_the_cli_before_the_library_runs(capsys, monkeypatch, argv, words):
    """Issue 22 item 15: the command line refuses a bad option itself (the host tiling is never
    called), and its message names the option, never the Python API's argument."""
    from swishgrad_numba import tiling

    def never(*args, **kwargs):
        raise AssertionError("compute_tiling called with a bad option")

    monkeypatch.setattr(tiling, "compute_tiling", never)
    code, out, err = run(capsys, *argv)
    assert_usage_error(code, err, *words)
    assert "platform." not in err.lower() and "numel " not in err.replace("--numel ", "")


def test_bench_unknown_soc_names_the_option_not_the_api(capsys):
    code, out, err = run(capsys, "bench", "--quick", "--no-progress", "--soc", "nonsense")
    assert_usage_error(code, err, "--soc 'nonsense' is not a known SoC")
    assert "Platform." not in err
