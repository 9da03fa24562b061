"""Static cost of a row's hot loop (issue 39): llvm-mca's cycles per element of the generated block's vector loop.

    python bench/hot_loop_mca.py [OP:KERNEL ...] [--cpu sapphirerapids] [--each]

For each row (float32, the operator's bench call of :data:`swishgrad_numba.benchmark.family.OP_BENCHES`), the hot
block that :func:`swishgrad_numba.engine.hot_source.block_source` generates is compiled as the hot tier compiles it,
its main vector loop (the loop with the most vector instructions) is cut from the assembly and handed to
``llvm-mca``, which prints two figures per element: the simulated cycles (dependencies and the scheduler included)
and the resource bound (the busiest port alone). Deterministic, so it compares variants where the shared machine's
timings cannot (bench/RESULTS.md, rows32: the simulated figure tracked the measured ns per element at about 3 GHz).
Needs ``llvm-mca`` on PATH. A block whose Exps run in loops of their own (:data:`swishgrad_numba.engine.hot_source.EXP_LOOP_MIN`)
is measured by its one loop with the most vector instructions only; ``--each`` prints every vector loop of the
block instead (a split block's float32 loops, its Exp loop, their remainders), each by its own elements per
iteration. The block's body is compiled twice (hot_source: a whole block with its length a constant, a block
cut short), so ``--each`` lists the loops of both copies, as LLVM laid them out (the whole block's first, so far).
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess

import numpy as np

ROWS = ("gelu_v2:arch35", "gelu_grad_v2:a2", "gelu_grad_v2:arch35", "swish_grad:a2", "swish_grad:arch35",
        "silu_grad:a2", "silu_grad:arch35", "silu:arch35", "softplus_grad:a2", "softplus:arch35")


def prepared_of(op: str, kernel: str):
    """The :class:`swishgrad_numba.engine.runner.Prepared` and attribute values of a small float32 call of ``op``."""
    from swishgrad_numba.benchmark.family import OP_BENCHES
    from swishgrad_numba.benchmark.inputs import make_inputs
    from swishgrad_numba.engine import hot
    from swishgrad_numba.platform import Platform

    seen = []
    run = hot.run

    def spy(prepared, ins, out, pieces, bins, attrs):
        seen.append(prepared)
        return run(prepared, ins, out, pieces, bins, attrs)

    hot.run = spy
    try:
        g, x = make_inputs(4096, "float32")
        bench = OP_BENCHES[op]
        platform = Platform() if kernel == "a2" else Platform(soc_version="ascend950")
        bench.emulator(g, x, np.empty_like(x), bench.beta, platform)
    finally:
        hot.run = run
    return seen[-1]


def block_asm(prepared) -> str:
    """The assembly of the prepared main stream's hot block, compiled as the hot tier compiles it."""
    from numba import njit

    from swishgrad_numba.engine import hot, hot_source

    m = prepared.main
    inline = hot._inlined(prepared)
    cls = hot.hot_class(m.code, m.grain, prepared.inputs, m.out, prepared.sat, inline)
    if cls is None:
        raise ValueError("the stream does not run hot")
    block = njit(hot._BLOCKS[cls], error_model="numpy")
    row = np.zeros(1024, np.float32)
    row.flags.writeable = False
    scalars = np.zeros(256, np.float32)
    scalars.flags.writeable = False
    tables = np.zeros((0, 65536), np.float32)
    tables.flags.writeable = False
    rows = hot_source.scratch_rows(m.code, m.grain, prepared.inputs, m.out, prepared.sat, inline)
    block(cls(rows), row, row, row, np.zeros(1024, np.float32), 0, 512, scalars, tables,
          np.zeros((max(rows, 1), 512), np.float32))
    return next(iter(block.inspect_asm().values()))


def _vector(body: list[str]) -> int:
    return sum(("ymm" in x) or ("zmm" in x) for x in body)


def loops(asm: str, straight: bool = False) -> list[list[str]]:
    """The instructions of each loop (a label and the backward jump to it), in the assembly's order;
    ``straight``: only the loops without a label inside (no branch into them: the vectorised loops)."""
    lines = asm.splitlines()
    found = []
    for i, line in enumerate(lines):
        m = re.match(r"^(\.LBB\d+_\d+):", line)
        if not m:
            continue
        for j in range(i + 1, min(len(lines), i + 3000)):
            if re.match(r"^\s+j\w+\s+" + re.escape(m[1]) + r"$", lines[j]):
                if straight and any(re.match(r"^\.LBB", x) for x in lines[i + 1:j]):
                    break
                found.append([x for x in lines[i + 1:j + 1] if x.strip() and not x.strip().startswith((".", "#"))])
                break
    return found


def main_loop(asm: str) -> list[str]:
    """The instructions of the loop with the most vector (ymm/zmm) instructions."""
    return max(loops(asm), key=_vector, default=[])


def loop_cost(body: list[str], cpu: str) -> tuple[float, float, int]:
    """``(simulated cycles, resource bound, elements)`` per iteration of the loop ``body``."""
    out = subprocess.run(["llvm-mca", f"-mcpu={cpu}", "-iterations=200"], input="\n".join(body) + "\n",
                         capture_output=True, text=True, check=True).stdout
    cycles = float(re.search(r"Total Cycles:\s+(\d+)", out)[1]) / 200
    bound = float(re.search(r"Block RThroughput:\s+([\d.]+)", out)[1])
    steps = [abs(int(m[2])) for x in body if (m := re.match(r"\s+(addq|subq)\s+\$(-?\d+), %\w+", x))]
    steps = [s for s in steps if s in (8, 16, 32, 64)]
    return cycles, bound, steps[-1] if steps else 0


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows", nargs="*", default=list(ROWS))
    ap.add_argument("--cpu", default="sapphirerapids")
    ap.add_argument("--each", action="store_true", help="every vector loop of the block, not only the largest")
    a = ap.parse_args(argv)
    if shutil.which("llvm-mca") is None:
        raise SystemExit("llvm-mca is not on PATH")
    print(f"{'row':22s} {'el/iter':>7s} {'cycles/el':>9s} {'bound/el':>8s}")
    for row in a.rows:
        op, kernel = row.split(":")
        asm = block_asm(prepared_of(op, kernel))
        bodies = [b for b in loops(asm, True) if _vector(b) >= 5] if a.each else [main_loop(asm)]
        for k, body in enumerate(bodies):
            cycles, bound, step = loop_cost(body, a.cpu)
            per = (lambda v: f"{v / step:.2f}") if step else (lambda v: "?")
            name = f"{row} loop {k}" if a.each else row
            print(f"{name:22s} {step:7d} {per(cycles):>9s} {per(bound):>8s}", flush=True)


if __name__ == "__main__":
    main()
