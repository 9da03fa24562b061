"""Tests of swishgrad_numba.torch.Swish and SiLU (generated), modules whose forward and backward are the NPU kernels.

Every bit is checked against the plain references in tests/ (reference_family.py for the forward,
reference.py for SwishGrad, reference_silu_grad.py for SiluGrad), never against the package.
"""
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
from swishgrad_numba.torch import SiLU, Swish, silu, silu_backward_torch  # noqa: E402
from swishgrad_numba.torch import swish as swish_torch  # noqa: E402
from swishgrad_numba.faces.torch_family import ActivationBackwardFunction, ActivationFunction  # noqa: E402
from reference import assert_bits_equal, ref_swish_grad, ref_swish_grad_950  # noqa: E402
from reference_family import ref_swish  # noqa: E402
from reference_silu_grad import ref_silu_grad  # noqa: E402

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
BITS = {torch.float32: torch.int32, torch.float16: torch.int16, torch.bfloat16: torch.int16}
NUMPY = {torch.float32: np.float32, torch.float16: np.float16, torch.bfloat16: ml_dtypes.bfloat16}
PLATFORMS = {"a2": sg.REFERENCE_PLATFORM, "arch35": sg.ASCEND950_PLATFORM}
# model section 7: MERE below t, MARE below 10 t.
THRESHOLD = {torch.float32: 2.0**-13, torch.float16: 2.0**-10, torch.bfloat16: 2.0**-7}
SPECIALS = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-30, -1e-40, 3e-39, -3.0e4, 88.0, -88.0,
            -100.0, 17.0]


def to_numpy(t) -> np.ndarray:
    """The tensor's bit patterns as a NumPy array of the matching dtype (NaN payloads kept)."""
    return t.detach().contiguous().view(BITS[t.dtype]).numpy().view(NUMPY[t.dtype])


def sample(shape, dtype, seed, specials=True):
    """Seeded tensor with values in [-12, 12] and, if it has room, special values."""
    gen = torch.Generator().manual_seed(seed)
    t = torch.rand(shape, generator=gen, dtype=torch.float64) * 24 - 12
    flat = t.reshape(-1)
    if specials and flat.numel() >= 2 * len(SPECIALS):
        flat[: len(SPECIALS)] = torch.tensor(SPECIALS, dtype=torch.float64)
    return t.to(dtype)


def ref_backward(op, g, x, beta, arch):
    """The independent reference of the backward kernel, on the tensors' bits."""
    g, x = to_numpy(g), to_numpy(x)
    if op == "silu":
        return ref_silu_grad(g, x)
    return (ref_swish_grad if arch == "a2" else ref_swish_grad_950)(g, x, beta)


def module(op, beta, arch):
    return Swish(beta, platform=PLATFORMS[arch]) if op == "swish" else SiLU(platform=PLATFORMS[arch])


# ---------------------------------------------------------------- first order, bit for bit

CASES = [("swish", 1.1), ("swish", -842.45), ("swish", 3e-6), ("silu", 1.0)]


@pytest.mark.parametrize("arch", PLATFORMS)
@pytest.mark.parametrize("op,beta", CASES, ids=[f"{op}-{beta}" for op, beta in CASES])
@pytest.mark.parametrize("name", DTYPES)
def test_forward_and_backward_are_the_kernels_bit_for_bit(name, op, beta, arch):
    dtype = DTYPES[name]
    n = 40 if arch == "arch35" and op == "swish" else 300   # the 950 SwishGrad reference is slow (exact FMA)
    x0 = sample((n,), dtype, seed=1)
    g = sample((n,), dtype, seed=2)
    x = x0.clone().requires_grad_()
    y = module(op, beta, arch)(x)
    assert y.dtype == dtype and y.shape == x.shape
    assert_bits_equal(to_numpy(y), ref_swish(to_numpy(x0), beta if op == "swish" else 1.0, arch), "forward")
    y.backward(g)
    assert_bits_equal(to_numpy(x.grad), ref_backward(op, g, x0, beta, arch), "backward")


