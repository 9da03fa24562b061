"""swishgrad_numba.torch.Softplus (swishgrad_numba/_torch_softplus.py): forward and backward bit for bit
the kernels' (tests/reference_activations_tier2.py), the second order close to the float64 truth's
derivative, the A2 refused."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import swishgrad_numba as sg  # noqa: E402
from activation_checks import DT16  # noqa: E402
from reference import assert_bits_equal  # noqa: E402
from reference_activations_tier2 import ref_softplus, ref_softplus_backward, truth_softplus_backward  # noqa: E402
from swishgrad_numba.torch import Softplus  # noqa: E402

TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
NP = {"float32": np.dtype(np.float32), **DT16}


def _np(t, dtype):
    return t.detach().view(torch.int16 if dtype != "float32" else torch.int32).numpy().view(NP[dtype])


@pytest.mark.parametrize("dtype", list(TORCH))
@pytest.mark.parametrize("beta,threshold", [(1.0, 20.0), (0.5, 2.0), (-2.0, 0.0)])
def test_forward_and_backward_are_the_kernels(dtype, beta, threshold):
    rng = np.random.default_rng(4)
    x = torch.tensor(rng.uniform(-30, 30, 3000), dtype=torch.float32).to(TORCH[dtype]).requires_grad_()
    g = torch.tensor(rng.uniform(-2, 2, 3000), dtype=torch.float32).to(TORCH[dtype])
    y = Softplus(beta, threshold)(x)
    y.backward(g)
    xn, gn = _np(x, dtype), _np(g, dtype)
    assert_bits_equal(_np(y, dtype), ref_softplus(xn, beta, threshold), "forward")
    assert_bits_equal(_np(x.grad, dtype), ref_softplus_backward(gn, xn, beta, threshold, "arch35"), "backward")


def test_close_to_torch():
    x = torch.linspace(-30, 30, 2001, dtype=torch.float32)
    ours, theirs = Softplus(1.5, 10.0)(x), torch.nn.Softplus(1.5, 10.0)(x)
    assert torch.allclose(ours, theirs, rtol=4e-7, atol=1e-30)


def test_second_order_is_the_functions_derivative():
    x = torch.linspace(-6, 6, 241, dtype=torch.float32).requires_grad_()
    (gx,) = torch.autograd.grad(Softplus(1.5, 3.0)(x).sum(), x, create_graph=True)
    (ggx,) = torch.autograd.grad(gx.sum(), x)
    xd, h = x.detach().double().numpy(), 1e-6
    keep = np.abs(1.5 * xd - 3.0) > 1e-3          # away from the threshold's jump
    numeric = (truth_softplus_backward(1.0, xd + h, 1.5, 3.0) - truth_softplus_backward(1.0, xd - h, 1.5, 3.0)) / (2 * h)
    assert np.allclose(ggx.double().numpy()[keep], numeric[keep], rtol=1e-5, atol=1e-6)


def test_module_refuses_the_a2_and_bad_arguments():
    with pytest.raises(ValueError, match="ascend910b"):
        Softplus(platform=sg.REFERENCE_PLATFORM)
    with pytest.raises(TypeError, match="platform"):
        Softplus(platform="ascend950")
    with pytest.raises(TypeError, match="threshold"):
        Softplus(1.0, "20")
    assert "beta=2.0, threshold=5.0, platform='ascend950'" in repr(Softplus(2.0, 5.0))
