"""Tests of swishgrad_numba.torch: the autograd Functions, the Swish module, the functional forms.

The forward pass is checked bit for bit against the plain reference in tests/reference_family.py, never against
the package."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import swishgrad_numba as sg  # noqa: E402
from swishgrad_numba.torch import (  # noqa: E402
    Swish,
    SwishBackwardFunction,
    SwishFunction,
    swish,
    swish_backward_torch,
)
from reference_family import ref_swish  # noqa: E402

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
# Same-width integer type for reading raw bit patterns.
BITS = {torch.float32: torch.int32, torch.float16: torch.int16, torch.bfloat16: torch.int16}
NUMPY = {torch.float32: np.float32, torch.float16: np.float16, torch.bfloat16: ml_dtypes.bfloat16}
# model section 7: MERE below t, MARE below 10 t.
THRESHOLD = {torch.float32: 2.0**-13, torch.float16: 2.0**-10, torch.bfloat16: 2.0**-7}
SPECIALS = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-30, -3.0e4, 88.0, -88.0]


def bits(t) -> np.ndarray:
    """Raw bit patterns of a tensor, as integers (NaNs compare by payload)."""
    return t.detach().contiguous().view(BITS[t.dtype]).numpy()


def to_numpy(t) -> np.ndarray:
    """The tensor's bit patterns as a NumPy array of the matching dtype (NaN payloads kept)."""
    return bits(t).view(NUMPY[t.dtype])


def np_bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.int32 if a.dtype.itemsize == 4 else np.int16)


def sample(shape, dtype, seed, specials=True):
    """Seeded tensor with values in [-5, 5] and, if it has room, special values."""
    gen = torch.Generator().manual_seed(seed)
    t = torch.rand(shape, generator=gen, dtype=torch.float64) * 10 - 5
    flat = t.reshape(-1)
    if specials and flat.numel() >= 2 * len(SPECIALS):
        flat[: len(SPECIALS)] = torch.tensor(SPECIALS, dtype=torch.float64)
    return t.to(dtype)


def reference_grad(g, x, beta):
    """The emulator's gradient for the same data, through plain NumPy arrays."""
    return sg.swish_backward(to_numpy(g), to_numpy(x), beta)


@pytest.mark.parametrize("beta", [1.0, 1.1, -842.45])
@pytest.mark.parametrize("shape", [(), (0,), (17,), (3, 5, 4)], ids=str)
@pytest.mark.parametrize("name", DTYPES)
def test_module_gradient_is_swish_backward_bit_for_bit(name, shape, beta):
    dtype = DTYPES[name]
    x0 = sample(shape, dtype, seed=1)
    g = sample(shape, dtype, seed=2)
    x = x0.clone().requires_grad_()
    y = Swish(beta)(x)
    y.backward(g)
    assert x.grad.dtype == dtype and x.grad.shape == x.shape
    np.testing.assert_array_equal(bits(x.grad), np_bits(reference_grad(g, x0, beta)))


@pytest.mark.parametrize("name", DTYPES)
def test_large_tensor_gradient_bit_for_bit(name):
    # Large enough for the emulator's multithreaded launch.
    dtype = DTYPES[name]
    x0 = sample((300, 257), dtype, seed=3)
    g = sample((300, 257), dtype, seed=4)
    x = x0.clone().requires_grad_()
    swish(x, 1.1).backward(g)
    np.testing.assert_array_equal(bits(x.grad), np_bits(reference_grad(g, x0, 1.1)))


@pytest.mark.parametrize("name", DTYPES)
def test_non_contiguous_tensors(name):
    dtype = DTYPES[name]
    base = sample((6, 10), dtype, seed=5)
    x = base.t()[::2].detach().requires_grad_()  # transposed and strided leaf
    assert not x.is_contiguous()
    g_row = sample((6,), dtype, seed=6)
    g = g_row.expand(5, 6)  # stride-0 upstream gradient
    y = swish(x, 0.75)
    y.backward(g)
    expected = reference_grad(g, x.detach(), 0.75)
    np.testing.assert_array_equal(bits(x.grad), np_bits(expected))
    # The functional form accepts non-contiguous inputs too and returns a contiguous tensor.
    out = swish_backward_torch(g, x.detach(), 0.75)
    assert out.is_contiguous() and out.shape == x.shape and out.dtype == dtype
    np.testing.assert_array_equal(bits(out), np_bits(expected))


