"""swishgrad_numba.torch.Mish (ops/mish/torch_face.py): forward and backward bit for bit the kernels'
(tests/reference_mish.py), under autograd and torch.func; the second order by float64 mish''."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import swishgrad_numba as sg  # noqa: E402
from activation_checks import DT16  # noqa: E402
from reference import assert_bits_equal  # noqa: E402
from reference_mish import ref_mish, ref_mish_backward  # noqa: E402
from swishgrad_numba.ops import get_operator  # noqa: E402
from swishgrad_numba.torch import Mish, mish, mish_backward_torch  # noqa: E402

TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
NP = {"float32": np.dtype(np.float32), **DT16}
JIT_WARNING = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")


def _np(t, dtype="float32"):
    return t.detach().contiguous().view(torch.int16 if dtype != "float32" else torch.int32).numpy().view(NP[dtype])


def _sample(n, dtype, seed):
    rng = np.random.default_rng(seed)
    v = np.concatenate([rng.uniform(-12, 12, n), [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 90.0, -90.0]])
    return torch.tensor(v, dtype=torch.float32).to(TORCH[dtype])


@pytest.mark.parametrize("dtype", list(TORCH))
def test_forward_and_backward_are_the_950_kernels(dtype):
    x0 = _sample(600, dtype, 1)
    g = torch.tensor(np.random.default_rng(2).uniform(-2, 2, x0.numel()), dtype=torch.float32).to(TORCH[dtype])
    x = x0.clone().requires_grad_()
    y = Mish(platform=sg.ASCEND950_PLATFORM)(x)
    y.backward(g)
    xn, gn = _np(x, dtype), _np(g, dtype)
    assert_bits_equal(_np(y, dtype), ref_mish(xn, "arch35"), "forward")
    assert_bits_equal(_np(x.grad, dtype), ref_mish_backward(gn, xn), "backward")
    assert_bits_equal(_np(mish(x0, platform=sg.ASCEND950_PLATFORM), dtype), ref_mish(xn, "arch35"), "functional")
    assert_bits_equal(_np(mish_backward_torch(g, x0, platform=sg.ASCEND950_PLATFORM), dtype),
                      ref_mish_backward(gn, xn), "functional backward")


def test_the_a2_forward_is_its_kernel_where_the_pair_runs_there():
    x = _sample(200, "float32", 3)
    if get_operator("mish_grad").kernel_refusal(sg.REFERENCE_PLATFORM) is None:
        assert_bits_equal(_np(Mish(platform=sg.REFERENCE_PLATFORM)(x)), ref_mish(_np(x), "a2"))
        assert Mish().platform == sg.REFERENCE_PLATFORM
    else:   # no A2 MishGrad yet: the module refuses the A2 and runs both passes on the 950 by default
        with pytest.raises(ValueError, match="cannot run mish_grad"):
            Mish(platform=sg.REFERENCE_PLATFORM)
        assert Mish().platform == sg.ASCEND950_PLATFORM
        assert_bits_equal(_np(Mish()(x)), ref_mish(_np(x), "arch35"))


@JIT_WARNING
def test_torch_func_runs_the_kernels():
    p = sg.ASCEND950_PLATFORM
    f = Mish(platform=p)
    xb = _sample(31, "float32", 4)[:40].reshape(2, 20)
    t = torch.tensor(np.random.default_rng(5).uniform(-1, 1, 20), dtype=torch.float32)
    assert_bits_equal(_np(torch.func.vmap(f)(xb)), ref_mish(_np(xb), "arch35"))
    primal, tangent = torch.func.jvp(f, (xb[0],), (t,))
    assert_bits_equal(_np(tangent), ref_mish_backward(_np(t), _np(xb[0])))
    gx = torch.func.grad(lambda v: f(v).sum())(xb[1])
    assert_bits_equal(_np(gx), ref_mish_backward(np.ones(20, np.float32), _np(xb[1])))
    jac = torch.func.jacrev(f)(xb[1, :6])
    assert_bits_equal(_np(torch.diagonal(jac)), ref_mish_backward(np.ones(6, np.float32), _np(xb[1, :6])))


def test_second_order_is_float64_mish_second_derivative():
    x = torch.linspace(-6, 6, 49, dtype=torch.float32).requires_grad_()
    (gx,) = torch.autograd.grad(Mish(platform=sg.ASCEND950_PLATFORM)(x).sum(), x, create_graph=True)
    (ggx,) = torch.autograd.grad(gx.sum(), x)
    x64 = x.detach().double().requires_grad_()
    (d1,) = torch.autograd.grad(torch.nn.functional.mish(x64).sum(), x64, create_graph=True)
    (d2,) = torch.autograd.grad(d1.sum(), x64)
    assert torch.equal(ggx, d2.float()) or torch.allclose(ggx.double(), d2, rtol=1e-6, atol=1e-7)


def test_module_arguments():
    with pytest.raises(TypeError, match="platform"):
        Mish(platform="ascend950")
    with pytest.raises(TypeError, match="x must have dtype"):
        Mish()(torch.ones(3, dtype=torch.int32))
    assert "platform=" in repr(Mish(platform=sg.ASCEND950_PLATFORM)) and repr(Mish()) == "Mish()"
