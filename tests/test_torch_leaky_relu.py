"""swishgrad_numba.torch.LeakyReLU (generated: faces/torch.py): forward and backward bit for bit the
950 kernels' (tests/reference_activations_tier2.py) and torch's own CPU LeakyReLU; the second order 0."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import swishgrad_numba as sg  # noqa: E402
from activation_checks import DT16  # noqa: E402
from reference import assert_bits_equal  # noqa: E402
from reference_activations_tier2 import ref_leaky_relu, ref_leaky_relu_backward  # noqa: E402
from swishgrad_numba.torch import LeakyReLU  # noqa: E402

TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
NP = {"float32": np.dtype(np.float32), **DT16}


def _np(t, dtype):
    return t.detach().view(torch.int16 if dtype != "float32" else torch.int32).numpy().view(NP[dtype])


@pytest.mark.parametrize("dtype", list(TORCH))
@pytest.mark.parametrize("slope", [0.01, 0.0, 1.0, -0.7, 5.0])
def test_forward_and_backward_are_the_kernels_and_torchs(dtype, slope):
    rng = np.random.default_rng(7)
    x0 = torch.tensor(np.concatenate([rng.uniform(-8, 8, 3000), [0.0, -0.0, np.inf, -np.inf, np.nan]]),
                      dtype=torch.float32).to(TORCH[dtype])
    g = torch.tensor(rng.uniform(-2, 2, x0.numel()), dtype=torch.float32).to(TORCH[dtype])
    x = x0.clone().requires_grad_()
    y = LeakyReLU(slope)(x)
    y.backward(g)
    xn, gn, s32 = _np(x, dtype), _np(g, dtype), np.float32(slope)
    assert_bits_equal(_np(y, dtype), ref_leaky_relu(xn, s32), "forward")
    assert_bits_equal(_np(x.grad, dtype), ref_leaky_relu_backward(gn, xn, s32), "backward")
    xt = x0.clone().requires_grad_()
    yt = torch.nn.functional.leaky_relu(xt, float(s32))
    yt.backward(g)
    assert_bits_equal(_np(y, dtype), _np(yt, dtype), "forward, torch's")
    assert_bits_equal(_np(x.grad, dtype), _np(xt.grad, dtype), "backward, torch's")


def test_second_order_is_zero_and_the_grad_of_grad_is_the_kernel():
    x = torch.linspace(-3, 3, 61, dtype=torch.float32).requires_grad_()
    (gx,) = torch.autograd.grad(LeakyReLU(0.2)(x).sum(), x, create_graph=True)
    (ggx,) = torch.autograd.grad(gx.sum(), x)
    assert not ggx.any()
    g = torch.ones(61, requires_grad=True)
    (d,) = torch.autograd.grad(torch.autograd.grad(LeakyReLU(0.2)(x), x, g, create_graph=True)[0].sum(), g)
    assert torch.equal(d, torch.where(x > 0, 1.0, np.float32(0.2)).float())


def test_module_arguments():
    with pytest.raises(ValueError, match="cannot run leaky_relu"):
        LeakyReLU(platform=sg.REFERENCE_PLATFORM)
    with pytest.raises(TypeError, match="platform"):
        LeakyReLU(platform="ascend950")
    with pytest.raises(TypeError, match="negative_slope must be a real number"):
        LeakyReLU("0.1")
    with pytest.raises(TypeError, match="x must have dtype"):
        LeakyReLU()(torch.ones(3, dtype=torch.int32))
    m = LeakyReLU(0.1, platform=sg.ASCEND950_PLATFORM)
    assert m.negative_slope == float(np.float32(0.1)) and "negative_slope=" in repr(m) and "platform=" in repr(m)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_every_16bit_input_is_torchs_too(dtype):
    """docs/model.md: torch's CPU leaky_relu computes in float and rounds once, as LeakyReluCastDag."""
    from activation_checks import every16

    x = every16(dtype)
    xt = torch.from_numpy(x.view(np.int16)).view(TORCH[dtype])
    for slope in (0.01, -0.7, 3.0):
        s32 = np.float32(slope)
        want = ref_leaky_relu(x, s32)
        assert_bits_equal(_np(torch.nn.functional.leaky_relu(xt, float(s32)), dtype), want, f"torch {slope}")
        assert_bits_equal(_np(LeakyReLU(slope)(xt), dtype), want, f"module {slope}")
