"""pytest-benchmark benchmarks: the emulator against its peers, per dtype and size.

Each (dtype, size) is one pytest-benchmark group, so its table shows side by
side: the emulator (``out=`` and allocating, the A2 kernel; at one size also
the Ascend 950 kernel with ``out=``), the NumPy golden, PyTorch's
``silu_backward`` allocating and with ``out=`` (skipped without torch), the
emulator's arithmetic over flat chunks, and a float32 STREAM triad over the
same bytes (the memory roofline). ``extra_info`` carries the bytes moved
(``3 * n * itemsize``) and, when timed, GB/s. Everything is called through
the package's entry points (``swish_backward`` and
:mod:`swishgrad_numba.benchmark`), as ``swishgrad bench`` calls it.

The default run (``python -m pytest``, which passes ``--benchmark-disable``)
calls each case once at tiny sizes as a smoke test. The full grid::

    SWISHGRAD_BENCH_FULL=1 python -m pytest bench --benchmark-enable --benchmark-only -n 0

Environment: ``SWISHGRAD_BENCH_FULL=1`` sizes 2^10..2^26 (the 950 kernel at 2^20);
``SWISHGRAD_BENCH_SIZES=10,16,20`` (log2, or ``a:b``/``a:b:step``) any
sizes; ``SWISHGRAD_BENCH_DTYPES=float32,bf16``; ``SWISHGRAD_BENCH_THREADS=k``
Numba and torch threads (default: all of Numba's).

No timing assertions: each case checks only the shape and dtype of what it
produced, so a broken call fails.
"""
from __future__ import annotations

import os

import numba
import numpy as np
import pytest

from swishgrad_numba import ASCEND950_PLATFORM, REFERENCE_PLATFORM, swish_backward
from swishgrad_numba.benchmark import (BETA_NUMPY, BETA_TORCH, DEFAULT_DTYPES, flat_loop, make_inputs, numpy_golden,
                                       parse_sizes, torch_available, torch_ops, torch_tensor, triad)
from swishgrad_numba.dtypes import canonical_dtype

FULL = os.environ.get("SWISHGRAD_BENCH_FULL", "") not in ("", "0")
SIZES = parse_sizes(os.environ.get("SWISHGRAD_BENCH_SIZES") or ("10:26" if FULL else "10,12"))
DTYPES = [canonical_dtype(d.strip(), argname="SWISHGRAD_BENCH_DTYPES").name
          for d in os.environ.get("SWISHGRAD_BENCH_DTYPES", ",".join(DEFAULT_DTYPES)).split(",")]
THREADS = int(os.environ.get("SWISHGRAD_BENCH_THREADS") or numba.config.NUMBA_NUM_THREADS)
IMPLS = ["emulator", "emulator_alloc", "numpy_golden", "torch_silu_backward", "torch_silu_backward_out", "flat_loop",
         "triad"]
#: The one size at which the Ascend 950 kernel is timed too (2^20 when measured, else the largest size).
SIZE_950 = (1 << 20) if (1 << 20) in SIZES else SIZES[-1]

if torch_available():
    import torch
else:  # the optional 'bench' extra
    torch = None

# Cases ordered dtype, size, impl so that one (dtype, size) set of inputs
# serves its cases and is then freed.
CASES = [(d, n, impl) for d in DTYPES for n in SIZES
         for impl in IMPLS + (["emulator_950"] if n == SIZE_950 else [])]
_INPUTS: dict = {}


def _inputs(dtype, n):
    key = (dtype, n)
    if key not in _INPUTS:
        _INPUTS.clear()  # free the previous size before allocating the next
        g, x = make_inputs(n, dtype)
        n32 = max(1, n * g.dtype.itemsize // 4)
        _INPUTS[key] = dict(g=g, x=x, out=np.empty_like(x), a=np.empty(n32, np.float32),
                            b=np.ones(n32, np.float32), c=np.full(n32, 2.0, np.float32))
    return _INPUTS[key]


@pytest.fixture(scope="module", autouse=True)
def _threads():
    if not 1 <= THREADS <= numba.config.NUMBA_NUM_THREADS:
        raise ValueError(f"SWISHGRAD_BENCH_THREADS must be in 1..{numba.config.NUMBA_NUM_THREADS}, got {THREADS}")
    saved = numba.get_num_threads()
    saved_torch = torch.get_num_threads() if torch is not None else None
    numba.set_num_threads(THREADS)
    if torch is not None:
        torch.set_num_threads(THREADS)
    yield
    numba.set_num_threads(saved)
    if torch is not None:
        torch.set_num_threads(saved_torch)
    _INPUTS.clear()


def _call(impl, data):
    """The function to time and what its result must look like: (fn, shape, dtype)."""
    g, x, out = data["g"], data["x"], data["out"]
    if impl == "emulator":
        return (lambda: swish_backward(g, x, BETA_NUMPY, out=out)), x.shape, x.dtype
    if impl == "emulator_alloc":
        return (lambda: swish_backward(g, x, BETA_NUMPY)), x.shape, x.dtype
    if impl == "emulator_950":
        return (lambda: swish_backward(g, x, BETA_NUMPY, out=out, platform=ASCEND950_PLATFORM)), x.shape, x.dtype
    if impl == "numpy_golden":
        return (lambda: numpy_golden(g, x, BETA_NUMPY)), x.shape, x.dtype
    if impl == "flat_loop":
        return (lambda: flat_loop(g, x, out, BETA_NUMPY)), x.shape, x.dtype
    if impl == "triad":
        a, b, c = data["a"], data["b"], data["c"]
        return (lambda: triad(a, b, c)), a.shape, a.dtype
    silu, silu_into = torch_ops()
    tg, tx = torch_tensor(g), torch_tensor(x)
    if impl == "torch_silu_backward_out":
        tout = torch_tensor(out)
        return (lambda: silu_into(tg, tx, grad_input=tout)), x.shape, tg.dtype
    return (lambda: silu(tg, tx)), x.shape, tg.dtype


@pytest.mark.parametrize("dtype, n, impl", CASES,
                         ids=[f"{d}-2^{n.bit_length() - 1}-{impl}" for d, n, impl in CASES])
def test_swishgrad(benchmark, dtype, n, impl):
    if impl.startswith("torch_silu_backward") and torch is None:
        pytest.skip("torch not installed (pip install 'swishgrad_numba[bench]')")
    data = _inputs(dtype, n)
    fn, shape, result_dtype = _call(impl, data)
    itemsize = data["x"].dtype.itemsize
    moved = 3 * n * itemsize
    benchmark.group = f"{dtype} 2^{n.bit_length() - 1}"
    benchmark.extra_info.update(dtype=dtype, elements=n, bytes_moved=moved, threads=THREADS,
                                beta=BETA_TORCH if impl.startswith("torch") else BETA_NUMPY)
    if impl == "triad":
        benchmark.extra_info["float32_elements"] = data["a"].size
    if impl.startswith(("emulator", "flat")):
        platform = ASCEND950_PLATFORM if impl == "emulator_950" else REFERENCE_PLATFORM
        benchmark.extra_info["kernel"] = platform.architecture
    if not benchmark.disabled:
        fn()  # warm-up: JIT cache load, derivative table, page faults
    result = benchmark(fn)
    assert tuple(result.shape) == shape and result.dtype == result_dtype
    if benchmark.stats is not None:
        median = benchmark.stats.stats.median
        benchmark.extra_info["gb_per_s"] = moved / median / 1e9
        benchmark.extra_info["elements_per_s"] = n / median
