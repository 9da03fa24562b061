"""The PyTorch module :class:`LeakyReLU`: forward the Ascend 950's LeakyRelu kernel (aclnnLeakyRelu), backward
its LeakyReluGrad kernel (aclnnLeakyReluBackward), bit for bit.

One row of :data:`swishgrad_numba._torch_family.ACTIVATIONS` (the machinery is that module's), its beta
the negative slope (rounded once to float32, as ``aclScalar::ToFloat``). The function is piecewise
linear: the second order's ``s''`` is 0 (the kernel's slope branch at x = 0 included; torch's own
``leaky_relu`` backward is the same ``x > 0 ? g : g * slope``). The kernels are the 950's only (no public
A2 kernel registers either op type), so the module's default platform is the 950 and an A2 platform is
refused when the module is made. Re-exported by :mod:`swishgrad_numba.torch`.
"""
from __future__ import annotations

from ._torch_family import ACTIVATIONS, Activation, ActivationFunction, float_beta32, check_torch_platform
from .ops.leaky_relu_api import leaky_relu, leaky_relu_backward
from .platform import Platform
from ._torch_support import check_tensor, eager, missing_torch, torch

__all__ = ["LeakyReLU"]


def _zero_second_derivative(x, beta, platform):
    """``s''(x) = 0`` (float64, x's shape): LeakyReLU is linear on each side of 0."""
    return torch.zeros_like(x, dtype=torch.float64)


ACTIVATIONS["leaky_relu"] = Activation(lambda x, b, p: leaky_relu(x, b, platform=p),
                                       lambda g, x, b, p: leaky_relu_backward(g, x, b, platform=p),
                                       has_beta=True, operators=("leaky_relu", "leaky_relu_grad"),
                                       second_derivative=_zero_second_derivative)

if torch is not None:

    class LeakyReLU(torch.nn.Module):
        """LeakyReLU whose forward pass is the 950's LeakyRelu kernel and whose gradient is its
        LeakyReluGrad kernel: ``x > 0 ? x : x * negative_slope``, in float32 (16-bit widened, the result
        narrowed with CAST_RINT), as ``torch.nn.LeakyReLU`` computes it on the CPU.

        Parameters
        ----------
        negative_slope : float or 0-d tensor
            Rounded once to float32; 0.01 by default (torch's).
        platform : Platform, optional
            An Ascend 950 (the default); an A2 platform is refused (no public A2 kernel).
        """

        def __init__(self, negative_slope=0.01, *, platform: Platform | None = None):
            super().__init__()
            check_torch_platform(platform, "leaky_relu")
            try:
                self.negative_slope = float_beta32(negative_slope)
            except (TypeError, ValueError) as exc:
                raise type(exc)(str(exc).replace("beta", "negative_slope")) from None
            self.platform = platform

        @eager
        def forward(self, x):
            check_tensor(x, "x")
            return ActivationFunction.apply(x, "leaky_relu", self.negative_slope, self.platform)

        def extra_repr(self) -> str:
            return f"negative_slope={self.negative_slope!r}" + (
                "" if self.platform is None else f", platform={self.platform!r}")

else:
    LeakyReLU = missing_torch("LeakyReLU", "Unavailable: PyTorch is not installed.")
