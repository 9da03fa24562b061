"""PyTorch integration: the NPU's Swish and SiLU, forward and backward.

The modules :class:`Swish` and :class:`SiLU` (generated from their descriptions, :mod:`.faces.torch`)
run the NPU's forward kernel (:func:`swishgrad_numba.swish`,
:func:`swishgrad_numba.silu`) and its backward kernel
(:func:`swishgrad_numba.swish_backward`, :func:`swishgrad_numba.silu_backward`),
so a model trained on a CPU sees the device's activations and gradients bit
for bit. The functional :func:`swish` and its autograd Function
:class:`SwishFunction` here (generated from Swish's description's ``torch_functions``) are the same two kernels: the forward pass is
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

# the shared helpers' public names, importable from here as before (faces/torch_support.py)
from .faces.torch_support import (  # noqa: F401
    NO_TORCH, batch_first, torch_beta32, check_tensor_pair, check_tensor, eager, tensor_from_numpy,
    missing_torch, platform_argument, require_torch, swish_second_derivative, tensor_to_numpy, torch)

__all__ = ["FastGELU", "GELU", "SiLU", "Swish", "SwishBackwardFunction", "SwishFunction", "silu",
           "silu_backward_torch", "swish", "swish_backward_torch"]

from .faces.torch import functions as _described_functions, module as _described_module  # noqa: E402

# Swish, SiLU (with silu, silu_backward_torch) and GELU (Gelu, or GeluV2 by approximate): generated (issue 40)
Swish = _described_module("swish")
SiLU = _described_module("silu")
# swish, swish_backward_torch and their autograd Functions: generated from Swish's description (issue 40: its
# torch_functions; the second order its second_derivative), once written here by hand
swish, swish_backward_torch, SwishFunction, SwishBackwardFunction = _described_functions("swish")
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