def test_sum_loss_gradient():
    # backward of sum() hands the Function an expanded tensor of ones.
    x0 = sample((4, 9), torch.float32, seed=7)
    x = x0.clone().requires_grad_()
    swish(x, 2.0).sum().backward()
    expected = sg.swish_backward(np.ones((4, 9), np.float32), to_numpy(x0), 2.0)
    np.testing.assert_array_equal(bits(x.grad), np_bits(expected))


def test_forward_is_swish():
    x = sample((50,), torch.float32, seed=8, specials=False)
    beta = float(np.float32(1.3))
    # Both the module and the functional form are the NPU's Swish kernel (issue 20), not PyTorch's formula.
    expected = np_bits(ref_swish(to_numpy(x), beta, "a2"))
    np.testing.assert_array_equal(bits(Swish(1.3)(x)), expected)
    np.testing.assert_array_equal(bits(SwishFunction.apply(x, beta)), expected)
    np.testing.assert_array_equal(bits(swish(x, 1.3)), expected)


PLATFORMS = {"a2": sg.REFERENCE_PLATFORM, "arch35": sg.ASCEND950_PLATFORM}
# 1.3: the A2 sequence and the 950 "other" DAG; -1 and 0: the 950's other two DAGs.
FORWARD_BETAS = [1.3, -1.0, 0.0, -842.45]


@pytest.mark.parametrize("arch", PLATFORMS)
@pytest.mark.parametrize("name", DTYPES)
def test_functional_forward_is_the_kernel_bit_for_bit(name, arch):
    dtype = DTYPES[name]
    platform = PLATFORMS[arch]
    x = sample((3, 400), dtype, seed=40)          # specials included
    # Every 16-bit pattern the first 2^16 integers give, as the dtype (float32 takes a plain sample).
    if dtype != torch.float32:
        every = torch.arange(-(2**15), 2**15, dtype=torch.int32).to(torch.int16).view(dtype)
    else:
        every = sample((4000,), dtype, seed=41)
    for beta in FORWARD_BETAS:
        b32 = float(np.float32(beta))
        for data in (x, x.t(), every):            # contiguous, transposed (non-contiguous), the sweep
            expected = np_bits(ref_swish(to_numpy(data), b32, arch))
            y = swish(data.detach().clone().requires_grad_() if data is x else data, beta, platform=platform)
            assert y.dtype == dtype and y.shape == data.shape and y.is_contiguous()
            np.testing.assert_array_equal(bits(y), expected, err_msg=f"swish beta={beta}")
            np.testing.assert_array_equal(bits(SwishFunction.apply(data, b32, platform)), expected,
                                          err_msg=f"SwishFunction beta={beta}")


def test_beta_is_a_float32_constant():
    m = Swish(1.1)
    assert m.beta == float(np.float32(1.1))
    assert list(m.parameters()) == [] and "beta=" in repr(m)
    assert Swish().beta == 1.0


def relative_errors(a, b, dtype):
    """|a - b| / max(|b|, tiny) in float64, tiny the dtype's smallest normal (model section 7)."""
    a = a.detach().double().numpy()
    b = b.detach().double().numpy()
    return np.abs(a - b) / np.maximum(np.abs(b), float(torch.finfo(dtype).tiny))


@pytest.mark.parametrize("name", DTYPES)
def test_agrees_with_torch_silu_gradient_at_beta_one(name):
    dtype = DTYPES[name]
    x0 = sample((20000,), dtype, seed=9, specials=False)
    g = sample((20000,), dtype, seed=10, specials=False)
    ours = x0.clone().requires_grad_()
    swish(ours, 1.0).backward(g)
    theirs = x0.clone().requires_grad_()
    torch.nn.functional.silu(theirs).backward(g)
    rel = relative_errors(ours.grad, theirs.grad, dtype)
    t = THRESHOLD[dtype]
    assert rel.mean() < t, f"MERE {rel.mean()} >= {t}"
    assert rel.max() < 10 * t, f"MARE {rel.max()} >= {10 * t}"


