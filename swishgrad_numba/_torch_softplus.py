"""The PyTorch module :class:`Softplus`: forward the NPU's SoftplusV2 kernel (aclnnSoftplus), backward its
SoftplusV2Grad kernel (aclnnSoftplusBackward), bit for bit, with torch's own arguments ``beta`` and
``threshold``.

One row of :data:`swishgrad_numba._torch_family.ACTIVATIONS` (the machinery is that module's), whose
"beta" is the pair ``(beta, threshold)``, each rounded to float32 once. Both passes run on the platform
given, the Ascend 950 by default: SoftplusV2 has no public A2 kernel, so an A2 platform is refused when
the module is made. The second order is ``ggx * g * s''(x)`` in float64, rounded once, with ``s''(x) =
beta sigmoid(beta x) sigmoid(-beta x)`` where ``beta x <= threshold`` and 0 above it. Re-exported by
:mod:`swishgrad_numba.torch`.
"""
from __future__ import annotations

from ._torch_family import ACTIVATIONS, Activation, ActivationFunction, check_torch_platform
from .dtypes import to_float32
from .ops.softplus_api import softplus, softplus_backward
from .platform import ASCEND950_PLATFORM, Platform
from ._torch_support import check_tensor, eager, missing_torch, torch

__all__ = ["Softplus"]


def _softplus_second_derivative(x, attrs, platform):
    """``s''(x) = beta sig(beta x) sig(-beta x)`` (0 where ``beta x > threshold``), float64."""
    beta, threshold = attrs
    bx = beta * x.double()
    s2 = beta * torch.sigmoid(bx) * torch.sigmoid(-bx)
    return torch.where(bx > threshold, torch.zeros_like(s2), s2)


ACTIVATIONS["softplus"] = Activation(
    lambda x, a, p: softplus(x, *a, platform=p), lambda g, x, a, p: softplus_backward(g, x, *a, platform=p),
    has_beta=True, operators=("softplus", "softplus_grad"), second_derivative=_softplus_second_derivative)


def _attr(value, name: str) -> float:
    """A number, or a 0-d tensor holding one (a constant), rounded to float32 once."""
    if torch is not None and isinstance(value, torch.Tensor):
        if value.dim() != 0 or value.requires_grad:
            raise ValueError(f"{name} must be a number or a 0-d tensor that requires no grad")
        value = value.item()
    return float(to_float32(value, argname=name))


if torch is not None:

    class Softplus(torch.nn.Module):
        """Softplus whose forward pass is the NPU's SoftplusV2 kernel and whose gradient is its
        SoftplusV2Grad kernel; ``torch.nn.Softplus``'s arguments.

        Parameters
        ----------
        beta, threshold : float
            As ``torch.nn.Softplus`` (defaults 1 and 20); each rounded to float32 once. The kernel's
            quirks hold (``|beta| <= 2**-23`` divides by zero: docs/model.md).
        platform : Platform, optional
            The device whose kernels run: an Ascend 950 (the default,
            :data:`~swishgrad_numba.ASCEND950_PLATFORM`); an A2 is refused (no SoftplusV2 kernel).
        """

        def __init__(self, beta=1.0, threshold=20.0, *, platform: Platform | None = None):
            super().__init__()
            platform = ASCEND950_PLATFORM if platform is None else platform
            check_torch_platform(platform, "softplus")
            self.beta, self.threshold = _attr(beta, "beta"), _attr(threshold, "threshold")
            self.platform = platform

        @eager
        def forward(self, x):
            check_tensor(x, "x")
            return ActivationFunction.apply(x, "softplus", (self.beta, self.threshold), self.platform)

        def extra_repr(self) -> str:
            return f"beta={self.beta!r}, threshold={self.threshold!r}, platform={self.platform.soc_version!r}"

else:
    Softplus = missing_torch("Softplus", "Unavailable: PyTorch is not installed.")
