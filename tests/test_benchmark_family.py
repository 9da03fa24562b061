"""Tests of swishgrad_numba.benchmark.family and ``swishgrad bench --op``: what is timed, the rows, the CLI.

No timing assertions: the tests check that the right calls are timed (their bits against the plain
references in tests/) and the shape of what a run reports.
"""
from __future__ import annotations

import json

import ml_dtypes
import numpy as np
import pytest

from reference import assert_bits_equal, ref_swish_grad
from reference_family import ref_swish
from reference_silu_grad import ref_silu_grad
from swishgrad_numba import ASCEND950_PLATFORM
from swishgrad_numba import benchmark as bm
from swishgrad_numba.ops.registry import every_operator
from swishgrad_numba.cli import main


def test_the_ops_and_the_default():
    # every registered operator has its row in the target table (bench/target_table.py), the row kind's too
    assert sorted(bm.OP_BENCHES) == sorted(every_operator())
    assert [op for op, b in bm.OP_BENCHES.items() if not b.elementwise] == ["swiglu", "swiglu_grad", "rms_norm"]
    assert bm.DEFAULT_OP == "swish_grad"
    assert bm.check_op("silu") == "silu"
    with pytest.raises(ValueError, match=r"--op must be one of swish, silu, silu_grad, swish_grad, fast_gelu, "
                                         r"fast_gelu_grad, .*leaky_relu_grad.*rms_norm; got 'selu'"):
        bm.check_op("selu", argname="--op")


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16])
@pytest.mark.parametrize("op", ["swish", "silu", "silu_grad", "swish_grad"])
def test_the_timed_calls_compute_the_operator(op, dtype):
    g, x = bm.make_inputs(300, dtype)
    out = np.empty_like(x)
    emulator, peer = bm.op_calls(op, g, x, out)
    beta = bm.OP_BENCHES[op].beta
    expected = {"swish": lambda: ref_swish(x, beta, "a2"), "silu": lambda: ref_swish(x, 1.0, "a2"),
                "silu_grad": lambda: ref_silu_grad(g, x), "swish_grad": lambda: ref_swish_grad(g, x, beta)}[op]()
    assert emulator() is out
    assert_bits_equal(out, expected)
    pytest.importorskip("torch")
    result = peer()
    assert tuple(result.shape) == x.shape and str(result.dtype) == f"torch.{np.dtype(dtype).name}"
    # The peer writes into a tensor of its own: the emulator's output is untouched.
    assert_bits_equal(out, expected)


def test_run_op_comparison_rows():
    rows = bm.run_op_comparison("silu", [64, 256], ["float16"], threads=[1], repeat=1, min_time=0.0,
                                platform=ASCEND950_PLATFORM)
    assert [(r["impl"], r["size"]) for r in rows] == [("emulator", 64), ("torch", 64), ("emulator", 256),
                                                      ("torch", 256)]
    assert all(r["op"] == "silu" and r["variant"] == "out" and r["threads"] == 1 for r in rows)
    emu = rows[0]
    assert emu["kernel"] == "arch35" and emu["seconds"] > 0 and emu["gb_per_s"] > 0
    if rows[1]["skipped"] is None:
        assert emu["ratio_torch"] == pytest.approx(rows[1]["seconds"] / emu["seconds"])
        assert rows[1]["peer"] == "aten.silu.out"
    text = bm.format_op_table(rows)
    assert text.count("\n") == 5 and "silu" in text
    off = bm.run_op_comparison("silu_grad", [32], ["float32"], threads=[1], repeat=1, min_time=0.0, use_torch=False)
    assert off[1]["skipped"] == "disabled" and off[0]["ratio_torch"] is None
    assert "skipped: disabled" in bm.format_op_table(off)
    with pytest.raises(ValueError, match="sizes must be"):
        bm.run_op_comparison("silu", [], ["float16"])