@pytest.mark.parametrize("name", ["float32", "bfloat16"])
def test_training_loop(name):
    dtype = DTYPES[name]
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(11)
    inputs = (torch.rand(64, 2, generator=gen) * 4 - 2).to(dtype)
    targets = (torch.sin(2 * inputs[:, :1].float()) * inputs[:, 1:].float()).to(dtype)
    model = torch.nn.Sequential(
        torch.nn.Linear(2, 32), Swish(1.0), torch.nn.Linear(32, 32), Swish(1.5), torch.nn.Linear(32, 1)
    ).to(dtype)
    opt = torch.optim.Adam(model.parameters(), lr=2e-2)
    losses = []
    for _ in range(25):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(inputs).float(), targets.float())
        loss.backward()
        for p in model.parameters():
            assert torch.isfinite(p.grad).all()
        opt.step()
        losses.append(loss.item())
    assert np.isfinite(losses).all()
    assert losses[-1] < 0.5 * losses[0], losses


def float64_swish(x, beta):
    """Swish in float64 by plain PyTorch ops, beta rounded to float32 as the kernel sees it."""
    b = float(np.float32(beta))
    return x * torch.sigmoid(b * x)


def assert_meets_standard(ours, golden, dtype):
    """model section 7: MERE below t, MARE below 10 t, NaN where and only where the golden is NaN."""
    assert ours.dtype == dtype
    np.testing.assert_array_equal(torch.isnan(ours).numpy(), torch.isnan(golden).numpy())
    keep = ~torch.isnan(golden)
    rel = relative_errors(ours[keep], golden[keep], dtype)
    t = THRESHOLD[dtype]
    assert rel.mean() < t, f"MERE {rel.mean()} >= {t}"
    assert rel.max() < 10 * t, f"MARE {rel.max()} >= {10 * t}"


def gradient_penalty_grad(fn, x0, beta):
    """The issue's reproduction: x.grad of sum(grad(fn(x).sum(), x)^2) + sum(x), graph kept."""
    x = x0.clone().requires_grad_()
    (gx,) = torch.autograd.grad(fn(x, beta).sum(), x, create_graph=True)
    ((gx**2).sum() + x.sum()).backward()
    return gx.detach(), x.grad


@pytest.mark.parametrize("beta", [1.0, 1.7, -0.75])
@pytest.mark.parametrize("name", DTYPES)
def test_gradient_penalty_matches_float64_autograd(name, beta):
    # Issue 12 section 3: with create_graph=True the gradient used to carry no graph,
    # so x.grad came out as all ones (only the x.sum() term).
    dtype = DTYPES[name]
    x0 = sample((4000,), dtype, seed=14, specials=False)
    gx, ours = gradient_penalty_grad(swish, x0, beta)
    _, golden = gradient_penalty_grad(float64_swish, x0.double(), beta)
    assert_meets_standard(ours, golden, dtype)
    # The first order is still the kernel, bit for bit, with the graph kept.
    np.testing.assert_array_equal(bits(gx), np_bits(reference_grad(torch.ones_like(x0), x0, beta)))


@pytest.mark.parametrize("beta", [1.0, 1.7])
@pytest.mark.parametrize("name", DTYPES)
def test_second_order_in_grad_and_x(name, beta):
    dtype = DTYPES[name]
    x0 = sample((3, 700), dtype, seed=15, specials=False)
    g0 = sample((3, 700), dtype, seed=16, specials=False)
    w = sample((3, 700), dtype, seed=17, specials=False)

    def second(fn, x0, g0, w):
        x, g = x0.clone().requires_grad_(), g0.clone().requires_grad_()
        (gx,) = torch.autograd.grad(fn(x, beta), x, grad_outputs=g, create_graph=True)
        return gx, torch.autograd.grad((gx * w).sum(), (x, g))

    gx, (x_grad, g_grad) = second(swish, x0, g0, w)
    _, (x_gold, g_gold) = second(float64_swish, x0.double(), g0.double(), w.double())
    np.testing.assert_array_equal(bits(gx), np_bits(reference_grad(g0, x0, beta)))
    # d/dg of g s'(x) is w s'(x): SwishGrad again, so the kernel's bits.
    np.testing.assert_array_equal(bits(g_grad), np_bits(reference_grad(w, x0, beta)))
    assert_meets_standard(g_grad, g_gold, dtype)
    # d/dx is w g s''(x): float64, rounded once.
    assert_meets_standard(x_grad, x_gold, dtype)


