"""Where the Atlas A2 and the Ascend 950 kernels give different bits (README "Two kernels").

Runs both emulated kernels on the same inputs and counts the elements whose
bits differ, the largest ULP distance between them, and how many of the
differences are only the sign of a zero. Seeded; prints a Markdown table.

    python bench/two_kernels.py [--size LOG2]
"""
from __future__ import annotations

import argparse

import numpy as np

import swishgrad_numba as sg
from swishgrad_numba.dtypes import DTYPES
from swishgrad_numba.precision import ulp_distance

SEED = 15
LABELS = {"seed": "seed example", "uniform": "uniform [-5, 5)", "wide": "wide: N(0, 1) x 10^U(-3, 3)"}


def inputs(kind: str, n: int, dtype, rng):
    """(grad, x): 'seed' is the model's seed example; 'uniform' is [-5, 5); 'wide' spans float32's range."""
    if kind == "seed":
        return np.ones(6, np.float32).astype(dtype), np.arange(1, 7, dtype=np.float32).astype(dtype)
    g = rng.uniform(-5, 5, n).astype(np.float32)
    if kind == "uniform":
        x = rng.uniform(-5, 5, n).astype(np.float32)
    else:
        x = (rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 3, n)).astype(np.float32)
    with np.errstate(over="ignore"):
        return g.astype(dtype), x.astype(dtype)


def differences(a2: np.ndarray, a950: np.ndarray) -> dict:
    """Counts of differing bit patterns (any NaN equals any NaN), sign-of-zero-only ones, max ULP."""
    width = f"u{a2.itemsize}"
    with np.errstate(invalid="ignore"):
        nan = np.isnan(a2.astype(np.float32)) & np.isnan(a950.astype(np.float32))
    differ = (a2.view(width) != a950.view(width)) & ~nan
    zero_sign = differ & (a2.astype(np.float32) == 0) & (a950.astype(np.float32) == 0)
    ulp = ulp_distance(a2, a950)
    return {"n": a2.size, "differ": int(differ.sum()), "zero_sign": int(zero_sign.sum()),
            "max_ulp": int(ulp[ulp >= 0].max()) if a2.size else 0}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=20, help="log2 of the random input size (default 20)")
    args = parser.parse_args(argv)
    n = 1 << args.size
    print("| inputs | beta | dtype | elements | differ | of which sign of zero | max ULP |")
    print("|---|---|---|---|---|---|---|")
    for kind, beta in (("seed", 1.1), ("uniform", 1.0), ("uniform", 1.1), ("wide", 1.0)):
        for index, (name, info) in enumerate(DTYPES.items()):
            rng = np.random.default_rng([SEED, args.size, len(kind), index])
            g, x = inputs(kind, n, info.numpy, rng)
            on_950 = sg.swish_backward(g, x, beta, platform=sg.ASCEND950_PLATFORM)
            d = differences(sg.swish_backward(g, x, beta), on_950)
            label = LABELS[kind]
            print(f"| {label} | {beta} | {name} | {d['n']:,} | {d['differ']:,} | {d['zero_sign']:,} | {d['max_ulp']} |")


if __name__ == "__main__":
    main()
