"""pytest-benchmark benchmarks: every operator against its PyTorch peer, writing into an output where the peer can.

One pytest-benchmark group per (op, dtype, size): the emulator with ``out=`` (the operator's default kernel:
the A2's, or the 950's where it has no other) and its PyTorch peer. The calls are the ones ``swishgrad bench
--op`` times (:data:`swishgrad_numba.benchmark.OP_BENCHES`, which names each peer; the row operators take x as
rows of 4096). bench/target_table.py times every kernel of every operator against issue 39's targets.
A 16-bit forward is a lookup in the 65,536-entry table of the kernel's outputs.

The default run (``python -m pytest``, which passes ``--benchmark-disable``)
calls each case once at a tiny size as a smoke test. Measured::

    SWISHGRAD_BENCH_FULL=1 python -m pytest bench/bench_family.py --benchmark-enable --benchmark-only -n 0

Environment: ``SWISHGRAD_BENCH_FULL=1`` sizes 2^20 and 2^22;
``SWISHGRAD_BENCH_SIZES``, ``SWISHGRAD_BENCH_DTYPES``, ``SWISHGRAD_BENCH_THREADS``
as in bench_swishgrad.py; ``SWISHGRAD_BENCH_OPS=swish,silu`` the operators.

No timing assertions: each case checks only the shape and dtype of what it produced.
"""
from __future__ import annotations

import os

import numba
import pytest

from swishgrad_numba.benchmark import DEFAULT_DTYPES, OP_BENCHES, check_op, make_inputs, op_calls, parse_sizes, \
    torch_available
from swishgrad_numba.benchmark.op_benches import result_of
from swishgrad_numba.dtypes import canonical_dtype

FULL = os.environ.get("SWISHGRAD_BENCH_FULL", "") not in ("", "0")
SIZES = parse_sizes(os.environ.get("SWISHGRAD_BENCH_SIZES") or ("20,22" if FULL else "10"))
DTYPES = [canonical_dtype(d.strip(), argname="SWISHGRAD_BENCH_DTYPES").name
          for d in os.environ.get("SWISHGRAD_BENCH_DTYPES", ",".join(DEFAULT_DTYPES)).split(",")]
OPS = [check_op(op.strip(), argname="SWISHGRAD_BENCH_OPS")
       for op in os.environ.get("SWISHGRAD_BENCH_OPS", ",".join(op for op in OP_BENCHES if op != "swish_grad")).split(",")]
THREADS = int(os.environ.get("SWISHGRAD_BENCH_THREADS") or numba.config.NUMBA_NUM_THREADS)
HAVE_TORCH = torch_available()  # loads torch with passive OpenMP workers

if HAVE_TORCH:
    import torch
else:  # the optional 'bench' extra
    torch = None

CASES = [(op, d, n, impl) for op in OPS for d in DTYPES for n in SIZES for impl in ("emulator", "torch")]
_INPUTS: dict = {}


def _inputs(op, dtype, n):
    key = (op, dtype, n)
    if key not in _INPUTS:
        _INPUTS.clear()  # free the previous size before allocating the next
        g, x, out = OP_BENCHES[op].arrays(*make_inputs(n, dtype))
        _INPUTS[key] = dict(g=g, x=x, out=out)
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


@pytest.mark.parametrize("op, dtype, n, impl", CASES,
                         ids=[f"{op}-{d}-2^{n.bit_length() - 1}-{impl}" for op, d, n, impl in CASES])
def test_family(benchmark, op, dtype, n, impl):
    if impl == "torch" and torch is None:
        pytest.skip("torch not installed (pip install 'swishgrad_numba[bench]')")
    data = _inputs(op, dtype, n)
    emulator, peer = op_calls(op, data["g"], data["x"], data["out"], use_torch=impl == "torch")
    fn = emulator if impl == "emulator" else peer
    bench = OP_BENCHES[op]
    moved = bench.bytes_moved(data["g"], data["x"], data["out"])
    benchmark.group = f"{op} {dtype} 2^{n.bit_length() - 1}"
    benchmark.extra_info.update(op=op, dtype=dtype, elements=n, bytes_moved=moved, threads=THREADS, beta=bench.beta,
                                peer=bench.peer_name if impl == "torch" else None)
    if not benchmark.disabled:
        fn()  # warm-up: JIT cache load, output table, page faults
    result = benchmark(fn)
    assert tuple(result.shape) == result_of(data["out"]).shape
    assert str(result.dtype).removeprefix("torch.") == dtype
    if benchmark.stats is not None:
        median = benchmark.stats.stats.median
        benchmark.extra_info["gb_per_s"] = moved / median / 1e9
        benchmark.extra_info["elements_per_s"] = n / median
