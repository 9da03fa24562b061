"""Does the emulator's figure depend on what was timed before it? (bench/RESULTS.md, "Fair peers")

Times ``swish_backward`` (A2, beta 1.0, into ``out``) at one size in four
settings, each in a fresh process, the settings taking turns ``--rounds``
times so that drift on a shared machine hits all alike:

- ``alone``: no torch in the process;
- ``after torch, passive``: in ``run_comparison``'s round-robin with torch
  loaded the way the benchmark loads it (``OMP_WAIT_POLICY=PASSIVE``), the
  turns alternating direction;
- ``before torch, passive``: the same, the order of the peers reversed;
- ``after torch, active``: torch loaded with ``OMP_WAIT_POLICY=ACTIVE``
  (spinning workers, GNU OpenMP's behaviour the benchmark used to get).

torch's own figure is printed beside each. Prints a Markdown table of the
medians (million elements per second).

    python bench/order_check.py [--size LOG2] [--dtype float32] [--rounds 3]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, sys
import numba
from swishgrad_numba.benchmark import peers, run_comparison, find_row
size, dtype, with_torch, reverse = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "1", sys.argv[4] == "1"
if with_torch:
    assert peers.torch_available()
if reverse:   # the same cell with the peers' order reversed: the emulator goes first
    from swishgrad_numba.benchmark import runner
    original = runner._cell_fns
    runner._cell_fns = lambda *a: dict(reversed(list(original(*a).items())))
rows = run_comparison([size], [dtype], use_torch=with_torch, repeat=5, min_time=0.05)
emu = find_row(rows, impl="emulator", variant="out", beta=1.0)
torch_row = find_row(rows, impl="torch", variant="out")
print(json.dumps({"emulator": emu["elements_per_s"], "torch": torch_row["elements_per_s"],
                  "policy": torch_row.get("omp_wait_policy")}))
"""

SETTINGS = {
    "alone": ("0", "0", None),
    "after torch, passive": ("1", "0", "PASSIVE"),
    "before torch, passive": ("1", "1", "PASSIVE"),
    "after torch, active": ("1", "0", "ACTIVE"),
}


def run(size: int, dtype: str, with_torch: str, reverse: str, policy) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if policy is not None:
        env["OMP_WAIT_POLICY"] = policy
    out = subprocess.run([sys.executable, "-c", CHILD, str(size), dtype, with_torch, reverse],
                         env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=20, help="log2 of the element count (default 20)")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    samples = {name: [] for name in SETTINGS}
    torch_samples = {name: [] for name in SETTINGS}
    for _ in range(args.rounds):
        for name, (with_torch, reverse, policy) in SETTINGS.items():
            result = run(1 << args.size, args.dtype, with_torch, reverse, policy)
            samples[name].append(result["emulator"])
            if result["torch"] is not None:
                torch_samples[name].append(result["torch"])
    print(f"{args.dtype}, 2^{args.size} elements, {args.rounds} rounds, median (min-max) in Me/s\n")
    print("| setting | emulator | torch |")
    print("|---|---|---|")
    for name in SETTINGS:
        def cell(values):
            if not values:
                return "-"
            return (f"{statistics.median(values) / 1e6:,.0f} "
                    f"({min(values) / 1e6:,.0f}-{max(values) / 1e6:,.0f})")
        print(f"| {name} | {cell(samples[name])} | {cell(torch_samples[name])} |")


if __name__ == "__main__":
    main()
