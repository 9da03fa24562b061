"""A 16-bit row's hot block against the same block reading and writing its elements in pairs, as 32-bit words
(issue 39, pairwords: a lead, not in the engine).

    python bench/pair_words.py [OP:KERNEL:DTYPE ...] [--turns T]

For each row (default ``sigmoid_grad:a2:bfloat16``, a single-loop block), the hot block that
:func:`swishgrad_numba.engine.hot_source.block_source` generates for the bench's 2^22 inputs is compiled as it
is, and once more with its loop edited to step over words: each input word's two 16-bit elements are taken
apart by a mask and a shift, the element's stream runs once for the low one and once for the high one, and the
two results are stored as one word. The same instructions on the same elements: the bits must be the same, and
the script says whether they are. The word loop reads arrays viewed as ``uint32`` from outside the block
(a view made per block costs more than the edit saves).

Printed per row, each the best of ``--turns`` turns: ns per element on one thread in L1 (8,192 elements again
and again: the arithmetic), on one thread over 2^22 (the memory beside it), and ms for 2^22 on two threads,
each thread its half (the bench's call without the launch around it).
"""
from __future__ import annotations

import argparse
import re
import time

import numpy as np


def _captured(op: str, kernel: str, dtype: str):
    """``(params, rest, ins, out, source)`` of the row's hot launch over the bench's 2^22 inputs."""
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
    (params, rest), ins, out = seen[-1]
    return params, rest, ins, out, hot.source_and_rows(type(params).__name__)[0]


def paired(source: str) -> str:
    """``source`` (a single-loop block) with its loop over words: inputs ``in0..in2`` and ``out`` are then
    ``uint32`` views of the 16-bit arrays, ``at`` and ``n`` still counted in elements (both even)."""
    head, loop, tail = re.match(r"(?s)(.*?\n)( +)for i in range\(n\):\n(.*)", source).group(1, 2, 3)
    body_pad = loop + "    "
    lines = tail.split("\n")
    body = []
    while lines and lines[0].startswith(body_pad):
        body.append(lines.pop(0)[len(body_pad):])
    if any(line.startswith(f"{loop}for i in range(n):") for line in lines):
        raise ValueError("not a single-loop block")
    store = next(line for line in body if line.startswith("out[j] = "))
    result = store[len("out[j] = "):]
    inputs = sorted(set(re.findall(r"in(\d)\[j\]", "\n".join(body))))
    words = [f"w{r} = in{r}[j]" for r in inputs]

    def half(shift: str) -> list:
        got = []
        for line in body:
            if line == "j = at + np.uint64(i)" or line == store:
                continue
            m = re.match(r"(x\d) = np\.float32\(in(\d)\[j\]\)$", line)
            got.append(f"{m[1]} = np.float32(np.uint16(w{m[2]} {shift}))" if m else line)
        return got
    low = half("& np.uint32(0xffff)") + [f"low = np.uint32(np.uint16({result}))"]
    high = half(">> np.uint32(16)") + [f"out[j] = low | (np.uint32(np.uint16({result})) << np.uint32(16))"]
    new = ["j = (at >> np.uint64(1)) + np.uint64(i)"] + words + low + high
    return head + f"{loop}for i in range(n // 2):\n" + "".join(f"{body_pad}{s}\n" for s in new) + "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows", nargs="*", default=["sigmoid_grad:a2:bfloat16"])
    ap.add_argument("--turns", type=int, default=7)
    a = ap.parse_args(argv)
    import numba
    from numba import njit, prange

    from swishgrad_numba.engine import hot

    def compiled(text):
        namespace = hot._globals()
        exec(text, namespace)   # noqa: S102 (the generated block, edited)
        return njit(namespace["hot_block"], error_model="numpy")

    def driver(block):
        @njit(parallel=True, error_model="numpy")
        def run(params, x0, x1, out, numel, scalars, tables, threads, reps, blk):
            per = numel // threads
            for t in prange(threads):
                scratch = np.empty((max(params.scratch_rows, 1), blk), dtype=np.float32)
                for _ in range(reps):
                    for b0 in range(t * per, (t + 1) * per, blk):
                        block(params, x0, x1, x1, out, b0, blk, scalars, tables, scratch)
        return run

    for row in a.rows:
        op, kernel, dtype = row.split(":")
        params, rest, ins, out, source = _captured(op, kernel, dtype)
        scalars, tables, blk = rest[3], rest[4], rest[-1]
        x0, x1 = (ins + ins)[:2]
        runs = {"as generated": driver(compiled(source)), "words": driver(compiled(paired(source)))}
        outs = {k: np.zeros_like(out) for k in runs}
        arrays = {"as generated": lambda k: (x0, x1, outs[k]),     # the words' loop: uint32 views, made here
                  "words": lambda k: (x0.view(np.uint32), x1.view(np.uint32), outs[k].view(np.uint32))}
        n = out.shape[0]
        for k, r in runs.items():
            r(params, *arrays[k](k), n, scalars, tables, 1, 1, blk)
        same = np.array_equal(outs["as generated"], outs["words"])
        cases = (("L1, 1 thread", 8192, 1, (1 << 24) // 8192), ("2^22, 1 thread", n, 1, 4), ("2^22, 2 threads", n, 2, 1))
        best = {(k, c[0]): float("inf") for k in runs for c in cases}
        for _ in range(a.turns):
            for label, size, threads, reps in cases:
                numba.set_num_threads(threads)
                for k, r in runs.items():
                    t0 = time.perf_counter()
                    r(params, *arrays[k](k), size, scalars, tables, threads, reps, blk)
                    best[k, label] = min(best[k, label], (time.perf_counter() - t0) / reps)
        print(f"{row} (block of {blk}; bits the same: {same})")
        for label, size, threads, _reps in cases:
            cells = [f"{k} {best[k, label] / size * 1e9:.3f} ns/element" if threads == 1 else
                     f"{k} {best[k, label] * 1e3:.3f} ms" for k in runs]
            print(f"  {label:16s} " + "   ".join(cells))


if __name__ == "__main__":
    main()
