"""`swishgrad tiling` and `swishgrad validate` (exit codes 0 ok, 1 invalid, 2 bad arguments)."""
import json
import struct

import pytest

from swishgrad_numba.cli import main

# SPEC table row: n=1048576 float16 on the reference platform
ROW = dict(smallCoreDataNum=21840, bigCoreDataNum=21856, finalBigTileNum=3, finalSmallTileNum=3,
           tileDataNum=8192, smallTailDataNum=5456, bigTailDataNum=5472, tailBlockNum=16)


def field_args(fields):
    out = []
    for k, v in fields.items():
        out += [f"--{k}", str(v)]
    return out


def test_tiling_prints_record_and_balance(capsys):
    assert main(["tiling", "--numel", "1048576", "--dtype", "float16"]) == 0
    out = capsys.readouterr().out
    for k, v in ROW.items():
        assert f"{k}" in out and f"= {v}\n" in out.split(k, 1)[1].split("\n", 1)[0] + "\n"
    assert "blockDim" in out and "max 21856" in out


def test_tiling_json_and_write(tmp_path, capsys):
    path = tmp_path / "t.bin"
    assert main(["tiling", "--numel", "1048576", "--dtype", "fp16", "--json", "--write", str(path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    for k, v in ROW.items():
        assert doc["tiling"][k] == v
    assert doc["tiling"]["blockDim"] == 48
    assert path.read_bytes() == struct.pack("<8Qf4x", *ROW.values(), 1.0)


def test_tiling_bad_arguments(capsys):
    assert main(["tiling", "--numel", "10", "--dtype", "int8"]) == 2
    assert "dtype" in capsys.readouterr().err
    # a block of 3 bytes holds no whole float32
    assert main(["tiling", "--numel", "10", "--block-size", "3"]) == 2
    with pytest.raises(SystemExit) as exc:
        main(["tiling", "--dtype", "float32"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        main(["tiling", "--numel", "-4"])
    assert exc.value.code == 2


def test_validate_fields_ok_and_invalid(capsys):
    args = ["validate", "--numel", "1048576", "--dtype", "float16", "--block-dim", "48"]
    assert main(args + field_args(ROW)) == 0
    assert "OK" in capsys.readouterr().out
    assert main(args + field_args(dict(ROW, tailBlockNum=15))) == 1
    out = capsys.readouterr().out
    assert "INVALID" in out and "COVERAGE_GAP" in out
    assert main(["validate", "--numel", "1048576", "--dtype", "float16", "--block-dim", "49"]
                + field_args(ROW)) == 1
    assert "BLOCK_DIM_RANGE" in capsys.readouterr().out


def test_validate_file_and_host(tmp_path, capsys):
    path = tmp_path / "t.bin"
    path.write_bytes(struct.pack("<8Qf4x", *ROW.values(), 1.0))
    base = ["validate", "--numel", "1048576", "--dtype", "float16"]
    assert main(base + ["--file", str(path), "--block-dim", "48", "--checked"]) == 0
    assert main(base + ["--file", str(path), "--block-dim", "48", "--tileDataNum", "8193"]) == 1
    assert main(base + ["--host"]) == 0
    capsys.readouterr()
    assert main(base + ["--host", "--bigTailDataNum", "5471", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is False
    assert {"TILE_COUNT_MISMATCH", "TRANSFER_NOT_BLOCK_ALIGNED"} <= {f["code"] for f in doc["findings"]}
    assert main(base + ["--host", "--sconf", "nan", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is True
    assert [f["code"] for f in doc["findings"]] == ["SCONF_NONFINITE"]


def test_validate_bad_arguments(tmp_path, capsys):
    base = ["validate", "--numel", "1048576", "--dtype", "float16"]
    path = tmp_path / "short.bin"
    path.write_bytes(b"\0" * 71)
    assert main(base + ["--file", str(path), "--block-dim", "1"]) == 2
    assert "72 bytes" in capsys.readouterr().err
    assert main(base + ["--file", str(tmp_path / "missing.bin"), "--block-dim", "1"]) == 2
    assert main(base + ["--file", str(path)]) == 2
    assert main(base + ["--tileDataNum", "5", "--block-dim", "1"]) == 2
    assert "missing" in capsys.readouterr().err
    assert main(["validate", "--dtype", "float16", "--host"]) == 2
    assert main(base + ["--host", "--file", str(path)]) == 2
    with pytest.raises(SystemExit) as exc:
        main(base + ["--host", "--tileDataNum", "-1"])
    assert exc.value.code == 2


def test_validate_sweep(capsys):
    assert main(["validate", "--sweep", "--sizes-per-case", "20", "--max-numel", "100000"]) == 0
    captured = capsys.readouterr()
    assert "no error in the host tiling" in captured.out
    assert "100%" in captured.err and "[" in captured.err
    assert main(["validate", "--sweep", "--max-numel", str(1 << 41)]) == 2
