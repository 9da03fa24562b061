"""swishgrad_numba.torch's Sigmoid: forward and backward the NPU's kernels, bit for bit against the plain
references, on both kernels; higher derivatives and torch.func."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import reference_activations as ra  # noqa: E402
from reference import assert_bits_equal  # noqa: E402

import swishgrad_numba as sg  # noqa: E402
from swishgrad_numba import torch as sgt  # noqa: E402

KERNEL = {"a2": None, "arch35": sg.ASCEND950_PLATFORM}
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def _np(t):
    return sgt.tensor_to_numpy(t)


@pytest.mark.parametrize("kernel", KERNEL)
@pytest.mark.parametrize("dtype", DTYPES)
def test_module_forward_and_backward_are_the_kernels(kernel, dtype):
    g = torch.Generator().manual_seed(1)
    x = (torch.rand(257, generator=g) * 40 - 20).to(DTYPES[dtype]).requires_grad_()
    layer = sgt.Sigmoid(platform=KERNEL[kernel])
    y = layer(x)
    assert_bits_equal(_np(y), ra.ref_sigmoid(_np(x), kernel))
    up = (torch.rand(257, generator=g) * 4 - 2).to(DTYPES[dtype])
    y.backward(up)
    assert_bits_equal(_np(x.grad), ra.ref_sigmoid_backward(_np(up), _np(y), kernel))


def test_functional_and_backward_function_match_numpy():
    x = torch.linspace(-9, 9, 101)
    y = sgt.sigmoid(x, platform=sg.ASCEND950_PLATFORM)
    assert_bits_equal(_np(y), sg.sigmoid(_np(x), platform=sg.ASCEND950_PLATFORM))
    g = torch.linspace(-1, 1, 101)
    assert_bits_equal(_np(sgt.sigmoid_backward_torch(g, y)), sg.sigmoid_backward(_np(g), _np(y)))


def test_second_order_wrt_grad_is_the_kernel_again():
    x = torch.linspace(-4, 4, 33, dtype=torch.float64).float().requires_grad_()
    g = torch.linspace(-2, 2, 33).requires_grad_()
    y = sgt.sigmoid(x)
    (gx,) = torch.autograd.grad(y, x, g, create_graph=True)
    ggx = torch.linspace(0.5, 1.5, 33)
    (d_g,) = torch.autograd.grad(gx, g, ggx, retain_graph=True)
    assert_bits_equal(_np(d_g), ra.ref_sigmoid_backward(_np(ggx), _np(y.detach())))
    (d_x,) = torch.autograd.grad(gx, x, ggx)
    # d/dx (g y (1 - y)) = g (1 - 2y) y (1 - y): close to float64 truth
    s = torch.sigmoid(x.detach().double())
    want = ggx.double() * g.detach().double() * (1 - 2 * s) * s * (1 - s)
    assert torch.allclose(d_x.double(), want, rtol=1e-5, atol=1e-7)


# torch's forward-mode AD loads its jvp decompositions through torch.jit.script, which warns (as tests/test_torch.py)
@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
def test_torch_func_grad_jvp_vmap():
    x = torch.linspace(-3, 3, 12)
    gx = torch.func.grad(lambda t: sgt.sigmoid(t).sum())(x)
    y = sgt.sigmoid(x)
    assert_bits_equal(_np(gx), ra.ref_sigmoid_backward(np.ones(12, np.float32), _np(y)))
    _, tangent = torch.func.jvp(lambda t: sgt.sigmoid(t), (x,), (torch.full((12,), 2.0),))
    assert_bits_equal(_np(tangent), ra.ref_sigmoid_backward(np.full(12, 2, np.float32), _np(y)))
    batched = torch.func.vmap(lambda t: sgt.sigmoid(t))(x.reshape(3, 4))
    assert_bits_equal(_np(batched), _np(y).reshape(3, 4))
    hess = torch.func.hessian(lambda t: sgt.sigmoid(t).sum())(x)
    s = torch.sigmoid(x.double())
    assert torch.allclose(torch.diagonal(hess).double(), s * (1 - s) * (1 - 2 * s), rtol=1e-5, atol=1e-7)


def test_refusals():
    with pytest.raises(TypeError, match="x must be a torch.Tensor"):
        sgt.sigmoid(np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="platform"):
        sgt.Sigmoid(platform="ascend950")
    with pytest.raises(TypeError, match="same dtype"):
        sgt.sigmoid_backward_torch(torch.zeros(3), torch.zeros(3, dtype=torch.float16))
