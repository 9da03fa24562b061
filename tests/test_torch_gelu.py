"""swishgrad_numba.torch.GELU (swishgrad_numba/_torch_gelu.py): forward and backward bit for bit the
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
