"""The PyTorch module :class:`Mish` and the functionals :func:`mish`, :func:`mish_backward_torch` (issue 41):
forward the device's Mish kernel (aclnnMish), backward its MishGrad kernel (aclnnMishBackward), bit for bit.

One row of :data:`swishgrad_numba.faces.torch_family.ACTIVATIONS` (the shared autograd Functions: ``torch.func``,
``vmap``, ``jvp`` and ``torch.compile`` as for every activation there). Both passes run on one platform: by
default the A2 reference platform where both operators have a kernel there, else the Ascend 950, read from
the registry when the module is made (so the A2 MishGrad, once registered, becomes the default with no change
here). The second order is ``ggx * g * mish''(x)`` in float64, rounded once (no kernel computes it):
``mish'' = (1 - t^2) s (2 + x (1 - s - 2 t s))``, ``t = tanh(softplus(x))``, ``s = sigmoid(x)``.
Re-exported by :mod:`swishgrad_numba.torch`.
"""
from __future__ import annotations

from ...faces.torch_family import ACTIVATIONS, Activation, plain_functions, plain_module
from ...faces.torch_support import torch
from .api import mish as _mish_numpy
from .api import mish_backward as _mish_backward_numpy

__all__ = ["Mish", "mish", "mish_backward_torch", "mish_second_derivative"]


def mish_second_derivative(x, _beta=None, _platform=None):
    """``mish''(x)`` in float64 by plain PyTorch ops (differentiable again); NaN at ``x = -inf``."""
    x64 = x.double()
    t = torch.tanh(torch.nn.functional.softplus(x64))
    s = torch.sigmoid(x64)
    return (1.0 - t * t) * s * (2.0 + x64 * (torch.sigmoid(-x64) - 2.0 * t * s))


ACTIVATIONS["mish"] = Activation(lambda x, b, p: _mish_numpy(x, platform=p),
                                 lambda g, x, b, p: _mish_backward_numpy(g, x, platform=p), has_beta=False,
                                 operators=("mish", "mish_grad"), second_derivative=mish_second_derivative)

Mish = plain_module("mish", "Mish", """Mish whose forward pass is the NPU's Mish kernel and whose gradient is its
MishGrad kernel, bit for bit (``torch.nn.Mish``'s function).

Parameters
----------
platform : Platform, optional
    The device whose kernels run; by default the A2 reference platform where both kernels exist there, else
    the Ascend 950. One where either pass has no kernel is refused here.
""")
mish, mish_backward_torch = plain_functions("mish")
