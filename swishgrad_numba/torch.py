"""PyTorch integration: Swish whose backward pass is the emulated NPU kernel.

A model trained on a CPU with :class:`Swish` sees exactly the gradients the
Ascend SwishGrad kernel would produce: the forward pass is plain PyTorch
(``x * sigmoid(beta * x)``), the backward pass runs
:func:`swishgrad_numba.swish_backward` on the tensors' memory.

PyTorch is an optional dependency (``pip install "swishgrad_numba[torch]"``).
This module imports without it; using :class:`Swish`,
:class:`SwishFunction`, :class:`SwishBackwardFunction`, :func:`swish` or
:func:`swish_backward_torch` then raises an :class:`ImportError` that says
how to install it.

Only CPU tensors of float32, float16 and bfloat16 are accepted. ``beta`` is
rounded to float32 once and is a constant: the kernel computes no gradient
for it.

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

import numpy as np

from .api import swish_backward
from .dtypes import DTYPES, bfloat16, to_float32

try:  # an optional dependency: everything below degrades to a clear error
    import torch
except ImportError:
    torch = None

__all__ = ["Swish", "SwishBackwardFunction", "SwishFunction", "swish", "swish_backward_torch"]

_NO_TORCH = (
    "swishgrad_numba.torch needs PyTorch, which is not installed; "
    'install it with: pip install "swishgrad_numba[torch]" (pins torch==2.13.0, a CPU build)'
)

if torch is not None:
    _SUPPORTED = tuple(getattr(torch, info.torch_name) for info in DTYPES.values())


def _require_torch():
    if torch is None:
        raise ImportError(_NO_TORCH)


def _check_tensor(value, argname: str) -> None:
    """Raise unless ``value`` is a CPU tensor of a supported dtype."""
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{argname} must be a torch.Tensor, got {type(value).__name__}")
    if value.device.type != "cpu":
        raise ValueError(
            f"{argname} must be a CPU tensor (the emulator runs on the CPU), got device {value.device}; "
            f"move it with .cpu() first"
        )
    if value.layout != torch.strided:
        raise TypeError(f"{argname} must be a dense (strided) tensor, got layout {value.layout}; "
                        f"call .to_dense() first")
    if value.dtype not in _SUPPORTED:
        raise TypeError(f"{argname} must have dtype float32, float16 or bfloat16, got {value.dtype}")


def _to_numpy(t) -> np.ndarray:
    """A NumPy view of a CPU tensor's memory, strides kept (no copy, no value conversion)."""
    t = t.detach().resolve_neg().resolve_conj()
    if t.dtype == torch.bfloat16:
        # NumPy has no bfloat16: reinterpret the 16-bit patterns as
        # ml_dtypes.bfloat16 through an int16 view. Bits, not values, move.
        return t.view(torch.int16).numpy().view(bfloat16)
    return t.numpy()


def _from_numpy(a: np.ndarray):
    """A tensor sharing ``a``'s memory; ml_dtypes bfloat16 becomes torch.bfloat16 bit for bit."""
    if a.dtype == bfloat16:
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def _check_pair(grad, x) -> None:
    """Raise unless ``grad`` and ``x`` are supported CPU tensors of one dtype and shape."""
    _check_tensor(grad, "grad")
    _check_tensor(x, "x")
    if grad.dtype != x.dtype:
        raise TypeError(f"grad and x must have the same dtype, got {grad.dtype} and {x.dtype}")
    if grad.shape != x.shape:
        raise ValueError(f"grad and x must have the same shape, got {tuple(grad.shape)} and {tuple(x.shape)}")


def _emulated_backward(grad, x, beta32):
    """``grad * s'(x)`` by the emulated kernel on checked tensors; no autograd."""
    return _from_numpy(swish_backward(_to_numpy(grad), _to_numpy(x), beta32))


def _swish_second_derivative(x, beta: float):
    """``s''(x)`` in float64 by plain PyTorch ops (differentiable again), for any dtype of ``x``.

    With ``z = beta x``: ``s'' = beta sig(z) (1 - sig(z)) (2 + z (1 - 2 sig(z)))``, written with
    ``1 - sig(z) = sig(-z)`` and ``1 - 2 sig(z) = -tanh(z/2)`` so that nothing cancels for large |z|.
    """
    z = beta * x.double()
    return beta * torch.sigmoid(z) * torch.sigmoid(-z) * (2.0 - z * torch.tanh(0.5 * z))


def swish_backward_torch(grad, x, beta=1.0):
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
    beta : float
        The Swish beta; rounded to float32 once.

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
    _require_torch()
    _check_pair(grad, x)
    beta32 = to_float32(beta, argname="beta")
    return SwishBackwardFunction.apply(grad, x, float(beta32))


