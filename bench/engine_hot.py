"""The engine's hot tier against its machine: thread CPU time per element, one thread, alternating turns.

    python bench/engine_hot.py [--size N] [--turns T] [--gather] [OP:KERNEL:DTYPE ...]
    python bench/engine_hot.py --cold

The first form runs each row's main stream (:mod:`swishgrad_numba.engine.runner`) over ``N`` elements of the
benchmark's inputs (uniform in [-5, 5), :func:`swishgrad_numba.benchmark.inputs.make_inputs`) as one
launch of one core and one bin, hot and on the machine in turns, and prints the least thread CPU time per
element of each (ns) and whether their bits agree. ``--cold`` times the first large launch of a stream
against the next: run it with a ``NUMBA_CACHE_DIR`` that does not hold its launch yet (a stream's key is its
code, not its constants' values).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

ROWS = ("sigmoid_grad:a2:float16", "sigmoid_grad:arch35:float16", "sigmoid_grad:a2:bfloat16",
        "leaky_relu_grad:arch35:float16", "elu_grad:a2:float16", "elu_grad:arch35:float16",
        "softplus_grad:arch35:float16", "softplus_grad:a2:bfloat16", "swish_grad:a2:float16",
        "silu_grad:a2:bfloat16", "leaky_relu:arch35:float16",
        "silu:a2:float32", "silu_grad:a2:float32", "swish_grad:a2:float32", "sigmoid:a2:float32",
        "softplus:arch35:float32", "softplus_grad:a2:float32", "elu_grad:a2:float32", "gelu_v2:arch35:float32",
        "gelu_grad_v2:a2:float32")


def _launch(prepared, ins, out, attrs):
    from swishgrad_numba.kernel import plan as kernel_plan

    n, pass_len = out.shape[0], 8192
    passes = -(-n // pass_len)
    runs = [kernel_plan.CoreRun(0, 1, 0, passes, pass_len, n - (passes - 1) * pass_len, n)]
    prepared.run(ins, out, kernel_plan.plan(runs, n, 1), attrs)


def row(spec: str, size: int, turns: int) -> dict:
    from swishgrad_numba.benchmark.inputs import make_inputs
    from swishgrad_numba.engine import hot, runner
    from swishgrad_numba.program import passes

    op, arch, dtype = spec.split(":")
    prepared = runner.prepare(passes.compiled(op, arch, dtype))
    g, x = make_inputs(size, np.float32)
    import ml_dtypes
    cast = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}[dtype]
    ins = tuple(a.astype(cast) for a in (g, x))[-prepared.inputs:]
    ins = tuple(a.view(np.uint16) if a.itemsize == 2 else a for a in ins)
    outs = {True: np.empty(size, ins[0].dtype), False: np.empty(size, ins[0].dtype)}
    attrs = {a: 1.0 for a in prepared.attrs}
    best = {True: np.inf, False: np.inf}
    for turn in range(turns + 1):
        for flag in (True, False) if turn % 2 else (False, True):
            with hot.use(flag):
                t = time.thread_time()
                _launch(prepared, ins, outs[flag], attrs)
                if turn:       # the first turn compiles
                    best[flag] = min(best[flag], time.thread_time() - t)
    taken = getattr(prepared, "_hot", (None,))[0] is not None
    return dict(row=spec, hot=best[True] / size * 1e9, machine=best[False] / size * 1e9, taken=taken,
                equal=bool(np.array_equal(outs[True], outs[False])))


def cold() -> None:
    from swishgrad_numba.engine import hot, runner
    from swishgrad_numba.program import Const, Program, Tensor
    from swishgrad_numba.program.form import V

    program = Program("Cold", (Tensor("x"), Tensor("y")), Tensor("out"), (Tensor("t"), Tensor("e")),
                      (V.Muls("t", "x", Const.of(0.5)), V.Exp("e", "t"), V.Mul("out", "e", "y")), ())
    x = np.linspace(-5, 5, 1 << 20, dtype=np.float32)
    with hot.use(False):
        runner.run_program(program, [x, x], {})        # the machine and the launches, read back
    for label in ("first (compiles)", "second"):
        t = time.perf_counter()
        with hot.use(True):
            runner.run_program(program, [x, x], {})
        print(f"{label}: {time.perf_counter() - t:.2f} s")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows", nargs="*", default=list(ROWS))
    ap.add_argument("--size", type=int, default=1 << 22)
    ap.add_argument("--turns", type=int, default=4)
    ap.add_argument("--cold", action="store_true")
    ap.add_argument("--gather", action="store_true", help="gather every Lookup (hot.INLINE_TABLES off)")
    args = ap.parse_args(argv)
    if args.gather:
        from swishgrad_numba.engine import hot
        hot.INLINE_TABLES = False
    if args.cold:
        cold()
        return
    print(f"{'row':34s} {'hot ns/el':>9s} {'machine':>8s} {'speedup':>7s}  taken equal")
    for spec in args.rows:
        r = row(spec, args.size, args.turns)
        print(f"{r['row']:34s} {r['hot']:9.3f} {r['machine']:8.3f} {r['machine'] / r['hot']:7.2f}  {r['taken']!s:5s} "
              f"{r['equal']}", flush=True)


if __name__ == "__main__":
    main()
