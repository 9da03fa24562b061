"""PyTorch integration: the NPU's Swish and SiLU, forward and backward.

The modules :class:`Swish` and :class:`SiLU` (generated from their descriptions, :mod:`.faces.torch`)
run the NPU's forward kernel (:func:`swishgrad_numba.swish`,
:func:`swishgrad_numba.silu`) and its backward kernel
(:func:`swishgrad_numba.swish_backward`, :func:`swishgrad_numba.silu_backward`),
so a model trained on a CPU sees the device's activations and gradients bit
for bit. The functional :func:`swish` and its autograd Function
:class:`SwishFunction` here are the same two kernels: the forward pass is
:func:`swishgrad_numba.swish` of the platform (aclnnSwish), the backward
pass :class:`SwishBackwardFunction` (SwishGrad); :func:`silu` is the NPU's
forward and backward too.

PyTorch is an optional dependency (``pip install "swishgrad_numba[torch]"``).
This module imports without it; using :class:`Swish`,
:class:`SwishFunction`, :class:`SwishBackwardFunction`, :func:`swish` or
:func:`swish_backward_torch` then raises an :class:`ImportError` that says
how to install it.

Only CPU tensors of float32, float16 and bfloat16 are accepted. ``beta`` (a
number or a 0-d tensor) is rounded to float32 once and is a constant: the
kernel computes no gradient for it. ``platform=`` picks the device whose
kernels run, forward and backward, as in :func:`swishgrad_numba.swish_backward`
(an Ascend 950 SoC runs the arch35 kernels; the A2 reference platform by
default).

``torch.func`` works: ``grad``, ``vjp``, ``jacrev`` through the backward
pass; ``jvp``, ``jacfwd`` and ``hessian`` through forward-mode rules with the
same numerics (the first-order tangent is the kernel, bit for bit); ``vmap``
through rules that launch the kernel (forward or backward) once over the
whole batch.

Higher derivatives. The backward pass is itself an autograd Function,
:class:`SwishBackwardFunction`, ``gx = g * s'(x)``, so gradients of
gradients (``create_graph=True``, gradient penalties) are correct:

- first order, ``gx``: the device kernel, bit for bit;
- second order, with respect to ``g``: ``ggx * s'(x)``, which is SwishGrad
  again, so the device kernel, bit for bit;
- second order, with respect to ``x``: ``ggx * g * s''(x)`` with
  ``s''(x) = beta * sig(z) * sig(-z) * (2 - z * tanh(z / 2))``, ``z = beta * x``,
  ``sig`` the sigmoid. SwishGrad is the first derivative only, so there is
  no device kernel to emulate here: this term is plain PyTorch, evaluated in
  float64 and rounded once to the tensors' dtype. ``sig(-z)`` stands for
  ``1 - sig(z)`` and ``tanh(z / 2)`` for ``2 sig(z) - 1`` (the same values,
  without the cancellation). Infinite ``x`` gives NaN, as the first order
  does;
- third and higher orders: PyTorch's autograd through the formula above
  (float64) and through :class:`SwishBackwardFunction` again.
"""
from __future__ import annotations

from .faces.torch_support import (
    NO_TORCH, batch_first, torch_beta32, check_tensor_pair, check_tensor, eager, tensor_from_numpy,
    missing_torch, platform_argument, require_torch, swish_second_derivative, tensor_to_numpy, torch)
from .faces.swish_grad import swish_backward
from .dtypes import to_float32
from .faces.functional import face as _face

__all__ = ["FastGELU", "GELU", "SiLU", "Swish", "SwishBackwardFunction", "SwishFunction", "silu",
           "silu_backward_torch", "swish", "swish_backward_torch"]


def _emulated_backward(grad, x, beta32, platform):
    """``grad * s'(x)`` by the emulated kernel on checked tensors; no autograd."""
    return tensor_from_numpy(swish_backward(tensor_to_numpy(grad), tensor_to_numpy(x), beta32, platform=platform))


@eager
def swish_backward_torch(grad, x, beta=1.0, *, platform=None):
    """Gradient of Swish for PyTorch tensors, computed by the emulated NPU kernel.

    Differentiable: when ``grad`` or ``x`` requires a gradient (and grad mode
    is on), the result carries a graph through :class:`SwishBackwardFunction`.

    Parameters
    ----------
    grad : torch.Tensor
        Gradient of the loss with respect to the Swish output.
    x : torch.Tensor
        The Swish input. Same shape and dtype as ``grad``; both on the CPU,
        of dtype float32, float16 or bfloat16, with any strides.
    beta : float or 0-d tensor
        The Swish beta; rounded to float32 once.
    platform : Platform, optional
        The device whose kernel runs: an Ascend 950 SoC runs the arch35
        kernel, any other the Atlas A2 one (the default, the A2 reference
        platform).

    Returns
    -------
    torch.Tensor
        ``grad * s'(x)``, a new contiguous CPU tensor of ``x``'s shape and
        dtype, bit for bit what :func:`swishgrad_numba.swish_backward`
        returns for the same data.

    Raises
    ------
    ImportError
        If PyTorch is not installed.
    TypeError, ValueError
        For non-tensors, tensors not on the CPU, unsupported or unequal
        dtypes, unequal shapes, or a ``beta`` that is not a real number.
    """
    require_torch()
    check_tensor_pair(grad, x)
    beta32 = torch_beta32(beta)
    return SwishBackwardFunction.apply(grad, x, float(beta32), platform_argument(platform))


