"""What is timed per operator: the emulator's call and its PyTorch peer's, one :class:`OpBench` per registered
operator (:data:`OP_BENCHES`, every one of :func:`swishgrad_numba.ops.registry.every_operator`).

============================  ==============================  ===================================================
op                            emulator (``out=``)              PyTorch peer (into an output)
============================  ==============================  ===================================================
swish, fast_gelu              ``swish(x, beta)``,              ``x * sigmoid(beta x)``: ``mul``, ``sigmoid``,
                              ``fast_gelu(x)``                 ``mul`` with ``out=`` (three passes)
fast_gelu_grad                ``fast_gelu_backward(g, x)``     ``g * s * (1 + z (1 - s))``, ``z = 1.702 x``,
                                                               ``s = sigmoid(z)`` (in place, one scratch tensor)
swiglu                        ``swiglu(x)``, x of rows of      ``torch.mul(silu(a), b, out=)``, a and b views of
                              4096 split into halves           x's halves (silu's result one temporary)
swiglu_grad                   ``swiglu_backward(g, x)``        ``aten.silu_backward.grad_input(g * b, a)`` into
                                                               grad_x's first half, ``torch.mul(g, silu(a))`` into
                                                               its second (as the forward's autograd makes them)
rms_norm                      ``rms_norm(x, gamma, 1e-6)``,    ``torch.nn.functional.rms_norm`` (y only; no out
                              rows of 4096 (y and rstd)        variant: a new tensor)
mish_grad                     ``mish_backward(g, x)``          ``aten.mish_backward`` (no out variant)
the others                    the functional face              the ``aten`` op's ``.out`` / ``.grad_input``
============================  ==============================  ===================================================

Each peer computes what the operator computes (its dtype, its shape), not necessarily in the same order.
The row operators (the registry's "rows" kind) shape the flat inputs into rows (:attr:`OpBench.arrays`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..faces.functional import face
from .inputs import BETA_NUMPY, BETA_TORCH

__all__ = ["FAST_GELU_BETA", "OP_BENCHES", "RMS_EPSILON", "ROW_LENGTH", "OpBench", "elementwise_arrays", "result_of"]

#: FastGELU's 1.702 (the kernels' -1.702 is a double stored in a float; the peer takes the Python float).
FAST_GELU_BETA = 1.702
#: The row length of the row operators' inputs (x's last axis; SwiGlu splits it into halves of 2048).
ROW_LENGTH = 4096
#: RmsNorm's epsilon on both sides.
RMS_EPSILON = 1e-6


def elementwise_arrays(g, x):
    """``(g, x, out)`` of an element-wise operator: the flat inputs as they are and an output like x."""
    return g, x, np.empty_like(x)


@dataclass(frozen=True)
class OpBench:
    """What is timed for one operator.

    Attributes
    ----------
    inputs : int
        Input arrays (1 for a forward: ``x``; 2 for a backward or RmsNorm: ``g, x``).
    beta : float
        The beta (slope, threshold) both sides use.
    emulator : callable
        ``emulator(g, x, out, beta, platform) -> result`` (RmsNorm: its y).
    peer : callable
        ``peer(tg, tx, tout, beta) -> tensor``, PyTorch into ``tout`` where it has an out variant.
    peer_name : str
        The peer as the table prints it.
    arrays : callable
        ``arrays(g, x) -> (g, x, out)``: the arrays both sides take, from flat inputs of n elements
        (:func:`elementwise_arrays`; the row operators' shape them into rows of :data:`ROW_LENGTH`).
    """

    inputs: int
    beta: float
    emulator: Callable
    peer: Callable
    peer_name: str
    arrays: Callable = field(default=elementwise_arrays)

    @property
    def elementwise(self) -> bool:
        """Whether the operator is element-wise over flat arrays (not one of the row operators)."""
        return self.arrays is elementwise_arrays

    def bytes_moved(self, g, x, out) -> int:
        """The bytes one call reads and writes at least: its inputs and its output (RmsNorm: y)."""
        return x.nbytes + result_of(out).nbytes + (g.nbytes if self.inputs == 2 else 0)


def result_of(out):
    """The array a timed emulator call returns for ``out`` (RmsNorm's out is the pair (y, rstd): y)."""
    return out[0] if isinstance(out, tuple) else out


def _torch():
    import torch

    return torch


def _aten():
    return _torch().ops.aten


def _torch_swish_into(tg, tx, tout, beta):
    torch = _torch()
    torch.mul(tx, beta, out=tout)
    torch.sigmoid(tout, out=tout)
    return torch.mul(tx, tout, out=tout)


#: The torch peer's scratch tensor (the sigmoid) by (shape, dtype): made once, as the output is.
_SCRATCH: dict = {}


def _torch_fast_gelu_backward_into(tg, tx, tout, beta):
    """``g * s * (1 + z (1 - s))``, ``z = beta x``, ``s = sigmoid(z)``: in place in ``tout`` and one
    preallocated scratch tensor (no allocation once warm)."""
    torch = _torch()
    key = (tuple(tout.shape), tout.dtype)
    if key not in _SCRATCH:
        _SCRATCH.clear()
        _SCRATCH[key] = torch.empty_like(tout)
    s = _SCRATCH[key]
    torch.mul(tx, beta, out=tout)                       # z
    torch.sigmoid(tout, out=s)                          # s
    torch.addcmul(tout, tout, s, value=-1, out=tout)    # z - z s
    return tout.add_(1).mul_(s).mul_(tg)


def _unary(name: str, peer: Callable, peer_name: str, beta: float = BETA_TORCH, call=None) -> OpBench:
    """A forward: the face ``name`` on x (``call(f, x, out, beta, platform)`` where it takes more)."""
    f = face(name)
    call = call or (lambda f, x, out, b, p: f(x, out=out, platform=p))
    return OpBench(1, beta, lambda g, x, out, b, p: call(f, x, out, b, p), peer, peer_name)


def _binary(name: str, peer: Callable, peer_name: str, beta: float = BETA_TORCH, call=None) -> OpBench:
    """A backward: the face ``name`` on (g, x) (``call(f, g, x, out, beta, platform)`` where it takes more)."""
    f = face(name)
    call = call or (lambda f, g, x, out, b, p: f(g, x, out=out, platform=p))
    return OpBench(2, beta, lambda g, x, out, b, p: call(f, g, x, out, b, p), peer, peer_name)


def _rows(x, length=ROW_LENGTH):
    """x as rows of ``length`` (all of x where it is shorter)."""
    cols = min(length, x.size)
    if x.size % cols or cols % 2:
        raise ValueError(f"sizes: a row operator's size must be even and a multiple of {length} above it; "
                         f"got {x.size}")
    return x.reshape(-1, cols)


def _swiglu_arrays(g, x):
    x2 = _rows(x)
    return g, x2, np.empty((x2.shape[0], x2.shape[1] // 2), x.dtype)


def _swiglu_grad_arrays(g, x):
    x2 = _rows(x)
    return g[:x.size // 2].reshape(x2.shape[0], -1), x2, np.empty_like(x2)


def _rms_norm_arrays(g, x):
    x2 = _rows(x)
    return g[:x2.shape[1]].copy(), x2, (np.empty_like(x2), np.empty((x2.shape[0], 1), np.float32))


def _torch_swiglu_into(tg, tx, tout, beta):
    torch = _torch()
    a, b = tx.chunk(2, dim=-1)
    return torch.mul(torch.nn.functional.silu(a), b, out=tout)


def _torch_swiglu_backward_into(tg, tx, tout, beta):
    torch = _torch()
    a, b = tx.chunk(2, dim=-1)
    ga, gb = tout.chunk(2, dim=-1)
    _aten().silu_backward.grad_input(tg * b, a, grad_input=ga)
    torch.mul(tg, torch.nn.functional.silu(a), out=gb)
    return tout


def _torch_rms_norm(tg, tx, tout, beta):
    return _torch().nn.functional.rms_norm(tx, (tx.shape[-1],), tg, RMS_EPSILON)


swiglu, swiglu_backward, rms_norm = face("swiglu"), face("swiglu_grad"), face("rms_norm")
#: The operators ``--op`` accepts, by registry name: every registered operator.
OP_BENCHES = {
    "swish": _unary("swish", _torch_swish_into, "x * sigmoid(beta x) (out=)", BETA_NUMPY,
                    lambda f, x, out, b, p: f(x, b, out=out, platform=p)),
    "silu": _unary("silu", lambda tg, tx, tout, b: _aten().silu.out(tx, out=tout), "aten.silu.out"),
    "silu_grad": _binary("silu_grad", lambda tg, tx, tout, b: _aten().silu_backward.grad_input(tg, tx, grad_input=tout),
                         "aten.silu_backward.grad_input"),
    "swish_grad": _binary("swish_grad",
                          lambda tg, tx, tout, b: _aten().silu_backward.grad_input(tg, tx, grad_input=tout),
                          "aten.silu_backward.grad_input", BETA_TORCH,
                          lambda f, g, x, out, b, p: f(g, x, b, out=out, platform=p)),
    # FastGELU (Ascend 950 kernels only): the formula x * sigmoid(1.702 x) in torch
    "fast_gelu": _unary("fast_gelu", _torch_swish_into, "x * sigmoid(1.702 x) (out=)", FAST_GELU_BETA),
    "fast_gelu_grad": _binary("fast_gelu_grad", _torch_fast_gelu_backward_into,
                              "g * s * (1 + z (1 - s)), z = 1.702 x (out=)", FAST_GELU_BETA),
    "sigmoid": _unary("sigmoid", lambda tg, tx, tout, b: _torch().sigmoid(tx, out=tout), "torch.sigmoid(out=)"),
    # SigmoidBackward's second input is the forward's output y, as the NPU's SigmoidGrad takes it
    "sigmoid_grad": _binary("sigmoid_grad",
                            lambda tg, ty, tout, b: _aten().sigmoid_backward.grad_input(tg, ty, grad_input=tout),
                            "aten.sigmoid_backward.grad_input"),
    # the Gelu family against torch's tanh GELU (the 950's function; the A2's cubic coefficient differs)
    "gelu": _unary("gelu", lambda tg, tx, tout, b: _aten().gelu.out(tx, approximate="tanh", out=tout),
                   "aten.gelu.out(approximate='tanh')"),
    "gelu_grad": _binary("gelu_grad", lambda tg, tx, tout, b: _aten().gelu_backward.grad_input(
        tg, tx, approximate="tanh", grad_input=tout), "aten.gelu_backward.grad_input(approximate='tanh')"),
    "leaky_relu": _unary("leaky_relu", lambda tg, tx, tout, s: _aten().leaky_relu.out(tx, s, out=tout),
                         "aten.leaky_relu.out(0.01)", 0.01, lambda f, x, out, b, p: f(x, b, out=out, platform=p)),
    "leaky_relu_grad": _binary("leaky_relu_grad", lambda tg, tx, tout, s: _aten().leaky_relu_backward.grad_input(
        tg, tx, s, False, grad_input=tout), "aten.leaky_relu_backward.grad_input(0.01)", 0.01,
        lambda f, g, x, out, b, p: f(g, x, b, out=out, platform=p)),
    # Softplus, beta 1 and threshold 20 on both sides
    "softplus": _unary("softplus", lambda tg, tx, tout, b: _aten().softplus.out(tx, b, 20.0, out=tout),
                       "aten.softplus.out(beta, 20)", BETA_TORCH,
                       lambda f, x, out, b, p: f(x, b, 20.0, out=out, platform=p)),
    "softplus_grad": _binary("softplus_grad", lambda tg, tx, tout, b: _aten().softplus_backward.grad_input(
        tg, tx, b, 20.0, grad_input=tout), "aten.softplus_backward.grad_input(beta, 20)", BETA_TORCH,
        lambda f, g, x, out, b, p: f(g, x, b, 20.0, out=out, platform=p)),
    # Elu and EluBackward (the platform's EluGradV2), alpha 1
    "elu": _unary("elu", lambda tg, tx, tout, b: _aten().elu.out(tx, 1.0, 1, 1, out=tout), "aten.elu.out(alpha=1)"),
    "elu_grad": _binary("elu_grad", lambda tg, tx, tout, b: _aten().elu_backward.grad_input(
        tg, 1.0, 1, 1, False, tx, grad_input=tout), "aten.elu_backward.grad_input(alpha=1, is_result=False)"),
    # GeluV2 and GeluGradV2, approximate "none", against torch's erf GELU
    "gelu_v2": _unary("gelu_v2", lambda tg, tx, tout, b: _aten().gelu.out(tx, approximate="none", out=tout),
                      "aten.gelu.out(approximate='none')"),
    "gelu_grad_v2": _binary("gelu_grad_v2", lambda tg, tx, tout, b: _aten().gelu_backward.grad_input(
        tg, tx, approximate="none", grad_input=tout), "aten.gelu_backward.grad_input(approximate='none')"),
    # the third tier (issue 41)
    "hardswish": _unary("hardswish", lambda tg, tx, tout, b: _aten().hardswish.out(tx, out=tout),
                        "aten.hardswish.out"),
    "hardswish_grad": _binary("hardswish_grad", lambda tg, tx, tout, b: _aten().hardswish_backward.out(
        tg, tx, out=tout), "aten.hardswish_backward.out"),
    "mish": _unary("mish", lambda tg, tx, tout, b: _aten().mish.out(tx, out=tout), "aten.mish.out"),
    "mish_grad": _binary("mish_grad", lambda tg, tx, tout, b: _aten().mish_backward(tg, tx),
                         "aten.mish_backward (a new tensor)"),
    "relu": _unary("relu", lambda tg, tx, tout, b: _aten().relu.out(tx, out=tout), "aten.relu.out"),
    "threshold_backward": _binary("threshold_backward", lambda tg, tx, tout, t: _aten().threshold_backward.grad_input(
        tg, tx, t, grad_input=tout), "aten.threshold_backward.grad_input(0)", 0.0,
        lambda f, g, x, out, t, p: f(g, x, t, out=out, platform=p)),
    # the row operators
    "swiglu": OpBench(1, BETA_TORCH, lambda g, x, out, b, p: swiglu(x, out=out, platform=p),
                      _torch_swiglu_into, "mul(silu(a), b, out=)", _swiglu_arrays),
    "swiglu_grad": OpBench(2, BETA_TORCH, lambda g, x, out, b, p: swiglu_backward(g, x, out=out, platform=p),
                           _torch_swiglu_backward_into, "silu_backward.grad_input(g b, a), mul(g, silu(a), out=)",
                           _swiglu_grad_arrays),
    "rms_norm": OpBench(2, BETA_TORCH, lambda g, x, out, b, p: rms_norm(x, g, RMS_EPSILON, out=out, platform=p)[0],
                        _torch_rms_norm, "nn.functional.rms_norm (a new tensor)", _rms_norm_arrays),
}
