"""FastGELU in the integrations: the torch module (forward and backward the 950 kernels, bit for bit against
tests/reference_activations.py; the 2nd order as the family's) and the Dask functions."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import swishgrad_numba as sg
from reference import assert_bits_equal
from reference_activations import ref_fast_gelu, ref_fast_gelu_backward

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16}
SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-40, -60.0, 88.0, -88.0, 17.0]


def sample(shape, dtype, seed):
    a = np.random.default_rng(seed).uniform(-12, 12, shape)
    a.reshape(-1)[: len(SPECIALS)] = SPECIALS
    return a.astype(dtype)

# ---------------------------------------------------------------- torch


@pytest.mark.parametrize("name", DTYPES)
def test_torch_module_forward_and_backward_bits(name):
    torch = pytest.importorskip("torch")
    from swishgrad_numba.torch import FastGELU

    tdt = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[name]
    bits = torch.int32 if name == "float32" else torch.int16
    x_np, g_np = sample((300,), DTYPES[name], 1), sample((300,), DTYPES[name], 2)

    def to_torch(a):
        return torch.from_numpy(a.view(np.int32 if name == "float32" else np.int16).copy()).view(tdt)

    def to_np(t):
        return t.detach().contiguous().view(bits).numpy().view(DTYPES[name])

    x = to_torch(x_np).requires_grad_()
    y = FastGELU()(x)
    assert_bits_equal(to_np(y), ref_fast_gelu(x_np), "forward")
    y.backward(to_torch(g_np))
    assert_bits_equal(to_np(x.grad), ref_fast_gelu_backward(g_np, x_np), "backward")


def test_torch_second_order_and_refusal():
    torch = pytest.importorskip("torch")
    from swishgrad_numba.torch import FastGELU

    x = torch.linspace(-4, 4, 33, dtype=torch.float64).float().requires_grad_()
    (gx,) = torch.autograd.grad(FastGELU()(x).sum(), x, create_graph=True)
    (ggx,) = torch.autograd.grad(gx.sum(), x)
    z = 1.702 * x.detach().double()
    s = torch.sigmoid(z)
    want = 1.702 * s * (1 - s) * (2 + z * (1 - 2 * s))          # d2/dx2 of x sigmoid(1.702 x)
    assert torch.allclose(ggx.double(), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="ascend910b.*Ascend 950 only"):
        FastGELU(platform=sg.REFERENCE_PLATFORM)
    with pytest.raises(TypeError, match="platform must be a Platform"):
        FastGELU(platform="ascend950")
    assert "platform=" in repr(FastGELU(platform=sg.ASCEND950_PLATFORM))

# ---------------------------------------------------------------- Dask


@pytest.mark.parametrize("name", DTYPES)
def test_dask_bits(name):
    da = pytest.importorskip("dask.array")
    from swishgrad_numba import dask as sgd

    x, g = sample((60, 45), DTYPES[name], 3), sample((60, 45), DTYPES[name], 4)
    lazy = sgd.fast_gelu(da.from_array(x, chunks=(25, 20)))
    assert isinstance(lazy, da.Array) and lazy.dtype == x.dtype
    assert_bits_equal(lazy.compute(scheduler="threads"), ref_fast_gelu(x))
    grad = sgd.fast_gelu_backward(da.from_array(g, chunks=(20, 25)), da.from_array(x, chunks=(30, 45)))
    assert_bits_equal(grad.compute(scheduler="threads"), ref_fast_gelu_backward(g, x))


def test_dask_refuses_the_a2_at_once():
    pytest.importorskip("dask.array")
    from swishgrad_numba import dask as sgd

    x = np.ones((4, 4), np.float32)
    with pytest.raises(ValueError, match="Ascend 950 only"):
        sgd.fast_gelu(x, platform=sg.REFERENCE_PLATFORM)
    with pytest.raises(ValueError, match="Ascend 950 only"):
        sgd.fast_gelu_backward(x, x, platform=sg.REFERENCE_PLATFORM)
    assert {"fast_gelu", "fast_gelu_backward"} <= set(sgd.__all__)


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
def test_torch_func_transforms_run_the_kernels():
    torch = pytest.importorskip("torch")
    from swishgrad_numba.torch import FastGELU

    f = FastGELU()
    xb_np = sample((3, 40), DTYPES["float32"], 5)
    xb = torch.from_numpy(xb_np)
    tangent_np = np.random.default_rng(6).standard_normal(40).astype(np.float32)
    for batched in (torch.func.vmap(f)(xb), torch.func.vmap(f, in_dims=1, out_dims=1)(xb.T.contiguous()).T):
        assert_bits_equal(batched.contiguous().numpy(), ref_fast_gelu(xb_np))
    primal, jvp_out = torch.func.jvp(f, (xb[0],), (torch.from_numpy(tangent_np),))
    assert_bits_equal(primal.numpy(), ref_fast_gelu(xb_np[0]))
    assert_bits_equal(jvp_out.numpy(), ref_fast_gelu_backward(tangent_np, xb_np[0]))
    gx = torch.func.grad(lambda t: f(t).sum())(xb[1])
    assert_bits_equal(gx.numpy(), ref_fast_gelu_backward(np.ones(40, np.float32), xb_np[1]))