def test_cli_bench_op(tmp_path, capsys):
    path = tmp_path / "bench.json"
    assert main(["bench", "--op", "swish", "--quick", "--sizes", "6", "--dtypes", "float16", "--threads", "1",
                 "--repeat", "1", "--no-progress", "--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert "op swish:" in out and "targets" not in out
    data = json.loads(path.read_text())
    assert data["config"]["op"] == "swish" and data["config"]["sizes"] == [64]
    assert {r["impl"] for r in data["results"]} == {"emulator", "torch"}


@pytest.mark.parametrize("argv, match", [
    (["--op", "selu"], "--op must be one of"),
    (["--op", "silu", "--plot", "x.png"], "--plot draws the swish_grad comparison only"),
    (["--op", "silu", "--dtypes", "float64"], "--dtypes"),
])
def test_cli_bench_op_rejects(argv, match, capsys):
    assert main(["bench", "--quick", *argv]) == 2
    assert match in capsys.readouterr().err


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize("op", ["fast_gelu", "fast_gelu_grad"])
def test_the_fast_gelu_calls_and_their_torch_formula(op, dtype):
    """The emulator's timed call is the 950 kernel (bit for bit); the peer is the formula in torch, which
    must agree with the float64 truth to the dtype's precision (it is a peer, not a reference)."""
    from reference_activations import ref_fast_gelu, ref_fast_gelu_backward, truth_fast_gelu, \
        truth_fast_gelu_backward

    g, x = bm.make_inputs(300, dtype)
    out = np.empty_like(x)
    emulator, peer = bm.op_calls(op, g, x, out)
    expected = ref_fast_gelu(x) if op == "fast_gelu" else ref_fast_gelu_backward(g, x)
    assert emulator() is out
    assert_bits_equal(out, expected)
    torch = pytest.importorskip("torch")
    result = peer()
    assert tuple(result.shape) == x.shape and str(result.dtype) == f"torch.{np.dtype(dtype).name}"
    truth = truth_fast_gelu(x) if op == "fast_gelu" else truth_fast_gelu_backward(g, x)
    got = result.to(torch.float64).numpy()
    tol = {np.dtype(np.float32): 1e-5, np.dtype(np.float16): 4e-3}.get(np.dtype(dtype), 3e-2)
    assert np.allclose(got, truth, rtol=tol, atol=tol)
    assert_bits_equal(out, expected)


def test_run_op_comparison_defaults_fast_gelu_to_the_950():
    rows = bm.run_op_comparison("fast_gelu_grad", [64], ["float32"], threads=[1], repeat=1, min_time=0.0,
                                use_torch=False)
    assert rows[0]["kernel"] == "arch35" and rows[0]["seconds"] > 0


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16])
@pytest.mark.parametrize("op", ["leaky_relu", "leaky_relu_grad"])
def test_the_leaky_relu_calls_and_torchs(op, dtype):
    """The timed call is the 950 kernel, bit for bit; torch's own leaky_relu computes the same bits."""
    from reference_activations_tier2 import ref_leaky_relu, ref_leaky_relu_backward

    g, x = bm.make_inputs(300, dtype)
    out = np.empty_like(x)
    emulator, peer = bm.op_calls(op, g, x, out)
    s32 = np.float32(bm.OP_BENCHES[op].beta)
    expected = ref_leaky_relu(x, s32) if op == "leaky_relu" else ref_leaky_relu_backward(g, x, s32)
    assert emulator() is out
    assert_bits_equal(out, expected)
    torch = pytest.importorskip("torch")
    result = peer()
    bits = result.view(torch.int16 if result.dtype == torch.bfloat16 else torch.int32).numpy()
    assert_bits_equal(bits.view(np.dtype(dtype)), expected)


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16])
@pytest.mark.parametrize("op", ["softplus", "softplus_grad"])
def test_the_softplus_calls_and_their_torch_peer(op, dtype):
    """The emulator's timed call is the kernel (softplus: the 950's; softplus_grad: the A2's by default),
    the peer torch's own softplus, close to the kernel's result (a peer, not a reference)."""
    from reference_activations_tier2 import ref_softplus, ref_softplus_backward

    g, x = bm.make_inputs(300, dtype)
    out = np.empty_like(x)
    emulator, peer = bm.op_calls(op, g, x, out)
    expected = ref_softplus(x) if op == "softplus" else ref_softplus_backward(g, x, kernel="a2")
    assert emulator() is out
    assert_bits_equal(out, expected)
    torch = pytest.importorskip("torch")
    got = peer().to(torch.float64).numpy()
    tol = 1e-5 if np.dtype(dtype) == np.float32 else 3e-2
    assert np.allclose(got, expected.astype(np.float64), rtol=tol, atol=tol)


