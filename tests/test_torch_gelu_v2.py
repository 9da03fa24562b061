"""swishgrad_numba.torch.GELU(approximate=...) (generated: swishgrad_numba/faces/torch.py): the GeluV2 and GeluGradV2
kernels, forward and backward bit for bit the plain references (tests/reference_activations_tier2.py),
the second order close to the float64 derivative."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import reference_activations_tier2 as rb  # noqa: E402
import swishgrad_numba as sg  # noqa: E402
from activation_checks import DT16  # noqa: E402
from reference import assert_bits_equal  # noqa: E402
from swishgrad_numba.torch import GELU  # noqa: E402

TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
NP = {"float32": np.dtype(np.float32), **DT16}


def _np(t, dtype):
    return t.detach().view(torch.int16 if dtype != "float32" else torch.int32).numpy().view(NP[dtype])


@pytest.mark.parametrize("dtype", list(TORCH))
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_forward_and_backward_are_the_v2_kernels(approximate, dtype):
    rng = np.random.default_rng(40)
    x = torch.tensor(rng.uniform(-8, 8, 3000), dtype=torch.float32).to(TORCH[dtype]).requires_grad_()
    g = torch.tensor(rng.uniform(-2, 2, 3000), dtype=torch.float32).to(TORCH[dtype])
    module = GELU(approximate)
    y = module(x)
    y.backward(g)
    xn, gn = _np(x, dtype), _np(g, dtype)
    assert_bits_equal(_np(y, dtype), rb.ref_gelu_v2(xn, approximate), "forward")
    assert_bits_equal(_np(x.grad, dtype), rb.ref_gelu_backward_v2(gn, xn, approximate, "arch35"), "backward")
    assert f"approximate={approximate!r}" in repr(module)
    # close to torch's own GELU of that approximation
    want = torch.nn.functional.gelu(x.detach().double(), approximate=approximate)
    assert torch.allclose(y.double(), want, rtol=2e-2 if dtype != "float32" else 1e-5, atol=1e-3)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_second_order(approximate):
    x = torch.linspace(-6, 6, 241, dtype=torch.float32).requires_grad_()
    (gx,) = torch.autograd.grad(GELU(approximate)(x).sum(), x, create_graph=True)
    (gxx,) = torch.autograd.grad(gx.sum(), x)
    xd = x.detach().double().requires_grad_()
    (t1,) = torch.autograd.grad(torch.nn.functional.gelu(xd, approximate=approximate).sum(), xd, create_graph=True)
    (t2,) = torch.autograd.grad(t1.sum(), xd)
    assert torch.allclose(gxx.double(), t2, atol=2e-3)


def test_default_keeps_the_gelu_kernel_and_bad_arguments_are_refused():
    assert GELU().approximate is None and repr(GELU()) == "GELU()"
    with pytest.raises(ValueError, match="approximate must be None or one of"):
        GELU("erf")
    with pytest.raises(ValueError, match="Ascend 950"):
        GELU("none", platform=sg.REFERENCE_PLATFORM)
