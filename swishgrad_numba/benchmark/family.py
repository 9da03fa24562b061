"""Each operator against its PyTorch peer, both writing into a preallocated output where the peer can.

``swishgrad bench --op OP`` (any operator of :data:`OP_BENCHES` but swish_grad) runs :func:`run_op_comparison`;
``--op swish_grad`` (the default) is the full comparison of :mod:`.runner`. What is timed per operator is the
table :data:`~.op_benches.OP_BENCHES` (every registered operator, :mod:`.op_benches`).

Both sides are timed round-robin in one cell (:func:`~.timing.time_interleaved`,
alternating turns), torch with passive OpenMP workers (:func:`~.peers.torch_available`).
``ratio_torch = t_torch / t_emulator``. A 16-bit forward is a lookup in the
65,536-entry table of the kernel's outputs. A report, not a test.
"""
from __future__ import annotations

import gc
import math

import numba
import numpy as np

from . import peers
from .inputs import make_inputs, parse_threads
from .op_benches import OP_BENCHES, OpBench, result_of
from .runner import check_run, result_row, thread_counts_restored, use_threads
from .timing import TURN_PAUSE, time_interleaved

__all__ = ["DEFAULT_OP", "OP_BENCHES", "OpBench", "check_op", "format_op_table", "op_calls", "run_op_comparison"]

#: The operator ``swishgrad bench`` times unless ``--op`` says otherwise.
DEFAULT_OP = "swish_grad"


def check_op(op, argname: str = "op") -> str:
    """``op`` if it names an operator of :data:`OP_BENCHES`, else a ValueError listing them."""
    if not isinstance(op, str) or op not in OP_BENCHES:
        raise ValueError(f"{argname} must be one of {', '.join(OP_BENCHES)}; got {op!r}")
    return op


def op_calls(op: str, g, x, out, platform=None, use_torch: bool = True):
    """``(emulator_fn, torch_fn or None)``: the two calls timed for ``op`` on these arrays (as the operator's
    :attr:`OpBench.arrays` makes them from flat inputs; an element-wise operator's are the flat inputs and an
    output like x).

    The tensors share the arrays' memory; the torch peer writes into a tensor
    of its own (not ``out``), so the emulator's result is never overwritten.
    """
    bench = OP_BENCHES[check_op(op)]
    emulator = (lambda: bench.emulator(g, x, out, bench.beta, platform))
    if not use_torch:
        return emulator, None
    tg, tx = peers.torch_tensor(g), peers.torch_tensor(x)
    tout = peers.torch_tensor(np.empty_like(result_of(out)))
    return emulator, (lambda: bench.peer(tg, tx, tout, bench.beta))


def run_op_comparison(op: str, sizes, dtypes_, threads=None, repeat: int = 5, min_time: float = 0.02,
                      use_torch: bool = True, progress=None, platform=None) -> list[dict]:
    """Time ``op``'s emulator (``out=``) against its PyTorch peer (into an output) per (dtype, size, threads).

    Arguments as :func:`~.runner.run_comparison`'s. Returns one row per
    (impl, dtype, size, threads), ``impl`` ``"emulator"`` or ``"torch"``
    (``variant`` ``"out"``), the emulator's carrying ``ratio_torch``, and
    every row its ``op``. Bytes moved: the inputs' and the output's (RmsNorm: y's).
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
                g, x, out = bench.arrays(*make_inputs(n, info))
                emulator, peer = op_calls(op, g, x, out, platform, have_torch)
                fns = {}
                for k in thread_counts:
                    fns[k, "emulator"] = emulator
                    if peer is not None:
                        fns[k, "torch"] = peer
                setups = {key: (lambda k=key[0]: use_threads(k, have_torch)) for key in fns}
                timed = time_interleaved(fns, repeat, min_time, pause=TURN_PAUSE, setups=setups)
                moved = bench.bytes_moved(g, x, out)
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
