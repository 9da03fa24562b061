"""PyTorch's RMSNorm whose forward pass is the emulated NPU kernel (aclnnRmsNorm's y, bit for bit; issue 42).

:class:`RMSNorm` and :func:`rms_norm_torch`: the forward pass is :func:`swishgrad_numba.ops.rms_norm.rms_norm`
on the ``platform``'s kernel. The device's RmsNormGrad is not emulated yet, so the gradients (``backward``,
``jvp``) are the formula's in float64 by plain PyTorch, rounded once to the dtype:
``gx = r * (g * gy) - x * r**3 * mean(x * g * gy)`` and ``ggamma = sum(gy * x * r)`` over the leading axes,
``r`` the float64 rstd. ``torch.func.vmap`` batches by a leading axis (the row axes lead, gamma's trail).

Re-exported by :mod:`swishgrad_numba.torch`. Imports without PyTorch; using anything here then raises the
same ImportError as the rest of the integration.
"""
from __future__ import annotations

from ...faces.functional import face
from ...platform import Platform
from ...faces.torch_support import (NO_TORCH, batch_first, check_tensor, eager, missing_torch, platform_argument,
                             tensor_from_numpy, tensor_to_numpy, torch)

__all__ = ["RMSNorm", "RmsNormFunction", "rms_norm_torch"]

rms_norm_numpy = face("rms_norm")   # the generated functional face (issue 40)


if torch is not None:

    def _r64(x, k, eps):
        axes = tuple(range(x.dim() - k, x.dim()))
        x64 = x.double()
        return x64, axes, torch.rsqrt((x64 * x64).mean(dim=axes, keepdim=True) + eps)

    class RmsNormFunction(torch.autograd.Function):
        """``RmsNormFunction.apply(x, gamma, eps, platform)``: the RmsNorm kernel's y (bit for bit)."""

        @staticmethod
        def forward(x, gamma, eps, platform):
            check_tensor(x, "x")
            check_tensor(gamma, "gamma")
            y, _ = rms_norm_numpy(tensor_to_numpy(x), tensor_to_numpy(gamma), eps, platform=platform)
            return tensor_from_numpy(y)

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, gamma, eps, platform = inputs
            ctx.save_for_backward(x, gamma)
            ctx.eps, ctx.platform = float(eps), platform
            ctx.x, ctx.gamma = x.detach(), gamma.detach()

        @staticmethod
        def backward(ctx, gy):
            x, gamma = ctx.saved_tensors
            x64, axes, r = _r64(x, gamma.dim(), ctx.eps)
            gx = gg = None
            if ctx.needs_input_grad[0]:
                gg64 = gy.double() * gamma.double()
                gx = (r * gg64 - x64 * r ** 3 * (x64 * gg64).mean(dim=axes, keepdim=True)).to(x.dtype)
            if ctx.needs_input_grad[1]:
                lead = tuple(range(x.dim() - gamma.dim()))
                full = gy.double() * x64 * r
                gg = (full.sum(dim=lead) if lead else full).to(gamma.dtype)
            return gx, gg, None, None

        @staticmethod
        def jvp(ctx, d_x, d_gamma, _eps_tangent, _platform_tangent):
            x64, axes, r = _r64(ctx.x, ctx.gamma.dim(), ctx.eps)
            g64 = ctx.gamma.double()
            out = torch.zeros_like(x64)
            if d_x is not None:
                dx = d_x.double()
                out = out + g64 * (r * dx - x64 * r ** 3 * (x64 * dx).mean(dim=axes, keepdim=True))
            if d_gamma is not None:
                out = out + x64 * r * d_gamma.double()
            return out.to(ctx.x.dtype)

        @staticmethod
        def vmap(info, in_dims, x, gamma, eps, platform):
            if in_dims[1] is not None:
                raise NotImplementedError("rms_norm_torch: vmap over gamma is not supported (one gamma per call)")
            return RmsNormFunction.apply(batch_first(x, in_dims[0], info.batch_size), gamma, eps, platform), 0

    @eager
    def rms_norm_torch(x, gamma, eps: float = 1e-6, *, platform: Platform | None = None):
        """RmsNorm's y as the NPU computes it; ``gamma`` covers x's last ``gamma.dim()`` axes."""
        check_tensor(x, "x")
        check_tensor(gamma, "gamma")
        platform_argument(platform)
        return RmsNormFunction.apply(x, gamma, eps, platform)

    class RMSNorm(torch.nn.Module):
        """``torch.nn.RMSNorm(normalized_shape, eps)`` whose forward pass is the NPU's RmsNorm kernel.

        Parameters
        ----------
        normalized_shape : int or tuple of int
            The trailing axes normalised (1 to 8).
        eps : float
            Added to the mean square (rounded to float32); 1e-6 by default, aclnnRmsNorm's.
        elementwise_affine : bool
            A learnable ``weight`` (gamma, ones at first); else gamma is ones.
        dtype : torch.dtype, optional
            The weight's dtype (float32 by default).
        platform : Platform, optional
            The device whose kernel runs; the A2 reference platform by default.
        """

        def __init__(self, normalized_shape, eps: float = 1e-6, elementwise_affine: bool = True, *, dtype=None,
                     platform: Platform | None = None):
            super().__init__()
            platform_argument(platform)
            shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
            self.normalized_shape, self.eps, self.platform = shape, float(eps), platform
            weight = torch.ones(shape, dtype=dtype or torch.float32)
            if elementwise_affine:
                self.weight = torch.nn.Parameter(weight)
            else:
                self.register_buffer("weight", weight)

        @eager
        def forward(self, x):
            gamma = self.weight if self.weight.dtype == x.dtype or self.weight.dtype == torch.float32 \
                else self.weight.to(x.dtype)
            return rms_norm_torch(x, gamma, self.eps, platform=self.platform)

        def extra_repr(self) -> str:
            return f"{self.normalized_shape}, eps={self.eps}"

else:
    RmsNormFunction = missing_torch("RmsNormFunction", "Unavailable: PyTorch is not installed.")
    RMSNorm = missing_torch("RMSNorm", "Unavailable: PyTorch is not installed.")

    def rms_norm_torch(x, gamma, eps=1e-6, *, platform=None):
        """Unavailable: PyTorch is not installed."""
        raise ImportError(NO_TORCH)
