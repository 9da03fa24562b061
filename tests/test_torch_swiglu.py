"""swishgrad_numba.torch.SwiGLU (generated: faces/torch_rows.py): forward bit for bit the SwiGlu kernel's, the
gradient the platform's SwiGluGrad kernel's, A2 or 950 (tests/reference_swiglu.py), under autograd and
torch.func; where a platform has no SwiGluGrad kernel, the documented float64 fallback."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import swishgrad_numba as sg  # noqa: E402
from activation_checks import DT16  # noqa: E402
from reference import assert_bits_equal  # noqa: E402
from reference_swiglu import swiglu_grad_950_ref, swiglu_grad_a2_ref, swiglu_ref  # noqa: E402
from swishgrad_numba.torch import SwiGLU, swiglu_backward_torch, swiglu_torch  # noqa: E402

TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
NP = {"float32": np.dtype(np.float32), **DT16}
JIT_WARNING = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")


def _np(t, dtype="float32"):
    return t.detach().contiguous().view(torch.int16 if dtype != "float32" else torch.int32).numpy().view(NP[dtype])


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a).view(np.int16)).view(torch.bfloat16) \
        if a.dtype == DT16["bfloat16"] else torch.from_numpy(np.ascontiguousarray(a))


def _sample(shape, dtype, seed):
    v = np.random.default_rng(seed).uniform(-8, 8, shape).astype(np.float32)
    v.reshape(-1)[:6] = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-40][:v.size]
    return v.astype(NP[dtype])


@pytest.mark.parametrize("dtype", list(TORCH))
@pytest.mark.parametrize("shape,dim", [((4, 6), -1), ((6, 3), 0), ((2, 4, 5), 1)])
def test_forward_and_backward_are_the_kernels(dtype, shape, dim):
    xn = _sample(shape, dtype, 21)
    y_ref = swiglu_ref(xn, dim)
    gn = np.random.default_rng(22).uniform(-2, 2, y_ref.shape).astype(np.float32).astype(NP[dtype])
    x = _t(xn).requires_grad_()
    y = SwiGLU(dim)(x)
    y.backward(_t(gn))
    assert_bits_equal(_np(y, dtype), y_ref, "forward")
    assert_bits_equal(_np(x.grad, dtype), swiglu_grad_a2_ref(gn, xn, dim), "backward")
    assert_bits_equal(_np(swiglu_torch(_t(xn), dim), dtype), y_ref, "functional")
    assert_bits_equal(_np(swiglu_backward_torch(_t(gn), _t(xn), dim), dtype), swiglu_grad_a2_ref(gn, xn, dim))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_the_950_forward_and_its_gradient(dtype):
    """On the 950 the gradient is its own SwiGluGrad kernel (the regbase one), not the A2's nor a fallback."""
    p = sg.ASCEND950_PLATFORM
    xn = _sample((3, 8), dtype, 23)
    x = _t(xn).requires_grad_()
    y = SwiGLU(platform=p)(x)
    assert_bits_equal(_np(y, dtype), swiglu_ref(xn))
    gn = np.random.default_rng(27).uniform(-2, 2, (3, 4)).astype(np.float32).astype(NP[dtype])
    y.backward(_t(gn))
    assert_bits_equal(_np(x.grad, dtype), swiglu_grad_950_ref(gn, xn), "backward")
    assert_bits_equal(_np(swiglu_backward_torch(_t(gn), _t(xn), platform=p), dtype), swiglu_grad_950_ref(gn, xn))


