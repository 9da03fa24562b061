"""pytest-benchmark benchmarks: the third tier (issue 41) against its PyTorch peers, each writing into an output.

One pytest-benchmark group per (op, dtype, size): the emulator with ``out=`` and its peer writing into a
preallocated tensor:

- ``mish`` (the A2 kernel): ``torch.ops.aten.mish.out``; ``mish_backward`` (the 950's MishGrad, its only
  kernel now): ``torch.ops.aten.mish_backward`` (no out variant; a new tensor);
- ``hardswish`` (the 950's, its only kernel): ``torch.ops.aten.hardswish.out``; ``hardswish_backward`` (the
  A2's): ``torch.ops.aten.hardswish_backward.out``;
- ``swiglu`` (the A2's, x of rows of 4096 split into halves): ``torch.mul(silu(a), b, out=)``, a and b views of
  x's halves (silu's result is one temporary);
- ``swiglu_backward`` (the A2's, the same rows): ``aten.silu_backward.grad_input(g * b, a)`` into grad_x's first
  half and ``torch.mul(g, silu(a))`` into its second (two temporaries, as the autograd of the forward makes);
- ``relu`` (the A2's): ``torch.ops.aten.relu.out``; ``threshold_backward`` (the A2's, threshold 0, so ReluGrad):
  ``torch.ops.aten.threshold_backward.grad_input``.

The default run (``python -m pytest``, which passes ``--benchmark-disable``) calls each case once at a tiny size
as a smoke test. Measured::

    SWISHGRAD_BENCH_FULL=1 python -m pytest bench/bench_tier3.py --benchmark-enable --benchmark-only -n 0

Environment: ``SWISHGRAD_BENCH_FULL=1`` sizes 2^20 and 2^22 (``SWISHGRAD_BENCH_SIZES`` as in
bench_swishgrad.py), ``SWISHGRAD_BENCH_DTYPES``, ``SWISHGRAD_BENCH_THREADS``.

No timing assertions: each case checks only the shape and dtype of what it produced.
"""
from __future__ import annotations

import os

import numba
import numpy as np
import pytest

import swishgrad_numba as sg
from swishgrad_numba.benchmark import DEFAULT_DTYPES, parse_sizes, torch_available
from swishgrad_numba.dtypes import canonical_dtype

FULL = os.environ.get("SWISHGRAD_BENCH_FULL", "") not in ("", "0")
SIZES = parse_sizes(os.environ.get("SWISHGRAD_BENCH_SIZES") or ("20,22" if FULL else "13"))
DTYPES = [canonical_dtype(d.strip(), argname="SWISHGRAD_BENCH_DTYPES").name
          for d in os.environ.get("SWISHGRAD_BENCH_DTYPES", ",".join(DEFAULT_DTYPES)).split(",")]
THREADS = int(os.environ.get("SWISHGRAD_BENCH_THREADS") or numba.config.NUMBA_NUM_THREADS)
HAVE_TORCH = torch_available()
if HAVE_TORCH:
    import torch
else:
    torch = None

COLS = 4096          # swiglu: x's row length (halves of 2048)
A2, P950 = sg.REFERENCE_PLATFORM, sg.ASCEND950_PLATFORM
OPS = ("mish", "mish_backward", "hardswish", "hardswish_backward", "swiglu", "swiglu_backward", "relu",
       "threshold_backward")
CASES = [(op, d, n, impl) for op in OPS for d in DTYPES for n in SIZES for impl in ("emulator", "torch")]
_INPUTS: dict = {}


def _inputs(dtype, n):
    if (dtype, n) not in _INPUTS:
        _INPUTS.clear()
        rng = np.random.default_rng(0)
        np_dt = canonical_dtype(dtype)
        x = rng.uniform(-8, 8, n).astype(np.float32).astype(np_dt)
        g = rng.uniform(-2, 2, n).astype(np.float32).astype(np_dt)
        data = {"x": x, "g": g}
        if torch is not None:
            t_dt = getattr(torch, dtype)
            data.update(xt=torch.from_numpy(x.astype(np.float32)).to(t_dt),
                        gt=torch.from_numpy(g.astype(np.float32)).to(t_dt))
        _INPUTS[dtype, n] = data
    return _INPUTS[dtype, n]


