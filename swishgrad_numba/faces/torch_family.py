"""The autograd machinery every generated torch module shares: forward AND backward passes the emulated
NPU kernels.

The table :data:`ACTIVATIONS` names, per activation, its forward and backward entry points (rows the
generator, :mod:`.torch`, adds from the descriptions as it makes each module: ``Swish``, ``SiLU``,
``GELU``, ...); :class:`ActivationFunction` and :class:`ActivationBackwardFunction` are the two autograd
Functions all of them share.

Higher derivatives follow :mod:`swishgrad_numba.torch`: the backward pass
``gx = g * s'(x)`` is itself differentiable; with respect to ``g`` it is the
backward kernel again (bit for bit), with respect to ``x`` it is
``ggx * g * s''(x)`` in float64 by plain PyTorch, rounded once (no device
kernel computes ``s''``; the description's ``second_derivative``).

Imports without PyTorch; using anything here then raises the same ImportError as the rest of the
integration.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..arguments import check_platform_for
from .torch_support import (
    batch_first, check_tensor_pair, check_tensor, tensor_from_numpy, missing_torch,
    platform_argument, tensor_to_numpy, torch)
from .torch_support import torch_beta32

__all__ = ["ACTIVATIONS", "Activation", "ActivationBackwardFunction", "ActivationFunction", "pair_platform",
           "check_torch_platform", "float_beta32"]


@dataclass(frozen=True)
class Activation:
    """One activation of the family as the torch integration sees it.

    Attributes
    ----------
    forward : callable
        ``forward(x, beta32, platform) -> numpy.ndarray``, the forward kernel.
    backward : callable
        ``backward(grad, x, beta32, platform) -> numpy.ndarray``, the
        backward kernel, ``grad * s'(x)``.
    has_beta : bool
        Whether beta is the activation's (SiLU's is 1.0, fixed).
    operators : tuple of str
        The registry names of its forward and backward operators, whose
        platform rules (:func:`~swishgrad_numba.arguments.check_platform_for`)
        a module checks when it is made: both passes run on one platform, so
        one that either refuses (the saturation overflow mode, say) is
        refused at once rather than mixing modes.
    """

    forward: Callable
    backward: Callable
    has_beta: bool
    operators: tuple
    #: ``second_derivative(x, beta, platform)``: ``s''(x)`` in float64 for the second order (None: the
    #: second order with respect to ``x`` is refused, NotImplementedError).
    second_derivative: Callable | None = None
    #: Whether the backward reads the forward's *result* (Sigmoid's: ``backward(grad, y, ...)``): the
    #: forward's Function then saves its output, and ``second_derivative`` is the backward's factor's
    #: derivative with respect to ``y``.
    saves_output: bool = False


def _second_derivative(name: str, x, beta, platform):
    """``s''(x)`` of activation ``name``, float64 (:attr:`Activation.second_derivative`)."""
    act = _activation(name)
    if act.second_derivative is None:
        raise NotImplementedError(f"activation {name!r} has no second derivative (its description's "
                                  f"second_derivative)")
    return act.second_derivative(x, beta, platform)


#: The activations by name: their forward and backward kernels (the rows :mod:`.torch` generates from the
#: descriptions, as each module is made).
ACTIVATIONS: dict = {}


def check_torch_platform(platform, name: str) -> None:
    """A TypeError for a non-Platform; a ValueError where either pass of activation ``name`` refuses it."""
    platform_argument(platform)
    for op in _activation(name).operators:
        check_platform_for(platform, op)


def float_beta32(beta) -> float:
    """beta rounded to float32 once (:mod:`swishgrad_numba.torch`'s rule: a number or a 0-d constant tensor)."""
    return float(torch_beta32(beta))


def _activation(name: str) -> Activation:
    act = ACTIVATIONS.get(name) if isinstance(name, str) else None
    if act is None:
        raise ValueError(f"name must be one of {sorted(ACTIVATIONS)}, got {name!r}")
    return act


if torch is not None:

    class ActivationBackwardFunction(torch.autograd.Function):
        """``ActivationBackwardFunction.apply(grad, x, name, beta, platform)``: ``grad * s'(x)`` by the
        backward kernel of activation ``name`` (bit for bit), differentiable again.

        Its backward pass, given ``ggx``: for ``grad``, ``ggx * s'(x)``, the
        backward kernel again; for ``x``, ``ggx * grad * s''(x)`` in float64,
        rounded once; nothing for the constants. ``beta`` is a Python float
        already rounded to float32 (1.0 for SiLU).
        """

        @staticmethod
        def forward(grad, x, name, beta, platform):
            check_tensor_pair(grad, x)
            act = _activation(name)
            return tensor_from_numpy(act.backward(tensor_to_numpy(grad), tensor_to_numpy(x), beta, platform))

        @staticmethod
        def setup_context(ctx, inputs, output):
            grad, x, name, beta, platform = inputs
            ctx.save_for_backward(grad, x)
            ctx.save_for_forward(grad, x)
            ctx.name, ctx.beta, ctx.platform = name, beta, platform

        @staticmethod
        def backward(ctx, ggx):
            grad, x = ctx.saved_tensors
            d_grad = d_x = None
            if ctx.needs_input_grad[0]:
                # d(g s'(x))/dg = s'(x): the backward kernel itself.
                d_grad = ActivationBackwardFunction.apply(ggx, x, ctx.name, ctx.beta, ctx.platform)
            if ctx.needs_input_grad[1]:
                # d(g s'(x))/dx = g s''(x): no kernel; float64, one rounding to the dtype.
                d_x = (ggx.double() * grad.double() * _second_derivative(ctx.name, x, ctx.beta, ctx.platform)
                       ).to(x.dtype)
            return d_grad, d_x, None, None, None

        @staticmethod
        def jvp(ctx, d_grad, d_x, *_constants):
            # The same two terms as the backward pass, added in the dtype.
            grad, x = ctx.saved_tensors
            terms = []
            if d_grad is not None:
                terms.append(ActivationBackwardFunction.apply(d_grad, x, ctx.name, ctx.beta, ctx.platform))
            if d_x is not None:
                terms.append((d_x.double() * grad.double()
                              * _second_derivative(ctx.name, x, ctx.beta, ctx.platform)).to(x.dtype))
            return terms[0] if len(terms) == 1 else terms[0] + terms[1]

        @staticmethod
        def vmap(info, in_dims, grad, x, name, beta, platform):
            # Elementwise: one launch over the batch, batch dimension first.
            grad, x = batch_first(grad, in_dims[0], info.batch_size), batch_first(x, in_dims[1], info.batch_size)
            return ActivationBackwardFunction.apply(grad, x, name, beta, platform), 0

    class ActivationFunction(torch.autograd.Function):
        """``ActivationFunction.apply(x, name, beta, platform)``: the forward kernel of activation
        ``name`` (bit for bit); its backward pass is :class:`ActivationBackwardFunction`."""

        @staticmethod
        def forward(x, name, beta, platform):
            check_tensor(x, "x")
            act = _activation(name)
            return tensor_from_numpy(act.forward(tensor_to_numpy(x), beta, platform))

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, name, beta, platform = inputs
            ctx.name, ctx.beta, ctx.platform = name, beta, platform
            if _activation(name).saves_output:   # the backward reads the result (Sigmoid's)
                ctx.save_for_backward(output)
                ctx.y = output.detach()            # the tangent rule's copy, outside autograd
                return
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            if not ctx.needs_input_grad[0]:
                return None, None, None, None
            return ActivationBackwardFunction.apply(grad, x, ctx.name, ctx.beta, ctx.platform), None, None, None

        @staticmethod
        def jvp(ctx, d_x, *_constants):
            # The tangent of an activation is its backward kernel applied to the tangent, bit for bit.
            (x,) = (ctx.y,) if hasattr(ctx, "y") else ctx.saved_tensors
            return ActivationBackwardFunction.apply(d_x, x, ctx.name, ctx.beta, ctx.platform)

        @staticmethod
        def vmap(info, in_dims, x, name, beta, platform):
            # Elementwise: one launch of the forward kernel over the batch, batch dimension first.
            return ActivationFunction.apply(batch_first(x, in_dims[0], info.batch_size), name, beta, platform), 0

else:
    _UNAVAILABLE = "Unavailable: PyTorch is not installed."
    ActivationFunction = missing_torch("ActivationFunction", _UNAVAILABLE)
    ActivationBackwardFunction = missing_torch("ActivationBackwardFunction", _UNAVAILABLE)


def pair_platform(forward_op: str, backward_op: str):
    """The platform a module of two operators runs by default: the A2 reference platform where both have a
    kernel there, else the Ascend 950 (read from the registry when the module is made, so a kernel
    registered later is picked up)."""
    from ..ops.registry import get_operator
    from ..platform import ASCEND950_PLATFORM, REFERENCE_PLATFORM

    if all(get_operator(op).kernel_refusal(REFERENCE_PLATFORM) is None for op in (forward_op, backward_op)):
        return REFERENCE_PLATFORM
    return ASCEND950_PLATFORM

