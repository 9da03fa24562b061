"""The torch faces of the row operators generated from their descriptions (faces/torch_rows.py, issue 40):
SwiGlu's names come from its ``torch_rows``, the hand-written module is gone, and the generated checks speak the
torch functions' argument names. (Their bits: tests/test_torch_swiglu.py.)"""
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


def test_an_operator_without_torch_rows_has_no_generated_face():
    with pytest.raises(ValueError, match="'rms_norm' has no generated torch face"):
        faces("rms_norm")


def test_the_backward_checks_name_the_torch_arguments():
    with pytest.raises(ValueError, match=r"^grad's shape must be \(2, 2\)") as e:
        sgt.swiglu_backward_torch(torch.ones(2, 4), torch.ones(2, 4))
    assert "grad_output" not in str(e.value)
    with pytest.raises(TypeError, match="^grad.dtype must be float32"):
        sgt.swiglu_backward_torch(torch.ones(2, 2, dtype=torch.float16), torch.ones(2, 4))
    with pytest.raises(TypeError, match="^dim must be an int64"):
        sgt.swiglu_torch(torch.ones(2, 4), 1.0)
