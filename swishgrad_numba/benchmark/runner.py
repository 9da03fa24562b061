"""The timing runs: every implementation per (dtype, size, thread count), and the thread scaling of small launches.

:func:`run_comparison` times, in one process run, with a warm-up call first
and the median of several repeats, the repeats of all implementations and
thread counts of one (dtype, size) cell taking turns
(:func:`~.timing.time_interleaved`, alternating the direction of the turns)
so that a shared machine's drift in speed hits every one alike and no
implementation always follows the same other one:

* ``emulator``: :func:`swishgrad_numba.swish_backward` on the run's
  platform (its SoC picks the kernel: the rows' ``kernel`` and ``soc``),
  with a preallocated ``out`` and allocating its result, at beta 1.1 (paired
  with the NumPy golden) and at beta 1.0 (paired with PyTorch);
* ``numpy``: the operator's float32 NumPy golden in the ATK executor's
  grouping ``(g * sig) * f``, beta 1.1. NumPy ufuncs are single-threaded,
  so it is timed once per (dtype, size) and its figure is reused for every
  thread count;
* ``torch``: ``torch.ops.aten.silu_backward`` on CPU tensors of the same
  dtype, beta 1.0 (the only beta it knows), allocating and with ``out``
  (the ``grad_input`` overload), ``torch.set_num_threads`` equal to Numba's;
  a row marked ``skipped`` when torch is not installed. torch is loaded with
  passive OpenMP workers (``OMP_WAIT_POLICY=PASSIVE``; the rows'
  ``omp_wait_policy`` says what it ran with), so its idle workers do not
  take the cores from the call timed after it;
* ``flat``: the emulator's arithmetic over fixed chunks (:func:`~.peers.flat_loop`:
  SwishGrad's program on the engine, one walk of passes of a chunk cut into a
  bin per thread), without the host tiling, its record or the cores' ranges:
  the difference to ``emulator``/``out`` is what the tile structure costs;
* ``triad``: a STREAM-style triad ``a[:] = b + s * c`` in float32 over the
  same number of bytes, the memory-bandwidth roofline of this machine (the
  faster of a ``prange`` and a one-thread loop: at small sizes waking the
  thread pool costs more than the copy). Its row carries the dtype and size
  of the cell it serves; ``elements_per_s`` counts that cell's elements.

Bytes moved by one SwishGrad call are ``3 * n * itemsize`` (two reads, one
write); the triad moves ``3 * n32 * 4`` for the same footprint. Ratios are
speedups of the emulator over a peer timed in the same cell:
``ratio_numpy = t_numpy / t``, ``ratio_torch = t_torch / t``.

:func:`thread_scaling` times launches of a few emulated cores
(``Platform(core_num=k)``) at 1 thread and more, round-robin: does a small
launch keep every host thread busy?
"""
from __future__ import annotations

import contextlib
import dataclasses
import gc
import math

import numba
import numpy as np

from ..faces.functional import face

swish_backward = face("swish_grad")   # swishgrad_numba.swish_backward (issue 40: generated)
from ..dtypes import DTYPES, dtype_info
from ..platform import REFERENCE_PLATFORM, Platform
from . import peers
from .inputs import BETA_NUMPY, BETA_TORCH, make_inputs, parse_threads
from .timing import TURN_PAUSE, time_interleaved

__all__ = ["DEFAULT_DTYPES", "SCALING_CORES", "SCALING_SIZE", "find_row", "run_comparison", "thread_scaling"]

#: Every dtype of the table, the runs' default.
DEFAULT_DTYPES = tuple(DTYPES)
#: Size and emulated core counts of the thread-scaling measurement (issue 14).
SCALING_SIZE = 1 << 22
SCALING_CORES = (1, 3)


def find_row(rows, **key):
    """The first row whose fields equal ``key``'s, or ``None``."""
    for row in rows:
        if all(row.get(k) == v for k, v in key.items()):
            return row
    return None