def _calls(op, d):
    """(emulator call, torch call, shape of the result)."""
    x, g = d["x"], d["g"]
    if op == "swiglu":
        x2 = x.reshape(-1, COLS)
        out = np.empty((x2.shape[0], COLS // 2), x.dtype)
        emu = lambda: sg.swiglu(x2, out=out, platform=A2)  # noqa: E731
        if torch is None:
            return emu, None, out.shape
        xt = d["xt"].reshape(-1, COLS)
        a, b = xt[:, :COLS // 2], xt[:, COLS // 2:]
        ot = torch.empty(a.shape, dtype=xt.dtype)
        return emu, lambda: torch.mul(torch.nn.functional.silu(a), b, out=ot), out.shape
    if op == "swiglu_backward":      # x of rows of COLS, the incoming gradient of the forward's shape
        x2, g2 = x.reshape(-1, COLS), g[:x.size // 2].reshape(-1, COLS // 2)
        out = np.empty_like(x2)
        emu = lambda: sg.swiglu_backward(g2, x2, out=out, platform=A2)  # noqa: E731
        if torch is None:
            return emu, None, out.shape
        xt, gt = d["xt"].reshape(-1, COLS), d["gt"][:x.size // 2].reshape(-1, COLS // 2)
        a, b = xt[:, :COLS // 2], xt[:, COLS // 2:]
        ot = torch.empty_like(xt)
        ga, gb = ot[:, :COLS // 2], ot[:, COLS // 2:]
        aten = torch.ops.aten

        def peer():        # grad_a = silu'(a) * (g * b), grad_b = g * silu(a), each into its half
            aten.silu_backward.grad_input(gt * b, a, grad_input=ga)
            torch.mul(gt, torch.nn.functional.silu(a), out=gb)
            return ot
        return emu, peer, out.shape
    out = np.empty_like(x)
    fwd, platform = {"mish": (sg.mish, A2), "mish_backward": (sg.mish_backward, P950),
                     "hardswish": (sg.hardswish, P950), "hardswish_backward": (sg.hardswish_backward, A2),
                     "relu": (sg.relu, A2), "threshold_backward": (sg.threshold_backward, A2)}[op]
    emu = (lambda: fwd(g, x, out=out, platform=platform)) if op.endswith("_backward") else \
        (lambda: fwd(x, out=out, platform=platform))
    if torch is None:
        return emu, None, x.shape
    xt, gt = d["xt"], d["gt"]
    ot = torch.empty_like(xt)
    aten = torch.ops.aten
    peer = {"mish": lambda: aten.mish.out(xt, out=ot),
            "mish_backward": lambda: aten.mish_backward(gt, xt),
            "hardswish": lambda: aten.hardswish.out(xt, out=ot),
            "hardswish_backward": lambda: aten.hardswish_backward.out(gt, xt, out=ot),
            "relu": lambda: aten.relu.out(xt, out=ot),
            "threshold_backward": lambda: aten.threshold_backward.grad_input(gt, xt, 0.0, grad_input=ot)}[op]
    return emu, peer, x.shape


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
def test_tier3(benchmark, op, dtype, n, impl):
    if impl == "torch" and torch is None:
        pytest.skip("torch not installed (pip install 'swishgrad_numba[bench]')")
    emu, peer, shape = _calls(op, _inputs(dtype, n))
    fn = emu if impl == "emulator" else peer
    benchmark.group = f"{op} {dtype} 2^{n.bit_length() - 1}"
    benchmark.extra_info.update(op=op, dtype=dtype, elements=n, threads=THREADS)
    if not benchmark.disabled:
        fn()   # warm-up: JIT cache load, page faults
    result = benchmark(fn)
    assert tuple(result.shape) == shape
    assert str(result.dtype).removeprefix("torch.") == dtype
    if benchmark.stats is not None:
        benchmark.extra_info["elements_per_s"] = n / benchmark.stats.stats.median