@pytest.mark.parametrize("name", DTYPES)
def test_third_order_matches_float64_autograd(name):
    dtype = DTYPES[name]
    x0 = sample((2000,), dtype, seed=18, specials=False)

    def third(fn, x0):
        x = x0.clone().requires_grad_()
        (d1,) = torch.autograd.grad(fn(x, 1.7).sum(), x, create_graph=True)
        (d2,) = torch.autograd.grad(d1.sum(), x, create_graph=True)
        (d3,) = torch.autograd.grad(d2.sum(), x)
        return d2, d3

    d2, d3 = third(swish, x0)
    d2_gold, d3_gold = third(float64_swish, x0.double())
    assert_meets_standard(d2.detach(), d2_gold.detach(), dtype)
    assert_meets_standard(d3, d3_gold, dtype)


@pytest.mark.parametrize("name", DTYPES)
def test_second_order_at_extreme_inputs(name):
    dtype = DTYPES[name]
    finite = [0.0, -0.0, 1e-30, 1e-3, -3.0e4, 88.0, -88.0, 30.0, -30.0, 1.0e4, -2.5, 2.5]
    x0 = torch.tensor(finite, dtype=torch.float64).to(dtype)
    _, ours = gradient_penalty_grad(swish, x0, 1.7)
    _, golden = gradient_penalty_grad(float64_swish, x0.double(), 1.7)
    assert torch.isfinite(ours).all()
    assert_meets_standard(ours, golden, dtype)
    # Infinite or NaN x: the first order is NaN there, and so is the second.
    x0 = torch.tensor([float("inf"), -float("inf"), float("nan"), 1.0], dtype=dtype)
    gx, ours = gradient_penalty_grad(swish, x0, 1.0)
    np.testing.assert_array_equal(torch.isnan(gx).numpy(), [True, True, True, False])
    np.testing.assert_array_equal(torch.isnan(ours).numpy(), [True, True, True, False])


def test_double_backward_is_correct():
    # Replaces the former test that this raised (once_differentiable): now it is computed.
    x0 = sample((5,), torch.float32, seed=12)
    g0 = sample((5,), torch.float32, seed=13)
    x, g = x0.clone().requires_grad_(), g0.clone().requires_grad_()
    (gx,) = torch.autograd.grad(swish(x), x, grad_outputs=g, create_graph=True)
    gx.sum().backward()
    np.testing.assert_array_equal(bits(g.grad), np_bits(reference_grad(torch.ones(5), x0, 1.0)))
    xd, gd = x0.double().requires_grad_(), g0.double()
    (gxd,) = torch.autograd.grad(float64_swish(xd, 1.0), xd, grad_outputs=gd, create_graph=True)
    gxd.sum().backward()
    assert_meets_standard(x.grad, xd.grad, torch.float32)


def test_swish_backward_torch_is_differentiable():
    x0 = sample((64,), torch.bfloat16, seed=19, specials=False)
    g0 = sample((64,), torch.bfloat16, seed=20, specials=False)
    plain = swish_backward_torch(g0, x0, 1.1)
    assert plain.grad_fn is None and not plain.requires_grad
    x, g = x0.clone().requires_grad_(), g0.clone().requires_grad_()
    out = swish_backward_torch(g, x, 1.1)
    assert out.grad_fn is not None
    np.testing.assert_array_equal(bits(out), bits(plain))
    out.sum().backward()
    np.testing.assert_array_equal(bits(g.grad), np_bits(reference_grad(torch.ones_like(x0), x0, 1.1)))
    xd = x0.double().requires_grad_()
    (gxd,) = torch.autograd.grad(float64_swish(xd, 1.1), xd, grad_outputs=g0.double(), create_graph=True)
    gxd.sum().backward()
    assert_meets_standard(x.grad, xd.grad, torch.bfloat16)
    with pytest.raises(TypeError, match="grad and x must have the same dtype"):
        SwishBackwardFunction.apply(g0.float(), x0, 1.0)