if torch is not None:

    class SwishBackwardFunction(torch.autograd.Function):
        """SwishGrad as an autograd Function: ``SwishBackwardFunction.apply(grad, x, beta, platform=None)``.

        The forward pass is the emulated NPU kernel of ``platform`` (the A2
        reference platform by default), ``grad * s'(x)`` bit for bit. Its
        backward pass, given ``ggx`` (the gradient with respect to that
        output), returns

        - for ``grad``: ``ggx * s'(x)``, the emulated kernel again (so bit for
          bit the device's numerics, and differentiable again);
        - for ``x``: ``ggx * grad * s''(x)`` by plain PyTorch ops in float64,
          rounded once to the dtype (there is no device kernel for it);
        - for ``beta`` and ``platform``: none (constants).

        Every order is therefore differentiable, in reverse mode and forward
        mode (``jvp``: the same two terms, added in the dtype), and under
        ``torch.func`` (``grad``, ``vmap``, ``jacrev``, ``jacfwd``,
        ``hessian``; the vmap rule runs the kernel once over the whole batch,
        elementwise). ``beta`` is rounded to float32 once; tensors are checked
        as in :func:`swish_backward_torch`.
        """

        @staticmethod
        def forward(grad, x, beta, platform=None):
            check_tensor_pair(grad, x)
            return _emulated_backward(grad, x, to_float32(beta, argname="beta"), platform_argument(platform))

        @staticmethod
        def setup_context(ctx, inputs, output):
            grad, x, beta, platform = (*inputs, None)[:4]
            ctx.save_for_backward(grad, x)
            ctx.save_for_forward(grad, x)
            ctx.beta = float(to_float32(beta, argname="beta"))
            ctx.platform = platform

        @staticmethod
        def backward(ctx, ggx):
            grad, x = ctx.saved_tensors
            d_grad = d_x = None
            if ctx.needs_input_grad[0]:
                # d(g s'(x))/dg = s'(x): SwishGrad itself, on the device kernel.
                d_grad = SwishBackwardFunction.apply(ggx, x, ctx.beta, ctx.platform)
            if ctx.needs_input_grad[1]:
                # d(g s'(x))/dx = g s''(x): no kernel; float64, one rounding to the dtype.
                d_x = (ggx.double() * grad.double() * swish_second_derivative(x, ctx.beta)).to(x.dtype)
            return d_grad, d_x, None, None

        @staticmethod
        def jvp(ctx, d_grad, d_x, *_constants):
            grad, x = ctx.saved_tensors
            terms = []
            if d_grad is not None:
                terms.append(SwishBackwardFunction.apply(d_grad, x, ctx.beta, ctx.platform))
            if d_x is not None:
                terms.append((d_x.double() * grad.double() * swish_second_derivative(x, ctx.beta)).to(x.dtype))
            return terms[0] if len(terms) == 1 else terms[0] + terms[1]

        @staticmethod
        def vmap(info, in_dims, grad, x, beta, platform=None):
            # Elementwise: one launch over the batch, batch dimension first.
            grad, x = batch_first(grad, in_dims[0], info.batch_size), batch_first(x, in_dims[1], info.batch_size)
            return SwishBackwardFunction.apply(grad, x, beta, platform), 0

    class SwishFunction(torch.autograd.Function):
        """Swish as an autograd Function: ``SwishFunction.apply(x, beta, platform=None)``.

        The forward pass is the emulated NPU Swish kernel of ``platform``
        (:func:`swishgrad_numba.swish`, aclnnSwish; the A2 reference platform
        by default), bit for bit; it returns a new contiguous tensor. The
        backward pass (and the forward-mode ``jvp``) is
        :class:`SwishBackwardFunction` (the emulated SwishGrad kernel of the
        same platform), so higher derivatives and ``torch.func`` transforms
        work (see the module docstring for their numerics); the ``vmap`` rule
        runs the forward kernel once over the whole batch. ``beta`` is a
        Python float, rounded to float32 once (as :func:`swish` does); it
        receives no gradient.
        """

        @staticmethod
        def forward(x, beta, platform=None):
            check_tensor(x, "x")
            beta32 = to_float32(beta, argname="beta")
            return tensor_from_numpy(_face("swish")(tensor_to_numpy(x), beta32, platform=platform_argument(platform)))

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, beta, platform = (*inputs, None)[:3]
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            ctx.beta = float(to_float32(beta, argname="beta"))
            ctx.platform = platform

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            grad_x = SwishBackwardFunction.apply(grad, x, ctx.beta, ctx.platform) if ctx.needs_input_grad[0] \
                else None
            return grad_x, None, None

        @staticmethod
        def jvp(ctx, d_x, *_constants):
            (x,) = ctx.saved_tensors
            return SwishBackwardFunction.apply(d_x, x, ctx.beta, ctx.platform)

        @staticmethod
        def vmap(info, in_dims, x, beta, platform=None):
            return SwishFunction.apply(batch_first(x, in_dims[0], info.batch_size), beta, platform), 0

    @eager
    def swish(x, beta=1.0, *, platform=None):
        """Swish, ``x * sigmoid(beta * x)``, as the NPU's Swish kernel computes it, with its SwishGrad
        kernel as the backward pass (:class:`SwishFunction`).

        Parameters
        ----------
        x : torch.Tensor
            CPU tensor of dtype float32, float16 or bfloat16, any strides.
        beta : float or 0-d tensor
            Rounded to float32 once; a constant (no gradient).
        platform : Platform, optional
            The device whose kernels compute the value and the gradient (an
            Ascend 950 SoC: the arch35 kernels); the A2 reference platform by
            default.

        Returns
        -------
        torch.Tensor
            A new contiguous tensor of ``x``'s shape and dtype, bit for bit
            :func:`swishgrad_numba.swish` of the same data.
        """
        check_tensor(x, "x")
        return SwishFunction.apply(x, float(torch_beta32(beta)), platform_argument(platform))

