"""Per-element CPU time of each operator's 16-bit rows on one thread: the figure to read where the machine's
load makes wall-clock ratios against the peers noisy (issue 39).

    python bench/sixteen_bit_cpu.py [--size N] [--grain G] [OP ...]

Each row is the benchmark's emulator call (``out=``, :func:`swishgrad_numba.benchmark.family.op_calls`, inputs
of :func:`swishgrad_numba.benchmark.inputs.make_inputs`) on one Numba thread, timed by the process's CPU time,
the best of 9 calls; with the XOR of the output's bits, so two trees' turns can be checked for the same result.
``--grain`` sets the engine's block (:data:`swishgrad_numba.engine.runner.DEFAULT_GRAIN`) before the first call.
"""
from __future__ import annotations

import argparse
import time

import numba
import numpy as np

DTYPES = ("float16", "bfloat16")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ops", nargs="*")
    ap.add_argument("--size", type=int, default=1 << 21)
    ap.add_argument("--grain", type=int)
    a = ap.parse_args(argv)
    from swishgrad_numba.benchmark.family import OP_BENCHES, op_calls
    from swishgrad_numba.benchmark.inputs import make_inputs
    from swishgrad_numba.benchmark.op_benches import result_of
    from swishgrad_numba.benchmark.runner import check_run
    from swishgrad_numba.engine import runner
    from swishgrad_numba.ops import get_operator
    from swishgrad_numba.platform import Platform

    if a.grain:
        runner.DEFAULT_GRAIN = a.grain
    numba.set_num_threads(1)
    platforms = {"a2": Platform(), "arch35": Platform(soc_version="ascend950")}
    for op in a.ops or OP_BENCHES:
        for kernel in get_operator(op).kernels:
            for dtype in DTYPES:
                infos, platform = check_run([dtype], 1, platforms[kernel])
                g, x, out = OP_BENCHES[op].arrays(*make_inputs(a.size, infos[0]))
                call, _ = op_calls(op, g, x, out, platform, False)
                call()
                best = min(_cpu_time(call) for _ in range(9))
                bits = int(np.bitwise_xor.reduce(result_of(out).view(np.uint16).ravel()))
                print(f"{op:16s} {kernel:6s} {dtype:9s} {best / a.size * 1e9:6.3f} ns  bits xor {bits:#06x}",
                      flush=True)


def _cpu_time(call) -> float:
    t0 = time.process_time()
    call()
    return time.process_time() - t0


if __name__ == "__main__":
    main()
