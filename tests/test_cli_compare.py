"""Tests of ``swishgrad compare`` (swishgrad_numba/cli/compare.py)."""
from __future__ import annotations

import json
import math

import ml_dtypes
import numpy as np
import pytest

import swishgrad_numba as sg
from swishgrad_numba.cli import main
from swishgrad_numba.cli.compare import InputFileError, parse_shape

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [np.dtype(np.float32), np.dtype(np.float16), BF16]
IDS = ["float32", "float16", "bfloat16"]
UINT = {2: np.uint16, 4: np.uint32}
SHAPE = (3, 5, 7)


def float64_formula(grad, x, beta):
    """model section 1 in float64 on the given inputs, beta rounded to float32."""
    g = np.asarray(grad, dtype=np.float64)
    xb = float(np.float32(beta)) * np.asarray(x, dtype=np.float64)
    sig = 1.0 / (1.0 + np.exp(-xb))
    return g * sig * (1.0 + xb * (1.0 - sig))


def make_case(dtype, beta=1.1, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-5, 5, SHAPE).astype(dtype)
    g = rng.uniform(-5, 5, SHAPE).astype(dtype)
    # A "device" output: the formula in float64, rounded once to the dtype.
    device = float64_formula(g, x, beta).astype(dtype)
    return g, x, device


def write(path, arr):
    """Save as .npy or raw little-endian bytes, by the file name."""
    if str(path).endswith(".npy"):
        np.save(path, arr)
    else:
        path.write_bytes(np.ascontiguousarray(arr).tobytes())
    return str(path)


