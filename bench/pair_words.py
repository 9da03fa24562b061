"""A bfloat16 row's hot block over its elements against its function over 32-bit words (issue 39, pairwords).

    python bench/pair_words.py [OP:KERNEL:DTYPE ...] [--turns T]

For each row (default ``sigmoid_grad:a2:bfloat16``; a row whose block has a function over words,
:func:`swishgrad_numba.engine.hot_source.block_and_rows`), the source generated for the bench's 2^22 inputs is
compiled, and its two functions run over the same blocks: the element loop (with a whole block's length a
constant, as before pairwords) and ``hot_block_words`` over ``uint32`` views of the same arrays (made here, as
:func:`swishgrad_numba.engine.hot_words.word_views` makes them). The bits must be the same, and the script says whether
they are.

Printed per row, each the best of ``--turns`` turns: ns per element on one thread in L1 (8,192 elements again
and again: the arithmetic), on one thread over 2^22 (the memory beside it), and ms for 2^22 on two threads,
each thread its half (the bench's call without the launch around it).
"""
from __future__ import annotations

import argparse
import re
import time

import numpy as np
from hot_prefetch import captured   # (bench/ is the script's folder)


def element_loop(source: str) -> str:
    """``source``'s element loop with a whole block's length a constant, as it ran before pairwords (a block with a
    function over words calls its element loop with ``n`` a variable only)."""
    m = re.search(r"\n    return block_rows\((params, in0, in1, in2, out, at, n, scalars, tables, scratch)\)\n", source)
    full = int(re.search(r"if n != (\d+) or at & 1:", source)[1])
    whole = m[1].replace(" n,", f" {full},")
    return source[:m.start()] + f"\n    if n == {full}:\n        return block_rows({whole})" + source[m.start():]


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
        (params, rest), ins, out, _inputs, source = captured(op, kernel, dtype)
        scalars, tables, blk = rest[3], rest[4], rest[-1]
        x0, x1 = (ins + ins)[:2]
        if "def hot_block_words(" not in source:
            print(f"{row}: its block has no function over words")
            continue
        namespace = hot._globals()
        exec(source, namespace)   # noqa: S102 (the generated source)
        runs = {"elements": driver(compiled(element_loop(source))),
                "words": driver(njit(namespace["hot_block_words"], error_model="numpy"))}
        outs = {k: np.zeros_like(out) for k in runs}
        arrays = {"elements": lambda k: (x0, x1, outs[k]),     # the words' function: uint32 views, made here
                  "words": lambda k: (x0.view(np.uint32), x1.view(np.uint32), outs[k].view(np.uint32))}
        n = out.shape[0]
        for k, r in runs.items():
            r(params, *arrays[k](k), n, scalars, tables, 1, 1, blk)
        same = np.array_equal(outs["elements"], outs["words"])
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