def test_rejects_bad_inputs():
    x = torch.ones(3)
    with pytest.raises(ValueError, match="x must be a CPU tensor"):
        Swish()(torch.ones(3, device="meta"))
    with pytest.raises(ValueError, match="grad must be a CPU tensor"):
        swish_backward_torch(torch.ones(3, device="meta"), x)
    with pytest.raises(TypeError, match="x must have dtype float32, float16 or bfloat16, got torch.float64"):
        Swish()(torch.ones(3, dtype=torch.float64))
    with pytest.raises(TypeError, match="x must have dtype"):
        swish_backward_torch(x, torch.ones(3, dtype=torch.int32))
    with pytest.raises(TypeError, match="x must be a dense"):
        swish_backward_torch(x, x.to_sparse())
    with pytest.raises(TypeError, match="x must be a torch.Tensor"):
        swish(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="grad and x must have the same dtype"):
        swish_backward_torch(x.half(), x)
    with pytest.raises(ValueError, match="grad and x must have the same shape"):
        swish_backward_torch(torch.ones(4), x)
    with pytest.raises(TypeError, match="beta must be a real number"):
        Swish(1 + 2j)
    with pytest.raises(TypeError, match="beta must be a real number"):
        swish_backward_torch(x, x, "1.0")


def test_imports_without_torch():
    code = textwrap.dedent(
        """
        import sys
        sys.modules["torch"] = None  # makes "import torch" fail
        import swishgrad_numba
        import swishgrad_numba.torch as st
        uses = {
            "Swish": lambda: st.Swish(1.0),
            "SwishFunction.apply": lambda: st.SwishFunction.apply(1.0, 1.0),
            "SwishBackwardFunction.apply": lambda: st.SwishBackwardFunction.apply(1.0, 1.0, 1.0),
            "swish": lambda: st.swish(1.0),
            "swish_backward_torch": lambda: st.swish_backward_torch(1.0, 1.0),
        }
        for name, use in uses.items():
            try:
                use()
            except ImportError as exc:
                assert "needs PyTorch" in str(exc) and "pip install" in str(exc), (name, exc)
            else:
                raise SystemExit(name + " did not raise ImportError")
        print("ok")
        """
    )
    env = dict(os.environ, PYTHONWARNINGS="error")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


# ----------------------------------------------------------------------------- issue 22: platform, torch.func, beta

# torch's forward-mode AD loads its jvp decompositions through torch.jit.script on first use, which warns (torch's
# own code, not ours).
TORCH_JIT_WARNING = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")


def test_platform_picks_the_kernel():
    # A 950 dump differs from an A2 one in many float32 elements; the torch entry points must reach either kernel.
    x0, g = sample((20000,), torch.float32, seed=22), sample((20000,), torch.float32, seed=23)
    per_platform = {}
    for platform in (sg.REFERENCE_PLATFORM, sg.ASCEND950_PLATFORM):
        expected = np_bits(sg.swish_backward(to_numpy(g), to_numpy(x0), 1.1, platform=platform))
        np.testing.assert_array_equal(bits(swish_backward_torch(g, x0, 1.1, platform=platform)), expected)
        x = x0.clone().requires_grad_(True)
        Swish(1.1, platform=platform)(x).backward(g)
        np.testing.assert_array_equal(bits(x.grad), expected)
        x = x0.clone().requires_grad_(True)
        swish(x, 1.1, platform=platform).backward(g)
        np.testing.assert_array_equal(bits(x.grad), expected)
        per_platform[platform.architecture] = expected
    assert (per_platform["a2"] != per_platform["arch35"]).any()
    with pytest.raises(TypeError, match="platform must be a Platform"):
        Swish(platform="ascend950")
    with pytest.raises(TypeError, match="platform must be a Platform"):
        swish_backward_torch(g, x0, platform="ascend950")


@TORCH_JIT_WARNING
@pytest.mark.parametrize("platform", [sg.REFERENCE_PLATFORM, sg.ASCEND950_PLATFORM], ids=["a2", "950"])
def test_torch_func_grad_jvp_and_vmap_run_the_kernel(platform):
    x0, v = sample((64,), torch.float32, seed=30), sample((64,), torch.float32, seed=31)
    kernel = lambda g, x: np_bits(sg.swish_backward(to_numpy(g), to_numpy(x), 1.25, platform=platform))  # noqa: E731
    f = lambda t: swish(t, 1.25, platform=platform)  # noqa: E731
    np.testing.assert_array_equal(bits(torch.func.grad(lambda t: f(t).sum())(x0)), kernel(torch.ones_like(x0), x0))
    _, tangent = torch.func.jvp(f, (x0,), (v,))
    np.testing.assert_array_equal(bits(tangent), kernel(v, x0))
    (_, vjp_fn) = torch.func.vjp(f, x0)
    np.testing.assert_array_equal(bits(vjp_fn(v)[0]), kernel(v, x0))
    # vmap: the batched call is each sample's call, both inputs batched or one broadcast.
    gb, xb = sample((3, 64), torch.float32, seed=32), sample((3, 64), torch.float32, seed=33)
    back = lambda g, x: swish_backward_torch(g, x, 1.25, platform=platform)  # noqa: E731
    batched = torch.func.vmap(back)(gb, xb)
    broadcast = torch.func.vmap(back, in_dims=(None, 1))(gb[0], xb.T.contiguous())
    for i in range(3):
        np.testing.assert_array_equal(bits(batched[i]), kernel(gb[i], xb[i]))
        np.testing.assert_array_equal(bits(broadcast[i]), kernel(gb[0], xb[i]))
    per_sample = torch.func.vmap(torch.func.grad(lambda t: f(t).sum()))(xb)
    for i in range(3):
        np.testing.assert_array_equal(bits(per_sample[i]), kernel(torch.ones_like(xb[i]), xb[i]))


