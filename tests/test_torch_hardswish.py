"""swishgrad_numba.torch.Hardswish (ops/hardswish/torch_face.py): forward and backward bit for bit the 950
kernels' (tests/reference_hardswish.py), under autograd and torch.func; the second order torch's."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import swishgrad_numba as sg  # noqa: E402
from activation_checks import DT16  # noqa: E402
from reference import assert_bits_equal  # noqa: E402
from reference_hardswish import ref_hardswish, ref_hardswish_backward  # noqa: E402
from swishgrad_numba.torch import Hardswish, hardswish, hardswish_backward_torch  # noqa: E402

TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
NP = {"float32": np.dtype(np.float32), **DT16}
JIT_WARNING = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")


def _np(t, dtype="float32"):
    return t.detach().contiguous().view(torch.int16 if dtype != "float32" else torch.int32).numpy().view(NP[dtype])


def _sample(n, dtype, seed):
    rng = np.random.default_rng(seed)
    v = np.concatenate([rng.uniform(-5, 5, n), [3.0, -3.0, 0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40,
                                                np.nextafter(np.float32(3), np.float32(0)), 2.9999, -2.9999]])
    return torch.tensor(v, dtype=torch.float32).to(TORCH[dtype])


@pytest.mark.parametrize("dtype", list(TORCH))
def test_forward_and_backward_are_the_950_kernels(dtype):
    x0 = _sample(600, dtype, 11)
    g = torch.tensor(np.random.default_rng(12).uniform(-2, 2, x0.numel()), dtype=torch.float32).to(TORCH[dtype])
    x = x0.clone().requires_grad_()
    y = Hardswish()(x)
    y.backward(g)
    xn, gn = _np(x, dtype), _np(g, dtype)
    assert_bits_equal(_np(y, dtype), ref_hardswish(xn), "forward")
    assert_bits_equal(_np(x.grad, dtype), ref_hardswish_backward(gn, xn, "arch35"), "backward")
    assert_bits_equal(_np(hardswish(x0), dtype), ref_hardswish(xn), "functional")
    assert_bits_equal(_np(hardswish_backward_torch(g, x0), dtype), ref_hardswish_backward(gn, xn, "arch35"),
                      "functional backward")


@JIT_WARNING
def test_torch_func_runs_the_kernels():
    f = Hardswish()
    xb = _sample(28, "float32", 13).reshape(2, 20)
    t = torch.tensor(np.random.default_rng(14).uniform(-1, 1, 20), dtype=torch.float32)
    assert_bits_equal(_np(torch.func.vmap(f)(xb)), ref_hardswish(_np(xb)))
    _, tangent = torch.func.jvp(f, (xb[0],), (t,))
    assert_bits_equal(_np(tangent), ref_hardswish_backward(_np(t), _np(xb[0]), "arch35"))
    gx = torch.func.grad(lambda v: f(v).sum())(xb[1])
    assert_bits_equal(_np(gx), ref_hardswish_backward(np.ones(20, np.float32), _np(xb[1]), "arch35"))


def test_second_order_is_torchs():
    # away from the kernel's +-3 (its bounds differ from torch's there: docs/model.md)
    x = torch.tensor([-5.0, -2.5, -1.0, 0.0, 0.5, 2.9, 4.0]).requires_grad_()
    (gx,) = torch.autograd.grad(Hardswish()(x).sum(), x, create_graph=True)
    (ggx,) = torch.autograd.grad(gx.sum(), x)
    xt = x.detach().clone().requires_grad_()
    (d1,) = torch.autograd.grad(torch.nn.functional.hardswish(xt).sum(), xt, create_graph=True)
    (d2,) = torch.autograd.grad(d1.sum(), xt)
    assert torch.equal(ggx, d2)


def test_the_a2_is_refused_and_arguments_checked():
    with pytest.raises(ValueError, match="cannot run hardswish"):
        Hardswish(platform=sg.REFERENCE_PLATFORM)
    with pytest.raises(ValueError, match="cannot run hardswish"):
        hardswish(torch.ones(2), platform=sg.REFERENCE_PLATFORM)
    with pytest.raises(TypeError, match="x must have dtype"):
        Hardswish()(torch.ones(3, dtype=torch.int32))
    assert Hardswish().platform == sg.ASCEND950_PLATFORM
