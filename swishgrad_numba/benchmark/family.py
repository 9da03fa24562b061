"""Each operator of the family against its PyTorch peer, both writing into a preallocated output.

``swishgrad bench --op OP`` (any operator of :data:`OP_BENCHES` but swish_grad) runs :func:`run_op_comparison`;
``--op swish_grad`` (the default) is the full comparison of :mod:`.runner`.
One table, :data:`OP_BENCHES`, says per operator what is timed:

============  ==========================================  =====================================================
op            emulator (``out=``)                          PyTorch peer (into ``out``)
============  ==========================================  =====================================================
swish         ``swishgrad_numba.swish(x, 1.1)``            ``x * sigmoid(1.1 x)``: ``mul``, ``sigmoid``, ``mul``
                                                           with ``out=`` (three passes, no allocation)
silu          ``swishgrad_numba.silu(x)``                  ``torch.ops.aten.silu.out``
silu_grad     ``swishgrad_numba.silu_backward(g, x)``      ``torch.ops.aten.silu_backward.grad_input``
swish_grad    ``swishgrad_numba.swish_backward(g, x, 1)``  ``torch.ops.aten.silu_backward.grad_input``
fast_gelu     ``swishgrad_numba.fast_gelu(x)`` (950)       ``x * sigmoid(1.702 x)``, as for swish
fast_gelu_    ``swishgrad_numba.fast_gelu_backward(g, x)`` ``g * s * (1 + z (1 - s))``, ``z = 1.702 x``,
grad          (950)                                        ``s = sigmoid(z)``: in place in the output and one
                                                           preallocated scratch tensor
============  ==========================================  =====================================================

Both sides are timed round-robin in one cell (:func:`~.timing.time_interleaved`,
alternating turns), torch with passive OpenMP workers (:func:`~.peers.torch_available`).
``ratio_torch = t_torch / t_emulator``. A 16-bit forward is a lookup in the
65,536-entry table of the kernel's outputs. A report, not a test.
"""
from __future__ import annotations

import gc
import math
from dataclasses import dataclass
from typing import Callable

import numba
import numpy as np

from ..faces.functional import face

swish_backward = face("swish_grad")   # swishgrad_numba.swish_backward (issue 40: generated)
from ..faces.functional import face
from . import peers
from .inputs import BETA_NUMPY, BETA_TORCH, make_inputs, parse_threads
from .runner import check_run, result_row, thread_counts_restored, use_threads
from .timing import TURN_PAUSE, time_interleaved

__all__ = ["DEFAULT_OP", "OP_BENCHES", "OpBench", "check_op", "format_op_table", "op_calls", "run_op_comparison"]

#: The operator ``swishgrad bench`` times unless ``--op`` says otherwise.
DEFAULT_OP = "swish_grad"


@dataclass(frozen=True)
class OpBench:
    """What is timed for one operator.

    Attributes
    ----------
    inputs : int
        Input arrays (1 for a forward: ``x``; 2 for a backward: ``g, x``).
    beta : float
        The beta both sides use.
    emulator : callable
        ``emulator(g, x, out, beta, platform) -> result``.
    peer : callable
        ``peer(tg, tx, tout, beta) -> tensor``, PyTorch into ``tout``.
    peer_name : str
        The peer as the table prints it.
    """

    inputs: int
    beta: float
    emulator: Callable
    peer: Callable
    peer_name: str


def _torch_swish_into(tg, tx, tout, beta):
    import torch

    torch.mul(tx, beta, out=tout)
    torch.sigmoid(tout, out=tout)
    return torch.mul(tx, tout, out=tout)


def _torch_silu_into(tg, tx, tout, beta):
    import torch

    return torch.ops.aten.silu.out(tx, out=tout)


def _torch_silu_backward_into(tg, tx, tout, beta):
    import torch

    return torch.ops.aten.silu_backward.grad_input(tg, tx, grad_input=tout)


#: FastGELU's 1.702 (the kernels' -1.702 is a double stored in a float; the peer takes the Python float).
FAST_GELU_BETA = 1.702
#: The torch peer's scratch tensor (the sigmoid) by (shape, dtype): made once, as the output is.
_SCRATCH: dict = {}


def _torch_fast_gelu_backward_into(tg, tx, tout, beta):
    """``g * s * (1 + z (1 - s))``, ``z = beta x``, ``s = sigmoid(z)``: in place in ``tout`` and one
    preallocated scratch tensor (no allocation once warm)."""
    import torch

    key = (tuple(tout.shape), tout.dtype)
    if key not in _SCRATCH:
        _SCRATCH.clear()
        _SCRATCH[key] = torch.empty_like(tout)
    s = _SCRATCH[key]
    torch.mul(tx, beta, out=tout)                       # z
    torch.sigmoid(tout, out=s)                          # s
    torch.addcmul(tout, tout, s, value=-1, out=tout)    # z - z s
    return tout.add_(1).mul_(s).mul_(tg)


