"""PyTorch's Sigmoid whose forward AND backward passes are the emulated NPU kernels (issue 29).

:class:`Sigmoid` and :func:`sigmoid`: the forward pass is aclnnSigmoid's kernel, the gradient
aclnnSigmoidBackward's, which reads the forward's *output* ``y``: ``gx = SigmoidGrad(g, y)``, bit
for bit, on the kernel the ``platform`` picks (each in its own multiplication order). Unlike the
Swish family's (:mod:`.torch_family`), the backward pass here is a function of ``(g, y)``, so the
Function keeps the output, not the input.

Higher derivatives: ``gx = g * y * (1 - y)`` is differentiable again; with respect to ``g`` it is
the backward kernel (bit for bit), with respect to ``y`` it is ``ggx * g * (1 - 2 y)`` in float64 by
plain PyTorch, rounded once (no device kernel computes it); autograd carries that on through ``y``.

Re-exported by :mod:`swishgrad_numba.torch` (its last lines). Imports without PyTorch; using
anything here then raises the same ImportError as the rest of the integration.
"""
from __future__ import annotations

from ..arguments import check_platform_for
from ..ops.sigmoid import sigmoid as sigmoid_numpy
from ..ops.sigmoid import sigmoid_backward as sigmoid_backward_numpy
from ..platform import Platform
from .torch_support import (
    NO_TORCH, batch_first, check_tensor_pair, check_tensor, eager, tensor_from_numpy, missing_torch,
    platform_argument, tensor_to_numpy, torch)

__all__ = ["Sigmoid", "SigmoidFunction", "SigmoidBackwardFunction", "sigmoid", "sigmoid_backward_torch"]


def _check_platform(platform) -> None:
    """A TypeError for a non-Platform; a ValueError where either pass refuses it."""
    platform_argument(platform)
    for op in ("sigmoid", "sigmoid_grad"):
        check_platform_for(platform, op)


if torch is not None:

    def _second(ggx, grad, y):
        """``ggx * g * (1 - 2 y)``, d(g y (1 - y))/dy times ggx, in float64, rounded once to the dtype."""
        return (ggx.double() * grad.double() * (1.0 - 2.0 * y.double())).to(y.dtype)

    class SigmoidBackwardFunction(torch.autograd.Function):
        """``SigmoidBackwardFunction.apply(grad, y, platform)``: the SigmoidGrad kernel (bit for bit),
        differentiable again (see the module docstring)."""

        @staticmethod
        def forward(grad, y, platform):
            check_tensor_pair(grad, y)
            result = sigmoid_backward_numpy(tensor_to_numpy(grad), tensor_to_numpy(y), platform=platform)
            return tensor_from_numpy(result)

        @staticmethod
        def setup_context(ctx, inputs, output):
            grad, y, platform = inputs
            ctx.save_for_backward(grad, y)
            ctx.save_for_forward(grad, y)
            ctx.platform = platform

        @staticmethod
        def backward(ctx, ggx):
            grad, y = ctx.saved_tensors
            d_grad = SigmoidBackwardFunction.apply(ggx, y, ctx.platform) if ctx.needs_input_grad[0] else None
            d_y = _second(ggx, grad, y) if ctx.needs_input_grad[1] else None
            return d_grad, d_y, None

        @staticmethod
        def jvp(ctx, d_grad, d_y, _platform_tangent):
            grad, y = ctx.saved_tensors
            terms = []
            if d_grad is not None:
                terms.append(SigmoidBackwardFunction.apply(d_grad, y, ctx.platform))
            if d_y is not None:
                terms.append(_second(d_y, grad, y))
            return terms[0] if len(terms) == 1 else terms[0] + terms[1]

        @staticmethod
        def vmap(info, in_dims, grad, y, platform):
            grad, y = batch_first(grad, in_dims[0], info.batch_size), batch_first(y, in_dims[1], info.batch_size)
            return SigmoidBackwardFunction.apply(grad, y, platform), 0

    class SigmoidFunction(torch.autograd.Function):
        """``SigmoidFunction.apply(x, platform)``: the Sigmoid kernel (bit for bit); its backward pass is
        :class:`SigmoidBackwardFunction` on the output it keeps."""

        @staticmethod
        def forward(x, platform):
            check_tensor(x, "x")
            return tensor_from_numpy(sigmoid_numpy(tensor_to_numpy(x), platform=platform))

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.platform = inputs[1]
            ctx.save_for_backward(output)
            ctx.y = output.detach()             # the tangent rule's copy, outside autograd

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            if not ctx.needs_input_grad[0]:
                return None, None
            return SigmoidBackwardFunction.apply(grad, y, ctx.platform), None

        @staticmethod
        def jvp(ctx, d_x, _platform_tangent):
            return SigmoidBackwardFunction.apply(d_x, ctx.y, ctx.platform)

        @staticmethod
        def vmap(info, in_dims, x, platform):
            return SigmoidFunction.apply(batch_first(x, in_dims[0], info.batch_size), platform), 0

    @eager
    def sigmoid(x, *, platform: Platform | None = None):
        """Sigmoid as the NPU computes it (aclnnSigmoid), with the NPU's SigmoidGrad as its backward pass.

        ``x``: a CPU tensor of dtype float32, float16 or bfloat16, any strides; ``platform`` picks the
        kernels (the A2 reference platform by default). Returns a new contiguous tensor.
        """
        check_tensor(x, "x")
        _check_platform(platform)
        return SigmoidFunction.apply(x, platform)

    @eager
    def sigmoid_backward_torch(grad, output, *, platform: Platform | None = None):
        """``grad * output * (1 - output)`` by the emulated SigmoidGrad kernel (``output`` the forward's
        result); differentiable. Bit for bit :func:`swishgrad_numba.sigmoid_backward` of the same data."""
        check_tensor_pair(grad, output)
        _check_platform(platform)
        return SigmoidBackwardFunction.apply(grad, output, platform)

    class Sigmoid(torch.nn.Module):
        """``torch.nn.Sigmoid`` whose forward pass is the NPU's Sigmoid kernel and whose gradient is its
        SigmoidGrad kernel.

        Parameters
        ----------
        platform : Platform, optional
            The device whose kernels run (an Ascend 950 runs the arch35 ones); the A2 reference
            platform by default.
        """

        def __init__(self, *, platform: Platform | None = None):
            super().__init__()
            _check_platform(platform)
            self.platform = platform

        @eager
        def forward(self, x):
            return sigmoid(x, platform=self.platform)

        def extra_repr(self) -> str:
            return "" if self.platform is None else f"platform={self.platform!r}"

else:
    SigmoidFunction = missing_torch("SigmoidFunction", "Unavailable: PyTorch is not installed.")
    SigmoidBackwardFunction = missing_torch("SigmoidBackwardFunction", "Unavailable: PyTorch is not installed.")
    Sigmoid = missing_torch("Sigmoid", "Unavailable: PyTorch is not installed.")

    def sigmoid(x, *, platform=None):
        """Unavailable: PyTorch is not installed."""
        raise ImportError(NO_TORCH)

    def sigmoid_backward_torch(grad, output, *, platform=None):
        """Unavailable: PyTorch is not installed."""
        raise ImportError(NO_TORCH)
