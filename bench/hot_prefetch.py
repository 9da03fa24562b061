"""Where a split hot block's time goes at 2^22 elements, and its output's prefetch (issue 39, gelu35c).

    python bench/hot_prefetch.py [OP:KERNEL] [--threads 1 2] [--turns T] [--parts]

The row's generated hot block (float32, the bench's 2^22 inputs, default gelu_v2:arch35) in a ``prange`` over the
threads' halves, 512-element blocks, nothing rerun, min of ``--turns`` interleaved turns, ms:

- ``whole``: the block as generated (its output's lines asked for before its loops: hot_source.PREFETCH_PARTS);
- ``no prefetch``: the same without those lines;
- ``L1``: the whole block over the first 4,096 elements again and again (1 thread: the arithmetic alone);
- ``no out store``: the result stored to a scratch row instead of the output (the output's write misses);
- ``n varying``: the block without its whole-block call (its loops compiled for any ``n``, as a block cut short
  runs: hot_source, fullblock);
- ``--ballast N``: N arrays of 2^22 float32 allocated and written before the row's (a process holding more
  memory, as a bench of several rows);
- ``--parts``: the output's lines in halves (before the first two loops), all before the first loop, all
  before the Exp, and the next block's instead of this one's.
"""
from __future__ import annotations

import argparse
import os
import re
import time

import numpy as np


def captured(op: str, kernel: str, dtype: str = "float32"):
    """``(fixed, ins, out, (g, x), source)`` of the row's hot launch over the bench's 2^22 inputs of ``dtype``:
    :func:`swishgrad_numba.engine.hot._launch`'s arguments (``fixed``: the block's params and the launch's
    other arguments), the bench's own inputs and the block's generated source (also bench/pair_words.py's)."""
    from swishgrad_numba.benchmark.family import OP_BENCHES
    from swishgrad_numba.benchmark.inputs import make_inputs
    from swishgrad_numba.engine import hot
    from swishgrad_numba.platform import Platform

    g, x = make_inputs(1 << 22, dtype)
    seen = []
    launch = hot._launch
    hot._launch = lambda fixed, ins, out: (seen.append((fixed, ins, out)), launch(fixed, ins, out))
    try:
        bench = OP_BENCHES[op]
        bench.emulator(g, x, np.empty_like(x), bench.beta, Platform() if kernel == "a2" else
                       Platform(soc_version="ascend950"))
    finally:
        hot._launch = launch
    fixed, ins, out = seen[-1]
    return fixed, ins, out, (g, x), hot.source_and_rows(type(fixed[0]).__name__)[0]


def _variants(source: str, parts: bool) -> dict:
    bare = "".join(line for line in source.splitlines(True) if "prefetch_lines(" not in line)
    pad, result = re.search(r"\n( +)out\[j\] = (\w+)\n", source).groups()
    pad = pad[:-4]          # the block body's indentation (the store is in a loop)
    first, exp = f"\n{pad}for i in range(n):", f"\n{pad}if exp_rows("
    at, n = "np.int64(at)", "n"

    def before(text, anchor, lo, hi):
        k = text.index(anchor) + 1
        return text[:k] + f"{pad}prefetch_lines(out, {lo}, {hi})\n" + text[k:]
    out = {"whole": source, "no prefetch": bare,
           "no out store": source.replace(f"{pad}    out[j] = {result}\n", f"{pad}    scratch[0, i] = {result}\n")}
    varying = re.sub(r"\n    if n == \d+:\n        return block_rows\([^\n]*\)", "", source)
    if varying != source:
        out["n varying"] = varying
    if parts and exp in bare:
        out["halves"] = before(before(bare, first, at, f"{at} + {n} // 2"), exp, f"{at} + {n} // 2", f"{at} + {n}")
        out["all first"] = before(bare, first, at, f"{at} + {n}")
        out["all before Exp"] = before(bare, exp, at, f"{at} + {n}")
        out["next block"] = before(bare, first, f"{at} + {n}", f"min({at} + 2 * {n}, out.shape[0])")
    return out


def huge_kib(a: np.ndarray) -> tuple:
    """``(KiB of the mappings holding a that are transparent huge pages, KiB of those mappings)`` (Linux; (0, 0)
    elsewhere): a 2^22 row's time depends on it (bench/RESULTS.md, gelu35c)."""
    lo, hi, huge, size = a.ctypes.data, a.ctypes.data + a.nbytes, 0, 0
    try:
        with open("/proc/self/smaps") as f:
            inside = False
            for line in f:
                m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) ", line)
                if m:
                    inside = int(m[1], 16) < hi and int(m[2], 16) > lo
                    size += (int(m[2], 16) - int(m[1], 16)) // 1024 if inside else 0
                elif inside and line.startswith("AnonHugePages:"):
                    huge += int(line.split()[1])
    except OSError:
        pass
    return huge, size


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("row", nargs="?", default="gelu_v2:arch35")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--turns", type=int, default=21)
    ap.add_argument("--parts", action="store_true")
    ap.add_argument("--ballast", type=int, default=0, help="this many 2^22 float32 arrays allocated and written first")
    a = ap.parse_args(argv)
    import numba
    from numba import njit, prange

    from swishgrad_numba.engine import hot

    op, kernel = a.row.split(":")
    ballast = [np.full(1 << 22, k, dtype=np.float32) for k in range(a.ballast)]
    (params, rest), _ins, _out, (g, x), source = captured(op, kernel)
    scalars, tables = rest[3], rest[4]
    ins = (x, g) if "in1[" in source else (x, x)

    def driver(text):
        namespace = hot._globals()
        exec(text, namespace)   # noqa: S102 (the generated block, edited)
        block = njit(namespace["hot_block"], error_model="numpy")

        @njit(parallel=True, error_model="numpy")
        def run(params, x0, x1, out, numel, scalars, tables, threads, mask):
            per = numel // threads
            for t in prange(threads):
                scratch = np.empty((max(params.scratch_rows, 1), 512), dtype=np.float32)
                for b0 in range(t * per, (t + 1) * per, 512):
                    block(params, x0, x1, x1, out, b0 & mask, 512, scalars, tables, scratch)
        return run
    runs = {k: driver(t) for k, t in _variants(source, a.parts).items()}
    out = np.empty_like(x)
    out[:] = 0
    print(f"{a.row} float32, 2^22 elements, blocks of 512, {len(ballast)} arrays of ballast; ms, min of {a.turns}; "
          f"load {os.getloadavg()[0]:.1f}; "
          f"huge pages (KiB of KiB): input {huge_kib(x)}, output {huge_kib(out)}")
    for threads in a.threads:
        numba.set_num_threads(threads)
        calls = {k: (lambda r=r: r(params, *ins, out, x.shape[0], scalars, tables, threads, x.shape[0] - 1))
                 for k, r in runs.items()}
        if threads == 1:
            calls["L1"] = lambda: runs["whole"](params, *ins, out, x.shape[0], scalars, tables, 1, 4095)
        times: dict = {}
        for f in calls.values():
            f()
        for _ in range(a.turns):
            for k, f in calls.items():
                t0 = time.perf_counter()
                f()
                times.setdefault(k, []).append(time.perf_counter() - t0)
        print(f"  {threads} thread(s): " + "  ".join(f"{k} {min(v) * 1e3:.3f}" for k, v in times.items()),
              f"(load {os.getloadavg()[0]:.1f})", flush=True)


if __name__ == "__main__":
    main()
