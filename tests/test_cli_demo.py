import subprocess
import sys

import numpy as np

import swishgrad_numba as sg
from swishgrad_numba.cli import main
from reference import DTYPES, ref_swish_grad, ref_swish_grad_950


def test_demo_prints_the_seed_example_in_every_dtype(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    for name, dt in DTYPES.items():
        g = np.ones(6, np.float32).astype(dt)
        x = np.arange(1, 7, dtype=np.float32).astype(dt)
        for label, expected in (("gradInput", ref_swish_grad(g, x, 1.1)),
                                ("Ascend 950", ref_swish_grad_950(g, x, 1.1))):
            line = next(l for l in out.splitlines() if l.startswith(f"[{name}] {label}"))
            printed = line.split(":", 1)[1].split("(")[0].split()
            printed = np.array(printed, dtype=np.float64).astype(np.float32).astype(dt)
            assert printed.view(np.uint16 if dt.itemsize == 2 else np.uint32).tolist() == \
                expected.view(np.uint16 if dt.itemsize == 2 else np.uint32).tolist()
        assert f"[{name}] tiling:" in out
        assert f"[{name}] rel. error:" in out
    # The seed example's float32 figures (model section 1).
    assert "0.95636696 1.0978101 1.0776381 1.0405896 1.0182244 1.0075958" in out


def test_module_entry_point_and_help():
    res = subprocess.run([sys.executable, "-m", "swishgrad_numba", "--help"], capture_output=True, text=True)
    assert res.returncode == 0
    for cmd in ("demo", "tiling", "validate", "compare", "bench"):
        assert cmd in res.stdout


def test_no_command_prints_help_and_fails(capsys):
    assert main([]) == 2
    assert "usage" in capsys.readouterr().out.lower()


def test_demo_prints_one_line_per_operator(capsys):
    from reference_family import ref_swish
    from reference_silu_grad import ref_silu_grad
    from swishgrad_numba.ops import OPERATORS

    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    g = np.ones(6, np.float32)
    x = np.arange(1, 7, dtype=np.float32)
    expected = {"swish_grad": ref_swish_grad(g, x, 1.1), "swish": ref_swish(x, 1.1, "a2"),
                "silu": ref_swish(x, 1.0, "a2"), "silu_grad": ref_silu_grad(g, x)}
    # the operators with no A2 kernel: their 950 kernel's, said on the line
    from reference_activations import ref_fast_gelu, ref_fast_gelu_backward
    expected.update({"fast_gelu": ref_fast_gelu(x), "fast_gelu_grad": ref_fast_gelu_backward(g, x)})
    import reference_activations as ra     # issue 29: sigmoid_grad fed the forward's output y, in (0, 1)
    y = ra.ref_sigmoid(x, "a2")
    assert ((0 < y) & (y < 1)).all()
    expected.update(sigmoid=y, sigmoid_grad=ra.ref_sigmoid_backward(g, y, "a2"))
    (line,) = [l for l in out.splitlines() if l.startswith("[sigmoid_grad] ")]
    assert "(aclnnSigmoid output of x)" in line
    expected.update(gelu=ra.ref_gelu(x, "a2"), gelu_grad=ra.ref_gelu_backward(g, x, "a2"))
    import reference_activations_tier2 as rb   # issue 30: LeakyRelu at compute_tiling's slope 0.01, 950 only
    expected.update(leaky_relu=rb.ref_leaky_relu(x, 0.01), leaky_relu_grad=rb.ref_leaky_relu_backward(g, x, 0.01))
    # issue 30: Softplus on the 950; the A2 SoftplusV2Grad copies 512-byte blocks, past a 6-element tensor's
    # 32-byte padding: the validator flags the kernel's own behaviour. Issue 38: the line still has the
    # kernel's values (as the functional API computes them), and one indented line under it says so
    expected.update(softplus=rb.ref_softplus(x), softplus_grad=rb.ref_softplus_backward(g, x, kernel="a2"))
    # issue 30: Elu and EluGradV2 at the default attributes (1, 1, 1, not isResult)
    expected.update(elu=rb.ref_elu(x), elu_grad=rb.ref_elu_backward(g, x, kernel="a2"))
    # issue 30: GeluV2 at approximate "none" (the registry's default)
    expected.update(gelu_v2=rb.ref_gelu_v2(x))
    # the A2 GeluGradV2 DataCopies 256-byte blocks: 6 elements are read and written past their padding
    expected.update(gelu_grad_v2=rb.ref_gelu_backward_v2(g, x, kernel="a2"))
    from reference_hardswish import ref_hardswish, ref_hardswish_backward   # issue 41
    expected.update(hardswish=ref_hardswish(x), hardswish_grad=ref_hardswish_backward(g, x, "a2"))
    from reference_mish import ref_mish, ref_mish_backward_a2
    expected.update(mish=ref_mish(x, "a2"), mish_grad=ref_mish_backward_a2(g, x))   # MishGrad: the A2's
    from reference_relu import ref_relu, ref_threshold_backward   # issue 41: the A2 kernels, threshold 0
    expected.update(relu=ref_relu(x), threshold_backward=ref_threshold_backward(g, x, np.float32(0), "a2"))
    assert set(expected) == set(OPERATORS)
    assert "not run" not in out
    lines = out.splitlines()
    # the one line saying the validator flags the kernel (the A2 ThresholdBackward's and MishGrad's 256-byte
    # DataCopy too)
    flagged = {"softplus_grad", "gelu_grad_v2", "threshold_backward", "mish_grad"}
    for name in sorted(flagged):
        (at,) = [i for i, l in enumerate(lines) if l.startswith(f"[{name}] ")]
        note = lines[at + 1]
        assert note.startswith("    (") and "OVERRUN_BEYOND_PADDING" in note and "kernel's own" in note
    # an operator whose record the validator passes has no such line
    for name in set(OPERATORS) - flagged:
        (at,) = [i for i, l in enumerate(lines) if l.startswith(f"[{name}] ")]
        assert at + 1 == len(lines) or lines[at + 1].startswith("["), name
    for name, values in expected.items():
        if values is None:
            continue
        (line,) = [l for l in out.splitlines() if l.startswith(f"[{name}] ")]
        assert OPERATORS[name].aclnn[1] in line
        assert ("Ascend 950 kernel" in line) == ("a2" not in OPERATORS[name].kernels)
        printed = np.array(line.split(":", 1)[1].split(), dtype=np.float64).astype(np.float32)
        assert printed.view(np.uint32).tolist() == values.view(np.uint32).tolist(), name
