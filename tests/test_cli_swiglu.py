"""``swishgrad ops list/show``, ``tiling``, ``validate`` and ``timeline`` with ``--op swiglu`` / ``swiglu_grad``
(issue 41): the row operators listed and shown, the host's tiling printed, broken tilings caught (exit 1), bad
arguments refused (exit 2), the launch estimated."""
import json

import pytest

from swishgrad_numba.cli import main


def _json(capsys, argv):
    assert main(argv + ["--json"]) in (0, 1)
    return json.loads(capsys.readouterr().out)


def test_ops_list_and_show(capsys):
    assert main(["ops", "list"]) == 0
    out = capsys.readouterr().out
    assert any(line.split()[:3] == ["swiglu", "aclnnSwiGlu", "SwiGlu"] for line in out.splitlines())
    assert any(line.split()[:3] == ["swiglu_grad", "aclnnSwiGluGrad", "SwiGluGrad"] for line in out.splitlines())
    assert main(["ops", "show", "swiglu", "--dtype", "bfloat16"]) == 0
    lines = capsys.readouterr().out.splitlines()
    ops = [line.split()[0] for line in lines if not line.startswith("//")]
    assert ops == ["R_GM_IN", "R_GM_IN", "R_MULS", "R_EXP", "R_ADDS", "R_DIV", "R_MUL", "R_CAST_RINT", "R_GM_OUT"]
    assert main(["ops", "show", "swiglu_grad"]) == 0
    assert capsys.readouterr().out.count("R_GM_OUT") == 2
    assert main(["ops", "show", "swiglu", "--soc", "nonsense"]) == 2


@pytest.mark.parametrize("op", ["swiglu", "swiglu_grad"])
@pytest.mark.parametrize("numel, cols, soc", [(262144, 4096, []), (30, 6, []), (700000, 140000, []),
                                              (262144, 4096, ["--soc", "ascend950"]), (1000, 2, [])])