@pytest.mark.parametrize("op,beta", [("swish", 1.1), ("silu", 1.0)])
@pytest.mark.parametrize("name", DTYPES)
def test_large_tensor_bit_for_bit(name, op, beta):
    # Large enough for many emulated cores per launch-plan piece and the multithreaded launch.
    dtype = DTYPES[name]
    x0 = sample((300, 257), dtype, seed=20)
    g = sample((300, 257), dtype, seed=21)
    x = x0.clone().requires_grad_()
    y = module(op, beta, "a2")(x)
    assert_bits_equal(to_numpy(y), ref_swish(to_numpy(x0), beta, "a2"), "forward")
    y.backward(g)
    assert_bits_equal(to_numpy(x.grad), ref_backward(op, g, x0, beta, "a2"), "backward")


@pytest.mark.parametrize("beta", [-1.0, 0.0, float("inf"), -float("inf")])
@pytest.mark.parametrize("name", DTYPES)
def test_950_dags_by_beta(name, beta):
    # The 950 host picks its DAG from beta (near -1, near 0, the rest); the module passes beta through.
    dtype = DTYPES[name]
    x = sample((200,), dtype, seed=3)
    y = Swish(beta, platform=sg.ASCEND950_PLATFORM)(x)
    assert_bits_equal(to_numpy(y), ref_swish(to_numpy(x), beta, "arch35"))


@pytest.mark.parametrize("name", DTYPES)
def test_shapes_strides_and_the_functional_forms(name):
    dtype = DTYPES[name]
    for shape in [(), (0,), (3, 5, 4)]:
        x = sample(shape, dtype, seed=4).requires_grad_()
        y = SiLU()(x)
        assert y.shape == x.shape and y.dtype == dtype
        y.backward(torch.ones_like(y))
        assert x.grad.shape == x.shape
        assert_bits_equal(to_numpy(y), ref_swish(to_numpy(x), 1.0, "a2"))
    base = sample((6, 40), dtype, seed=5)
    x = base.t()[::2].detach().requires_grad_()                  # transposed and strided leaf
    assert not x.is_contiguous()
    g = sample((6,), dtype, seed=6).expand(20, 6)                 # stride-0 upstream gradient
    y = Swish(0.75)(x)
    assert_bits_equal(to_numpy(y), ref_swish(to_numpy(x), 0.75, "a2"))
    y.backward(g)
    assert_bits_equal(to_numpy(x.grad), ref_swish_grad(to_numpy(g), to_numpy(x), 0.75))
    assert_bits_equal(to_numpy(silu(x.detach())), ref_swish(to_numpy(x), 1.0, "a2"))
    out = silu_backward_torch(g, x.detach(), platform=sg.ASCEND950_PLATFORM)
    assert out.is_contiguous() and out.grad_fn is None
    assert_bits_equal(to_numpy(out), ref_silu_grad(to_numpy(g), to_numpy(x)))


def test_sum_loss_and_beta_forms():
    x0 = sample((4, 9), torch.float32, seed=7)
    x = x0.clone().requires_grad_()
    Swish(torch.tensor(2.0, dtype=torch.float64))(x).sum().backward()  # 0-d tensor beta; expanded ones as grad
    assert_bits_equal(to_numpy(x.grad), ref_swish_grad(np.ones((4, 9), np.float32), to_numpy(x0), 2.0))
    m = Swish(1.1)
    assert m.beta == float(np.float32(1.1)) and list(m.parameters()) == [] and "beta=" in repr(m)
    assert Swish().beta == 1.0 and "platform=" in repr(SiLU(platform=sg.ASCEND950_PLATFORM))


def test_torch_func_grad():
    # setup_context makes the Functions usable under torch.func transforms.
    x = sample((50,), torch.float32, seed=8)
    gx = torch.func.grad(lambda t: SiLU()(t).sum())(x)
    assert_bits_equal(to_numpy(gx), ref_silu_grad(np.ones(50, np.float32), to_numpy(x)))


# Every module and functional of the family: (op, beta, callable).
FAMILY_FORMS = {
    "Swish": ("swish", 1.3, lambda arch: Swish(1.3, platform=PLATFORMS[arch])),
    "SiLU": ("silu", 1.0, lambda arch: SiLU(platform=PLATFORMS[arch])),
    "silu": ("silu", 1.0, lambda arch: (lambda t: silu(t, platform=PLATFORMS[arch]))),
}