#: The operators ``--op`` accepts, by registry name.
OP_BENCHES = {
    "swish": OpBench(1, BETA_NUMPY, lambda g, x, out, b, p: face("swish")(x, b, out=out, platform=p), _torch_swish_into,
                     "x * sigmoid(beta x) (out=)"),
    "silu": OpBench(1, BETA_TORCH, lambda g, x, out, b, p: face("silu")(x, out=out, platform=p), _torch_silu_into,
                    "aten.silu.out"),
    "silu_grad": OpBench(2, BETA_TORCH, lambda g, x, out, b, p: face("silu_grad")(g, x, out=out, platform=p),
                         _torch_silu_backward_into, "aten.silu_backward.grad_input"),
    "swish_grad": OpBench(2, BETA_TORCH, lambda g, x, out, b, p: swish_backward(g, x, b, out=out, platform=p),
                          _torch_silu_backward_into, "aten.silu_backward.grad_input"),
    # FastGELU (Ascend 950 kernels only: platform None is the 950): the formula x * sigmoid(1.702 x) in torch
    "fast_gelu": OpBench(1, FAST_GELU_BETA, lambda g, x, out, b, p: fast_gelu(x, out=out, platform=p),
                         _torch_swish_into, "x * sigmoid(1.702 x) (out=)"),
    "fast_gelu_grad": OpBench(2, FAST_GELU_BETA,
                              lambda g, x, out, b, p: fast_gelu_backward(g, x, out=out, platform=p),
                              _torch_fast_gelu_backward_into, "g * s * (1 + z (1 - s)), z = 1.702 x (out=)"),
}


def _torch_gelu_into(tg, tx, tout, beta):
    import torch

    return torch.ops.aten.gelu.out(tx, approximate="tanh", out=tout)


def _torch_gelu_backward_into(tg, tx, tout, beta):
    import torch

    return torch.ops.aten.gelu_backward.grad_input(tg, tx, approximate="tanh", grad_input=tout)


# The Gelu family against torch's tanh GELU (the 950's function; the A2's cubic coefficient differs).
OP_BENCHES.update({
    "gelu": OpBench(1, BETA_TORCH, lambda g, x, out, b, p: gelu(x, out=out, platform=p), _torch_gelu_into,
                    "aten.gelu.out(approximate='tanh')"),
    "gelu_grad": OpBench(2, BETA_TORCH, lambda g, x, out, b, p: gelu_backward(g, x, out=out, platform=p),
                         _torch_gelu_backward_into, "aten.gelu_backward.grad_input(approximate='tanh')"),
})


def _torch_sigmoid_into(tg, tx, tout, beta):
    import torch

    return torch.sigmoid(tx, out=tout)


def _torch_sigmoid_backward_into(tg, ty, tout, beta):
    import torch

    return torch.ops.aten.sigmoid_backward.grad_input(tg, ty, grad_input=tout)


sigmoid, sigmoid_backward = face("sigmoid"), face("sigmoid_grad")   # generated (issue 40)
# Sigmoid and SigmoidBackward (whose second input is the forward's output y, as the NPU's SigmoidGrad takes it)
OP_BENCHES.update({
    "sigmoid": OpBench(1, BETA_TORCH, lambda g, x, out, b, p: sigmoid(x, out=out, platform=p), _torch_sigmoid_into,
                       "torch.sigmoid(out=)"),
    "sigmoid_grad": OpBench(2, BETA_TORCH, lambda g, y, out, b, p: sigmoid_backward(g, y, out=out, platform=p),
                            _torch_sigmoid_backward_into, "aten.sigmoid_backward.grad_input"),
})


def _torch_softplus_into(tg, tx, tout, beta):
    import torch

    return torch.ops.aten.softplus.out(tx, beta, 20.0, out=tout)


def _torch_softplus_backward_into(tg, tx, tout, beta):
    import torch

    return torch.ops.aten.softplus_backward.grad_input(tg, tx, beta, 20.0, grad_input=tout)