def _third_tier_expected(op, g, x):
    """The tests' plain reference for the timed call of ``op`` (its default kernel) on the bench's arrays."""
    from reference_hardswish import ref_hardswish, ref_hardswish_backward
    from reference_mish import ref_mish, ref_mish_backward_a2
    from reference_relu import ref_relu, ref_threshold_backward
    from reference_rms_norm import rms_norm_a2
    from reference_swiglu import swiglu_grad_a2_ref, swiglu_ref

    return {"mish": lambda: ref_mish(x, "a2"), "mish_grad": lambda: ref_mish_backward_a2(g, x),
            "hardswish": lambda: ref_hardswish(x), "hardswish_grad": lambda: ref_hardswish_backward(g, x, "a2"),
            "relu": lambda: ref_relu(x),
            "threshold_backward": lambda: ref_threshold_backward(g, x, np.float32(0), "a2"),
            "swiglu": lambda: swiglu_ref(x), "swiglu_grad": lambda: swiglu_grad_a2_ref(g, x),
            "rms_norm": lambda: rms_norm_a2(x, g)[0]}[op]()


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16])
@pytest.mark.parametrize("op", ["mish", "mish_grad", "hardswish", "hardswish_grad", "relu", "threshold_backward",
                                "swiglu", "swiglu_grad", "rms_norm"])
def test_the_third_tier_and_row_calls(op, dtype):
    """The timed call is the operator's kernel on the arrays its row of the table makes (the row operators'
    x as rows of 4096), bit for bit; the peer gives the result's shape and dtype, near the kernel's."""
    bench = bm.OP_BENCHES[op]
    g, x, out = bench.arrays(*bm.make_inputs(8192, dtype))
    emulator, peer = bm.op_calls(op, g, x, out)
    expected = _third_tier_expected(op, g, x)
    y = out[0] if op == "rms_norm" else out
    assert emulator() is y
    assert_bits_equal(y, expected)
    assert bench.bytes_moved(g, x, out) == x.nbytes + y.nbytes + (g.nbytes if bench.inputs == 2 else 0)
    torch = pytest.importorskip("torch")
    result = peer()
    assert tuple(result.shape) == y.shape and str(result.dtype) == f"torch.{np.dtype(dtype).name}"
    got, want = result.to(torch.float64).numpy(), expected.astype(np.float64)
    tol = 1e-4 if np.dtype(dtype) == np.float32 else 3e-2
    near = np.isclose(got, want, rtol=tol, atol=tol)
    if op == "threshold_backward" and np.dtype(dtype) != np.float32:
        return          # the A2 ReluGrad's bfloat16: its int constants wrap to 0 (tests/reference_relu.py)
    assert near.mean() > 0.99      # the kernels' own quirks (hardswish_grad at +-3, ...) differ at a few points


def test_a_row_operators_size_must_fill_its_rows():
    with pytest.raises(ValueError, match="sizes: a row operator's size must be even and a multiple of 4096"):
        bm.run_op_comparison("swiglu", [6000], ["float32"], threads=[1], repeat=1, min_time=0.0, use_torch=False)
    rows = bm.run_op_comparison("rms_norm", [2048], ["float16"], threads=[1], repeat=1, min_time=0.0,
                                use_torch=False)
    assert rows[0]["kernel"] == "a2" and rows[0]["size"] == 2048 and rows[0]["gb_per_s"] > 0