def ref_forward(op, x, beta, arch):
    return ref_swish(to_numpy(x), beta, arch)


# torch's forward-mode AD loads its jvp decompositions through torch.jit.script on first use, which warns.
TORCH_JIT_WARNING = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")


@TORCH_JIT_WARNING
@pytest.mark.parametrize("arch", PLATFORMS)
@pytest.mark.parametrize("form", FAMILY_FORMS)
def test_vmap_and_forward_mode_run_the_kernels(form, arch):
    op, beta, make = FAMILY_FORMS[form]
    f = make(arch)
    xb = sample((3, 40), torch.float32, seed=31)
    tangent = sample((40,), torch.float32, seed=32, specials=False)
    # vmap: the forward kernel over the batch, either batch dimension.
    for batched in (torch.func.vmap(f)(xb), torch.func.vmap(f, in_dims=1, out_dims=1)(xb.T.contiguous()).T):
        assert_bits_equal(to_numpy(batched), ref_forward(op, xb, beta, arch))
    # jvp: the tangent is the backward kernel applied to it, bit for bit.
    primal, jvp_out = torch.func.jvp(f, (xb[0],), (tangent,))
    assert_bits_equal(to_numpy(primal), ref_forward(op, xb[0], beta, arch))
    assert_bits_equal(to_numpy(jvp_out), ref_backward(op, tangent, xb[0], beta, arch))
    # jacrev and jacfwd: the Jacobian's diagonal is s'(x), the backward kernel on ones.
    x0 = xb[0, :12]
    ones = torch.ones_like(x0)
    for jac in (torch.func.jacrev(f)(x0), torch.func.jacfwd(f)(x0)):
        assert_bits_equal(to_numpy(torch.diagonal(jac).contiguous()), ref_backward(op, ones, x0, beta, arch))
        assert not (jac - torch.diag(torch.diagonal(jac))).nan_to_num().any()
    # hessian: second order through the float64 s'' (its numerics: test_second_order_in_grad_and_x).
    hess = torch.func.hessian(lambda t: f(t).sum())(x0)
    assert hess.shape == (12, 12)
    # vmap of the backward Function itself (jacrev's path), per-sample gradients.
    per_sample = torch.func.vmap(torch.func.grad(lambda t: f(t).sum()))(xb)
    assert_bits_equal(to_numpy(per_sample), ref_backward(op, torch.ones_like(xb), xb, beta, arch))


@TORCH_JIT_WARNING
@pytest.mark.parametrize("op", ["swish", "silu"])
def test_the_backward_function_has_forward_mode_and_vmap(op):
    g = sample((2, 30), torch.float32, seed=33, specials=False)
    x = sample((2, 30), torch.float32, seed=34)
    back = lambda gg, xx: ActivationBackwardFunction.apply(gg, xx, op, 1.0, None)
    assert_bits_equal(to_numpy(torch.func.vmap(back)(g, x)), ref_backward(op, g, x, 1.0, "a2"))
    assert_bits_equal(to_numpy(torch.func.vmap(back, in_dims=(None, 0))(g[0], x)),
                      ref_backward(op, g[0].expand(2, 30).contiguous(), x, 1.0, "a2"))
    # d/dg of g s'(x) along a tangent t is t s'(x): the backward kernel on the tangent.
    _, tangent = torch.func.jvp(lambda gg: back(gg, x[0]), (g[0],), (g[1],))
    assert_bits_equal(to_numpy(tangent), ref_backward(op, g[1], x[0], 1.0, "a2"))