else:
    SwishFunction = missing_torch("SwishFunction", "Unavailable: PyTorch is not installed.")
    SwishBackwardFunction = missing_torch("SwishBackwardFunction", "Unavailable: PyTorch is not installed.")

    def swish(x, beta=1.0, *, platform=None):
        """Unavailable: PyTorch is not installed."""
        raise ImportError(NO_TORCH)

from .faces.torch import functions as _described_functions, module as _described_module  # noqa: E402

# Swish, SiLU (with silu, silu_backward_torch) and GELU (Gelu, or GeluV2 by approximate): generated (issue 40)
Swish = _described_module("swish")
SiLU = _described_module("silu")
silu, silu_backward_torch = _described_functions("silu")
GELU = _described_module("gelu")

LeakyReLU = _described_module("leaky_relu")  # generated from its description (issue 40)

__all__ += ["LeakyReLU"]
Softplus = _described_module("softplus")  # generated from its description (issue 40)

__all__ += ["Softplus"]
ELU = _described_module("elu")  # generated from its description (issue 40)
# Sigmoid, forward and backward both the NPU's kernels (issue 29), generated from its description (issue 40)
Sigmoid = _described_module("sigmoid")
sigmoid, sigmoid_backward_torch, SigmoidFunction, SigmoidBackwardFunction = _described_functions("sigmoid")
__all__ += ["Sigmoid", "SigmoidBackwardFunction", "SigmoidFunction", "sigmoid", "sigmoid_backward_torch"]

__all__ += ["ELU"]
from .faces.torch_rows import faces as _row_faces  # noqa: E402  (generated, issue 40; RmsNorm: issue 42)

RMSNorm, RmsNormFunction, rms_norm_torch = (_row_faces("rms_norm")[n] for n in ("RMSNorm", "RmsNormFunction",
                                                                              "rms_norm_torch"))

__all__ += ["RMSNorm", "RmsNormFunction", "rms_norm_torch"]
# Mish, Hardswish (issue 41): generated from their descriptions, with their functionals (the descriptions'
# torch_functions); SwiGLU: forward and backward the device's kernels (generated, faces/torch_rows.py).
Mish = _described_module("mish")
Hardswish = _described_module("hardswish")
mish, mish_backward_torch = _described_functions("mish")
hardswish, hardswish_backward_torch = _described_functions("hardswish")
SwiGLU, swiglu_torch, swiglu_backward_torch, SwiGluFunction, SwiGluBackwardFunction = (
    _row_faces("swiglu")[n] for n in ("SwiGLU", "swiglu_torch", "swiglu_backward_torch", "SwiGluFunction",
                                      "SwiGluBackwardFunction"))

__all__ += ["Mish", "mish", "mish_backward_torch", "Hardswish", "hardswish", "hardswish_backward_torch", "SwiGLU",
            "SwiGluFunction", "SwiGluBackwardFunction", "swiglu_torch", "swiglu_backward_torch"]
ReLU = _described_module("relu")  # noqa: E305  (issue 41: generated from its description)
FastGELU = _described_module("fast_gelu")  # generated from its description (issue 40)

__all__ += ["ReLU"]