def result_row(impl, variant, info, n, threads, beta, timing, bytes_moved=None, skipped=None, platform=None):
    """One result row; ``platform`` (the emulator's and the flat loop's) names the kernel."""
    row = {"impl": impl, "variant": variant, "dtype": info.name, "size": n, "log2_size": int(math.log2(n)),
           "threads": threads, "beta": beta, "seconds": None, "min_seconds": None, "number": None,
           "repeat": None, "elements_per_s": None, "gb_per_s": None, "ratio_torch": None,
           "ratio_numpy": None, "roofline_pct": None, "skipped": skipped,
           "kernel": None if platform is None else platform.architecture,
           "soc": None if platform is None else platform.soc_family}
    if timing is not None:
        row.update(timing)
        moved = 3 * n * info.itemsize if bytes_moved is None else bytes_moved
        row["elements_per_s"] = n / timing["seconds"]
        row["gb_per_s"] = moved / timing["seconds"] / 1e9
    return row


def check_run(dtypes_, repeat, platform):
    """The run's dtype rows and platform, or a clear error."""
    infos = [dtype_info(d, argname="dtypes") for d in dtypes_]
    if not infos:
        raise ValueError("dtypes must name at least one dtype")
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise ValueError(f"repeat must be an int >= 1, got {repeat!r}")
    if platform is not None and not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    return infos, platform or REFERENCE_PLATFORM


@contextlib.contextmanager
def thread_counts_restored(torch_too: bool):
    """Restore Numba's (and torch's) thread count on the way out."""
    torch = None
    if torch_too:
        import torch
    saved_numba = numba.get_num_threads()
    saved_torch = torch.get_num_threads() if torch is not None else None
    try:
        yield
    finally:
        numba.set_num_threads(saved_numba)
        if torch is not None:
            torch.set_num_threads(saved_torch)


def use_threads(k: int, torch_too: bool) -> None:
    numba.set_num_threads(k)
    if torch_too:
        import torch

        if torch.get_num_threads() != k:
            torch.set_num_threads(k)


# --------------------------------------------------------------------------
# the comparison
# --------------------------------------------------------------------------