@TORCH_JIT_WARNING
@pytest.mark.parametrize("beta", [1.0, -0.75])
def test_torch_func_hessian_matches_float64_autograd(beta):
    x0 = sample((6,), torch.float32, seed=34, specials=False)
    ours = torch.func.hessian(lambda t: swish(t, beta).sum())(x0)
    golden = torch.autograd.functional.hessian(lambda t: float64_swish(t, beta).sum(), x0.double())
    off_diagonal = ~torch.eye(6, dtype=torch.bool)
    assert (ours[off_diagonal] == 0).all()
    # s'' is the float64 formula rounded once (module docstring): float64 autograd agrees to float32 rounding.
    np.testing.assert_allclose(torch.diagonal(ours).double().numpy(), torch.diagonal(golden).numpy(),
                               rtol=2.0**-22, atol=2.0**-40)


def test_beta_may_be_a_0d_tensor():
    assert Swish(torch.tensor(1.5)).beta == 1.5
    assert Swish(torch.tensor(1.1, dtype=torch.float64)).beta == float(np.float32(1.1))
    assert Swish(torch.tensor(3)).beta == 3.0
    x0, g = sample((50,), torch.float16, seed=35), sample((50,), torch.float16, seed=36)
    np.testing.assert_array_equal(bits(swish_backward_torch(g, x0, torch.tensor(1.1, dtype=torch.float64))),
                                  bits(swish_backward_torch(g, x0, 1.1)))
    with pytest.raises(ValueError, match=r"beta must be a number or a 0-d tensor, got a tensor of shape \(2,\)"):
        Swish(torch.tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match="beta is a constant"):
        Swish(torch.tensor(1.5, requires_grad=True))
    with pytest.raises(TypeError, match="beta must be a real number"):
        Swish(torch.tensor(1 + 2j))


@TORCH_JIT_WARNING
@pytest.mark.parametrize("arch", PLATFORMS)
def test_forward_under_torch_func_is_the_kernel(arch):
    # jvp's and vjp's primal outputs and vmap's batched forward (one launch over the batch) are the kernel's bits.
    platform = PLATFORMS[arch]
    xb, v = sample((3, 64), torch.float16, seed=42), sample((64,), torch.float16, seed=43)
    f = lambda t: swish(t, -1.0, platform=platform)  # noqa: E731
    expected = [np_bits(ref_swish(to_numpy(xb[i]), -1.0, arch)) for i in range(3)]
    primal, _ = torch.func.jvp(f, (xb[0],), (v,))
    np.testing.assert_array_equal(bits(primal), expected[0])
    primal, _ = torch.func.vjp(f, xb[1])
    np.testing.assert_array_equal(bits(primal), expected[1])
    for batched in (torch.func.vmap(f)(xb), torch.func.vmap(f, in_dims=1)(xb.T.contiguous())):
        for i in range(3):
            np.testing.assert_array_equal(bits(batched[i]), expected[i])


def test_swish_function_checks_its_input():
    with pytest.raises(TypeError, match="x must have dtype float32, float16 or bfloat16, got torch.float64"):
        SwishFunction.apply(torch.ones(3, dtype=torch.float64), 1.0)
    with pytest.raises(TypeError, match="x must be a torch.Tensor"):
        SwishFunction.apply(np.ones(3, np.float32), 1.0)
    with pytest.raises(TypeError, match="platform must be a Platform"):
        swish(torch.ones(3), platform="ascend950")
