"""The Python time of one large 16-bit call around its hot launch (issue 39).

    python bench/percall_time.py [OP] [DTYPE] [--size N] [--calls K]

Calls ``OP``'s face (its benchmark's ``out=`` call, on the 950) at ``--size`` elements on 2 threads: first whole
(the launch, ``engine.hot._hot_bins``, timed apart), then with the launch a no-op, so only Python is timed,
"warm" (back to back) and "after a sweep" (a 32 MiB array written before each call, as a large launch evicts
L2). Medians in microseconds. Compare trees by running it with each on ``PYTHONPATH``, alternately.
"""
from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from swishgrad_numba.benchmark.family import OP_BENCHES, make_inputs
from swishgrad_numba.dtypes import dtype_info
from swishgrad_numba.engine import hot
from swishgrad_numba.platform import Platform


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("op", nargs="?", default="sigmoid_grad")
    ap.add_argument("dtype", nargs="?", default="bfloat16")
    ap.add_argument("--size", type=int, default=1 << 22)
    ap.add_argument("--calls", type=int, default=300)
    args = ap.parse_args()
    numba.set_num_threads(2)
    g, x = make_inputs(args.size, dtype_info(args.dtype))
    out = np.empty_like(x)
    bench, platform = OP_BENCHES[args.op], Platform(soc_version="ascend950")

    def call():
        bench.emulator(g, x, out, bench.beta, platform)

    for _ in range(3):
        call()
    launch, launches = hot._hot_bins, []

    def timed_launch(*a):
        t = time.perf_counter()
        launch(*a)
        launches.append(time.perf_counter() - t)

    try:
        hot._hot_bins = timed_launch
        whole = []
        for _ in range(40):
            t = time.perf_counter()
            call()
            whole.append(time.perf_counter() - t)
        whole, launched = np.array(whole) * 1e6, np.array(launches) * 1e6
        print(f"{args.op} {args.dtype}: call {np.median(whole):.0f} us, launch {np.median(launched):.0f} us, "
              f"the rest {np.median(whole - launched):.0f} us")
        hot._hot_bins = lambda *a: None
        sweep = np.ones(8 << 20, np.float32)
        for label, swept in (("warm", False), ("after a sweep", True)):
            times = []
            for _ in range(args.calls):
                if swept:
                    sweep += 1.0
                t = time.perf_counter()
                call()
                times.append(time.perf_counter() - t)
            print(f"  Python only, {label}: median {np.median(times) * 1e6:.1f} us")
    finally:
        hot._hot_bins = launch


if __name__ == "__main__":
    main()
