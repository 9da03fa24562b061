"""`swishgrad tiling` and `swishgrad validate` (exit codes 0 ok, 1 invalid, 2 bad arguments)."""
import io
import json
import struct
import sys

import numpy as np
import pytest

from swishgrad_numba.cli import main

# model section 3 table row: n=1048576 float16 on the reference platform
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


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_validate_sweep_real_platforms_exit_0(capsys, monkeypatch):
    """Issue 22 item 12: the default sweep is the real platforms, and the host is sound there; the
    progress bar (tqdm) is drawn on a terminal only, and not with --no-progress."""
    args = ["validate", "--sweep", "--sizes-per-case", "20", "--max-numel", "100000"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "RESULT: no error in the host tilings" in captured.out and "block_size=32" in captured.out
    assert "with an error, block size" not in captured.out and "block_size=16" not in captured.out
    assert captured.err == ""     # captured stderr is no terminal: no bar
    for extra, drawn in (([], True), (["--no-progress"], False)):
        terminal = _Terminal()
        monkeypatch.setattr(sys, "stderr", terminal)
        assert main(args + extra) == 0
        assert ("100%" in terminal.getvalue() and "combination" in terminal.getvalue()) == drawn
        monkeypatch.undo()
    capsys.readouterr()
    assert main(["validate", "--sweep", "--max-numel", str(1 << 41)]) == 2
    assert main(["validate", "--hypothetical", "--numel", "5"]) == 2
    assert "--hypothetical" in capsys.readouterr().err


def test_validate_sweep_hypothetical_explains_its_ub_overflow(capsys):
    # exit 1: on the grid's block sizes that are not a multiple of 32 bytes the host's tile overflows
    # the UB once InitBuffer pads its buffers (docs/validation.md); that is the only error
    assert main(["validate", "--sweep", "--hypothetical", "--sizes-per-case", "20", "--max-numel", "100000"]) == 1
    captured = capsys.readouterr()
    assert "ERRORS FOUND" in captured.out and "error code UB_OVERFLOW" in captured.out
    assert "error code" not in captured.out.replace("error code UB_OVERFLOW", "")
    assert "with an error, block size 32 bytes" not in captured.out
    assert "note: UB_OVERFLOW on block sizes that are not a multiple of 32 bytes" in captured.out


def test_validate_buffers_plan(capsys):
    # Issue 12: 6 float32 elements with tileDataNum 7017: 7 padded buffers of 28096 bytes overflow the UB
    base = ["validate", "--numel", "6", "--dtype", "float32", "--host", "--tileDataNum", "7017"]
    assert main(base) == 1
    out = capsys.readouterr().out
    assert "UB_OVERFLOW" in out and "196672" in out
    assert main(base + ["--buffers", "2x4,2x4,2x4,1x4"]) == 1
    capsys.readouterr()
    assert main(base + ["--buffers", "2x4,2x4,2x4", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["buffers"] == [[2, 4], [2, 4], [2, 4]]
    assert doc["balance"]["ub_bytes_per_tile"] == 6 * 28096
    # SwishGrad's host tile (8192 float16 elements) under silu_grad's double-buffered plan
    args = ["validate", "--numel", "1048576", "--dtype", "float16", "--host"]
    assert main(args) == 0
    capsys.readouterr()
    assert main(args + ["--buffers", "2x2,2x2,2x2,5x4"]) == 1
    assert "2x2,2x2,2x2,5x4" in capsys.readouterr().out


@pytest.mark.parametrize("plan", ["", "2x", "x4", "2x4,", "0x4", "2x0", "2*4", "2x4,abc", "1.5x4"])
def test_validate_buffers_bad_plan(plan, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["validate", "--numel", "6", "--host", "--buffers", plan])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "argument --buffers:" in err and "buffer plan" in err


def test_validate_buffers_not_with_sweep(capsys):
    assert main(["validate", "--sweep", "--buffers", "2x4", "--sizes-per-case", "20"]) == 2
    assert "--buffers" in capsys.readouterr().err


# ----------------------------------------------------------------------------
# the Ascend 950 kernel (--soc ascend950) and --beta

# Example A of the 950 facts: float32, 1048576 elements, 64 vector cores, UB 253952
ROW_950 = dict(dim0=1048576, coreNum=64, ubFormer=10560, blockFormer=16384, blockNum=64, ubLoopOfFormerBlock=2,
               ubLoopOfTailBlock=2, ubTailOfFormerBlock=5824, ubTailOfTailBlock=5824, elemNum=10560, scheMode=1)
STRUCT_950 = "<qiiqqqqqqqQf4x"


def one_line_error(code, err, *words):
    assert code == 2 and "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and ": error: " in lines[0], err
    for word in words:
        assert word in lines[0], (word, err)


def test_tiling_soc_ascend950(tmp_path, capsys):
    path = tmp_path / "t950.bin"
    assert main(["tiling", "--numel", "1048576", "--soc", "ascend950", "--write", str(path)]) == 0
    out = capsys.readouterr().out
    for k, v in ROW_950.items():
        assert f"  {k:<19} = {v}\n" in out, k
    assert "tilingKey           = 7" in out and "struct (88 bytes)" in out and "Ascend 950 kernel" in out
    assert "UB loops per core   : 2..2" in out and "(63 former, 1 tail, 0 extra)" in out
    assert path.read_bytes() == struct.pack(STRUCT_950, *ROW_950.values(), 1.0)
    # --soc-version is the same option; the 950's platform sizes are the defaults
    assert main(["tiling", "--numel", "1048576", "--soc-version", "Ascend950PR_9599", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["kernel"] == "arch35" and doc["platform"]["ub_size"] == 253952 and doc["platform"]["core_num"] == 64
    assert doc["struct_hex"] == struct.pack(STRUCT_950, *ROW_950.values(), 1.0).hex()
    assert doc["balance"]["former_cores"] == 63
    # the operator's unit-test UB: ubFormer 10240, tails 6144
    assert main(["tiling", "--numel", "1048576", "--soc", "ascend950", "--ub-size", "245760", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["tiling"]["ubFormer"] == 10240 and doc["tiling"]["ubTailOfTailBlock"] == 6144


@pytest.mark.parametrize("soc", [[], ["--soc", "ascend950"]])
def test_beta_option_and_its_aliases(tmp_path, capsys, soc):
    blobs = []
    for option in ("--beta", "--scale", "--sconf"):
        path = tmp_path / (option[2:] + ".bin")
        assert main(["tiling", "--numel", "100", option, "1.1", "--write", str(path)] + soc) == 0
        blobs.append(path.read_bytes())
    assert blobs[0] == blobs[1] == blobs[2]
    assert struct.unpack_from("<f", blobs[0], len(blobs[0]) - 8)[0] == np.float32(1.1)
    capsys.readouterr()
    for option in ("--beta", "--scale", "--sconf"):
        assert main(["validate", "--numel", "1024", "--host", option, "inf", "--json"] + soc) == 0
        doc = json.loads(capsys.readouterr().out)
        assert [f["code"] for f in doc["findings"]] == ["SCONF_NONFINITE"]


def test_validate_soc_ascend950(tmp_path, capsys):
    base = ["validate", "--numel", "1048576", "--dtype", "float32"]
    assert main(base + ["--soc", "ascend950", "--host", "--checked"]) == 0
    assert "Ascend 950 kernel" in capsys.readouterr().out
    # every 950 field on the command line: the kernel follows the field options
    assert main(base + ["--block-dim", "64"] + field_args(ROW_950)) == 0
    capsys.readouterr()
    # example D (65600 elements, one UB loop per block): one more element per loop only misaligns the slots
    assert main(["validate", "--numel", "65600", "--soc", "ascend950", "--host", "--ubFormer", "10561",
                 "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["kernel"] == "arch35" and doc["fields"]["ubFormer"] == 10561
    assert {f["code"] for f in doc["findings"]} == {"UB_FORMER_NOT_BLOCK_ALIGNED", "ELEM_NUM_MISMATCH"}
    assert main(base + ["--soc", "ascend950", "--host", "--tiling-key", "3"]) == 1
    assert "TILING_KEY_MISMATCH" in capsys.readouterr().out
    assert main(base + ["--soc", "ascend950", "--host", "--block-dim", "63"]) == 1
    out = capsys.readouterr().out
    assert "BLOCK_NUM_MISMATCH" in out and "COVERAGE_GAP" in out
    # an 88-byte file: the platform follows the struct unless --soc says otherwise
    path = tmp_path / "t950.bin"
    path.write_bytes(struct.pack(STRUCT_950, *ROW_950.values(), 1.0))
    assert main(base + ["--file", str(path), "--block-dim", "64", "--checked"]) == 0
    assert "Ascend 950 kernel" in capsys.readouterr().out
    assert main(base + ["--file", str(path), "--block-dim", "64", "--blockNum", "63", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert "BLOCK_NUM_MISMATCH" in {f["code"] for f in doc["findings"]}


def test_validate_soc_ascend950_bad_arguments(tmp_path, capsys):
    base = ["validate", "--numel", "1048576"]
    path = tmp_path / "t950.bin"
    path.write_bytes(struct.pack(STRUCT_950, *ROW_950.values(), 1.0))
    code = main(base + ["--soc", "ascend910b", "--file", str(path), "--block-dim", "64"])
    one_line_error(code, capsys.readouterr().err, "--soc", "88 bytes", "Ascend 950")
    code = main(base + ["--soc", "ascend950", "--block-dim", "48"] + field_args(ROW))
    one_line_error(code, capsys.readouterr().err, "--soc", "Atlas A2")
    code = main(base + ["--block-dim", "48", "--dim0", "5"] + field_args(ROW))
    one_line_error(code, capsys.readouterr().err, "--dim0", "--tileDataNum")
    code = main(base + ["--file", str(path), "--block-dim", "64", "--tileDataNum", "5"])
    one_line_error(code, capsys.readouterr().err, "--tileDataNum", "Ascend 950")
    code = main(base + ["--soc", "ascend950", "--host", "--buffers", "2x4"])
    one_line_error(code, capsys.readouterr().err, "--buffers")
    code = main(base + ["--soc", "ascend950", "--host", "--coreNum", str(1 << 31)])
    one_line_error(code, capsys.readouterr().err, "--coreNum", "int32")
    code = main(base + ["--soc", "ascend950", "--block-dim", "64", "--dim0", "5"])
    one_line_error(code, capsys.readouterr().err, "missing", "--ubFormer")
    code = main(base + ["--soc", "nonsense", "--host"])
    one_line_error(code, capsys.readouterr().err, "--soc", "nonsense")
    code = main(["tiling", "--numel", "10", "--soc", "nonsense"])
    one_line_error(code, capsys.readouterr().err, "--soc", "nonsense")
    code = main(["tiling", "--numel", "10", "--soc", "ascend950", "--ub-size", "1000"])
    one_line_error(code, capsys.readouterr().err, "--ub-size")


def test_validate_sweep_covers_both_kernels(capsys):
    assert main(["validate", "--sweep", "--sizes-per-case", "20", "--max-numel", "100000", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "both kernels" in out
    line = next(x for x in out.splitlines() if "Ascend 950 kernel" in x)
    assert "0 with an error finding" in line and "0 with a warning finding" in line


# ---------------------------------------------------------------- --op: the other registered operators

@pytest.mark.parametrize("soc", [None, "ascend950"])
@pytest.mark.parametrize("op", ["swish", "silu", "silu_grad"])
def test_tiling_op_json_and_write(op, soc, tmp_path, capsys):
    import swishgrad_numba as sg

    platform = sg.ASCEND950_PLATFORM if soc else sg.REFERENCE_PLATFORM
    path = tmp_path / "op.bin"
    args = ["tiling", "--op", op, "--numel", "100003", "--dtype", "float16", "--json", "--write", str(path)]
    assert main(args + (["--soc", soc] if soc else [])) == 0
    doc = json.loads(capsys.readouterr().out)
    host = sg.compute_tiling(100003, "float16", platform=platform, op=op)
    assert doc["op"] == op and doc["kernel"] == platform.architecture
    assert doc["tiling"]["blockDim"] == host.block_dim and doc["tiling"]["tilingKey"] == host.tiling_key
    assert path.read_bytes() == host.tobytes() and doc["struct_hex"] == host.tobytes().hex()
    assert (doc["balance"] is None) == (op == "silu_grad" and soc is not None)


def test_tiling_op_text_and_beta(capsys):
    assert main(["tiling", "--op", "swish", "--numel", "4096", "--beta", "0", "--soc", "ascend950"]) == 0
    out = capsys.readouterr().out
    assert "EleBaseTilingData32B" in out and "scale" in out and "tilingKey     = 4" in out
    for op in ("silu", "silu_grad"):
        assert main(["tiling", "--op", op, "--numel", "4096", "--beta", "2"]) == 2
        assert f"--beta does not apply to --op {op}" in capsys.readouterr().err
        assert main(["validate", "--op", op, "--numel", "4096", "--beta", "2"]) == 2
        assert f"--beta does not apply to --op {op}" in capsys.readouterr().err
    assert main(["tiling", "--op", "relu6", "--numel", "4096"]) == 2
    assert "--op must be one of" in capsys.readouterr().err


def _f32_bits(value):
    return int(np.float32(value).view(np.uint32))


@pytest.mark.parametrize("op", ["leaky_relu", "leaky_relu_grad"])
def test_tiling_op_attr_sets_the_slope(op, tmp_path, capsys):
    # issue 38: `tiling --op leaky_relu` could not set the slope; --attr NAME=VALUE takes the function's keyword
    args = ["tiling", "--op", op, "--numel", "5000", "--json"]
    assert main(args) == 0
    assert _f32_bits(json.loads(capsys.readouterr().out)["tiling"]["negativeSlope"]) == _f32_bits(0.01)
    path = tmp_path / "t.bin"
    assert main(args + ["--attr", "negative_slope=-0.3", "--write", str(path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert _f32_bits(doc["tiling"]["negativeSlope"]) == _f32_bits(-0.3)
    assert main(["validate", "--op", op, "--numel", "5000", "--host", "--attr", "negative_slope=0.7"]) == 0
    assert "OK" in capsys.readouterr().out
    # a struct read from --file holds its own slope: --attr is refused there (--set sets its fields)
    assert main(["validate", "--op", op, "--numel", "5000", "--file", str(path), "--block-dim",
                 str(doc["tiling"]["blockDim"]), "--attr", "negative_slope=0.7"]) == 2
    assert "a --file struct holds its own" in capsys.readouterr().err


def test_tiling_op_attr_every_operator_with_attributes(capsys):
    def record(*argv):
        assert main(["tiling", "--numel", "1000000", "--dtype", "float16", "--json", *argv]) == 0
        return json.loads(capsys.readouterr().out)["tiling"]

    for op in ("softplus", "softplus_grad"):   # SoftplusV2's SafeInvBeta: 1.0f / beta
        t = record("--op", op, "--attr", "beta=3", "--attr", "threshold=7.5")
        assert [_f32_bits(t[k]) for k in ("beta", "threshold")] == [_f32_bits(3), _f32_bits(7.5)]
        if op == "softplus":
            assert _f32_bits(t["invBeta"]) == _f32_bits(np.float32(1) / np.float32(3))
    for op in ("elu", "elu_grad"):
        t = record("--op", op, "--attr", "alpha=0.5", "--attr", "input_scale=2")
        assert [_f32_bits(t[k]) for k in ("alpha", "scale", "inputScale")] == [_f32_bits(v) for v in (0.5, 1, 2)]
    assert record("--op", "elu_grad", "--attr", "is_result=true")["isResult"] == 1
    # the A2 GeluGradV2's tile follows approximate (gelu_grad_v2_tiling.cpp's divisors, worked by hand)
    from reference_activation_tiling_tier2 import a2_gelu_grad_v2_tile
    for approximate in ("none", "tanh"):
        t = record("--op", "gelu_grad_v2", "--attr", f"approximate={approximate}")
        assert (t["tileDataNum"], t["bufferOpen"], t["blockDim"]) == \
            a2_gelu_grad_v2_tile(1000000, 2, approximate == "tanh")
    assert record("--op", "gelu_v2", "--attr", "approximate=tanh")["tilingKey"] != \
        record("--op", "gelu_v2")["tilingKey"]


@pytest.mark.parametrize("argv,match", [
    (["--op", "leaky_relu", "--attr", "slope=0.2"], "--attr 'slope=0.2': expected NAME=VALUE with NAME one of "
                                                    "['negative_slope']"),
    (["--op", "leaky_relu", "--attr", "negative_slope=abc"], "--attr 'negative_slope=abc'"),
    (["--op", "gelu_v2", "--attr", "approximate=erf"], "approximate must be one of"),
    (["--op", "elu_grad", "--attr", "alpha=-1", "--attr", "is_result=true"], "alpha must be >= 0 when is_result"),
    (["--op", "elu_grad", "--attr", "is_result=maybe"], "expected true or false"),
    (["--op", "silu", "--attr", "beta=2"], "--op silu has no attributes"),
    (["--op", "swish", "--attr", "beta=2"], "but beta, set by --beta"),
    (["--attr", "beta=2"], "SwishGrad's beta is --beta"),
])
def test_tiling_op_attr_refusals_name_the_option(argv, match, capsys):
    assert main(["tiling", "--numel", "4096", *argv]) == 2
    assert match in capsys.readouterr().err


@pytest.mark.parametrize("op", ["swish", "silu", "silu_grad", "swish_grad"])
@pytest.mark.parametrize("soc", ["ascend910b", "ascend950"])
def test_validate_op_host_ok(op, soc, capsys):
    args = ["validate", "--op", op, "--numel", "1000003", "--dtype", "bf16", "--soc", soc, "--host"]
    assert main(args) == 0
    assert "OK" in capsys.readouterr().out


def test_validate_op_set_and_file(tmp_path, capsys):
    args = ["validate", "--op", "silu_grad", "--numel", "100000", "--dtype", "float16"]
    assert main(args + ["--set", "tileDataNum=0"]) == 1
    assert "FIELD_RANGE" in capsys.readouterr().out
    assert main(args + ["--set", "smallCoreDataNum=2064", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["op"] == "silu_grad" and not doc["ok"]
    assert "COVERAGE_GAP" in {f["code"] for f in doc["findings"]}
    assert main(args + ["--set", "nosuch=1"]) == 2
    assert "NAME=VALUE" in capsys.readouterr().err
    assert main(args + ["--tileDataNum", "8"]) == 2
    assert "--set" in capsys.readouterr().err
    for extra in (["--sweep"], ["--buffers", "2x4"]):
        assert main(args + extra) == 2
        assert "swish_grad" in capsys.readouterr().err
    # a struct written by `tiling --op` reads back with --file
    path = tmp_path / "swish.bin"
    assert main(["tiling", "--op", "swish", "--numel", "5000", "--beta", "3", "--soc", "ascend950",
                 "--write", str(path)]) == 0
    capsys.readouterr()
    v = ["validate", "--op", "swish", "--numel", "5000", "--beta", "3", "--soc", "ascend950", "--file", str(path)]
    assert main(v) == 2
    assert "--block-dim is required" in capsys.readouterr().err
    assert main(v + ["--block-dim", "5"]) == 0
    assert main(v + ["--block-dim", "4"]) == 1
    assert "BLOCK_NUM_MISMATCH" in capsys.readouterr().out
    assert main(["validate", "--op", "swish", "--numel", "5000", "--file", str(path), "--block-dim", "5"]) == 2
    assert "holds 32 bytes" in (err := capsys.readouterr().err) and "36 bytes" in err
    assert main(["validate", "--numel", "5000", "--set", "dim0=3"]) == 2
    assert "--set applies" in capsys.readouterr().err