def test_host_tiling_is_valid(capsys, op, numel, cols, soc):
    out = _json(capsys, ["tiling", "--op", op, "--numel", str(numel), "--cols", str(cols), *soc])
    t = out["tiling"]
    rows = (t["row_total"], t["col_total"]) if op == "swiglu_grad" and soc else (t["row_len"], t["col_len"])
    assert out["x_shape"] == [numel // cols, cols] and rows == (numel // cols, cols // 2)
    assert main(["validate", "--op", op, "--numel", str(numel), "--cols", str(cols), *soc]) == 0
    assert "valid" in capsys.readouterr().out


_BASE = ["validate", "--op", "swiglu", "--numel", "262144", "--cols", "4096"]


@pytest.mark.parametrize("extra, words", [
    (["--set", "tiling_key=1"], "tiling_key 1"),
    (["--set", "is_32b_aligned=0"], "is_32b_aligned"),
    (["--set", "base_row_len=0"], "base_row_len = 0"),
    (["--set", "base_col_len=3000"], "base_col_len = 3000"),
    (["--set", "base_row_len=60"], "bytes of UB"),
    (["--block-dim", "60"], "platform's cores"),
    (["--set", "base_row_len=32", "--set", "base_col_len=128", "--set", "is_double_buffer=0"], "run no tile"),
    (["--set", "row_len=3"], "row_len, col_len"),
])
def test_broken_tiling_is_caught(capsys, extra, words):
    assert main(_BASE + extra) == 1
    out = capsys.readouterr().out
    assert "INVALID" in out and words in out, out
    report = _json(capsys, _BASE + extra)
    assert report["ok"] is False and any(words in f for f in report["findings"])


def test_a_changed_but_sound_tiling_is_valid(capsys):
    assert main(_BASE + ["--set", "base_row_len=1", "--set", "base_col_len=2048", "--block-dim", "48"]) == 0


@pytest.mark.parametrize("argv, words", [
    (["tiling", "--op", "swiglu", "--numel", "30", "--cols", "5"], "even length"),
    (["tiling", "--op", "swiglu", "--numel", "30"], "needs --cols"),
    (["tiling", "--op", "swiglu", "--numel", "31", "--cols", "6"], "whole rows"),
    (["tiling", "--op", "swiglu", "--numel", "30", "--cols", "6", "--epsilon", "0.1"], "--epsilon"),
    (["validate", "--op", "swiglu", "--numel", "30", "--cols", "6", "--set", "bogus=1"], "not a field"),
    (["validate", "--op", "swiglu", "--numel", "30", "--cols", "6", "--checked"], "--checked"),
    (["timeline", "--op", "swiglu_grad", "--numel", "30", "--cols", "6", "--soc", "ascend950", "--block-dim",
      "2"], "--block-dim"),
])
def test_bad_arguments_exit_2(capsys, argv, words):
    assert main(argv) == 2
    assert words in capsys.readouterr().err


@pytest.mark.parametrize("op", ["swiglu", "swiglu_grad"])
def test_timeline_estimates_the_launch(capsys, tmp_path, op):
    path = tmp_path / "est.json"
    assert main(["timeline", "--op", op, "--numel", "262144", "--cols", "4096", "--dtype", "float16",
                 "--json", str(path)]) == 0
    est = json.loads(path.read_text())["estimate"]
    assert est["duration_us"] > 0 and op in capsys.readouterr().out


def test_estimate_refuses_an_invalid_tiling_unless_allowed():
    import dataclasses

    from swishgrad_numba.devicetime.rows import estimate_swiglu
    from swishgrad_numba.ops.swi_glu.api import tiling_for

    t = dataclasses.replace(tiling_for((64, 4096), -1, "float32"), block_dim=47)
    with pytest.raises(ValueError, match="run no tile"):
        estimate_swiglu((64, 4096), tiling=t)
    assert estimate_swiglu((64, 4096), tiling=t, allow_invalid=True).valid is False


# ---------------------------------------------------------------- the 950's SwiGluGrad (regbase tiling)
_BASE_950 = ["validate", "--op", "swiglu_grad", "--numel", "262144", "--cols", "4096", "--soc", "ascend950"]


def test_950_grad_tiling_printed(capsys):
    assert main(["tiling", "--op", "swiglu_grad", "--numel", "262144", "--cols", "4096", "--soc", "ascend950"]) == 0
    out = capsys.readouterr().out
    assert "tiling_key = 1000011" in out and "MoveAlign" in out and "used_core_num = 16" in out
    assert main(["tiling", "--op", "swiglu_grad", "--numel", "3000", "--cols", "6", "--soc", "ascend950",
                 "--dtype", "bfloat16"]) == 0
    assert "tiling_key = 1000020" in capsys.readouterr().out


@pytest.mark.parametrize("extra, words", [
    (["--set", "tiling_key=1000001"], "tiling_key 1000001"),
    (["--set", "col_tile_num=3"], "rowTileNum x colTileNum"),
    (["--set", "row_tail=1"], "not 64"),
    (["--block-dim", "65"], "platform's cores"),
    (["--set", "ub_size=300000"], "the platform has"),
    (["--set", "ub_size=100"], "holds no"),
    (["--set", "row_base=0"], "row_base = 0"),
])
def test_950_broken_grad_tiling_is_caught(capsys, extra, words):
    assert main(_BASE_950 + extra) == 1
    assert words in capsys.readouterr().out


def test_950_rearrange_kernel_takes_whole_rows(capsys):
    argv = ["validate", "--op", "swiglu_grad", "--numel", "6000", "--cols", "60", "--soc", "ascend950"]
    assert main(argv) == 0
    capsys.readouterr()
    assert main(argv + ["--set", "col_tile_num=2", "--set", "col_base=15", "--set", "used_core_num=2"]) == 1
    assert "whole rows" in capsys.readouterr().out


def test_950_grad_show_and_timeline(capsys, tmp_path):
    assert main(["ops", "list"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("swiglu_grad "))
    assert "950 (rows)" in line
    assert main(["ops", "show", "swiglu_grad", "--soc", "ascend950", "--dtype", "float16"]) == 0
    out = capsys.readouterr().out
    assert "Mul(tempReg, grad, dstB);" in out and out.count("R_CAST_RINT") == 2 and out.count("R_EXP") == 1
    path = tmp_path / "est.json"
    assert main(["timeline", "--op", "swiglu_grad", "--numel", "262144", "--cols", "4096", "--soc", "ascend950",
                 "--json", str(path)]) == 0
    est = json.loads(path.read_text())["estimate"]
    assert est["duration_us"] > 0 and "MoveAlign" in capsys.readouterr().out


def test_950_grad_estimate_refuses_an_invalid_tiling_unless_allowed():
    import dataclasses

    from swishgrad_numba.devicetime.rows import estimate_swiglu
    from swishgrad_numba.ops.swi_glu.host_950 import swiglu_grad_tiling_950
    from swishgrad_numba.platform import ASCEND950_PLATFORM as P

    est = estimate_swiglu((96, 2 * 3000), grad=True, platform=P)
    assert est.valid and "MoveAlign" in est.label and est.duration_us > 0
    t = dataclasses.replace(swiglu_grad_tiling_950((96, 6000), 1, "float32", P.ub_size, P.core_num), ub_size=400000)
    with pytest.raises(ValueError, match="the platform has"):
        estimate_swiglu((96, 6000), grad=True, platform=P, tiling=t)
    assert estimate_swiglu((96, 6000), grad=True, platform=P, tiling=t, allow_invalid=True).valid is False
