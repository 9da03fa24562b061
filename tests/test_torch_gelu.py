"""swishgrad_numba.torch.GELU (generated: swishgrad_numba/faces/torch.py): forward and backward bit for bit the
kernels' (tests/reference_activations.py), the second order close to the float64 truth's derivative."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import swishgrad_numba as sg  # noqa: E402
from activation_checks import DT16  # noqa: E402
from reference import assert_bits_equal  # noqa: E402
from reference_activations import ref_gelu, ref_gelu_backward, truth_gelu_backward  # noqa: E402
from swishgrad_numba.torch import GELU  # noqa: E402

TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
NP = {"float32": np.dtype(np.float32), **DT16}


def _np(t, dtype):
    return t.detach().view(torch.int16 if dtype != "float32" else torch.int32).numpy().view(NP[dtype])


@pytest.mark.parametrize("dtype", list(TORCH))
@pytest.mark.parametrize("kernel", ["a2", "arch35"])
def test_forward_and_backward_are_the_kernels(kernel, dtype):
    platform = sg.REFERENCE_PLATFORM if kernel == "a2" else sg.ASCEND950_PLATFORM
    rng = np.random.default_rng(4)
    x = torch.tensor(rng.uniform(-8, 8, 3000), dtype=torch.float32).to(TORCH[dtype]).requires_grad_()
    g = torch.tensor(rng.uniform(-2, 2, 3000), dtype=torch.float32).to(TORCH[dtype])
    y = GELU(platform=platform)(x)
    y.backward(g)
    xn, gn = _np(x, dtype), _np(g, dtype)
    assert_bits_equal(_np(y, dtype), ref_gelu(xn, kernel), "forward")
    assert_bits_equal(_np(x.grad, dtype), ref_gelu_backward(gn, xn, kernel), "backward")


@pytest.mark.parametrize("kernel", ["a2", "arch35"])
def test_second_order_is_the_kernels_functions_derivative(kernel):
    platform = sg.REFERENCE_PLATFORM if kernel == "a2" else sg.ASCEND950_PLATFORM
    x = torch.linspace(-6, 6, 241, dtype=torch.float32).requires_grad_()
    (gx,) = torch.autograd.grad(GELU(platform=platform)(x).sum(), x, create_graph=True)
    (ggx,) = torch.autograd.grad(gx.sum(), x)
    xd, h = x.detach().double().numpy(), 1e-5
    numeric = (truth_gelu_backward(1.0, xd + h, kernel) - truth_gelu_backward(1.0, xd - h, kernel)) / (2 * h)
    assert np.allclose(ggx.double().numpy(), numeric, rtol=1e-5, atol=1e-6)


def test_module_refuses_a_bad_platform():
    with pytest.raises(TypeError, match="platform"):
        GELU(platform="ascend950")
    assert "platform=" in repr(GELU(platform=sg.ASCEND950_PLATFORM))


# torch's forward-mode AD loads its jvp decompositions through torch.jit.script, which warns (as tests/test_torch.py)
@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
@pytest.mark.parametrize("kernel", ["a2", "arch35"])
def test_torch_func_grad_jvp_vjp_vmap_run_the_kernels(kernel):
    platform = sg.REFERENCE_PLATFORM if kernel == "a2" else sg.ASCEND950_PLATFORM
    f = GELU(platform=platform)
    rng = np.random.default_rng(29)
    xb_np = rng.uniform(-6, 6, (3, 40)).astype(np.float32)
    tangent_np = rng.standard_normal(40).astype(np.float32)
    cot_np = rng.standard_normal(40).astype(np.float32)
    xb = torch.from_numpy(xb_np)
    for batched in (torch.func.vmap(f)(xb), torch.func.vmap(f, in_dims=1, out_dims=1)(xb.T.contiguous()).T):
        assert_bits_equal(batched.contiguous().numpy(), ref_gelu(xb_np, kernel), "vmap")
    primal, jvp_out = torch.func.jvp(f, (xb[0],), (torch.from_numpy(tangent_np),))
    assert_bits_equal(primal.numpy(), ref_gelu(xb_np[0], kernel), "jvp primal")
    assert_bits_equal(jvp_out.numpy(), ref_gelu_backward(tangent_np, xb_np[0], kernel), "jvp")
    primal, vjp_fn = torch.func.vjp(f, xb[1])
    (vjp_out,) = vjp_fn(torch.from_numpy(cot_np))
    assert_bits_equal(primal.numpy(), ref_gelu(xb_np[1], kernel), "vjp primal")
    assert_bits_equal(vjp_out.numpy(), ref_gelu_backward(cot_np, xb_np[1], kernel), "vjp")
    gx = torch.func.grad(lambda t: f(t).sum())(xb[2])
    assert_bits_equal(gx.numpy(), ref_gelu_backward(np.ones(40, np.float32), xb_np[2], kernel), "grad")
    per_sample = torch.func.vmap(torch.func.grad(lambda t: f(t).sum()))(xb)
    assert_bits_equal(per_sample.numpy(), ref_gelu_backward(np.ones((3, 40), np.float32), xb_np, kernel),
                      "vmap of grad")
