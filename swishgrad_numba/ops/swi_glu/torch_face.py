"""The PyTorch module :class:`SwiGLU` and the functional :func:`swiglu_torch` (issue 41): ``silu(a) * b`` of x's
two halves along ``dim`` as the device's SwiGlu kernel computes it (aclnnSwiGlu), bit for bit.

The gradient is the device's SwiGluGrad kernel (:func:`swishgrad_numba.swiglu_backward`, aclnnSwiGluGrad) on
every platform that has one emulated (the Atlas A2's and the Ascend 950's), bit for bit. Where a platform has
none (the call refuses it with NotImplementedError: none today), the gradient falls back to the formula in
float64 by plain PyTorch, rounded once to the dtype: ``grad_a = g * b * silu'(a)``, ``grad_b = g * silu(a)``;
a kernel added later is used with no change here.

- ``jvp`` (forward mode): ``da * dy/da + db * dy/db``, each term the SwiGluGrad kernel's (one launch with ``da``,
  one with ``db``), added in the dtype; the fallback's float64 formula where no kernel.
- second order (the backward pass differentiated): the formula in float64, rounded once; no kernel computes it.
- ``vmap``: the batch dimension first, ``dim`` shifted, one launch over the batch.

Re-exported by :mod:`swishgrad_numba.torch`. Imports without PyTorch; using anything here then raises the same
ImportError as the rest of the integration.
"""
from __future__ import annotations

import numpy as np

from ...faces.torch_support import (NO_TORCH, batch_first, check_tensor, eager, missing_torch, platform_argument,
                               tensor_from_numpy, tensor_to_numpy, torch)
from ...dtypes import bfloat16
from ...platform import Platform, modelled_platform
from ...faces.functional import face
from .api import MODELLED_SOCS, check_inputs, out_shape

# the generated functional faces (issue 40)
_swiglu_numpy = face("swiglu")
_swiglu_backward_numpy = face("swiglu_grad")

__all__ = ["SwiGLU", "SwiGluFunction", "SwiGluBackwardFunction", "swiglu_torch", "swiglu_backward_torch"]


def _halves64(x, dim):
    a, b = x.double().chunk(2, dim=dim)
    s = torch.sigmoid(a)
    silu = a * s
    d1 = s * (1.0 + a * torch.sigmoid(-a))                      # silu'(a)
    d2 = s * torch.sigmoid(-a) * (2.0 - a * torch.tanh(0.5 * a))  # silu''(a)
    return b, silu, d1, d2


def _formula_grad(g, x, dim):
    """The fallback: grad_x by the formula in float64, rounded once to x's dtype."""
    b, silu, d1, _ = _halves64(x, dim)
    g64 = g.double()
    return torch.cat([g64 * b * d1, g64 * silu], dim=dim).to(x.dtype)


def _grad_x(g, x, dim, platform):
    """grad_x: the SwiGluGrad kernel of ``platform``, or the float64 formula where it has none (see above)."""
    if x.numel() == 0:
        return torch.zeros_like(x)
    try:
        gx = _swiglu_backward_numpy(tensor_to_numpy(g), tensor_to_numpy(x), dim, platform=platform)
    except NotImplementedError:
        return _formula_grad(g, x, dim)
    return tensor_from_numpy(gx)


def _check_platform(platform) -> None:
    """swiglu's platform rules (a TypeError for a non-Platform, a ValueError for an unmodelled SoC or mode)."""
    modelled_platform(platform, "swiglu", "SwiGlu", MODELLED_SOCS)


def _batched_dim(dim):
    return dim + 1 if dim >= 0 else dim


