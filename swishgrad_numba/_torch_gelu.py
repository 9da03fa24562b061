"""The PyTorch module :class:`GELU`: forward the NPU's Gelu kernel (aclnnGelu), backward its GeluGrad
kernel (aclnnGeluBackward), bit for bit, on the kernel the ``platform`` picks.

One row of :data:`swishgrad_numba._torch_family.ACTIVATIONS` (the machinery is that module's); the
second order is ``ggx * g * s''(x)`` in float64, rounded once, with ``s'`` what the backward kernels
compute: the derivative of ``x * sigmoid(a x + b x^3)`` with GeluGrad's float32 constants
(:func:`swishgrad_numba.ops.gelu_grad.sigmoid_argument`; on the A2 that is not the forward kernel's own
function, whose cubic coefficient differs). Re-exported by
:mod:`swishgrad_numba.torch`.
"""
from __future__ import annotations

from ._torch_family import ACTIVATIONS, Activation, ActivationFunction, _check_platform
from .gelu_functions import gelu, gelu_backward
from .ops.gelu_grad import sigmoid_argument
from .platform import Platform
from ._torch_support import _check_tensor, _eager, _missing, torch

__all__ = ["GELU"]


def _gelu_second_derivative(x, beta, platform):
    """``s''(x)`` of ``s(x) = x sigmoid(k(x))``, ``k = a x + b x^3``: ``2 q k' + x q (1 - 2 sig) k'^2 +
    x q k''`` with ``q = sig(k) sig(-k)`` and ``1 - 2 sig(k) = -tanh(k / 2)``, in float64."""
    a, b = sigmoid_argument()
    x = x.double()
    k, k1, k2 = a * x + b * x ** 3, a + 3.0 * b * x * x, 6.0 * b * x
    q = torch.sigmoid(k) * torch.sigmoid(-k)
    return 2.0 * q * k1 - x * q * torch.tanh(0.5 * k) * k1 * k1 + x * q * k2


ACTIVATIONS["gelu"] = Activation(lambda x, b, p: gelu(x, platform=p), lambda g, x, b, p: gelu_backward(g, x, platform=p),
                                 has_beta=False, operators=("gelu", "gelu_grad"),
                                 second_derivative=_gelu_second_derivative)

if torch is not None:

    class GELU(torch.nn.Module):
        """GELU whose forward pass is the NPU's Gelu kernel and whose gradient is its GeluGrad kernel.

        The A2's kernel computes its own function (cubic coefficient 0.0455399241), the 950's the tanh
        GELU: compare with ``torch.nn.GELU(approximate="tanh")``.

        Parameters
        ----------
        platform : Platform, optional
            The device whose kernels run; the A2 reference platform by default.
        """

        def __init__(self, *, platform: Platform | None = None):
            super().__init__()
            _check_platform(platform, "gelu")
            self.platform = platform

        @_eager
        def forward(self, x):
            _check_tensor(x, "x")
            return ActivationFunction.apply(x, "gelu", 1.0, self.platform)

        def extra_repr(self) -> str:
            return "" if self.platform is None else f"platform={self.platform!r}"

else:
    GELU = _missing("GELU", "Unavailable: PyTorch is not installed.")
