"""The PyTorch module :class:`GELU`: by default forward the NPU's Gelu kernel (aclnnGelu), backward its
GeluGrad kernel (aclnnGeluBackward); with torch's ``approximate="none"|"tanh"`` given, the GeluV2 kernel
(aclnnGeluV2) and the GeluGradV2 kernel (aclnnGeluBackwardV2); bit for bit, on the kernel the ``platform``
picks.

Which aclnn torch_npu runs: op-plugin's ``gelu_out`` (``op_plugin/ops/opapi/GeluOutKernelNpuOpApi.cpp``)
calls ``aclnnGelu(self, out)``, ignoring ``approximate``, unless the compatible-implementation switch is
on, when it calls ``aclnnGeluV2(self, approximate_mode, out)``; ``torch_npu.npu_gelu(input, approximate)``
calls aclnnGeluV2 (``NPUGeluKernelNpuOpApi.cpp``). So ``GELU()`` keeps torch_npu's default dispatch, and
naming ``approximate`` selects the V2 operators (the compatible path and ``npu_gelu``).

One row of :data:`swishgrad_numba.faces.torch_family.ACTIVATIONS` (the machinery is that module's); the
second order is ``ggx * g * s''(x)`` in float64, rounded once, with ``s'`` what the backward kernels
compute: the derivative of ``x * sigmoid(a x + b x^3)`` with GeluGrad's float32 constants
(:func:`swishgrad_numba.ops.gelu_grad.sigmoid_argument`; on the A2 that is not the forward kernel's own
function, whose cubic coefficient differs). Re-exported by
:mod:`swishgrad_numba.torch`.
"""
from __future__ import annotations

from .torch_family import ACTIVATIONS, Activation, ActivationFunction, check_torch_platform
from ..ops.gelu_grad import sigmoid_argument
from ..ops.gelu_v2 import APPROXIMATIONS, approximate_code, approximate_of_code
from ..platform import ASCEND950_PLATFORM, Platform
from .torch_support import check_tensor, eager, missing_torch, torch
from .functional import face

gelu, gelu_backward = face("gelu"), face("gelu_grad")   # generated from their descriptions
gelu_v2, gelu_backward_v2 = face("gelu_v2"), face("gelu_grad_v2")

__all__ = ["GELU"]


def _gelu_second_derivative(x, beta, platform):
    """``s''(x)`` of ``s(x) = x sigmoid(k(x))``, ``k = a x + b x^3``: ``2 q k' + x q (1 - 2 sig) k'^2 +
    x q k''`` with ``q = sig(k) sig(-k)`` and ``1 - 2 sig(k) = -tanh(k / 2)``, in float64."""
    a, b = sigmoid_argument()
    x = x.double()
    k, k1, k2 = a * x + b * x ** 3, a + 3.0 * b * x * x, 6.0 * b * x
    q = torch.sigmoid(k) * torch.sigmoid(-k)
    return 2.0 * q * k1 - x * q * torch.tanh(0.5 * k) * k1 * k1 + x * q * k2


def _gelu_v2_second_derivative(x, code, platform):
    """tanh: as GELU's; none: ``d2/dx2 (x Phi(x)) = phi(x) (2 - x^2)``, in float64."""
    if approximate_of_code(code) == "tanh":
        return _gelu_second_derivative(x, 1.0, platform)
    x = x.double()
    return torch.exp(-0.5 * x * x) * (2.0 - x * x) * 0.3989422804014327


# "gelu_v2": the attribute is the approximation's code (ops.gelu_v2.approximate_code)
ACTIVATIONS["gelu_v2"] = Activation(
    lambda x, b, p: gelu_v2(x, approximate_of_code(b), platform=p),
    lambda g, x, b, p: gelu_backward_v2(g, x, approximate_of_code(b), platform=p),
    has_beta=False, operators=("gelu_v2", "gelu_grad_v2"), second_derivative=_gelu_v2_second_derivative)

ACTIVATIONS["gelu"] = Activation(lambda x, b, p: gelu(x, platform=p), lambda g, x, b, p: gelu_backward(g, x, platform=p),
                                 has_beta=False, operators=("gelu", "gelu_grad"),
                                 second_derivative=_gelu_second_derivative)

if torch is not None:

    class GELU(torch.nn.Module):
        """GELU whose both passes are NPU kernels.

        ``approximate`` None (the default): the Gelu kernel (aclnnGelu) forward and the GeluGrad kernel
        (aclnnGeluBackward) backward, as torch_npu dispatches ``torch.nn.functional.gelu`` by default. The
        A2's kernel computes its own function (cubic coefficient 0.0455399241), the 950's the tanh GELU.

        ``approximate="none"`` or ``"tanh"`` (torch's argument): the GeluV2 kernel (aclnnGeluV2) forward and
        the GeluGradV2 kernel (aclnnGeluBackwardV2) backward, as torch_npu's compatible path and
        ``torch_npu.npu_gelu`` run them: compare with ``torch.nn.GELU(approximate=...)``. GeluV2 has an
        Ascend 950 kernel only, so the module runs on the 950 (the default then) and refuses an A2.

        Parameters
        ----------
        approximate : {None, "none", "tanh"}
        platform : Platform, optional
            The device whose kernels run; the A2 reference platform by default (the 950's with
            ``approximate``).
        """

        def __init__(self, approximate: str | None = None, *, platform: Platform | None = None):
            super().__init__()
            if approximate is not None and (not isinstance(approximate, str) or approximate not in APPROXIMATIONS):
                raise ValueError(f"approximate must be None or one of {APPROXIMATIONS}, got {approximate!r}")
            if approximate is not None and platform is None:
                platform = ASCEND950_PLATFORM
            check_torch_platform(platform, "gelu" if approximate is None else "gelu_v2")
            self.approximate, self.platform = approximate, platform

        @eager
        def forward(self, x):
            check_tensor(x, "x")
            if self.approximate is None:
                return ActivationFunction.apply(x, "gelu", 1.0, self.platform)
            return ActivationFunction.apply(x, "gelu_v2", approximate_code(self.approximate), self.platform)

        def extra_repr(self) -> str:
            parts = [] if self.approximate is None else [f"approximate={self.approximate!r}"]
            if self.platform is not None and not (self.approximate is not None and self.platform is ASCEND950_PLATFORM):
                parts.append(f"platform={self.platform!r}")
            return ", ".join(parts)

else:
    GELU = missing_torch("GELU", "Unavailable: PyTorch is not installed.")