def test_a_saturation_platform_runs_both_passes_in_that_mode():
    # Issue 27.4: the forward ran in the Inf/NaN mode while the backward saturated. Both passes now
    # run the saturated kernels (whose bits tests/test_program_operators.py checks).
    sat = sg.Platform(overflow_mode="saturation")
    x_np = np.linspace(-120, 4, 40).astype(np.float32)
    for module, beta, backward in ((Swish(1.3, platform=sat), 1.3, sg.swish_backward),
                                   (SiLU(platform=sat), 1.0, lambda g, x, b, platform: sg.silu_backward(
                                       g, x, platform=platform))):
        x = torch.tensor(x_np, requires_grad=True)
        y = module(x)
        assert_bits_equal(to_numpy(y.detach()), sg.swish(x_np, beta, platform=sat))
        assert to_numpy(y.detach())[0] != 0          # the Inf/NaN mode gives -0 there
        y.backward(torch.ones_like(y))
        assert_bits_equal(to_numpy(x.grad), backward(np.ones_like(x_np), x_np, beta, platform=sat))
    assert_bits_equal(to_numpy(silu(torch.tensor(x_np), platform=sat)), sg.silu(x_np, platform=sat))


COMPILED_FORMS = {
    "Swish": lambda: Swish(1.3),
    "SiLU": lambda: SiLU(),
    "swish": lambda: (lambda t: swish_torch(t, 1.3)),
    "silu": lambda: silu,
}


# Dynamo reads .grad of the intermediate tensors it resumes with (a torch warning, not ours).
@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf:UserWarning")
@pytest.mark.parametrize("form", COMPILED_FORMS)
def test_torch_compile_runs_the_kernels_eagerly(form):
    torch._dynamo.reset()
    op = "silu" if form.lower() == "silu" else "swish"
    beta = 1.0 if op == "silu" else 1.3
    f = COMPILED_FORMS[form]()
    x = sample((4, 25), torch.float32, seed=35)
    model = lambda t: f(t * 2.0) * 0.5              # compiled code on both sides of the kernel
    compiled = torch.compile(model, backend="eager")
    xr = x.clone().requires_grad_()
    y = compiled(xr)
    assert_bits_equal(to_numpy(y), (ref_forward(op, x * 2.0, beta, "a2") * np.float32(0.5)))
    y.sum().backward()
    expected = ref_backward(op, torch.full_like(x, 0.5), x * 2.0, beta, "a2") * np.float32(2.0)
    assert_bits_equal(to_numpy(xr.grad), expected)
    with pytest.raises(Exception, match="Dynamo cannot trace"):
        torch.compile(model, backend="eager", fullgraph=True)(x)


# ---------------------------------------------------------------- second order


def relative_errors(a, b, dtype):
    a, b = a.detach().double().numpy(), b.detach().double().numpy()
    return np.abs(a - b) / np.maximum(np.abs(b), float(torch.finfo(dtype).tiny))


def assert_meets_standard(ours, golden, dtype):
    """model section 7: MERE below t, MARE below 10 t, NaN where and only where the golden is NaN."""
    assert ours.dtype == dtype
    np.testing.assert_array_equal(torch.isnan(ours).numpy(), torch.isnan(golden).numpy())
    keep = ~torch.isnan(golden)
    rel = relative_errors(ours[keep], golden[keep], dtype)
    assert rel.mean() < THRESHOLD[dtype] and rel.max() < 10 * THRESHOLD[dtype], (rel.mean(), rel.max())


def float64_swish(x, beta):
    return x * torch.sigmoid(float(np.float32(beta)) * x)


@pytest.mark.parametrize("arch", PLATFORMS)
@pytest.mark.parametrize("op,beta", [("swish", 1.7), ("silu", 1.0)])
@pytest.mark.parametrize("name", DTYPES)
def test_second_order_in_grad_and_x(name, op, beta, arch):
    dtype = DTYPES[name]
    shape = (2, 20) if arch == "arch35" and op == "swish" else (3, 200)
    x0, g0, w = (sample(shape, dtype, seed=s, specials=False) for s in (9, 10, 11))
    layer = module(op, beta, arch)

    def second(fn, x0, g0, w):
        x, g = x0.clone().requires_grad_(), g0.clone().requires_grad_()
        (gx,) = torch.autograd.grad(fn(x), x, grad_outputs=g, create_graph=True)
        return gx, torch.autograd.grad((gx * w).sum(), (x, g))

    gx, (x_grad, g_grad) = second(layer, x0, g0, w)
    _, (x_gold, g_gold) = second(lambda t: float64_swish(t, beta), x0.double(), g0.double(), w.double())
    assert_bits_equal(to_numpy(gx), ref_backward(op, g0, x0, beta, arch))
    # d/dg of g s'(x) is w s'(x): the backward kernel again, bit for bit.
    assert_bits_equal(to_numpy(g_grad), ref_backward(op, w, x0, beta, arch))
    assert_meets_standard(g_grad, g_gold, dtype)
    # d/dx is w g s''(x): float64, rounded once.
    assert_meets_standard(x_grad, x_gold, dtype)


