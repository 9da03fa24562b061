"""The PyTorch module :class:`ELU`: forward the NPU's Elu kernel (aclnnElu), backward its EluGradV2 kernel
(aclnnEluBackward with ``isResult`` false: the gradient is taken from the saved input), bit for bit.

One row of :data:`swishgrad_numba._torch_family.ACTIVATIONS` (the machinery is that module's), its "beta"
the alpha rounded to float32 once; torch's ``nn.ELU(alpha)`` is ``aclnnElu(x, alpha, 1, 1)`` (scale and
inputScale 1, as torch_npu's ``elu`` passes them). Elu has no A2 kernel, so both passes run on the Ascend
950 (the default; an A2 platform is refused). The second order is ``ggx * g * s''(x)`` in float64,
rounded once, with ``s''(x) = alpha * exp(x)`` where ``x <= 0`` and 0 elsewhere (a NaN x takes the
positive branch, as the kernels' ``x <= 0`` test does). Re-exported by :mod:`swishgrad_numba.torch`.
"""
from __future__ import annotations

from ._torch_family import ACTIVATIONS, Activation, ActivationFunction, float_beta32, check_torch_platform
from ._torch_support import check_tensor, eager, missing_torch, torch
from .ops.elu_api import elu, elu_backward
from .platform import ASCEND950_PLATFORM, Platform

__all__ = ["ELU"]


def _elu_second_derivative(x, alpha, platform):
    x = x.double()
    return torch.where(x <= 0, alpha * torch.exp(x), torch.zeros_like(x))


ACTIVATIONS["elu"] = Activation(lambda x, a, p: elu(x, a, platform=p),
                                lambda g, x, a, p: elu_backward(g, x, a, platform=p),
                                has_beta=True, operators=("elu", "elu_grad"), second_derivative=_elu_second_derivative)

if torch is not None:

    class ELU(torch.nn.Module):
        """ELU, ``x if x > 0 else alpha * (exp(x) - 1)``, whose forward pass is the Ascend 950's Elu kernel and
        whose gradient is its EluGradV2 kernel, bit for bit.

        Parameters
        ----------
        alpha : float
            As ``torch.nn.ELU``'s, rounded once to float32 (the aclnn's ``aclScalar::ToFloat``).
        platform : Platform, optional
            An Ascend 950 (the default: Elu's only kernel); an Atlas A2 platform is refused.
        """

        def __init__(self, alpha: float = 1.0, *, platform: Platform | None = None):
            super().__init__()
            platform = ASCEND950_PLATFORM if platform is None else platform
            check_torch_platform(platform, "elu")
            self.alpha = float_beta32(alpha)
            self.platform = platform

        @eager
        def forward(self, x):
            check_tensor(x, "x")
            return ActivationFunction.apply(x, "elu", self.alpha, self.platform)

        def extra_repr(self) -> str:
            where = "" if self.platform is ASCEND950_PLATFORM else f", platform={self.platform!r}"
            return f"alpha={self.alpha!r}{where}"

else:
    ELU = missing_torch("ELU", "Unavailable: PyTorch is not installed.")
