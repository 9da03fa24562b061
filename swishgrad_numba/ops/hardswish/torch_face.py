"""The PyTorch module :class:`Hardswish` and the functionals :func:`hardswish`, :func:`hardswish_backward_torch`
(issue 41): forward the Ascend 950's HardSwish kernel (aclnnHardswish), backward its HardSwishGrad kernel
(aclnnHardswishBackward), bit for bit.

One row of :data:`swishgrad_numba.faces.torch_family.ACTIVATIONS`. HardSwish has no A2 kernel, so both passes run on
an Ascend 950 (the default); an A2 platform is refused when the module is made. The second order is
``ggx * g * hardswish''(x)`` in float64, rounded once: 1/3 for ``-3 < x < 3``, 0 elsewhere (torch's).
Re-exported by :mod:`swishgrad_numba.torch`.
"""
from __future__ import annotations

from ...faces.torch_family import ACTIVATIONS, Activation, plain_functions, plain_module
from ...faces.torch_support import torch
from .api import hardswish as _hardswish_numpy
from .api import hardswish_backward as _hardswish_backward_numpy

__all__ = ["Hardswish", "hardswish", "hardswish_backward_torch", "hardswish_second_derivative"]


def hardswish_second_derivative(x, _beta=None, _platform=None):
    """``hardswish''(x)``: 1/3 inside (-3, 3), 0 outside (and for NaN), float64."""
    x64 = x.double()
    inside = (x64 > -3.0) & (x64 < 3.0)
    return torch.where(inside, torch.full_like(x64, 1.0 / 3.0), torch.zeros_like(x64))


ACTIVATIONS["hardswish"] = Activation(lambda x, b, p: _hardswish_numpy(x, platform=p),
                                      lambda g, x, b, p: _hardswish_backward_numpy(g, x, platform=p),
                                      has_beta=False, operators=("hardswish", "hardswish_grad"),
                                      second_derivative=hardswish_second_derivative)

Hardswish = plain_module("hardswish", "Hardswish", """Hardswish whose forward pass is the Ascend 950's HardSwish
kernel and whose gradient is its HardSwishGrad kernel, bit for bit (``torch.nn.Hardswish``'s function; the
kernel's differences from torch, docs/model.md, hold: ``x = -inf`` gives -0, 16-bit results rounded ties away).

Parameters
----------
platform : Platform, optional
    An Ascend 950 (the default); an Atlas A2 is refused (no HardSwish kernel there).
""")
hardswish, hardswish_backward_torch = plain_functions("hardswish")