def run(capsys, *argv):
    code = main(["compare", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("ext", [".bin", ".npy"])
def test_round_trip_pass_and_fail(tmp_path, capsys, dtype, ext):
    g, x, device = make_case(dtype)
    gp = write(tmp_path / f"g{ext}", g)
    xp = write(tmp_path / f"x{ext}", x)
    op = write(tmp_path / f"o{ext}", device)
    extra = ["--dtype", dtype.name, "--shape", ",".join(map(str, SHAPE))] if ext == ".bin" else []
    code, out, err = run(capsys, "--grad", gp, "--x", xp, "--output", op, "--beta", "1.1", *extra,
                         "--json", tmp_path / "r.json")
    assert code == 0, out + err
    assert "PASS" in out and err == ""
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["report"]["passed"] is True and doc["report"]["shape"] == list(SHAPE)
    assert doc["report"]["dtype"] == dtype.name and doc["beta"] == float(np.float32(1.1))

    # The emulator's own output compares bit-exact.
    emu = sg.swish_backward(g, x, 1.1)
    write(tmp_path / f"o{ext}", emu)
    code, out, _ = run(capsys, "--grad", gp, "--x", xp, "--output", op, "--beta", "1.1", *extra,
                       "--json", tmp_path / "r.json")
    doc = json.loads((tmp_path / "r.json").read_text())["report"]
    assert code == 0 and doc["mismatch_count"] == 0 and doc["max_ulp"] == 0

    # Damage one element a lot: MARE fails, exit 1, and the worst element is
    # listed with its inputs.
    bad = emu.copy()
    bad[1, 2, 3] = np.float32(float(emu[1, 2, 3]) * 1.5 + 0.25).astype(dtype)
    write(tmp_path / f"o{ext}", bad)
    code, out, _ = run(capsys, "--grad", gp, "--x", xp, "--output", op, "--beta", "1.1", *extra,
                       "--worst", "1", "--json", tmp_path / "r.json")
    assert code == 1 and "FAIL" in out
    doc = json.loads((tmp_path / "r.json").read_text())["report"]
    assert doc["passed"] is False and doc["mismatch_positions"] == [[1, 2, 3]]
    worst = doc["worst"]
    assert len(worst) == 1 and worst[0]["index"] == [1, 2, 3]
    assert worst[0]["inputs"] == {"grad": float(g[1, 2, 3]), "x": float(x[1, 2, 3])}
    assert "(1, 2, 3)" in out and f"{float(x[1, 2, 3]):.9g}" in out


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_verdict_follows_growing_perturbation(tmp_path, capsys, dtype):
    g, x, _ = make_case(dtype, beta=1.0, seed=1)
    emu = sg.swish_backward(g, x, 1.0)
    gp, xp = write(tmp_path / "g.npy", g), write(tmp_path / "x.npy", x)
    threshold = {"float32": 2.0 ** -13, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}[dtype.name]
    codes = []
    for factor in (0.0, 0.05, 3.0, 30.0):
        # Every element off by factor * threshold (relative), then rounded.
        dev = (emu.astype(np.float64) * (1 + factor * threshold)).astype(dtype)
        op = write(tmp_path / "o.npy", dev)
        code, _, _ = run(capsys, "--grad", gp, "--x", xp, "--output", op, "--beta", "1.0")
        # Independent verdict: MERE and MARE written out here.
        e64 = emu.astype(np.float64)
        rel = np.abs(dev.astype(np.float64) - e64) / np.maximum(np.abs(e64), np.finfo(np.float32).tiny
                                                                   if dtype != np.float16 else 2.0 ** -14)
        expect = 0 if rel.mean() < threshold and rel.max() < 10 * threshold else 1
        assert code == expect, factor
        codes.append(code)
    assert codes[0] == 0 and codes[-1] == 1


def test_bfloat16_npy_and_mixed_formats(tmp_path, capsys):
    g, x, device = make_case(BF16)
    gp = write(tmp_path / "g.npy", g)          # numpy.save writes bfloat16 as |V2
    xp = write(tmp_path / "x.bin", x)
    op = write(tmp_path / "o.npy", device)
    code, out, err = run(capsys, "--grad", gp, "--x", xp, "--output", op, "--beta", "1.1",
                         "--dtype", "bf16", "--shape", "3x5x7")
    assert code == 0, err
    # Without --dtype the raw file cannot be read.
    code, _, err = run(capsys, "--grad", gp, "--x", xp, "--output", op)
    assert code == 2 and "--x" in err and "--dtype and --shape" in err


def test_zero_d_raw_dump(tmp_path, capsys):
    g = np.array(1.0, np.float32)
    x = np.array(2.0, np.float32)
    o = sg.swish_backward(g, x)
    paths = [write(tmp_path / f"{n}.bin", a) for n, a in (("g", g), ("x", x), ("o", o))]
    code, out, err = run(capsys, "--grad", paths[0], "--x", paths[1], "--output", paths[2],
                         "--dtype", "float32", "--shape", "()")
    assert code == 0, err


def test_non_finite_dump(tmp_path, capsys):
    # Inputs with NaN and inf: the emulator gives NaN there; a device NaN with
    # another payload agrees, a finite value there fails.
    g = np.array([1.0, 1.0, np.nan, 2.0], np.float16)
    x = np.array([np.inf, -np.inf, 1.0, 0.5], np.float16)
    emu = sg.swish_backward(g, x)
    assert np.isnan(emu[:3].astype(np.float32)).all()
    dev = emu.copy()
    dev.view(np.uint16)[:3] = [0x7C01, 0xFFFF, 0x7E00]
    paths = [write(tmp_path / f"{n}.npy", a) for n, a in (("g", g), ("x", x), ("o", dev))]
    code, out, _ = run(capsys, "--grad", paths[0], "--x", paths[1], "--output", paths[2])
    assert code == 0 and "NaN           : golden 3, output 3, disagree 0" in out
    dev[0] = 0.0
    write(tmp_path / "o.npy", dev)
    code, out, _ = run(capsys, "--grad", paths[0], "--x", paths[1], "--output", paths[2])
    assert code == 1 and "disagree 1" in out


# --------------------------------------------------------------------------
# Bad files and arguments: exit 2 and a message on stderr
# --------------------------------------------------------------------------


@pytest.fixture
def good(tmp_path):
    g, x, device = make_case(np.dtype(np.float32))
    return {
        "gbin": write(tmp_path / "g.bin", g), "xbin": write(tmp_path / "x.bin", x),
        "obin": write(tmp_path / "o.bin", device),
        "gnpy": write(tmp_path / "g.npy", g), "xnpy": write(tmp_path / "x.npy", x),
        "onpy": write(tmp_path / "o.npy", device), "dir": tmp_path,
    }


RAW = ["--dtype", "float32", "--shape", "3,5,7"]


def bad_cases(f):
    d = f["dir"]
    short = write(d / "short.bin", np.zeros(104, np.float32))
    long_ = write(d / "long.bin", np.zeros(106, np.float32))
    odd = d / "odd.bin"
    odd.write_bytes(b"\0" * (105 * 4 + 1))
    garbage = d / "garbage.npy"
    garbage.write_bytes(b"not an npy file at all")
    other_shape = write(d / "o35.npy", np.zeros((3, 35), np.float32))
    f16 = write(d / "o16.npy", np.zeros(SHAPE, np.float16))
    ints = write(d / "int.npy", np.zeros(SHAPE, np.int32))
    f64 = write(d / "f64.npy", np.zeros(SHAPE, np.float64))
    return {
        "wrong size (short)": (["--grad", f["gbin"], "--x", f["xbin"], "--output", short, *RAW],
                               ["--output", "416 bytes", "420 bytes"]),
        "wrong size (long)": (["--grad", long_, "--x", f["xbin"], "--output", f["obin"], *RAW],
                              ["--grad", "424 bytes"]),
        "wrong size (odd)": (["--grad", f["gbin"], "--x", str(odd), "--output", f["obin"], *RAW],
                             ["--x", "421 bytes"]),
        "missing file": (["--grad", f["gbin"], "--x", str(d / "nope.bin"), "--output", f["obin"], *RAW],
                         ["--x", "does not exist"]),
        "directory": (["--grad", str(d), "--x", f["xbin"], "--output", f["obin"], *RAW],
                      ["--grad", "not a regular file"]),
        "unreadable npy": (["--grad", f["gnpy"], "--x", f["xnpy"], "--output", str(garbage)],
                           ["--output", "cannot read"]),
        "mismatched shapes": (["--grad", f["gnpy"], "--x", f["xnpy"], "--output", other_shape],
                              ["shapes differ", "(3, 35)"]),
        "npy vs --shape": (["--grad", f["gbin"], "--x", f["xbin"], "--output", other_shape, *RAW],
                           ["--output", "--shape"]),
        "mismatched dtypes": (["--grad", f["gnpy"], "--x", f["xnpy"], "--output", f16],
                              ["dtypes differ", "float16"]),
        "npy vs --dtype": (["--grad", f["gbin"], "--x", f["xbin"], "--output", f16, *RAW],
                           ["--output", "float16", "--dtype"]),
        "int npy": (["--grad", f["gnpy"], "--x", ints, "--output", f["onpy"]], ["--x", "int32"]),
        "float64 npy": (["--grad", f64, "--x", f["xnpy"], "--output", f["onpy"]], ["--grad", "float64"]),
        "bad dtype": (["--grad", f["gbin"], "--x", f["xbin"], "--output", f["obin"],
                       "--dtype", "int8", "--shape", "105"], ["--dtype", "int8"]),
        "bad shape letters": (["--grad", f["gbin"], "--x", f["xbin"], "--output", f["obin"],
                               "--dtype", "float32", "--shape", "a,b"], ["--shape", "'a,b'"]),
        "bad shape negative": (["--grad", f["gbin"], "--x", f["xbin"], "--output", f["obin"],
                                "--dtype", "float32", "--shape", "3,-5,7"], ["--shape"]),
        "raw without dtype": (["--grad", f["gbin"], "--x", f["xbin"], "--output", f["obin"],
                               "--shape", "105"], ["--grad", "--dtype and --shape"]),
        "negative worst": (["--grad", f["gnpy"], "--x", f["xnpy"], "--output", f["onpy"], "--worst", "-1"],
                           ["--worst"]),
        "unwritable json": (["--grad", f["gnpy"], "--x", f["xnpy"], "--output", f["onpy"],
                             "--json", str(d / "no" / "such" / "dir.json")], ["--json", "cannot write"]),
    }


CASE_NAMES = ["wrong size (short)", "wrong size (long)", "wrong size (odd)", "missing file", "directory",
              "unreadable npy", "mismatched shapes", "npy vs --shape", "mismatched dtypes", "npy vs --dtype",
              "int npy", "float64 npy", "bad dtype", "bad shape letters", "bad shape negative",
              "raw without dtype", "negative worst", "unwritable json"]


@pytest.mark.parametrize("case", CASE_NAMES)
def test_bad_input_exits_2_with_message(good, capsys, case):
    argv, words = bad_cases(good)[case]
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert err.startswith("swishgrad compare: error:")
    for w in words:
        assert w in err, (w, err)


def test_the_good_fixture_passes(good, capsys):
    # The bad cases above differ from this one only in the broken part.
    code, _, err = run(capsys, "--grad", good["gbin"], "--x", good["xbin"], "--output", good["obin"],
                       "--beta", "1.1", *RAW)
    assert code == 0, err
    code, _, err = run(capsys, "--grad", good["gnpy"], "--x", good["xnpy"], "--output", good["onpy"],
                       "--beta", "1.1")
    assert code == 0, err


def test_bad_beta_is_an_argparse_error(good, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--grad", good["gnpy"], "--x", good["xnpy"], "--output", good["onpy"],
              "--beta", "abc"])
    assert exc.value.code == 2
    assert "--beta" in capsys.readouterr().err


@pytest.mark.parametrize("text, shape", [
    ("6", (6,)), ("2,3,4", (2, 3, 4)), ("2x3x4", (2, 3, 4)), ("(2, 3)", (2, 3)), ("(6,)", (6,)),
    ("()", ()), ("[0,4]", (0, 4)), (" 5 X 1 ", (5, 1)),
])
def test_parse_shape(text, shape):
    assert parse_shape(text) == shape


@pytest.mark.parametrize("text", ["a", "2,,3", "-1", "2.5", "2;3", "(2,3", ",", "99999999999999999999",
                                  "4294967296,4294967296"])
def test_parse_shape_rejects(text):
    with pytest.raises(InputFileError, match="--shape"):
        parse_shape(text)


def test_json_inf_is_a_string(tmp_path, capsys):
    g = np.ones(4, np.float32)
    x = np.linspace(-1, 1, 4).astype(np.float32)
    emu = sg.swish_backward(g, x)
    dev = emu.copy()
    dev[2] = np.inf
    paths = [write(tmp_path / f"{n}.npy", a) for n, a in (("g", g), ("x", x), ("o", dev))]
    code, _, _ = run(capsys, "--grad", paths[0], "--x", paths[1], "--output", paths[2],
                     "--json", tmp_path / "r.json")
    doc = json.loads((tmp_path / "r.json").read_text())["report"]
    assert code == 1 and doc["mare"] == "inf" and doc["inf_output"] == 1
    assert math.isinf(float(doc["max_abs_error"]))


# --------------------------------------------------------------------------
# --envelope and --overflow-mode (model section 10; model section 2, overflow modes)
# --------------------------------------------------------------------------


def _envelope_case(tmp_path, dtype, seed=4, n=48):
    """Inputs, and a "device" dump whose every element is drawn from the reference's reachable set."""
    from reference import random_inputs, ref_envelope_members

    g, x = random_inputs(np.random.default_rng(seed), n, dtype, special_fraction=0.0)
    uint = UINT[np.dtype(dtype).itemsize]
    rng = np.random.default_rng(seed + 1)
    pick = [sorted(k for k in ref_envelope_members(gi, xi, 1.0, 1, 1, False, "a2", np.dtype(dtype).name)
                   if k != "nan") for gi, xi in zip(g, x)]
    device = np.array([p[rng.integers(len(p))] for p in pick], dtype=uint).view(dtype)
    paths = [write(tmp_path / f"{name}.npy", a) for name, a in (("g", g), ("x", x), ("o", device))]
    return g, x, device, paths


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_envelope_explains_a_device_inside_it(tmp_path, capsys, dtype):
    g, x, device, (gp, xp, op) = _envelope_case(tmp_path, dtype)
    emu = sg.swish_backward(g, x, 1.0)
    uint = UINT[np.dtype(dtype).itemsize]
    differ = int((emu.view(uint) != device.view(uint)).sum())
    code, out, err = run(capsys, "--grad", gp, "--x", xp, "--output", op, "--envelope", "exp=1,div=1",
                         "--json", tmp_path / "r.json")
    assert code == 0, err
    assert f"mismatches    : {differ}; explained by the envelope {differ}, not explained 0" in out
    assert "CONSISTENT (every element is in the envelope)" in out
    assert "precision report" in out      # the precision-standard verdict is still printed
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["envelope"]["consistent"] is True and doc["envelope"]["explained"] == differ
    # One element moved 20 ulps away: exactly it is unexplained, and listed first.
    bad = device.copy()
    bad.view(uint)[7] += 20 if not np.signbit(bad[7]) else -20
    write(tmp_path / "o.npy", bad)
    code, out, _ = run(capsys, "--grad", gp, "--x", xp, "--output", op, "--envelope", "exp=1,div=1")
    assert code == 1
    assert "INCONSISTENT (1 elements outside the envelope)" in out
    rows = out.split("worst unexplained elements:")[1].splitlines()
    assert rows[2].split()[0] == "(7,)"


def test_envelope_zero_budget_is_bit_exactness(tmp_path, capsys):
    g, x, device, (gp, xp, op) = _envelope_case(tmp_path, np.dtype(np.float32))
    emu = sg.swish_backward(g, x, 1.0)
    write(tmp_path / "o.npy", emu)
    code, out, _ = run(capsys, "--grad", gp, "--x", xp, "--output", op, "--envelope", "exp=0,div=0")
    assert code == 0 and "mismatches    : 0;" in out
    write(tmp_path / "o.npy", device)
    code, out, _ = run(capsys, "--grad", gp, "--x", xp, "--output", op, "--envelope", "exp=0,div=0")
    assert (code == 1) == bool((device.view(np.uint32) != emu.view(np.uint32)).any())


def test_envelope_preset_950_doc(tmp_path, capsys):
    g, x, device = make_case(np.dtype(np.float32))
    emu950 = sg.swish_backward(g, x, 1.0, platform=sg.Platform(soc_version="ascend950"))
    paths = [write(tmp_path / f"{n}.npy", a) for n, a in (("g", g), ("x", x), ("o", emu950))]
    code, out, err = run(capsys, "--grad", paths[0], "--x", paths[1], "--output", paths[2], "--envelope", "950-doc")
    assert code == 0, err
    assert "subnormal Exp/Div results flushed; arch35 kernel" in out and "mismatches    : 0;" in out


@pytest.mark.parametrize("spec", ["exp=1", "div=1", "exp=1,div=1,ftz,ftz", "exp=1,exp=2,div=1", "exp=65,div=0",
                                  "exp=-1,div=1", "exp=1;div=1", "a2-doc", ""])
def test_bad_envelope_spec_exits_2(good, capsys, spec):
    code, _, err = run(capsys, "--grad", good["gnpy"], "--x", good["xnpy"], "--output", good["onpy"],
                       "--envelope", spec)
    assert code == 2 and "--envelope must be exp=E,div=D" in err and repr(spec) in err


def test_envelope_with_saturation_exits_2(good, capsys):
    code, _, err = run(capsys, "--grad", good["gnpy"], "--x", good["xnpy"], "--output", good["onpy"],
                       "--envelope", "exp=1,div=1", "--overflow-mode", "saturation")
    assert code == 2 and "Inf/NaN overflow mode only" in err


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_overflow_mode_saturation_dump_compares_clean(tmp_path, capsys, dtype):
    from reference import ref_saturated_swish_grad

    # Exp overflows (x below -88.7), NaN and inf inputs, a product past the 16-bit range.
    with np.errstate(over="ignore"):
        x = np.array([-100.0, -89.0, -1e30, np.nan, np.inf, -np.inf, 1.0, 0.0, 3.0, -3.0], np.float32).astype(dtype)
        g = np.array([1.0, -2.0, 3.0, 1.0, np.nan, 2.0, np.inf, 5.0, 60000.0, -1e38], np.float32).astype(dtype)
    device = ref_saturated_swish_grad(g, x, 1.0, np.dtype(dtype).name)
    paths = [write(tmp_path / f"{n}.npy", a) for n, a in (("g", g), ("x", x), ("o", device))]
    code, out, err = run(capsys, "--grad", paths[0], "--x", paths[1], "--output", paths[2],
                         "--overflow-mode", "saturation")
    assert code == 0, out + err
    assert "saturation overflow mode" in out and "mismatches    : 0 of 10" in out
    code, out, _ = run(capsys, "--grad", paths[0], "--x", paths[1], "--output", paths[2])
    assert code == 1


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_soc_picks_the_kernel_a_bit_exact_950_dump_compares_clean(tmp_path, capsys, dtype):
    # The "device" dump is the independent reference of the 950 sequence (tests/reference.py, model section 9).
    from reference import ref_swish_grad_950

    rng = np.random.default_rng(9)
    g = rng.uniform(-5, 5, 4096).astype(dtype)
    x = rng.uniform(-12, 12, 4096).astype(dtype)
    device = ref_swish_grad_950(g, x, 1.1)
    paths = [write(tmp_path / f"{name}.npy", a) for name, a in (("g", g), ("x", x), ("o", device))]
    argv = ["--grad", paths[0], "--x", paths[1], "--output", paths[2], "--beta", "1.1"]
    reports = {}
    for soc in ("ascend950", "Ascend950PR_9599", None):
        json_path = tmp_path / f"{soc}.json"
        code, out, err = run(capsys, *argv, *(["--soc", soc] if soc else []), "--json", json_path)
        assert code in (0, 1), err
        reports[soc] = json.loads(json_path.read_text())
        assert reports[soc]["soc_version"] == (soc or "ascend910b")
    for soc in ("ascend950", "Ascend950PR_9599"):
        assert reports[soc]["kernel"] == "arch35" and reports[soc]["report"]["mismatch_count"] == 0
    if dtype == np.float32:   # the A2 sequence differs from the 950's in float32 (model section 9)
        assert reports[None]["kernel"] == "a2" and reports[None]["report"]["mismatch_count"] > 0


def test_unknown_soc_exits_2_naming_the_option(good, capsys):
    code, out, err = run(capsys, "--grad", good["gnpy"], "--x", good["xnpy"], "--output", good["onpy"],
                         "--soc", "ascend999")
    assert code == 2 and out == ""
    assert err.startswith("swishgrad compare: error: --soc 'ascend999' is not a known SoC") and "ascend950" in err