# Softplus (issue 30; the forward has a 950 kernel only), beta 1 and threshold 20 on both sides.
OP_BENCHES.update({
    "softplus": OpBench(1, BETA_TORCH, lambda g, x, out, b, p: softplus(x, b, 20.0, out=out, platform=p),
                        _torch_softplus_into, "aten.softplus.out(beta, 20)"),
    "softplus_grad": OpBench(2, BETA_TORCH,
                             lambda g, x, out, b, p: softplus_backward(g, x, b, 20.0, out=out, platform=p),
                             _torch_softplus_backward_into, "aten.softplus_backward.grad_input(beta, 20)"),
})


def _torch_elu_into(tg, tx, tout, beta):
    import torch

    return torch.ops.aten.elu.out(tx, 1.0, 1, 1, out=tout)


def _torch_elu_backward_into(tg, tx, tout, beta):
    import torch

    return torch.ops.aten.elu_backward.grad_input(tg, 1.0, 1, 1, False, tx, grad_input=tout)


# Elu (950 only) and EluBackward (the platform's EluGradV2) against torch's ELU, alpha 1 (issue 30).
OP_BENCHES.update({
    "elu": OpBench(1, BETA_TORCH, lambda g, x, out, b, p: elu(x, out=out, platform=p), _torch_elu_into,
                   "aten.elu.out(alpha=1)"),
    "elu_grad": OpBench(2, BETA_TORCH, lambda g, x, out, b, p: elu_backward(g, x, out=out, platform=p),
                        _torch_elu_backward_into, "aten.elu_backward.grad_input(alpha=1, is_result=False)"),
})


def check_op(op, argname: str = "op") -> str:
    """``op`` if it names an operator of :data:`OP_BENCHES`, else a ValueError listing them."""
    if not isinstance(op, str) or op not in OP_BENCHES:
        raise ValueError(f"{argname} must be one of {', '.join(OP_BENCHES)}; got {op!r}")
    return op


def op_calls(op: str, g, x, out, platform=None, use_torch: bool = True):
    """``(emulator_fn, torch_fn or None)``: the two calls timed for ``op`` on these arrays.

    The tensors share the arrays' memory; the torch peer writes into a tensor
    of its own (not ``out``), so the emulator's result is never overwritten.
    """
    bench = OP_BENCHES[check_op(op)]
    emulator = (lambda: bench.emulator(g, x, out, bench.beta, platform))
    if not use_torch:
        return emulator, None
    tg, tx, tout = peers.torch_tensor(g), peers.torch_tensor(x), peers.torch_tensor(np.empty_like(out))
    return emulator, (lambda: bench.peer(tg, tx, tout, bench.beta))


def run_op_comparison(op: str, sizes, dtypes_, threads=None, repeat: int = 5, min_time: float = 0.02,
                      use_torch: bool = True, progress=None, platform=None) -> list[dict]:
    """Time ``op``'s emulator (``out=``) against its PyTorch peer (into an output) per (dtype, size, threads).

    Arguments as :func:`~.runner.run_comparison`'s. Returns one row per
    (impl, dtype, size, threads), ``impl`` ``"emulator"`` or ``"torch"``
    (``variant`` ``"out"``), the emulator's carrying ``ratio_torch``, and
    every row its ``op``. Bytes moved: ``(inputs + 1) * n * itemsize``.
    """
    bench = OP_BENCHES[check_op(op)]
    if platform is None:   # the operator's default: the A2 reference platform, or the 950 where it has no A2 kernel
        from ..ops import get_operator

        platform = get_operator(op).default_platform
    sizes = [int(n) for n in sizes]
    if not sizes or min(sizes) < 1:
        raise ValueError("sizes must be a non-empty list of element counts >= 1")
    infos, platform = check_run(dtypes_, repeat, platform)
    thread_counts = parse_threads(threads if threads is not None else [numba.config.NUMBA_NUM_THREADS])
    have_torch = use_torch and peers.torch_available()
    skip_reason = None if have_torch else ("torch not installed" if use_torch else "disabled")
    rows: list[dict] = []
    total, done = len(infos) * len(sizes), 0
    with thread_counts_restored(have_torch):
        for info in infos:
            for n in sizes:
                g, x = make_inputs(n, info)
                out = np.empty_like(x)
                emulator, peer = op_calls(op, g, x, out, platform, have_torch)
                fns = {}
                for k in thread_counts:
                    fns[k, "emulator"] = emulator
                    if peer is not None:
                        fns[k, "torch"] = peer
                setups = {key: (lambda k=key[0]: use_threads(k, have_torch)) for key in fns}
                timed = time_interleaved(fns, repeat, min_time, pause=TURN_PAUSE, setups=setups)
                moved = (bench.inputs + 1) * n * info.itemsize
                for k in thread_counts:
                    emu = result_row("emulator", "out", info, n, k, bench.beta, timed[k, "emulator"], bytes_moved=moved,
                               platform=platform)
                    peer_row = result_row("torch", "out", info, n, k, bench.beta, timed.get((k, "torch")),
                                    bytes_moved=moved, skipped=skip_reason)
                    peer_row["peer"] = bench.peer_name
                    peer_row["omp_wait_policy"] = None if skip_reason else peers.torch_omp_wait_policy()
                    if peer_row["seconds"] is not None:
                        emu["ratio_torch"] = peer_row["seconds"] / emu["seconds"]
                    for row in (emu, peer_row):
                        row["op"] = op
                    rows += [emu, peer_row]
                done += 1
                if progress is not None:
                    progress(done, total, f"{op} {info.name} 2^{math.log2(n):g}")
                del g, x, out, fns, emulator, peer
                gc.collect()
    return rows