if torch is not None:

    class SwiGluBackwardFunction(torch.autograd.Function):
        """``SwiGluBackwardFunction.apply(grad, x, dim, platform)``: grad_x by the SwiGluGrad kernel (or the
        float64 fallback, module docstring); differentiable again by the formula in float64."""

        @staticmethod
        def forward(grad, x, dim, platform):
            return _grad_x(grad, x, dim, platform)

        @staticmethod
        def setup_context(ctx, inputs, output):
            grad, x, dim, platform = inputs
            ctx.save_for_backward(grad, x)
            ctx.save_for_forward(grad, x)
            ctx.dim, ctx.platform = dim, platform

        @staticmethod
        def backward(ctx, ggx):
            grad, x = ctx.saved_tensors
            b, silu, d1, d2 = _halves64(x, ctx.dim)
            u, v = ggx.double().chunk(2, dim=ctx.dim)
            g64 = grad.double()
            d_grad = (u * b * d1 + v * silu).to(grad.dtype) if ctx.needs_input_grad[0] else None
            d_x = None
            if ctx.needs_input_grad[1]:
                d_x = torch.cat([g64 * (u * b * d2 + v * d1), g64 * u * d1], dim=ctx.dim).to(x.dtype)
            return d_grad, d_x, None, None

        @staticmethod
        def jvp(ctx, d_grad, d_x, *_constants):
            grad, x = ctx.saved_tensors
            b, silu, d1, d2 = _halves64(x, ctx.dim)
            g64 = grad.double()
            ta, tb = torch.zeros_like(b), torch.zeros_like(b)
            if d_grad is not None:
                dg = d_grad.double()
                ta, tb = ta + dg * b * d1, tb + dg * silu
            if d_x is not None:
                da, db = d_x.double().chunk(2, dim=ctx.dim)
                ta, tb = ta + g64 * (db * d1 + b * d2 * da), tb + g64 * d1 * da
            return torch.cat([ta, tb], dim=ctx.dim).to(x.dtype)

        @staticmethod
        def vmap(info, in_dims, grad, x, dim, platform):
            grad, x = batch_first(grad, in_dims[0], info.batch_size), batch_first(x, in_dims[1], info.batch_size)
            return SwiGluBackwardFunction.apply(grad, x, _batched_dim(dim), platform), 0

    class SwiGluFunction(torch.autograd.Function):
        """``SwiGluFunction.apply(x, dim, platform)``: the SwiGlu kernel's out (bit for bit); its backward pass
        is :class:`SwiGluBackwardFunction`."""

        @staticmethod
        def forward(x, dim, platform):
            check_tensor(x, "x")
            return tensor_from_numpy(_swiglu_numpy(tensor_to_numpy(x), dim, platform=platform))

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, dim, platform = inputs
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            ctx.dim, ctx.platform = dim, platform

        @staticmethod
        def backward(ctx, gy):
            (x,) = ctx.saved_tensors
            gx = SwiGluBackwardFunction.apply(gy, x, ctx.dim, ctx.platform) if ctx.needs_input_grad[0] else None
            return gx, None, None

        @staticmethod
        def jvp(ctx, d_x, *_constants):
            # dy = da * dy/da + db * dy/db: each product the backward kernel's (its a half fed da, its b half db)
            (x,) = ctx.saved_tensors
            da, db = d_x.chunk(2, dim=ctx.dim)
            ga = SwiGluBackwardFunction.apply(da.contiguous(), x, ctx.dim, ctx.platform).chunk(2, dim=ctx.dim)[0]
            gb = SwiGluBackwardFunction.apply(db.contiguous(), x, ctx.dim, ctx.platform).chunk(2, dim=ctx.dim)[1]
            return ga + gb

        @staticmethod
        def vmap(info, in_dims, x, dim, platform):
            return SwiGluFunction.apply(batch_first(x, in_dims[0], info.batch_size), _batched_dim(dim), platform), 0

    def _checked(x, dim, platform):
        check_tensor(x, "x")
        _check_platform(platform)
        # the rules on x's shape and dtype only (under vmap x has no storage to view)
        dtype = {torch.float32: np.float32, torch.float16: np.float16, torch.bfloat16: bfloat16}[x.dtype]
        d, _ = check_inputs(np.broadcast_to(np.zeros((), dtype), tuple(x.shape)), dim)
        return d

    @eager
    def swiglu_torch(x, dim: int = -1, *, platform: Platform | None = None):
        """SwiGlu of a CPU tensor (float32, float16, bfloat16) as the device computes it: ``silu(a) * b`` of x's
        halves along ``dim``; its gradient the SwiGluGrad kernel (module docstring)."""
        d = _checked(x, dim, platform)
        return SwiGluFunction.apply(x, d, platform)

    @eager
    def swiglu_backward_torch(grad, x, dim: int = -1, *, platform: Platform | None = None):
        """grad_x of SwiGlu by the SwiGluGrad kernel (or the float64 fallback where none); differentiable."""
        d = _checked(x, dim, platform)
        check_tensor(grad, "grad")
        if grad.dtype != x.dtype:
            raise TypeError(f"grad.dtype must be x's ({x.dtype}), got {grad.dtype}")
        want = out_shape(tuple(x.shape), d)
        if tuple(grad.shape) != want:
            raise ValueError(f"grad's shape must be x's {tuple(x.shape)} with dim={dim} halved, {want}; got "
                             f"{tuple(grad.shape)}")
        return SwiGluBackwardFunction.apply(grad, x, d, platform)

    class SwiGLU(torch.nn.Module):
        """SwiGLU, ``silu(a) * b`` of the input's halves along ``dim``, whose forward pass is the NPU's SwiGlu
        kernel and whose gradient is its SwiGluGrad kernel (module docstring: the fallback where none).

        Parameters
        ----------
        dim : int
            The axis split into halves a (first) and b (second); -1 by default.
        platform : Platform, optional
            The device whose kernels run; the A2 reference platform by default.
        """

        def __init__(self, dim: int = -1, *, platform: Platform | None = None):
            super().__init__()
            _check_platform(platform)
            if isinstance(dim, bool) or not isinstance(dim, int):
                raise TypeError(f"dim must be an int, got {type(dim).__name__}")
            self.dim, self.platform = dim, platform

        @eager
        def forward(self, x):
            return swiglu_torch(x, self.dim, platform=self.platform)

        def extra_repr(self) -> str:
            return f"dim={self.dim}" + ("" if self.platform is None else f", platform={self.platform!r}")

else:
    SwiGluFunction = missing_torch("SwiGluFunction", "Unavailable: PyTorch is not installed.")
    SwiGluBackwardFunction = missing_torch("SwiGluBackwardFunction", "Unavailable: PyTorch is not installed.")
    SwiGLU = missing_torch("SwiGLU", "Unavailable: PyTorch is not installed.")

    def swiglu_torch(x, dim=-1, *, platform=None):
        """Unavailable: PyTorch is not installed."""
        raise ImportError(NO_TORCH)

    def swiglu_backward_torch(grad, x, dim=-1, *, platform=None):
        """Unavailable: PyTorch is not installed."""
        raise ImportError(NO_TORCH)
