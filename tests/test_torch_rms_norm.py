"""swishgrad_numba.torch.RMSNorm (issue 42): the forward pass bit for bit the emulated kernel, under torch.func;
gradients by the formula in float64 (no device RmsNormGrad yet), checked against autograd of a float64 model."""
import ml_dtypes
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from reference_rms_norm import rms_norm_a2  # noqa: E402
from swishgrad_numba.torch import RMSNorm, rms_norm_torch  # noqa: E402


def _bits(t):
    a = t.detach().numpy() if t.dtype != torch.bfloat16 else t.detach().view(torch.int16).numpy()
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint16)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_forward_is_the_kernel(dtype):
    torch.manual_seed(0)
    x = torch.randn(4, 3, 100).to(dtype)
    m = RMSNorm(100, eps=1e-5)
    with torch.no_grad():
        m.weight.copy_(torch.randn(100))
    y = m(x)
    x_np = x.view(torch.int16).numpy().view(ml_dtypes.bfloat16) if dtype == torch.bfloat16 else x.numpy()
    y_ref, _ = rms_norm_a2(x_np, m.weight.detach().numpy(), 1e-5)
    assert np.array_equal(_bits(y), y_ref.view(np.uint32 if y_ref.dtype == np.float32 else np.uint16))


def test_vmap_is_the_unbatched_call():
    x = torch.randn(5, 2, 64)
    g = torch.randn(64)
    batched = torch.func.vmap(lambda t: rms_norm_torch(t, g), in_dims=1)(x)
    for i in range(2):
        assert torch.equal(batched[i], rms_norm_torch(x[:, i], g))


# torch's forward-mode AD loads its jvp decompositions through torch.jit.script, which warns (as tests/test_torch.py)
@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
def test_gradients_match_float64_autograd():
    torch.manual_seed(1)
    x = torch.randn(3, 50, dtype=torch.float32, requires_grad=True)
    g = torch.randn(50, dtype=torch.float32, requires_grad=True)
    gy = torch.randn(3, 50)
    gx, gg = torch.autograd.grad(rms_norm_torch(x, g, 1e-6), (x, g), gy)
    x64, g64 = x.detach().double().requires_grad_(), g.detach().double().requires_grad_()
    y64 = x64 * torch.rsqrt((x64 * x64).mean(-1, keepdim=True) + float(np.float32(1e-6))) * g64
    want_x, want_g = torch.autograd.grad(y64, (x64, g64), gy.double())
    assert torch.equal(gx, want_x.float()) and torch.equal(gg, want_g.float())
    d = torch.randn(3, 50)
    _, tangent = torch.func.jvp(lambda t: rms_norm_torch(t, g.detach()), (x.detach(),), (d,))
    _, want = torch.func.jvp(lambda t: t * torch.rsqrt((t * t).mean(-1, keepdim=True) + float(np.float32(1e-6)))
                             * g.detach().double(), (x.detach().double(),), (d.double(),))
    assert torch.allclose(tangent, want.float(), rtol=0, atol=0)


def test_bad_input():
    with pytest.raises(TypeError, match="x"):
        rms_norm_torch(np.ones(3), torch.ones(3))
