"""Sigmoid's and SigmoidGrad's host tilings (both kernels) against the hand-worked readings of
tests/reference_activation_tiling.py, and every generic entry point on their records."""
import numpy as np
import pytest

import reference_activation_tiling as rt
from reference import assert_bits_equal
import reference_activations as ra

import swishgrad_numba as sg
from swishgrad_numba import devicetime as dt
from swishgrad_numba.cli import main
from swishgrad_numba.platform import ASCEND950_PLATFORM, REFERENCE_PLATFORM

OPS = {"sigmoid": "sigmoid", "sigmoid_grad": "sigmoid_backward"}      # registry name -> reference name
ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2}
SIZES = [1, 7, 1023, 1024, 2047, 2048, 2049, 49_152, 49_153, 1 << 20, (1 << 24) + 5]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", ITEMSIZE)
@pytest.mark.parametrize("n", SIZES)
def test_a2_host_tiling_as_worked_by_hand(op, dtype, n):
    t = sg.compute_tiling(n, dtype, op=op)
    fields, cores, key, _buffers = rt.a2_tiling(OPS[op], n, ITEMSIZE[dtype])
    assert t.fields == fields
    assert (t.block_dim, t.tiling_key) == (cores, key)
    assert t.workspace_size == REFERENCE_PLATFORM.lib_workspace_size


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", ITEMSIZE)
@pytest.mark.parametrize("n", SIZES)
def test_arch35_host_tiling_as_worked_by_hand(op, dtype, n):
    t = sg.compute_tiling(n, dtype, op=op, platform=ASCEND950_PLATFORM)
    fields, block_dim, key = rt.arch35_tiling(OPS[op], n, dtype)
    assert t.fields == {name: fields[name] for name in t.fields}
    assert (t.block_dim, t.tiling_key, t.workspace_size) == (block_dim, key, 32)


@pytest.mark.parametrize("op, dtype, n, key", [
    # activation/sigmoid/tests/ut/op_host/arch35/test_sigmoid_tiling.cpp:121, 204, 287
    ("sigmoid", "float16", 16 * 4 * 4 * 8, 100000000000100),
    ("sigmoid", "bfloat16", 12 * 13 * 9 * 10 * 12 * 6, 200000000000100),
    ("sigmoid", "float32", 16, 300000000000100),
    # activation/sigmoid_grad/tests/ut/op_host/arch35/test_sigmoid_grad_tiling.cpp:122, 204
    ("sigmoid_grad", "float16", 16 * 4 * 4 * 8, 100000000000100),
    ("sigmoid_grad", "bfloat16", 12 * 13 * 9 * 10 * 12 * 6, 200000000000100),
])
def test_arch35_keys_of_the_upstream_unit_tests(op, dtype, n, key):
    assert sg.compute_tiling(n, dtype, op=op, platform=ASCEND950_PLATFORM).tiling_key == key


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("platform", [REFERENCE_PLATFORM, ASCEND950_PLATFORM], ids=["a2", "arch35"])
@pytest.mark.parametrize("dtype", ITEMSIZE)
def test_host_tilings_validate_run_and_estimate(op, platform, dtype):
    n = 100_003
    t = sg.compute_tiling(n, dtype, op=op, platform=platform)
    report = sg.validate_tiling(t, n, dtype, platform)
    assert report.ok, report.errors
    kernel = "a2" if platform is REFERENCE_PLATFORM else "arch35"
    rng = np.random.default_rng(n)
    y = rng.uniform(-0.5, 1.5, n).astype(np.float32).astype(sg.SUPPORTED_DTYPES[dtype])
    dy = rng.uniform(-9, 9, n).astype(np.float32).astype(y.dtype)
    if op == "sigmoid":
        got, want = sg.run_tiling(None, y, np.empty_like(y), t, platform=platform), ra.ref_sigmoid(y, kernel)
    else:
        got, want = sg.run_tiling(dy, y, np.empty_like(y), t, platform=platform), ra.ref_sigmoid_backward(dy, y, kernel)
    assert_bits_equal(got, want, f"{op} {kernel} {dtype}")
    est = dt.estimate(t, n, dtype, op=op, platform=platform)
    assert est.valid and est.duration_us > 0


def test_a2_sigmoid_kernel_ub_plan_fits_exactly():
    """The A2 plan the validator charges is the kernel's Init (sigmoid.h:78-93): at 16-bit single
    buffering it fills the UB less the host's 1,024 reserved bytes exactly."""
    t = sg.compute_tiling(2047, "float16", op="sigmoid")
    assert t.tiling_key == 1 and t["tileDataNum"] == 24448
    report = sg.validate_tiling(t, 2047, "float16")
    assert report.ok
    assert rt.a2_kernel_ub_bytes("sigmoid", 24448, 2, buffer_num=1) == REFERENCE_PLATFORM.ub_size - 1024


def test_validator_finds_a_broken_record():
    t = sg.compute_tiling(4096, "float32", op="sigmoid", platform=ASCEND950_PLATFORM)
    bad = type(t)(t.op, t.architecture, t.data, t.block_dim, 7, t.workspace_size)
    report = sg.validate_tiling(bad, 4096, "float32", ASCEND950_PLATFORM)
    assert not report.ok and any(f.code == "TILING_KEY_MISMATCH" for f in report.errors)
    data = t.data.copy()
    data["elemNum"] = 64
    report = sg.validate_tiling(type(t)(t.op, t.architecture, data, t.block_dim, t.tiling_key, 32), 4096, "float32",
                                ASCEND950_PLATFORM)
    assert any(f.code == "FIELD_RANGE" for f in report.errors)
    a2 = sg.compute_tiling(4096, "float32", op="sigmoid_grad")
    with pytest.raises(ValueError, match="errors"):
        sg.run_tiling(np.ones(4096, np.float32), np.ones(4096, np.float32), np.empty(4096, np.float32),
                      type(a2)(a2.op, a2.architecture, a2.data, 60, 0, a2.workspace_size))


def test_ops_list_and_show(capsys):
    assert main(["ops", "list"]) == 0
    out = capsys.readouterr().out
    assert "aclnnSigmoid " in out and "aclnnSigmoidBackward" in out
    assert main(["ops", "show", "sigmoid_grad", "--soc", "ascend950", "--dtype", "float16"]) == 0
    shown = capsys.readouterr().out
    assert "Sub(t, one, yf);\n    Mul(t, dyf, t);\n    Mul(z, t, yf);" in shown
    assert main(["ops", "show", "sigmoid_grad"]) == 0
    assert "Sub(t, t, y);\n    Mul(t, t, y);\n    Mul(out, dy, t);" in capsys.readouterr().out


def test_host_refuses_a_unified_buffer_too_small():
    with pytest.raises(ValueError, match="platform.ub_size"):
        sg.compute_tiling(64, "float32", op="sigmoid", platform=sg.Platform(ub_size=1024))