@JIT_WARNING
def test_torch_func_runs_the_kernels():
    f = SwiGLU()
    xb = _t(_sample((3, 2, 8), "float32", 24))
    assert_bits_equal(_np(torch.func.vmap(f)(xb)), swiglu_ref(_np(xb)))
    assert_bits_equal(_np(torch.func.vmap(SwiGLU(0), in_dims=1, out_dims=1)(xb.transpose(0, 1).contiguous())),
                      swiglu_ref(_np(xb), 1).transpose(1, 0, 2))
    x0, t = xb[0], _t(_sample((2, 8), "float32", 25)[..., ::-1])
    t = torch.nan_to_num(t, 1.0, 1.0, -1.0)
    _, tangent = torch.func.jvp(f, (x0,), (t,))
    tn = _np(t)
    ga = swiglu_grad_a2_ref(tn[:, :4].copy(), _np(x0))[:, :4]
    gb = swiglu_grad_a2_ref(tn[:, 4:].copy(), _np(x0))[:, 4:]
    assert_bits_equal(_np(tangent), (ga + gb).astype(np.float32), "jvp: the kernel's two products, added")
    per_sample = torch.func.vmap(torch.func.grad(lambda v: f(v).sum()))(xb)
    assert_bits_equal(_np(per_sample), swiglu_grad_a2_ref(np.ones((3, 2, 4), np.float32), _np(xb)))


def test_second_order_is_the_float64_formula():
    x = torch.tensor(_sample((2, 6), "float32", 26)).nan_to_num(0.5, 3.0, -3.0).requires_grad_()
    g = torch.linspace(-1, 1, 6).reshape(2, 3).requires_grad_()
    (gx,) = torch.autograd.grad(SwiGLU()(x), x, g, create_graph=True)
    w = torch.linspace(0.5, 2, 12).reshape(2, 6)
    dg, dx = torch.autograd.grad((gx * w).sum(), (g, x))
    x64, g64 = x.detach().double().requires_grad_(), g.detach().double().requires_grad_()
    a, b = x64.chunk(2, dim=-1)
    (gx64,) = torch.autograd.grad(torch.nn.functional.silu(a) * b, x64, g64, create_graph=True)
    dg64, dx64 = torch.autograd.grad((gx64 * w.double()).sum(), (g64, x64))
    assert torch.allclose(dg.double(), dg64, rtol=1e-6, atol=1e-6)
    assert torch.allclose(dx.double(), dx64, rtol=1e-6, atol=1e-6)


def test_arguments():
    with pytest.raises(ValueError, match="even length"):
        SwiGLU()(torch.ones(2, 3))
    with pytest.raises(TypeError, match="dim must be an int"):
        SwiGLU(1.0)
    with pytest.raises(TypeError, match="platform"):
        SwiGLU(platform="ascend910b")
    with pytest.raises(ValueError, match="halved"):
        swiglu_backward_torch(torch.ones(2, 4), torch.ones(2, 4))
    with pytest.raises(TypeError, match="x must have dtype"):
        swiglu_torch(torch.ones(2, 4, dtype=torch.int32))
    assert SwiGLU(-1)(torch.ones(0, 4)).shape == (0, 2)
    assert repr(SwiGLU(0)) == "SwiGLU(dim=0)"


def test_without_a_grad_kernel_the_gradient_is_the_float64_formula(monkeypatch):
    import swishgrad_numba.faces.torch_rows as face

    def no_kernel(*args, **kwargs):
        raise NotImplementedError("no SwiGluGrad kernel here")

    monkeypatch.setitem(face.KERNELS, "swiglu_grad", no_kernel)
    for dtype in (torch.float32, torch.bfloat16):
        x = torch.linspace(-6, 6, 24, dtype=torch.float32).reshape(2, 3, 4).to(dtype).requires_grad_()
        g = torch.linspace(-1, 2, 12).reshape(2, 3, 2).to(dtype)
        SwiGLU(-1)(x).backward(g)
        x64 = x.detach().double().requires_grad_()
        a, b = x64.chunk(2, dim=-1)
        (torch.nn.functional.silu(a) * b).backward(g.double())
        assert x.grad.dtype == dtype
        assert torch.allclose(x.grad.double(), x64.grad.to(dtype).double(), rtol=1e-2 if dtype != torch.float32
                              else 1e-6, atol=1e-6)
        assert not torch.equal(x.grad, torch.zeros_like(x.grad))
