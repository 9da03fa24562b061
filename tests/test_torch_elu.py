"""swishgrad_numba.torch.ELU (swishgrad_numba/_torch_elu.py): forward and backward bit for bit the Ascend 950's
Elu and EluGradV2 kernels (tests/reference_activations_tier2.py), the second order the derivative of the ELU,
close to torch.nn.ELU's; the A2 refused."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import swishgrad_numba as sg  # noqa: E402
from activation_checks import DT16  # noqa: E402
from reference import assert_bits_equal  # noqa: E402
from reference_activations_tier2 import ref_elu, ref_elu_backward  # noqa: E402
from swishgrad_numba.torch import ELU  # noqa: E402

TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
NP = {"float32": np.dtype(np.float32), **DT16}


def _np(t, dtype):
    return t.detach().view(torch.int16 if dtype != "float32" else torch.int32).numpy().view(NP[dtype])


@pytest.mark.parametrize("dtype", list(TORCH))
@pytest.mark.parametrize("alpha", [1.0, 0.0, 0.3, -1.5])
def test_forward_and_backward_are_the_kernels(alpha, dtype):
    rng = np.random.default_rng(4)
    x = torch.tensor(rng.uniform(-8, 8, 3000), dtype=torch.float32).to(TORCH[dtype]).requires_grad_()
    g = torch.tensor(rng.uniform(-2, 2, 3000), dtype=torch.float32).to(TORCH[dtype])
    y = ELU(alpha)(x)
    y.backward(g)
    xn, gn = _np(x, dtype), _np(g, dtype)
    assert_bits_equal(_np(y, dtype), ref_elu(xn, alpha), "forward")
    assert_bits_equal(_np(x.grad, dtype), ref_elu_backward(gn, xn, alpha), "backward")


def test_close_to_torch_and_second_order():
    x = torch.linspace(-6, 6, 241, dtype=torch.float64).float().requires_grad_()
    ours, theirs = ELU(0.7)(x), torch.nn.ELU(0.7)(x)
    assert torch.allclose(ours, theirs, rtol=1e-6, atol=1e-6)
    (gx,) = torch.autograd.grad(ours.sum(), x, create_graph=True)
    (tx,) = torch.autograd.grad(theirs.sum(), x, create_graph=True)
    assert torch.allclose(gx, tx, rtol=1e-6, atol=1e-6)
    (ggx,) = torch.autograd.grad(gx.sum(), x)
    (ttx,) = torch.autograd.grad(tx.sum(), x)
    assert torch.allclose(ggx, ttx, rtol=1e-6, atol=1e-6)


def test_module_refuses_the_a2_and_a_bad_platform():
    with pytest.raises(ValueError, match="op type Elu"):
        ELU(platform=sg.REFERENCE_PLATFORM)
    with pytest.raises(TypeError, match="platform"):
        ELU(platform="ascend950")
    assert repr(ELU(0.5)) == "ELU(alpha=0.5)"