def _cell_inputs(n, info, have_torch) -> dict:
    """The arrays of one (dtype, size) cell: inputs, output, the triad's arrays over the same bytes, tensors."""
    g, x = make_inputs(n, info)
    n32 = max(1, n * info.itemsize // 4)
    data = dict(g=g, x=x, out=np.empty_like(x), n32=n32, ta=np.empty(n32, dtype=np.float32),
                tb=np.ones(n32, dtype=np.float32), tc=np.full(n32, 2.0, dtype=np.float32))
    if have_torch:
        data.update(tg=peers.torch_tensor(g), tx=peers.torch_tensor(x), tout=peers.torch_tensor(np.empty_like(x)))
    return data


def _cell_fns(data, thread_counts, platform, ops) -> dict:
    """Every call timed in one cell, keyed ``(threads, impl, variant[, beta])``; NumPy's key is ``("numpy",)``."""
    g, x, out, ta, tb, tc = (data[k] for k in ("g", "x", "out", "ta", "tb", "tc"))
    fns = {("numpy",): lambda: peers.numpy_golden(g, x, BETA_NUMPY)}
    for k in thread_counts:
        # The roofline is the faster of a threaded and a one-thread triad: at
        # small sizes waking the thread pool costs more than the copy.
        fns[k, "triad", "serial"] = lambda: peers.triad(ta, tb, tc, parallel=False)
        if k > 1:
            fns[k, "triad", "parallel"] = lambda: peers.triad(ta, tb, tc)
        for beta in (BETA_NUMPY, BETA_TORCH):
            fns[k, "emulator", "out", beta] = lambda beta=beta: swish_backward(g, x, beta, out=out,
                                                                               platform=platform)
            fns[k, "emulator", "alloc", beta] = lambda beta=beta: swish_backward(g, x, beta, platform=platform)
        fns[k, "flat", "out"] = lambda: peers.flat_loop(g, x, out, BETA_NUMPY, platform=platform)
        if ops is not None:
            silu, silu_into = ops
            tg, tx, tout = data["tg"], data["tx"], data["tout"]
            fns[k, "torch", "alloc"] = lambda: silu(tg, tx)
            fns[k, "torch", "out"] = lambda: silu_into(tg, tx, grad_input=tout)
    return fns


def _cell_rows(data, info, n, k, timed, platform, skip_reason, flat_matches) -> list[dict]:
    """The rows of one (dtype, size, threads) cell from its timings, ratios filled in."""
    n32 = data["n32"]
    tri = {variant: timed[k, "triad", variant] for variant in ("serial", "parallel") if (k, "triad", variant) in timed}
    best = min(tri, key=lambda v: tri[v]["seconds"])
    triad_row = result_row("triad", best, info, n, k, None, tri[best], bytes_moved=3 * n32 * 4)
    triad_row.update(float32_elements=n32, serial_seconds=tri["serial"]["seconds"],
                     parallel_seconds=tri["parallel"]["seconds"] if k > 1 else None)
    emu = {(variant, beta): result_row("emulator", variant, info, n, k, beta, timed[k, "emulator", variant, beta],
                                 platform=platform)
           for variant in ("out", "alloc") for beta in (BETA_NUMPY, BETA_TORCH)}
    flat_row = result_row("flat", "out", info, n, k, BETA_NUMPY, timed[k, "flat", "out"], platform=platform)
    flat_row["matches_emulator"] = flat_matches
    torch_rows = {variant: result_row("torch", variant, info, n, k, BETA_TORCH, timed.get((k, "torch", variant)),
                                skipped=skip_reason) for variant in ("alloc", "out")}
    for row in torch_rows.values():
        row["omp_wait_policy"] = None if skip_reason else peers.torch_omp_wait_policy()
    t_np = timed["numpy",]
    np_row = result_row("numpy", "alloc", info, n, k, BETA_NUMPY, t_np)
    for (variant, beta), row in emu.items():
        if beta == BETA_NUMPY:
            row["ratio_numpy"] = t_np["seconds"] / row["seconds"]
        elif torch_rows[variant]["seconds"] is not None:
            row["ratio_torch"] = torch_rows[variant]["seconds"] / row["seconds"]
    flat_row["ratio_numpy"] = t_np["seconds"] / flat_row["seconds"]
    if torch_rows["alloc"]["seconds"] is not None:
        np_row["ratio_torch"] = torch_rows["alloc"]["seconds"] / np_row["seconds"]
    rows = [triad_row, *emu.values(), flat_row, np_row, *torch_rows.values()]
    for row in rows:
        if row["gb_per_s"] is not None:
            row["roofline_pct"] = 100.0 * row["gb_per_s"] / triad_row["gb_per_s"]
    return rows


def run_comparison(sizes, dtypes_=DEFAULT_DTYPES, threads=None, repeat: int = 5, min_time: float = 0.02,
                   use_torch: bool = True, progress=None, platform: Platform | None = None) -> list[dict]:
    """Time every implementation for every (dtype, size, thread count).

    Parameters
    ----------
    sizes : sequence of int
        Element counts (>= 1).
    dtypes_ : sequence
        Dtype names or dtypes.
    threads : sequence of int, optional
        Numba (and torch) thread counts; all of Numba's threads by default.
    repeat : int
        Repeats per figure; the median is reported.
    min_time : float
        Minimum seconds per repeat; small calls are looped to reach it.
    use_torch : bool
        Time PyTorch when it is installed.
    progress : callable, optional
        ``progress(done, total, label)`` after each step.
    platform : Platform, optional
        The emulator's platform (its SoC picks the kernel); the A2 reference
        platform by default.

    Returns
    -------
    list of dict
        One row per (impl, variant, dtype, size, threads); see the module
        docstring for the fields.
    """
    sizes = [int(n) for n in sizes]
    if not sizes or min(sizes) < 1:
        raise ValueError("sizes must be a non-empty list of element counts >= 1")
    infos, platform = check_run(dtypes_, repeat, platform)
    thread_counts = parse_threads(threads if threads is not None else [numba.config.NUMBA_NUM_THREADS])
    have_torch = use_torch and peers.torch_available()
    ops = peers.torch_ops() if have_torch else None
    skip_reason = None if have_torch else ("torch not installed" if use_torch else "disabled")
    total, done = 2 * len(infos) * len(sizes), 0  # per cell: its inputs, then its timings
    rows: list[dict] = []
    with thread_counts_restored(have_torch):
        for info in infos:
            for n in sizes:
                cell = f"{info.name} 2^{math.log2(n):g}"
                data = _cell_inputs(n, info, have_torch)
                done += 1
                if progress is not None:
                    progress(done, total, f"{cell} inputs")
                # Every implementation at every thread count of this cell is timed
                # round-robin, so drift on a shared machine hits all alike and every
                # ratio compares like with like. NumPy's golden is single-threaded.
                fns = _cell_fns(data, thread_counts, platform, ops)
                setups = {key: (lambda k=key[0]: use_threads(k, have_torch)) for key in fns if key[0] != "numpy"}
                timed = time_interleaved(fns, repeat, min_time, pause=TURN_PAUSE, setups=setups)
                # The flat loop must give the emulator's bits, or its time means nothing.
                g, x = data["g"], data["x"]
                flat_matches = bool(np.array_equal(
                    peers.flat_loop(g, x, np.empty_like(x), BETA_NUMPY, platform=platform).view(np.uint8),
                    swish_backward(g, x, BETA_NUMPY, platform=platform).view(np.uint8)))
                for k in thread_counts:
                    rows += _cell_rows(data, info, n, k, timed, platform, skip_reason, flat_matches)
                done += 1
                if progress is not None:
                    progress(done, total, f"{cell} timed")
                del data, fns, timed, g, x
                gc.collect()
    return rows


# --------------------------------------------------------------------------
# thread scaling
# --------------------------------------------------------------------------

def thread_scaling(size: int = SCALING_SIZE, dtypes_=DEFAULT_DTYPES, cores=SCALING_CORES, threads=None,
                   repeat: int = 5, min_time: float = 0.02, platform: Platform | None = None,
                   progress=None) -> list[dict]:
    """Launches of a few emulated cores timed at 1 host thread and more: is every thread busy?

    For each dtype and each ``k`` of ``cores``, ``swish_backward(g, x,
    1.1, out=out, platform=replace(platform, core_num=k))`` at every thread
    count, all of one dtype round-robin. ``speedup`` is the time on 1
    thread over the time on the row's count (the same launch, the same run).

    Parameters
    ----------
    size : int
        Elements per call (2^22 for the issue's target).
    dtypes_ : sequence
        Dtype names or dtypes.
    cores : sequence of int
        Emulated core counts (``Platform.core_num``).
    threads : sequence of int, optional
        Numba thread counts; 1 is always added. Default 1 and 2 (where
        Numba has 2 threads).
    repeat, min_time : int, float
        As in :func:`run_comparison`.
    platform : Platform, optional
        The platform whose core count is replaced; its SoC picks the kernel.
    progress : callable, optional
        ``progress(done, total, label)`` after each dtype.

    Returns
    -------
    list of dict
        Rows as :func:`run_comparison` makes them (``impl`` ``"emulator"``,
        ``variant`` ``"out"``), plus ``cores`` and ``speedup``.
    """
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"size must be an int >= 1, got {size!r}")
    core_counts = list(cores)
    if not core_counts or any(isinstance(c, bool) or not isinstance(c, int) or c < 1 for c in core_counts):
        raise ValueError(f"cores must be a non-empty sequence of ints >= 1, got {cores!r}")
    infos, platform = check_run(dtypes_, repeat, platform)
    default = [1, min(2, numba.config.NUMBA_NUM_THREADS)]
    thread_counts = parse_threads([1, *(threads if threads is not None else default)])
    launches = {c: dataclasses.replace(platform, core_num=c) for c in core_counts}
    rows: list[dict] = []
    with thread_counts_restored(False):
        for i, info in enumerate(infos):
            g, x = make_inputs(size, info)
            out = np.empty_like(x)
            fns = {(c, k): (lambda p=launches[c]: swish_backward(g, x, BETA_NUMPY, out=out, platform=p))
                   for c in core_counts for k in thread_counts}
            setups = {key: (lambda k=key[1]: use_threads(k, False)) for key in fns}
            timed = time_interleaved(fns, repeat, min_time, pause=TURN_PAUSE, setups=setups)
            for c in core_counts:
                for k in thread_counts:
                    row = result_row("emulator", "out", info, size, k, BETA_NUMPY, timed[c, k], platform=launches[c])
                    row.update(cores=c, speedup=timed[c, 1]["seconds"] / timed[c, k]["seconds"])
                    rows.append(row)
            if progress is not None:
                progress(i + 1, len(infos), f"thread scaling {info.name} 2^{math.log2(size):g}")
            del g, x, out, fns
            gc.collect()
    return rows
