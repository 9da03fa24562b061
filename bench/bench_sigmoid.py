"""pytest-benchmark benchmarks: Sigmoid and SigmoidBackward against their PyTorch peers, writing into an output.

One group per (op, dtype, size): the emulator with ``out=`` (the A2 kernels) and PyTorch into a preallocated
tensor: ``torch.sigmoid(x, out=)`` for sigmoid, ``torch.ops.aten.sigmoid_backward.grad_input`` for
sigmoid_backward (the output ``y = sigmoid(x)`` as its input, as the NPU's SigmoidGrad takes it). Inputs as
bench_family.py's (:func:`swishgrad_numba.benchmark.make_inputs`); a 16-bit forward is a table lookup.

The default run (``python -m pytest``, which passes ``--benchmark-disable``) calls each case once at a tiny
size as a smoke test. Measured::

    SWISHGRAD_BENCH_FULL=1 python -m pytest bench/bench_sigmoid.py --benchmark-enable --benchmark-only

Environment as bench_family.py's: ``SWISHGRAD_BENCH_FULL``, ``SWISHGRAD_BENCH_SIZES``, ``SWISHGRAD_BENCH_DTYPES``,
``SWISHGRAD_BENCH_THREADS``. No timing assertions.
"""
from __future__ import annotations

import os

import numba
import numpy as np
import pytest

import swishgrad_numba as sg
from swishgrad_numba.benchmark import DEFAULT_DTYPES, make_inputs, parse_sizes, torch_available, torch_tensor
from swishgrad_numba.dtypes import canonical_dtype

FULL = os.environ.get("SWISHGRAD_BENCH_FULL", "") not in ("", "0")
SIZES = parse_sizes(os.environ.get("SWISHGRAD_BENCH_SIZES") or ("20,22" if FULL else "10"))
DTYPES = [canonical_dtype(d.strip(), argname="SWISHGRAD_BENCH_DTYPES").name
          for d in os.environ.get("SWISHGRAD_BENCH_DTYPES", ",".join(DEFAULT_DTYPES)).split(",")]
THREADS = int(os.environ.get("SWISHGRAD_BENCH_THREADS") or numba.config.NUMBA_NUM_THREADS)
HAVE_TORCH = torch_available()
torch = __import__("torch") if HAVE_TORCH else None
OPS = {"sigmoid": 1, "sigmoid_backward": 2}        # inputs read
CASES = [(op, d, n, impl) for op in OPS for d in DTYPES for n in SIZES for impl in ("emulator", "torch")]


def _calls(op, g, x, out):
    y = sg.sigmoid(x)                               # the forward's output: SigmoidGrad's input
    if op == "sigmoid":
        emulator = lambda: sg.sigmoid(x, out=out)                                   # noqa: E731
    else:
        emulator = lambda: sg.sigmoid_backward(g, y, out=out)                       # noqa: E731
    if torch is None:
        return emulator, None
    tg, tx, ty, tout = (torch_tensor(a) for a in (g, x, y, np.empty_like(out)))
    if op == "sigmoid":
        return emulator, lambda: torch.sigmoid(tx, out=tout)
    return emulator, lambda: torch.ops.aten.sigmoid_backward.grad_input(tg, ty, grad_input=tout)


@pytest.fixture(scope="module", autouse=True)
def _threads():
    saved = numba.get_num_threads()
    numba.set_num_threads(max(1, min(THREADS, numba.config.NUMBA_NUM_THREADS)))
    yield
    numba.set_num_threads(saved)


@pytest.mark.parametrize("op, dtype, n, impl", CASES,
                         ids=[f"{op}-{d}-2^{n.bit_length() - 1}-{impl}" for op, d, n, impl in CASES])
def test_sigmoid_ops(benchmark, op, dtype, n, impl):
    if impl == "torch" and torch is None:
        pytest.skip("torch not installed (pip install 'swishgrad_numba[bench]')")
    g, x = make_inputs(n, dtype)
    out = np.empty_like(x)
    emulator, peer = _calls(op, g, x, out)
    fn = emulator if impl == "emulator" else peer
    moved = (OPS[op] + 1) * n * x.dtype.itemsize
    benchmark.group = f"{op} {dtype} 2^{n.bit_length() - 1}"
    benchmark.extra_info.update(op=op, dtype=dtype, elements=n, bytes_moved=moved, threads=THREADS)
    if not benchmark.disabled:
        fn()  # warm-up: JIT cache load, output table, page faults
    result = benchmark(fn)
    assert tuple(result.shape) == x.shape
    assert str(result.dtype).removeprefix("torch.") == dtype
    if benchmark.stats is not None:
        benchmark.extra_info["gb_per_s"] = moved / benchmark.stats.stats.median / 1e9
