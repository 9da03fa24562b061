"""Compiled programs against the hand-written passes they replace, timed in the same run (issue 28).

For each operator whose launch has both, dtype and size: the two launches
alternate (round-robin, direction flipped each repeat) on the same inputs
and plan, after a warm-up call each; the medians are printed in million
elements per second, with the ratio compiled / hand-written. Results go to
bench/RESULTS.md by hand. (Swish's hand-written pass is gone since; its
figures there were taken with it.)

    python bench/bench_program.py [--sizes 20 24] [--repeats 7]
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from swishgrad_numba import ASCEND950_PLATFORM, REFERENCE_PLATFORM, compute_tiling, kernel, runtime
from swishgrad_numba.dtypes import dtype_info
from swishgrad_numba.kernel.swish_grad_pass import launch_hand_written
from swishgrad_numba.ops import swish_grad
from swishgrad_numba.ops.silu_grad import host_tiling as silu_grad_host_tiling, run_a2, run_arch35

DTYPES = ("float32", "float16", "bfloat16")


def swish_grad_launches(platform, info, n, rng):
    g = rng.uniform(-5, 5, n).astype(np.float32).astype(info.numpy)
    x = rng.uniform(-8, 8, n).astype(np.float32).astype(info.numpy)
    out = np.empty(n, dtype=info.numpy)
    arch = kernel.arch_code(platform.architecture)
    tiling = compute_tiling(n, info, platform=platform)
    plan = kernel.plan_launch(tiling.fields, tiling.block_dim, arch, n)
    beta = np.float32(1.25)
    return {"compiled": lambda: swish_grad.launch(g, x, out, plan, beta, info, arch),
            "hand-written": lambda: launch_hand_written(g, x, out, plan, beta, info, arch)}


def silu_grad_launches(platform, info, n, rng):
    dy = rng.uniform(-5, 5, n).astype(np.float32).astype(info.numpy)
    x = rng.uniform(-8, 8, n).astype(np.float32).astype(info.numpy)
    out = np.empty(n, dtype=info.numpy)
    tiling = silu_grad_host_tiling((n,), (n,), info, info, platform)
    run = run_a2 if platform.architecture == "a2" else run_arch35
    return {"compiled": lambda: run(dy, x, out, tiling),
            "hand-written": lambda: run(dy, x, out, tiling, compiled_pass=False)}


CASES = (("swish_grad a2", swish_grad_launches, REFERENCE_PLATFORM),
         ("swish_grad 950", swish_grad_launches, ASCEND950_PLATFORM),
         ("silu_grad a2", silu_grad_launches, REFERENCE_PLATFORM),
         ("silu_grad 950", silu_grad_launches, ASCEND950_PLATFORM))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[20, 24])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--only", nargs="*", help="cases whose name holds one of these")
    ap.add_argument("--dtypes", nargs="*", default=list(DTYPES))
    args = ap.parse_args()
    rng = np.random.default_rng(28)
    print(f"threads {runtime.num_threads()}")
    for name, make, platform in CASES:
        if args.only and not any(o in name for o in args.only):
            continue
        for dtype in args.dtypes:
            info = dtype_info(dtype)
            for k in args.sizes:
                n = 1 << k
                calls = make(platform, info, n, rng)
                times = {c: [] for c in calls}
                for fn in calls.values():
                    fn()
                order = list(calls)
                for r in range(args.repeats):
                    for c in (order if r % 2 == 0 else order[::-1]):
                        t0 = time.perf_counter()
                        calls[c]()
                        times[c].append(time.perf_counter() - t0)
                rate = {c: n / statistics.median(t) / 1e6 for c, t in times.items()}
                print(f"{name:16s} {dtype:9s} 2^{k}: compiled {rate['compiled']:8.1f}  hand-written "
                      f"{rate['hand-written']:8.1f}  ratio {rate['compiled'] / rate['hand-written']:.2f}", flush=True)


if __name__ == "__main__":
    main()