def format_op_table(rows) -> str:
    """The rows of :func:`run_op_comparison` as a text table, one line per row."""
    head = f"{'op':<10} {'impl':<9} {'dtype':<9} {'size':>6} {'thr':>3} {'kernel':<7} {'Me/s':>9} {'GB/s':>7} " \
           f"{'x torch':>7}  peer"
    lines = [head, "-" * len(head)]
    for r in rows:
        if r["seconds"] is None:
            lines.append(f"{r['op']:<10} {r['impl']:<9} {r['dtype']:<9} 2^{r['log2_size']:<4} {r['threads']:>3} "
                         f"skipped: {r['skipped']}")
            continue
        ratio = "" if r["ratio_torch"] is None else f"{r['ratio_torch']:.2f}"
        lines.append(f"{r['op']:<10} {r['impl']:<9} {r['dtype']:<9} 2^{r['log2_size']:<4} {r['threads']:>3} "
                     f"{r['kernel'] or '-':<7} {r['elements_per_s'] / 1e6:>9.1f} {r['gb_per_s']:>7.2f} "
                     f"{ratio:>7}  {r.get('peer', '')}")
    return "\n".join(lines)


def _torch_leaky_relu_into(tg, tx, tout, slope):
    import torch

    return torch.ops.aten.leaky_relu.out(tx, slope, out=tout)


def _torch_leaky_relu_backward_into(tg, tx, tout, slope):
    import torch

    return torch.ops.aten.leaky_relu_backward.grad_input(tg, tx, slope, False, grad_input=tout)


# LeakyRelu (Ascend 950 kernels only) against torch's own, at torch's default slope (issue 30)

leaky_relu, leaky_relu_backward = face("leaky_relu"), face("leaky_relu_grad")
elu, elu_backward = face("elu"), face("elu_grad")   # the Elu rows above call them
softplus, softplus_backward = face("softplus"), face("softplus_grad")   # and the Softplus rows
fast_gelu, fast_gelu_backward = face("fast_gelu"), face("fast_gelu_grad")   # and the FastGelu rows
gelu, gelu_backward = face("gelu"), face("gelu_grad")   # and the Gelu rows

OP_BENCHES.update({
    "leaky_relu": OpBench(1, 0.01, lambda g, x, out, b, p: leaky_relu(x, b, out=out, platform=p),
                          _torch_leaky_relu_into, "aten.leaky_relu.out(0.01)"),
    "leaky_relu_grad": OpBench(2, 0.01, lambda g, x, out, b, p: leaky_relu_backward(g, x, b, out=out, platform=p),
                               _torch_leaky_relu_backward_into, "aten.leaky_relu_backward.grad_input(0.01)"),
})


def _torch_gelu_erf_into(tg, tx, tout, beta):
    import torch

    return torch.ops.aten.gelu.out(tx, approximate="none", out=tout)


def _torch_gelu_erf_backward_into(tg, tx, tout, beta):
    import torch

    return torch.ops.aten.gelu_backward.grad_input(tg, tx, approximate="none", grad_input=tout)


# GeluV2 (Ascend 950 only: platform None is the 950) and GeluGradV2, approximate "none", against torch's erf GELU.
gelu_v2, gelu_backward_v2 = face("gelu_v2"), face("gelu_grad_v2")   # generated from their descriptions

OP_BENCHES.update({
    "gelu_v2": OpBench(1, BETA_TORCH, lambda g, x, out, b, p: gelu_v2(x, out=out, platform=p), _torch_gelu_erf_into,
                       "aten.gelu.out(approximate='none')"),
    "gelu_grad_v2": OpBench(2, BETA_TORCH, lambda g, x, out, b, p: gelu_backward_v2(g, x, out=out, platform=p),
                            _torch_gelu_erf_backward_into, "aten.gelu_backward.grad_input(approximate='none')"),
})
