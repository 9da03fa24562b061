"""PyTorch modules of the Swish family whose forward AND backward passes are the emulated NPU kernels.

:class:`Swish` (aclnnSwish forward, SwishGrad backward) and :class:`SiLU`
(aclnnSilu forward, SiluGrad backward): both passes of the layer are the
device's, bit for bit, in float32, float16 and bfloat16, on the kernel the
``platform`` picks (the A2 reference platform by default).

The machinery is written once for every activation of the family: the
table :data:`ACTIVATIONS` names, per activation, its forward and backward
entry points; :class:`ActivationFunction` and
:class:`ActivationBackwardFunction` are the two autograd Functions all of
them share. Adding the next activation of the template is one row.

Higher derivatives follow :mod:`swishgrad_numba.torch`: the backward pass
``gx = g * s'(x)`` is itself differentiable; with respect to ``g`` it is the
backward kernel again (bit for bit), with respect to ``x`` it is
``ggx * g * s''(x)`` in float64 by plain PyTorch, rounded once (no device
kernel computes ``s''``). SiLU is Swish with beta 1.

Re-exported by :mod:`swishgrad_numba.torch`, so
``swishgrad_numba.torch.Swish`` and ``swishgrad_numba.torch.SiLU`` are the
classes defined here. Imports without PyTorch; using anything here then
raises the same ImportError as the rest of the integration.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .swish_grad import swish_backward
from ..arguments import check_platform_for
from .functional import face
from ..platform import Platform
from .torch_support import (
    NO_TORCH, batch_first, check_tensor_pair, check_tensor, eager, tensor_from_numpy, missing_torch,
    platform_argument, swish_second_derivative, tensor_to_numpy, torch)
from .torch_support import require_torch, torch_beta32

__all__ = ["ACTIVATIONS", "Activation", "ActivationBackwardFunction", "ActivationFunction", "SiLU", "Swish",
           "silu", "silu_backward_torch", "pair_platform", "plain_functions"]


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
    #: ``second_derivative(x, beta, platform)``: ``s''(x)`` in float64 for the second order; Swish's
    #: where None.
    second_derivative: Callable | None = None
    #: Whether the backward reads the forward's *result* (Sigmoid's: ``backward(grad, y, ...)``): the
    #: forward's Function then saves its output, and ``second_derivative`` is the backward's factor's
    #: derivative with respect to ``y``.
    saves_output: bool = False


def _second_derivative(name: str, x, beta, platform):
    """``s''(x)`` of activation ``name``, float64 (:attr:`Activation.second_derivative`)."""
    act = _activation(name)
    if act.second_derivative is None:
        return swish_second_derivative(x, beta)
    return act.second_derivative(x, beta, platform)


#: The activations by name: their forward and backward kernels.
ACTIVATIONS = {
    "swish": Activation(lambda x, b, p: face("swish")(x, b, platform=p),
                        lambda g, x, b, p: swish_backward(g, x, b, platform=p), has_beta=True,
                        operators=("swish", "swish_grad")),
    "silu": Activation(lambda x, b, p: face("silu")(x, platform=p),
                       lambda g, x, b, p: face("silu_grad")(g, x, platform=p), has_beta=False,
                       operators=("silu", "silu_grad")),
}


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

    @eager
    def silu(x, *, platform: Platform | None = None):
        """SiLU as the NPU computes it (aclnnSilu), with the NPU's SiluGrad as its backward pass.

        Parameters
        ----------
        x : torch.Tensor
            CPU tensor of dtype float32, float16 or bfloat16, any strides.
        platform : Platform, optional
            Picks the kernel (the A2 reference platform by default).

        Returns
        -------
        torch.Tensor
            A new contiguous tensor of ``x``'s shape and dtype.
        """
        check_tensor(x, "x")
        check_torch_platform(platform, "silu")
        return ActivationFunction.apply(x, "silu", 1.0, platform)

    @eager
    def silu_backward_torch(grad, x, *, platform: Platform | None = None):
        """``grad * silu'(x)`` by the emulated SiluGrad kernel; differentiable (see the module docstring).

        ``grad`` and ``x``: CPU tensors of one shape and one dtype (float32,
        float16 or bfloat16). Bit for bit what
        :func:`swishgrad_numba.silu_backward` returns for the same data.
        """
        check_tensor_pair(grad, x)
        check_torch_platform(platform, "silu")
        return ActivationBackwardFunction.apply(grad, x, "silu", 1.0, platform)

    class Swish(torch.nn.Module):
        """Swish whose forward pass is the NPU's Swish kernel and whose gradient is its SwishGrad kernel.

        Parameters
        ----------
        beta : float or 0-d tensor
            The Swish beta, rounded to float32 once; a constant, not a
            learnable parameter.
        platform : Platform, optional
            The device whose kernels run (an Ascend 950 runs the arch35
            ones); the A2 reference platform by default.

        Examples
        --------
        >>> model = torch.nn.Sequential(torch.nn.Linear(4, 8), Swish(1.0), torch.nn.Linear(8, 1))
        """

        def __init__(self, beta=1.0, *, platform: Platform | None = None):
            super().__init__()
            check_torch_platform(platform, "swish")
            self.beta = float_beta32(beta)
            self.platform = platform

        @eager
        def forward(self, x):
            check_tensor(x, "x")
            return ActivationFunction.apply(x, "swish", self.beta, self.platform)

        def extra_repr(self) -> str:
            return f"beta={self.beta!r}" + ("" if self.platform is None else f", platform={self.platform!r}")

    class SiLU(torch.nn.Module):
        """SiLU whose forward pass is the NPU's Swish kernel at scale 1 (aclnnSilu) and whose gradient
        is its SiluGrad kernel (aclnnSiluBackward).

        Parameters
        ----------
        platform : Platform, optional
            As for :class:`Swish`.
        """

        def __init__(self, *, platform: Platform | None = None):
            super().__init__()
            check_torch_platform(platform, "silu")
            self.platform = platform

        @eager
        def forward(self, x):
            return silu(x, platform=self.platform)

        def extra_repr(self) -> str:
            return "" if self.platform is None else f"platform={self.platform!r}"

else:
    _UNAVAILABLE = "Unavailable: PyTorch is not installed."
    ActivationFunction = missing_torch("ActivationFunction", _UNAVAILABLE)
    ActivationBackwardFunction = missing_torch("ActivationBackwardFunction", _UNAVAILABLE)
    Swish = missing_torch("Swish", _UNAVAILABLE)
    SiLU = missing_torch("SiLU", _UNAVAILABLE)

    def silu(x, *, platform=None):
        """Unavailable: PyTorch is not installed."""
        raise ImportError(NO_TORCH)

    def silu_backward_torch(grad, x, *, platform=None):
        """Unavailable: PyTorch is not installed."""
        raise ImportError(NO_TORCH)


def pair_platform(forward_op: str, backward_op: str):
    """The platform a module of two operators runs by default: the A2 reference platform where both have a
    kernel there, else the Ascend 950 (read from the registry when the module is made, so a kernel
    registered later is picked up)."""
    from ..ops.registry import get_operator
    from ..platform import ASCEND950_PLATFORM, REFERENCE_PLATFORM

    if all(get_operator(op).kernel_refusal(REFERENCE_PLATFORM) is None for op in (forward_op, backward_op)):
        return REFERENCE_PLATFORM
    return ASCEND950_PLATFORM


def plain_functions(name: str):
    """``(f(x, *, platform=None), f_backward(grad, x, *, platform=None))`` of an attribute-free row ``name``
    (Mish, Hardswish: their generated modules add the rows): the kernels through :class:`ActivationFunction` /
    :class:`ActivationBackwardFunction` (differentiable)."""
    fwd_op, bwd_op = _activation(name).operators

    def _platform(platform):
        platform = pair_platform(fwd_op, bwd_op) if platform is None else platform
        check_torch_platform(platform, name)
        return platform

    @eager
    def f(x, *, platform: Platform | None = None):
        require_torch()
        check_tensor(x, "x")
        return ActivationFunction.apply(x, name, 1.0, _platform(platform))

    @eager
    def f_backward(grad, x, *, platform: Platform | None = None):
        require_torch()
        check_tensor_pair(grad, x)
        return ActivationBackwardFunction.apply(grad, x, name, 1.0, _platform(platform))

    f.__name__ = f.__qualname__ = name
    f_backward.__name__ = f_backward.__qualname__ = f"{name}_backward_torch"
    f.__doc__ = (f"{name}(x) for torch tensors: operator ``{fwd_op}``'s kernel forward, ``{bwd_op}``'s backward, "
                 f"bit for bit, on ``platform`` (the A2 where both kernels exist there, else the Ascend 950).")
    f_backward.__doc__ = f"``grad * {name}'(x)`` by operator ``{bwd_op}``'s kernel; differentiable again."
    return f, f_backward
