"""RmsNorm on the emulator against ``torch.nn.functional.rms_norm`` (issue 42), both writing a new output.

    python bench/bench_rms_norm.py [--threads 2] [--repeat 5]

Rows x columns of 2^22 elements in all, per dtype and A2 mode; the median of ``--repeat`` warm calls each.
A measurement, not a test: bench/RESULTS.md keeps the numbers.
"""
from __future__ import annotations

import argparse
import time

import ml_dtypes
import numpy as np
import numba
import torch

from swishgrad_numba.ops.rms_norm import rms_norm
from swishgrad_numba.ops.rms_norm.host_a2 import a2_tiling
from swishgrad_numba.platform import Platform

CASES = [(4096, 1024), (1024, 4096), (256, 16384)]     # merge_n, normal, split_d (float32)
DTYPES = {"float32": (np.float32, torch.float32), "float16": (np.float16, torch.float16),
          "bfloat16": (ml_dtypes.bfloat16, torch.bfloat16)}


def _median(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args()
    numba.set_num_threads(a.threads)
    torch.set_num_threads(a.threads)
    print(f"{'dtype':9s} {'rows x cols':>13s} {'mode':8s} {'emulator ms':>12s} {'torch ms':>9s} {'speed':>6s}")
    for name, (np_dt, t_dt) in DTYPES.items():
        for rows, cols in CASES:
            rng = np.random.default_rng(0)
            x = rng.standard_normal((rows, cols)).astype(np.float32).astype(np_dt)
            g = rng.standard_normal(cols).astype(np.float32).astype(np_dt)
            xt = torch.from_numpy(x.astype(np.float32)).to(t_dt)
            gt = torch.from_numpy(g.astype(np.float32)).to(t_dt)
            mode = a2_tiling(rows, cols, x.dtype, g.dtype, 1e-6, Platform()).mode
            ours = _median(lambda: rms_norm(x, g, 1e-6), a.repeat)
            peer = _median(lambda: torch.nn.functional.rms_norm(xt, (cols,), gt, 1e-6), a.repeat)
            print(f"{name:9s} {rows:>6d} x {cols:<5d} {mode:8s} {ours * 1e3:12.2f} {peer * 1e3:9.2f} "
                  f"{peer / ours:5.2f}x")


if __name__ == "__main__":
    main()
