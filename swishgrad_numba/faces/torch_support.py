"""What the PyTorch integration's modules share: the optional import, tensor checks, NumPy views.

:mod:`swishgrad_numba.torch` (SwishGrad's Functions) and :mod:`.torch_family`
(the activation modules) both build on these; neither imports the other's
internals.
"""
from __future__ import annotations

import numpy as np

from ..dtypes import DTYPES, bfloat16, to_float32
from ..tiling.host import check_platform

__all__ = ["NO_TORCH", "batch_first", "check_tensor", "check_tensor_pair", "eager", "missing_torch",
           "platform_argument", "require_torch", "swish_second_derivative", "tensor_from_numpy", "tensor_to_numpy",
           "torch", "torch_beta32"]

try:  # an optional dependency: everything below degrades to a clear error
    import torch
except ImportError:
    torch = None

NO_TORCH = (
    "swishgrad_numba.torch needs PyTorch, which is not installed; "
    'install it with: pip install "swishgrad_numba[torch]" (pins torch==2.13.0, a CPU build)'
)

if torch is not None:
    _SUPPORTED = tuple(getattr(torch, info.torch_name) for info in DTYPES.values())


def require_torch():
    if torch is None:
        raise ImportError(NO_TORCH)


#: Why :func:`eager` keeps a function out of a ``torch.compile`` graph (Dynamo's message for ``fullgraph=True``).
_COMPILE_REASON = ("swishgrad_numba's kernels are Numba code over NumPy arrays, which Dynamo cannot trace: "
                   "torch.compile runs them eagerly, with a graph break around each call (so fullgraph=True "
                   "cannot hold them)")


def eager(fn):
    """``fn`` run eagerly under ``torch.compile``: a graph break around the kernel's call, the rest compiled."""
    return torch.compiler.disable(fn, reason=_COMPILE_REASON) if torch is not None else fn


def check_tensor(value, argname: str) -> None:
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


def tensor_to_numpy(t) -> np.ndarray:
    """A NumPy view of a CPU tensor's memory, strides kept (no copy, no value conversion)."""
    t = t.detach().resolve_neg().resolve_conj()
    if t.dtype == torch.bfloat16:
        # NumPy has no bfloat16: reinterpret the 16-bit patterns as
        # ml_dtypes.bfloat16 through an int16 view. Bits, not values, move.
        return t.view(torch.int16).numpy().view(bfloat16)
    return t.numpy()


def tensor_from_numpy(a: np.ndarray):
    """A tensor sharing ``a``'s memory; ml_dtypes bfloat16 becomes torch.bfloat16 bit for bit."""
    if a.dtype == bfloat16:
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def check_tensor_pair(grad, x) -> None:
    """Raise unless ``grad`` and ``x`` are supported CPU tensors of one dtype and shape."""
    check_tensor(grad, "grad")
    check_tensor(x, "x")
    if grad.dtype != x.dtype:
        raise TypeError(f"grad and x must have the same dtype, got {grad.dtype} and {x.dtype}")
    if grad.shape != x.shape:
        raise ValueError(f"grad and x must have the same shape, got {tuple(grad.shape)} and {tuple(x.shape)}")


def torch_beta32(beta) -> np.float32:
    """Beta rounded once to float32: a real number, or a 0-d tensor holding one (a constant: no gradient)."""
    if torch is not None and isinstance(beta, torch.Tensor):
        if beta.dim() != 0:
            raise ValueError(f"beta must be a number or a 0-d tensor, got a tensor of shape {tuple(beta.shape)}")
        if beta.requires_grad:
            raise ValueError("beta is a constant (the kernel computes no gradient for it), but the tensor given "
                             "requires grad; pass beta.detach()")
        beta = beta.item()   # a Python int, float (exact from any float dtype), bool or complex
    return to_float32(beta, argname="beta")


def platform_argument(platform):
    """``platform`` if it is None or a Platform, else the TypeError :func:`~swishgrad_numba.swish_backward` gives."""
    return None if platform is None else check_platform(platform)


def batch_first(t, bdim, size: int):
    """A vmap rule's input with its batch dimension first (an unbatched one broadcast to ``size``)."""
    if bdim is None:
        return t.unsqueeze(0).expand(size, *t.shape)
    return t.movedim(bdim, 0)


def swish_second_derivative(x, beta: float):
    """``s''(x)`` in float64 by plain PyTorch ops (differentiable again), for any dtype of ``x``.

    With ``z = beta x``: ``s'' = beta sig(z) (1 - sig(z)) (2 + z (1 - 2 sig(z)))``, written with
    ``1 - sig(z) = sig(-z)`` and ``1 - 2 sig(z) = -tanh(z/2)`` so that nothing cancels for large |z|.
    """
    z = beta * x.double()
    return beta * torch.sigmoid(z) * torch.sigmoid(-z) * (2.0 - z * torch.tanh(0.5 * z))


def missing_torch(name: str, doc: str):
    """A stand-in class for when PyTorch is absent: any use raises the ImportError."""

    def fail(*args, **kwargs):
        raise ImportError(NO_TORCH)

    return type(name, (), {"__init__": fail, "apply": staticmethod(fail), "__doc__": doc,
                           "__module__": __name__})
