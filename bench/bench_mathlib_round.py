"""Floor(x) + Sin(x) read from tests/fixtures/kernels/mathlib_floor_sin and run on the engine, against the NumPy
reference of tests/test_reader_mathlib_round.py, in alternating turns (issue 43; bench/RESULTS.md, reader-round).

    PYTHONPATH=$PWD python bench/bench_mathlib_round.py
"""
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from swishgrad_numba.ops import read_kernel  # noqa: E402
from test_reader_mathlib_round import ref_sin, whole  # noqa: E402


def main(turns: int = 3) -> None:
    op = read_kernel(ROOT / "tests" / "fixtures" / "kernels" / "mathlib_floor_sin")
    x = (np.random.default_rng(1).standard_normal(1 << 20) * 10).astype(np.float32)
    op.run(x=x)       # compile and warm
    for turn in range(turns):
        t0, c0 = time.perf_counter(), time.process_time()
        y = op.run(x=x)
        t1, c1 = time.perf_counter(), time.process_time()
        with np.errstate(all="ignore"):
            r = whole(x, "CAST_FLOOR") + ref_sin(x)
        t2, c2 = time.perf_counter(), time.process_time()
        print(f"turn {turn}: read kernel wall {t1 - t0:.3f} s cpu {c1 - c0:.3f} s | NumPy reference wall "
              f"{t2 - t1:.3f} s cpu {c2 - c1:.3f} s | equal {np.array_equal(y.view(np.uint32), r.view(np.uint32))} "
              f"| load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
