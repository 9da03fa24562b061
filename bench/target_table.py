"""Every operator, kernel and dtype against its PyTorch peer, with issue 39's targets: each 16-bit row at least
1.0x, each float32 row at least 0.5x.

    python bench/target_table.py [--size N] [--threads T] [--json OUT] [--dtypes D ...] [OP ...]
    python bench/target_table.py --trees BEFORE AFTER --turns 2 [OP ...]

The first form times, per operator (every one of :data:`swishgrad_numba.benchmark.family.OP_BENCHES`, which is
every registered operator, unless named), each of its kernels in each dtype with
:func:`swishgrad_numba.benchmark.family.run_op_comparison` (the emulator and the peer interleaved, so read
the ratio on a shared machine). The second runs the first in a child process per tree (a source tree's
root; each child gets ``NUMBA_CACHE_DIR`` of its own under the system's temporary folder, or ``--caches``), in the turns
BEFORE, AFTER, AFTER, BEFORE, ... (``--turns`` runs of each), and prints each row's ratios side by side.
The row operators (SwiGlu, SwiGluGrad, RmsNorm) take x as rows of 4096 (bench/bench_rms_norm.py has RmsNorm's
three A2 modes). A measurement, not a test: bench/RESULTS.md keeps the numbers.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

DTYPES = ("float32", "float16", "bfloat16")
#: Issue 39's targets: the least ratio to the peer per dtype.
TARGETS = {"float32": 0.5, "float16": 1.0, "bfloat16": 1.0}


def table(ops, size: int, threads: int, dtypes=DTYPES) -> list[dict]:
    from swishgrad_numba.benchmark.family import OP_BENCHES, run_op_comparison
    from swishgrad_numba.ops import get_operator
    from swishgrad_numba.platform import Platform

    platforms = {"a2": Platform(), "arch35": Platform(soc_version="ascend950")}
    rows = []
    for op in ops or OP_BENCHES:
        for kernel in get_operator(op).kernels:
            got = run_op_comparison(op, [size], dtypes, threads=[threads], repeat=5, min_time=0.05,
                                    platform=platforms[kernel])
            for r in got:
                if r["impl"] == "emulator":
                    ratio = r.get("ratio_torch")
                    rows.append(dict(op=op, kernel=kernel, dtype=r["dtype"], ms=r["seconds"] * 1e3,
                                     ratio=ratio, load=os.getloadavg()[0]))
                    print(f"{op:18s} {kernel:6s} {r['dtype']:9s} {r['seconds'] * 1e3:8.2f} ms  "
                          f"x{ratio or float('nan'):.2f} {_verdict(r['dtype'], ratio):4s}  "
                          f"load {os.getloadavg()[0]:.1f}", flush=True)
    met = [r for r in rows if r["ratio"] is not None and r["ratio"] >= TARGETS[r["dtype"]]]
    print(f"{len(met)} of {len(rows)} rows at their targets "
          f"({', '.join(f'{d} {t:g}x' for d, t in TARGETS.items())})", flush=True)
    return rows


def _verdict(dtype: str, ratio) -> str:
    return "" if ratio is None else ("ok" if ratio >= TARGETS[dtype] else "MISS")


def turns(trees, count: int, ops, size: int, threads: int, caches=None, dtypes=DTYPES) -> None:
    order = [t for i in range(count) for t in (trees if i % 2 == 0 else trees[::-1])]   # B A A B ...
    runs = {t: [] for t in trees}
    for tree in order:
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
            out = f.name
        tag = hashlib.sha1(os.path.abspath(tree).encode()).hexdigest()[:12]
        cache = caches[trees.index(tree)] if caches else os.path.join(tempfile.gettempdir(),
                                                                      "target_table_cache_" + tag)
        env = dict(os.environ, PYTHONPATH=os.path.abspath(tree), NUMBA_CACHE_DIR=cache)
        print(f"-- {tree}", flush=True)
        subprocess.run([sys.executable, os.path.abspath(__file__), "--size", str(size), "--threads", str(threads),
                        "--json", out] + list(ops) + ["--dtypes", *dtypes], env=env, cwd=tree, check=True)
        with open(out) as f:
            runs[tree].append(json.load(f))
        os.unlink(out)
    print(f"x the peer, then the emulator's ms (each turn's)\n{'row':38s} "
          + "  ".join(f"{os.path.basename(os.path.normpath(t))[:24]:>24s}" for t in trees))
    for i, r in enumerate(runs[trees[0]][0]):
        cells = ["/".join(f"{run[i]['ratio']:.2f}" for run in runs[t]) + " "
                 + "/".join(f"{run[i]['ms']:.2f}" for run in runs[t]) for t in trees]
        print(f"{r['op'] + ' ' + r['kernel'] + ' ' + r['dtype']:38s} " + "  ".join(f"{c:>24s}" for c in cells))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ops", nargs="*")
    ap.add_argument("--size", type=int, default=1 << 22)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("--trees", nargs=2)
    ap.add_argument("--turns", type=int, default=2)
    ap.add_argument("--dtypes", nargs="+", default=list(DTYPES), help="default float32 float16 bfloat16")
    ap.add_argument("--caches", nargs=2, help="the two trees' NUMBA_CACHE_DIR (default: one per tree)")
    a = ap.parse_args(argv)
    if a.trees:
        turns(a.trees, a.turns, a.ops, a.size, a.threads, a.caches, a.dtypes)
        return
    rows = table(a.ops, a.size, a.threads, tuple(a.dtypes))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
