"""The torch faces of the row operators generated from their descriptions (faces/torch_rows.py, issue 40):
SwiGlu's and RmsNorm's names come from their ``torch_rows``, the hand-written modules are gone, and the generated
checks speak the torch functions' argument names. (Their bits: tests/test_torch_swiglu.py,
tests/test_torch_rms_norm.py.)"""
import importlib.util

import pytest

torch = pytest.importorskip("torch")

from swishgrad_numba import torch as sgt  # noqa: E402
from swishgrad_numba.faces.torch_rows import faces  # noqa: E402
from swishgrad_numba.ops.description import DESCRIPTIONS  # noqa: E402


def test_the_public_names_are_the_generated_ones():
    rule = DESCRIPTIONS["swiglu"].torch_rows
    made = faces("swiglu")
    assert set(made) == {*rule.functions, DESCRIPTIONS["swiglu"].torch_module}
    for name, obj in made.items():
        assert getattr(sgt, name) is obj and obj.__name__ == name
    assert issubclass(sgt.SwiGluFunction, torch.autograd.Function)
    assert importlib.util.find_spec("swishgrad_numba.ops.swi_glu.torch_face") is None


def test_rms_norm_names_are_generated_without_a_backward_kernel():
    rule = DESCRIPTIONS["rms_norm"].torch_rows
    made = faces("rms_norm")
    assert DESCRIPTIONS["rms_norm"].backward is None and rule.gradient is not None
    assert set(made) == set(rule.functions) == {"rms_norm_torch", "RmsNormFunction", "RMSNorm"}
    for name, obj in made.items():
        assert getattr(sgt, name) is obj and obj.__name__ == name and obj.__module__ == "swishgrad_numba.torch"
    assert issubclass(sgt.RmsNormFunction, torch.autograd.Function)
    assert issubclass(sgt.RMSNorm, torch.nn.Module)
    assert importlib.util.find_spec("swishgrad_numba.ops.rms_norm.torch_face") is None


def test_the_generated_rms_norm_module_is_torch_nn_rmsnorm_s_form():
    m = sgt.RMSNorm((3, 4), eps=1e-5)
    assert [n for n, _ in m.named_parameters()] == ["weight"] and m.weight.shape == (3, 4)
    assert m.weight.dtype == torch.float32 and torch.equal(m.weight, torch.ones(3, 4))
    assert repr(m) == "RMSNorm((3, 4), eps=1e-05)"
    frozen = sgt.RMSNorm(5, 1e-6, False, dtype=torch.float16)
    assert not list(frozen.parameters()) and [n for n, _ in frozen.named_buffers()] == ["weight"]
    assert frozen.weight.dtype == torch.float16 and frozen.normalized_shape == (5,) and frozen.eps == 1e-6
    with pytest.raises(TypeError, match="platform"):
        sgt.RMSNorm(4, platform="ascend910b")


def test_rms_norm_torch_checks_and_refuses_a_batched_gamma():
    with pytest.raises(TypeError, match="^gamma must be a torch.Tensor"):
        sgt.rms_norm_torch(torch.ones(2, 4), [1.0] * 4)
    with pytest.raises(TypeError, match=r"^rms_norm_torch\(\): too many positional .*eps=1e-06"):
        sgt.rms_norm_torch(torch.ones(2, 4), torch.ones(4), 1e-6, 1e-6)
    with pytest.raises(ValueError, match="epsilon must be >= 0"):
        sgt.rms_norm_torch(torch.ones(2, 4), torch.ones(4), -1.0)
    with pytest.raises(NotImplementedError, match="vmap over gamma is not supported"):
        torch.func.vmap(sgt.rms_norm_torch)(torch.ones(2, 3, 4), torch.ones(2, 4))


def test_an_operator_without_torch_rows_has_no_generated_face():
    with pytest.raises(ValueError, match="'swiglu_grad' has no generated torch face"):
        faces("swiglu_grad")


def test_the_backward_checks_name_the_torch_arguments():
    with pytest.raises(ValueError, match=r"^grad's shape must be \(2, 2\)") as e:
        sgt.swiglu_backward_torch(torch.ones(2, 4), torch.ones(2, 4))
    assert "grad_output" not in str(e.value)
    with pytest.raises(TypeError, match="^grad.dtype must be float32"):
        sgt.swiglu_backward_torch(torch.ones(2, 2, dtype=torch.float16), torch.ones(2, 4))
    with pytest.raises(TypeError, match="^dim must be an int64"):
        sgt.swiglu_torch(torch.ones(2, 4), 1.0)