def _missing(name: str, doc: str):
    """A stand-in class for when PyTorch is absent: any use raises the ImportError."""

    def fail(*args, **kwargs):
        raise ImportError(_NO_TORCH)

    return type(name, (), {"__init__": fail, "apply": staticmethod(fail), "__doc__": doc,
                           "__module__": __name__})


if torch is not None:

    class SwishBackwardFunction(torch.autograd.Function):
        """SwishGrad as an autograd Function: ``SwishBackwardFunction.apply(grad, x, beta)``.

        The forward pass is the emulated NPU kernel, ``grad * s'(x)`` bit for
        bit. Its backward pass, given ``ggx`` (the gradient with respect to
        that output), returns

        - for ``grad``: ``ggx * s'(x)``, the emulated kernel again (so bit for
          bit the device's numerics, and differentiable again);
        - for ``x``: ``ggx * grad * s''(x)`` by plain PyTorch ops in float64,
          rounded once to the dtype (there is no device kernel for it);
        - for ``beta``: none (a constant).

        Every order is therefore differentiable. ``beta`` is rounded to
        float32 once; tensors are checked as in :func:`swish_backward_torch`.
        """

        @staticmethod
        def forward(ctx, grad, x, beta):
            _check_pair(grad, x)
            beta32 = to_float32(beta, argname="beta")
            ctx.save_for_backward(grad, x)
            ctx.beta = float(beta32)
            return _emulated_backward(grad, x, beta32)

        @staticmethod
        def backward(ctx, ggx):
            grad, x = ctx.saved_tensors
            d_grad = d_x = None
            if ctx.needs_input_grad[0]:
                # d(g s'(x))/dg = s'(x): SwishGrad itself, on the device kernel.
                d_grad = SwishBackwardFunction.apply(ggx, x, ctx.beta)
            if ctx.needs_input_grad[1]:
                # d(g s'(x))/dx = g s''(x): no kernel; float64, one rounding to the dtype.
                d_x = (ggx.double() * grad.double() * _swish_second_derivative(x, ctx.beta)).to(x.dtype)
            return d_grad, d_x, None

    class SwishFunction(torch.autograd.Function):
        """Swish as an autograd Function: ``SwishFunction.apply(x, beta)``.

        The forward pass is ``x * sigmoid(beta * x)`` in PyTorch; the backward
        pass is :class:`SwishBackwardFunction` (the emulated NPU kernel), so
        higher derivatives work (see the module docstring for their
        numerics). ``beta`` must be a Python float (already rounded to
        float32, as :func:`swish` does); it receives no gradient.
        """

        @staticmethod
        def forward(ctx, x, beta):
            ctx.save_for_backward(x)
            ctx.beta = beta
            return x * torch.sigmoid(beta * x)

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            grad_x = SwishBackwardFunction.apply(grad, x, ctx.beta) if ctx.needs_input_grad[0] else None
            return grad_x, None

    def swish(x, beta=1.0):
        """Swish, ``x * sigmoid(beta * x)``, with the NPU kernel's backward pass.

        Parameters
        ----------
        x : torch.Tensor
            CPU tensor of dtype float32, float16 or bfloat16.
        beta : float
            Rounded to float32 once; a constant (no gradient).

        Returns
        -------
        torch.Tensor
        """
        _check_tensor(x, "x")
        return SwishFunction.apply(x, float(to_float32(beta, argname="beta")))

    class Swish(torch.nn.Module):
        """Swish activation module whose gradient is the emulated NPU kernel's.

        Parameters
        ----------
        beta : float
            The Swish beta, rounded to float32 once; 1.0 gives SiLU. A fixed
            constant, not a learnable parameter.

        Examples
        --------
        >>> model = torch.nn.Sequential(torch.nn.Linear(4, 8), Swish(1.0), torch.nn.Linear(8, 1))
        """

        def __init__(self, beta=1.0):
            super().__init__()
            self.beta = float(to_float32(beta, argname="beta"))

        def forward(self, x):
            return swish(x, self.beta)

        def extra_repr(self) -> str:
            return f"beta={self.beta!r}"

else:
    SwishFunction = _missing("SwishFunction", "Unavailable: PyTorch is not installed.")
    SwishBackwardFunction = _missing("SwishBackwardFunction", "Unavailable: PyTorch is not installed.")
    Swish = _missing("Swish", "Unavailable: PyTorch is not installed.")

    def swish(x, beta=1.0):
        """Unavailable: PyTorch is not installed."""
        raise ImportError(_NO_TORCH)

from ._torch_family import SiLU, Swish, silu, silu_backward_torch  # noqa: E402,F401  (NPU forward + backward)