@pytest.mark.parametrize("name", DTYPES)
def test_gradient_penalty_matches_float64_autograd(name):
    dtype = DTYPES[name]
    x0 = sample((2000,), dtype, seed=12, specials=False)

    def penalty(fn, x0):
        x = x0.clone().requires_grad_()
        (gx,) = torch.autograd.grad(fn(x).sum(), x, create_graph=True)
        ((gx**2).sum() + x.sum()).backward()
        return x.grad

    assert_meets_standard(penalty(SiLU(), x0), penalty(lambda t: float64_swish(t, 1.0), x0.double()), dtype)


# ---------------------------------------------------------------- training, errors, no torch


@pytest.mark.parametrize("name", ["float32", "bfloat16"])
def test_training_step(name):
    dtype = DTYPES[name]
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(13)
    inputs = (torch.rand(64, 2, generator=gen) * 4 - 2).to(dtype)
    targets = (torch.sin(2 * inputs[:, :1].float()) * inputs[:, 1:].float()).to(dtype)
    model = torch.nn.Sequential(torch.nn.Linear(2, 32), SiLU(), torch.nn.Linear(32, 32), Swish(1.5),
                                torch.nn.Linear(32, 1)).to(dtype)
    opt = torch.optim.Adam(model.parameters(), lr=2e-2)
    losses = []
    for _ in range(25):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(inputs).float(), targets.float())
        loss.backward()
        assert all(torch.isfinite(p.grad).all() for p in model.parameters())
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0], losses


def test_rejects_bad_inputs():
    x = torch.ones(3)
    with pytest.raises(ValueError, match="x must be a CPU tensor"):
        SiLU()(torch.ones(3, device="meta"))
    with pytest.raises(TypeError, match="x must have dtype float32, float16 or bfloat16, got torch.float64"):
        Swish()(torch.ones(3, dtype=torch.float64))
    with pytest.raises(TypeError, match="x must be a torch.Tensor"):
        silu(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="grad and x must have the same dtype"):
        silu_backward_torch(x.half(), x)
    with pytest.raises(ValueError, match="grad and x must have the same shape"):
        silu_backward_torch(torch.ones(4), x)
    with pytest.raises(TypeError, match="beta must be a real number"):
        Swish(1 + 2j)
    with pytest.raises(ValueError, match="beta must be a number or a 0-d tensor"):
        Swish(torch.ones(2))
    with pytest.raises(TypeError, match="platform must be a Platform"):
        SiLU(platform="ascend950")
    with pytest.raises(TypeError, match="platform must be a Platform"):
        silu(x, platform="ascend950")
    with pytest.raises(ValueError, match="name must be one of"):
        ActivationFunction.apply(x, "selu", 1.0, None)   # mish is a row now (issue 41)
    with pytest.raises(TypeError, match="grad and x must have the same dtype"):
        ActivationBackwardFunction.apply(x.half(), x, "silu", 1.0, None)


def test_imports_without_torch():
    code = textwrap.dedent(
        """
        import sys
        sys.modules["torch"] = None  # makes "import torch" fail
        import swishgrad_numba.torch as st
        uses = {"Swish": lambda: st.Swish(1.0), "SiLU": lambda: st.SiLU(), "silu": lambda: st.silu(1.0),
                "silu_backward_torch": lambda: st.silu_backward_torch(1, 1)}
        for name, use in uses.items():
            try:
                use()
            except ImportError as exc:
                assert "needs PyTorch" in str(exc), (name, exc)
            else:
                raise SystemExit(name + " did not raise ImportError")
        print("ok")
        """
    )
    env = dict(os.environ, PYTHONWARNINGS="error")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
