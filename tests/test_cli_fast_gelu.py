"""The command line with an operator that has no A2 kernel (FastGelu): ``tiling``, ``validate`` and
``timeline --op`` default to its Ascend 950 kernel and refuse an A2 ``--soc`` naming the reason."""
from __future__ import annotations

import reference_activation_tiling as rt
from swishgrad_numba.cli import main


def test_tiling_defaults_to_the_950_and_prints_the_hand_worked_record(capsys):
    assert main(["tiling", "--op", "fast_gelu", "--numel", "100000", "--dtype", "float16"]) == 0
    out = capsys.readouterr().out
    assert "Ascend 950 kernel, EleBaseTilingData" in out
    fields, _, _ = rt.arch35_tiling("fast_gelu", 100000, "float16")
    for name in ("coreNum", "ubFormer", "blockFormer", "ubTailOfTailBlock"):
        assert any(line.split() == [name, "=", str(fields[name])] for line in out.splitlines()), name


def test_validate_and_timeline(capsys):
    assert main(["validate", "--op", "fast_gelu_grad", "--numel", "100000", "--dtype", "bfloat16"]) == 0
    assert "OK (0 error(s)" in capsys.readouterr().out
    assert main(["validate", "--op", "fast_gelu_grad", "--numel", "100000", "--dtype", "bfloat16",
                 "--tiling-key", "3"]) == 1
    assert "TILING_KEY_MISMATCH" in capsys.readouterr().out
    assert main(["timeline", "--op", "fast_gelu", "--numel", "100000", "--dtype", "float32"]) == 0
    assert "on ascend950" in capsys.readouterr().out


def test_an_a2_soc_is_refused_naming_the_reason(capsys):
    for cmd in (["tiling"], ["validate"]):
        assert main(cmd + ["--op", "fast_gelu", "--numel", "100", "--soc", "ascend910b"]) == 2
        err = capsys.readouterr().err
        assert "soc_version 'ascend910b'" in err and "Ascend 950 only" in err
    assert main(["timeline", "--op", "fast_gelu", "--numel", "100", "--soc", "ascend910b"]) != 0
    assert "Ascend 950 only" in capsys.readouterr().err
