"""``swishgrad tiling / validate / timeline --op rms_norm`` (issue 42): the host's mode per row length, a broken
tiling caught (exit 1), bad arguments refused (exit 2), the launch estimated."""
import json

import pytest

from swishgrad_numba.cli import main


def _json(capsys, argv):
    assert main(argv + ["--json"]) in (0, 1)
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("cols, soc, mode", [(300, [], "merge_n"), (3000, [], "normal"), (20000, [], "split_d"),
                                             (300, ["--soc", "ascend910_93"], "normal"),
                                             (300, ["--soc", "ascend950"], "full_load"),
                                             (20000, ["--soc", "ascend950"], "split")])
def test_tiling_mode_by_row_length(capsys, cols, soc, mode):
    out = _json(capsys, ["tiling", "--op", "rms_norm", "--numel", str(7 * cols), "--cols", str(cols), *soc])
    assert out["tiling"]["mode"] == mode and out["tiling"]["num_row"] == 7 and out["x_shape"] == [7, cols]
    assert main(["validate", "--op", "rms_norm", "--numel", str(7 * cols), "--cols", str(cols), *soc]) == 0
    assert "valid" in capsys.readouterr().out


def test_tiling_text_and_mixed_dtype(capsys):
    assert main(["tiling", "--op", "rms_norm", "--numel", "60000", "--cols", "20000", "--dtype", "float16",
                 "--gamma-dtype", "float32"]) == 0
    out = capsys.readouterr().out
    assert "mode = split_d" in out and "gamma float32" in out and "3 cores, 1 rows each" in out


_BASE = ["validate", "--op", "rms_norm", "--numel", "30000", "--cols", "300"]


@pytest.mark.parametrize("extra, words", [
    (["--set", "block_factor=1"], "exactly once"),                    # 34 cores of 1 row: 66 rows never run
    (["--block-dim", "20"], "exactly once"),
    (["--block-dim", "60"], "platform's cores"),
    (["--set", "avg_factor=0.5"], "1 / numCol"),
    (["--set", "epsilon=0.1"], "epsilon"),
    (["--set", "mode=normal", "--set", "ub_factor=64"], "padded row"),
    (["--set", "mode=split_d", "--set", "ub_factor=100"], "multiple of 16"),
    (["--set", "mode=single_row"], "does not fit"),                   # single_row is the mixed kernel's
    (["--set", "mode=bogus"], "not one of"),
    (["--soc", "ascend950", "--set", "fold=128"], "fold point"),
    (["--soc", "ascend950", "--set", "mode=split"], "power of two"),
    (["--soc", "ascend950", "--set", "block_factor=3"], "run no rows"),
])
def test_broken_tiling_is_caught(capsys, extra, words):
    assert main(_BASE + extra) == 1
    out = capsys.readouterr().out
    assert "INVALID" in out and words in out, out
    report = _json(capsys, _BASE + extra)
    assert report["ok"] is False and any(words in f for f in report["findings"])


def test_a_changed_but_sound_tiling_is_valid(capsys):
    assert main(_BASE + ["--set", "mode=split_d", "--set", "ub_factor=128"]) == 0
    assert main(_BASE + ["--set", "block_factor=2", "--block-dim", "48"]) == 1   # 48 * 2 > 100: idle cores
    assert main(_BASE + ["--set", "block_factor=5", "--block-dim", "20"]) == 0


@pytest.mark.parametrize("argv, words", [
    (["tiling", "--op", "rms_norm", "--numel", "300"], "--cols"),
    (["validate", "--op", "rms_norm", "--cols", "300"], "--numel"),
    (_BASE[:4] + ["30001", "--cols", "300"], "whole rows"),
    (_BASE + ["--set", "foo=1"], "not a field"),
    (_BASE + ["--set", "block_factor"], "NAME=VALUE"),
    (_BASE + ["--set", "block_factor=x"], "expected int"),
    (_BASE + ["--host"], "--host"),
    (_BASE + ["--tileDataNum", "8"], "SwishGrad's fields"),
    (_BASE + ["--dtype", "int8"], "dtype"),
    (_BASE + ["--gamma-dtype", "float16"], "gamma.dtype"),
    (_BASE + ["--epsilon", "-1"], "epsilon"),
    (["tiling", "--numel", "300", "--cols", "3"], "--op rms_norm's options"),
    (["validate", "--numel", "300", "--cols", "3"], "--op rms_norm's options"),
    (["timeline", "--numel", "300", "--cols", "3"], "--op rms_norm's options"),
    (["timeline", "--op", "rms_norm", "--numel", "300", "--cols", "300", "--best"], "--best"),
])
def test_bad_arguments(capsys, argv, words):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "error" in err and words in err, err


@pytest.mark.parametrize("soc", [[], ["--soc", "ascend950"]])
def test_timeline_estimates_the_launch(capsys, tmp_path, soc):
    path = tmp_path / "est.json"
    assert main(["timeline", "--op", "rms_norm", "--numel", str(96 * 300), "--cols", "300", "--dtype", "float16",
                 "--json", str(path), *soc]) == 0
    out = capsys.readouterr().out
    assert "launch time" in out and "not a measurement" in out
    est = json.loads(path.read_text())["estimate"]
    assert est["valid"] and est["duration_us"] > est["head_us"] > 0
    # one tile per row plus each core's gamma load
    assert est["tiles"] == 96 + est["cores"]
