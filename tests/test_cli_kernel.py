"""``swishgrad kernel show|run|diff FOLDER``: a kernel read from its source, on the command line.

Errors as every other command's: exit 2, one ``swishgrad kernel CMD: error: ...`` line naming the option.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from reference import assert_bits_equal
from test_cli_errors import assert_usage_error, run

KERNELS = Path(__file__).parent / "fixtures" / "kernels"
F32 = np.float32


def test_show_prints_the_program_read(capsys):
    code, out, err = run(capsys, "kernel", "show", KERNELS / "a2_scaled_abs", "--dtype", "float16")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("// scaled_abs from ") and "a2 style" in lines[0] and lines[0].endswith("float16")
    assert lines[1].startswith("scaled_abs(float16 xLocal) -> float16 outLocal  attrs(scale)")
    assert lines[2:] == ["    Duplicate(ones, 1.0f);", "    Cast(calc, xLocal, CAST_NONE);", "    Abs(calc, calc);",
                         "    Muls(calc, calc, scale);", "    Muls(calc, calc, (float)(0.3 * 0.7));",
                         "    Add(calc, calc, ones);", "    Cast(outLocal, calc, CAST_ROUND);"]


@pytest.mark.parametrize("argv, words", [
    (["kernel", "show", KERNELS / "refuse_ifdef"], ["refuse_ifdef.cpp:36", "cannot read #ifdef FAST_SCALE"]),
    (["kernel", "show", KERNELS / "no_such_kernel"], ["not a directory"]),
    (["kernel", "show", KERNELS / "dag_swish_toy", "--soc", "ascend9999"], ["--soc", "ascend9999"]),
    (["kernel", "show", KERNELS / "dag_swish_toy", "--soc", "ascend910b"], ["platform", "arch35"]),
    (["kernel", "show", KERNELS / "plain_muls", "--dtype", "float16"], ["plain_muls.cpp:36", "Muls on float16"]),
])
def test_show_errors(capsys, argv, words):
    code, _, err = run(capsys, *argv)
    assert_usage_error(code, err, *words)


def test_run_writes_the_output(capsys, tmp_path):
    x = np.concatenate([np.linspace(-70000, 70000, 4097), [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45]]).astype(F32)
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "out.npy"
    code, text, err = run(capsys, "kernel", "run", KERNELS / "a2_scaled_abs", "--input", f"x={tmp_path / 'x.npy'}",
                          "--attr", "scale=1.3", "--output", out)
    assert code == 0, err
    assert "scaled_abs: 4103 float32 elements" in text
    with np.errstate(all="ignore"):
        want = np.abs(x) * F32(1.3) * F32(0.3 * 0.7) + F32(1.0)       # plain float32, one step at a time
    assert_bits_equal(np.load(out), want)


def test_run_two_inputs_with_an_unread_one_left_out(capsys, tmp_path):
    rng = np.random.default_rng(5)
    x, dy = (rng.uniform(-8, 8, 3000).astype(np.float16) for _ in range(2))
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "dy.npy", dy)
    out = tmp_path / "dx.npy"
    code, _, err = run(capsys, "kernel", "run", KERNELS / "a2_swish_back", "--input", f"dy={tmp_path / 'dy.npy'}",
                       "--input", f"x={tmp_path / 'x.npy'}", "--attr", "sconf=1.1", "--dtype", "float16",
                       "--output", out)
    assert code == 0, err
    from swishgrad_numba.ops import read_kernel
    got = np.load(out)
    assert got.dtype == np.float16
    # the CLI and the library agree (the library is checked against the plain reference in test_ops_read_kernel)
    assert_bits_equal(got, read_kernel(KERNELS / "a2_swish_back").run(dy=dy, x=x, sconf=1.1))


@pytest.mark.parametrize("extra, words", [
    (["--input", "z={x}"], ["--input z", "inputs are"]),
    (["--input", "x"], ["--input must be NAME=VALUE"]),
    (["--input", "x={x}", "--input", "x={x}"], ["--input x is given twice"]),
    (["--input", "x={x}", "--attr", "scale=big"], ["--attr scale", "not a number"]),
    (["--input", "x={x}", "--attr", "tileNum=3"], ["--attr tileNum", "attributes are"]),
    (["--attr", "scale=1"], ["missing input 'x'"]),
    (["--input", "x={x}", "--attr", "scale=1", "--dtype", "float16"], ["--input x", "--dtype is float16"]),
    (["--input", "x={missing}", "--attr", "scale=1"], ["--input x", "does not exist"]),
    (["--input", "x={x64}", "--attr", "scale=1"], ["--input x", "float64"]),
    (["--input", "x={x}"], ["missing attribute 'scale'"]),
])
def test_run_errors(capsys, tmp_path, extra, words):
    np.save(tmp_path / "x.npy", np.ones(8, F32))
    np.save(tmp_path / "x64.npy", np.ones(8))
    paths = {"x": tmp_path / "x.npy", "x64": tmp_path / "x64.npy", "missing": tmp_path / "none.npy"}
    argv = ["kernel", "run", KERNELS / "a2_scaled_abs", "--output", tmp_path / "o.npy"]
    code, _, err = run(capsys, *argv, *[e.format(**paths) for e in extra])
    assert_usage_error(code, err, *words)
    assert not (tmp_path / "o.npy").exists()


def test_run_refuses_an_unwritable_output_before_reading(capsys, tmp_path):
    code, _, err = run(capsys, "kernel", "run", KERNELS / "a2_scaled_abs", "--input", "x=nothing.npy",
                       "--output", tmp_path)
    assert_usage_error(code, err, "--output", "directory")


def test_diff_differs_and_names_what(capsys):
    code, out, _ = run(capsys, "kernel", "diff", KERNELS / "a2_swish_back", "swish_grad")
    assert code == 1
    assert "float32: differ" in out and "Reciprocal(sig, sig);" in out and "Div(o, o, t);" in out


def test_diff_equal_for_the_packages_own_programs_printed_as_source(capsys, tmp_path):
    # the package's A2 Swish programs written out as Ascend C: read back, they compute what swish's do
    from swishgrad_numba.ops import get_operator
    from swishgrad_numba.reader.printer import write_a2
    from swishgrad_numba.reader.to_program import from_program

    swish = get_operator("swish")
    bodies = {dt: from_program(swish.program(dt), ("x",), "y") for dt in ("float32", "float16", "bfloat16")}
    folder = write_a2(tmp_path / "swish_src", "my_swish", ("x", "y"), bodies, ("scale",))
    code, out, err = run(capsys, "kernel", "diff", folder, "swish")
    assert code == 0, out + err
    assert out.splitlines() == ["float32: equal (1 program)", "float16: equal (1 program)",
                                "bfloat16: equal (1 program)"]
    # one constant changed in the source: that dtype differs, exit 1
    header = folder / "my_swish.h"
    text = header.read_text()
    assert text.count("Adds(t, t, 1.0f, this->len);") == 3
    header.write_text(text.replace("Adds(t, t, 1.0f, this->len);", "Adds(t, t, 2.0f, this->len);", 1))
    code, out, _ = run(capsys, "kernel", "diff", folder, "swish")
    assert code == 1 and "float32: differ" in out and "float16: equal (1 program)" in out


@pytest.mark.parametrize("argv, words", [
    (["kernel", "diff", KERNELS / "a2_swish_back", "selu"], ["op must be one of", "selu"]),
    (["kernel", "diff", KERNELS / "refuse_reinterpret", "swish"], ["refuse_reinterpret.cpp:36", "ReinterpretCast"]),
])
def test_diff_errors(capsys, argv, words):
    code, _, err = run(capsys, *argv)
    assert_usage_error(code, err, *words)


def _printed(tmp_path, op_name, gm_params, inputs, dtypes=("float32", "float16", "bfloat16"), variant="main"):
    """The package's own A2 programs of ``op_name`` written out as Ascend C (our fixture, not upstream's)."""
    from swishgrad_numba.ops import get_operator
    from swishgrad_numba.reader.printer import write_a2
    from swishgrad_numba.reader.to_program import from_program

    kernel = get_operator(op_name).kernels["a2"]
    bodies = {dt: from_program(kernel.programs(dt, variant), inputs, gm_params[-1]) for dt in dtypes}
    return write_a2(tmp_path / f"{op_name}_src", f"my_{op_name}", gm_params, bodies)


def test_diff_matches_inputs_by_role(capsys, tmp_path):
    # sigmoid_grad's programs read (dy, y); this source's GM_ADDR arguments are (b, a): a is dy, b is y
    folder = _printed(tmp_path, "sigmoid_grad", ("b", "a", "z"), ("a", "b"))
    assert "void my_sigmoid_grad(GM_ADDR b, GM_ADDR a, GM_ADDR z" in (folder / "my_sigmoid_grad.cpp").read_text()
    code, out, err = run(capsys, "kernel", "diff", folder, "sigmoid_grad")
    assert code == 0, out + err
    assert out.splitlines() == [
        "inputs matched by role: a as dy, b as y (the source's order ['b', 'a'], sigmoid_grad's ['dy', 'y'])",
        "float32: equal (1 program)", "float16: equal (1 program)", "bfloat16: equal (1 program)"]
    # no order makes a different computation equal (one dtype's Sub reads dy): it differs, the others are equal
    header = folder / "my_sigmoid_grad.h"
    assert header.read_text().count("Sub(t, t, y, this->len);") == 1
    header.write_text(header.read_text().replace("Sub(t, t, y, this->len);", "Sub(t, t, dy, this->len);"))
    code, out, _ = run(capsys, "kernel", "diff", folder, "sigmoid_grad")
    assert code == 1 and out.startswith("inputs matched by role: a as dy, b as y")
    assert "float32: differ" in out and "float16: equal (1 program)" in out and "bfloat16: equal (1 program)" in out


def test_diff_compares_every_soc_variant_of_the_package(capsys, tmp_path):
    # gelu_grad's A2 kernel runs the versionNum 1 formula on ascend310b (variant v1) and main elsewhere: a source
    # with main only computes what one of them does, so it differs, naming the variant it lacks
    folder = _printed(tmp_path, "gelu_grad", ("dy", "x", "z"), ("dy", "x"))
    code, out, _ = run(capsys, "kernel", "diff", folder, "gelu_grad")
    assert code == 1
    for dtype in ("float32", "float16", "bfloat16"):
        assert f"{dtype}: differ" in out
    assert out.count("only in gelu_grad (v1):") == 3 and "only in gelu_grad (main)" not in out
    assert f"only in {folder}" not in out


def test_diff_against_a_program_with_instructions_the_reader_does_not_read(capsys):
    # the 950 LeakyRelu's programs Compare and Select, which no read source has: they differ, listed as written
    code, out, err = run(capsys, "kernel", "diff", KERNELS / "dag_v2_halfexp", "leaky_relu")
    assert code == 1, err
    assert out.count(": differ") == 3 and out.count("only in leaky_relu (main):") == 3 and "Compare(" in out


def test_show_prints_a_dag_read_in_order(capsys):
    # the 950 DAG style: the Binds followed from the output back, emitted inputs first
    code, out, err = run(capsys, "kernel", "show", KERNELS / "dag_ratio_16b", "--dtype", "bfloat16")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("// ratio from ") and "(dag style, arch35 kernel), bfloat16" in lines[0]
    assert lines[1:] == [
        "ratio(bfloat16 Load) -> bfloat16 Narrow  locals(float32 Wide, float32 Square, float32 Denominator, "
        "float32 Quotient):",
        "    Cast(Wide, Load, CAST_NONE);", "    Mul(Square, Wide, Wide);", "    Adds(Denominator, Square, 1.0f);",
        "    Div(Quotient, Wide, Denominator);", "    Cast(Narrow, Quotient, CAST_RINT);"]


def test_run_an_operator_folder_with_its_op_definitions_attribute(capsys, tmp_path):
    x = np.linspace(-5, 5, 1024).astype(F32)
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "out.npy"
    code, text, err = run(capsys, "kernel", "run", KERNELS / "host_abs_axpy", "--input", f"x={tmp_path / 'x.npy'}",
                          "--attr", "alpha=-0.25", "--output", out)
    assert code == 0, err
    assert_bits_equal(np.load(out), np.abs(x) * F32(-0.25) + x)     # the host sets slope from alpha
    code, _, err = run(capsys, "kernel", "run", KERNELS / "host_abs_axpy", "--input", f"x={tmp_path / 'x.npy'}",
                       "--attr", "beta=1", "--output", out)
    assert code == 2 and "['slope', 'alpha']" in err
