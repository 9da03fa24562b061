"""Run upstream's 950 TTK rows of RmsNorm from outside the project (issue 42).

    python bench/ttk_rms_norm.py PATH [--seed S]

``PATH``: an ops-nn checkout, or its ``norm/rms_norm/tests/st/arch35/ttk_kernel_rms_norm_st.csv``. Each row's
inputs are uniform in its ``input_data_ranges``, in its dtypes, with its epsilon; each runs on an Ascend 950
platform through aclnnRmsNorm and the functional ``rms_norm``. Reported per row: the host's mode, whether the
faces agree bit for bit, and whether y passes the row's ``precision_tolerances`` ``(rtol, ratio)``: at most
``ratio`` of the elements off float64 by more than ``rtol`` relatively and ``absolute_precision`` absolutely (an
element whose float64 value is past the dtype's range passes as the infinity it rounds to). Nothing upstream is
copied.
"""
from __future__ import annotations

import argparse
import ast
import collections
import csv
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from atk_rms_norm import _bits, run_aclnn  # noqa: E402

from swishgrad_numba import aclnn  # noqa: E402
from swishgrad_numba.ops.rms_norm import rms_norm  # noqa: E402
from swishgrad_numba.ops.rms_norm.kernel_950 import arch35_tiling  # noqa: E402
from swishgrad_numba.platform import ASCEND950_PLATFORM  # noqa: E402

SUITE = Path("norm/rms_norm/tests/st/arch35/ttk_kernel_rms_norm_st.csv")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("path", type=Path)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    path = args.path / SUITE if args.path.is_dir() else args.path
    rows = list(csv.DictReader(path.open()))
    aclnn.set_platform(ASCEND950_PLATFORM)
    _, stream = aclnn.aclrtCreateStream()
    summary = collections.Counter()
    for i, row in enumerate(rows):
        shapes = ast.literal_eval(row["input_shapes"])
        dtypes = [np.dtype("bfloat16" if d == "bfloat16" else d) for d in ast.literal_eval(row["input_dtypes"])]
        ranges = ast.literal_eval(row["input_data_ranges"])
        eps = float(ast.literal_eval(row["attributes"])["epsilon"])
        rtol, ratio = (float(v) for v in ast.literal_eval(row["precision_tolerances"])[0])
        atol = float(row["absolute_precision"] or 0.0)
        rng = np.random.default_rng([args.seed, i])
        x, gamma = (rng.uniform(*r, size=s).astype(np.float32).astype(d)
                    for s, d, r in zip(shapes, dtypes, ranges))
        mode = arch35_tiling(x.size // gamma.size, gamma.size, x.dtype, gamma.dtype, eps, ASCEND950_PLATFORM).mode
        summary["rows"] += 1
        summary[f"mode {mode}"] += 1
        y_a, r_a = run_aclnn(x, gamma, eps, stream)
        y_f, r_f = rms_norm(x, gamma, eps, platform=ASCEND950_PLATFORM)
        agree = np.array_equal(_bits(y_a), _bits(y_f)) and np.array_equal(_bits(r_a), _bits(r_f))
        x64, g64 = x.astype(np.float64), gamma.astype(np.float64)
        axes = tuple(range(x.ndim - gamma.ndim, x.ndim))
        truth = x64 / np.sqrt(np.mean(x64 * x64, axis=axes, keepdims=True) + float(np.float32(eps))) * g64
        with np.errstate(all="ignore"):
            rounded = truth.astype(np.float32).astype(x.dtype).astype(np.float64)   # inf past the dtype's range
            diff = np.abs(y_f.astype(np.float64) - truth)
            good = (diff <= rtol * np.abs(truth)) | (diff <= atol) | (np.isinf(rounded) & (y_f == rounded))
        ok = bool(np.mean(~good) <= ratio)
        summary["faces agree"] += agree
        summary["within the row's tolerance"] += ok
        print(f"{row['testcase_name']}: {mode}; faces {'agree' if agree else 'DIFFER'}; "
              f"{'within' if ok else 'OUTSIDE'} rtol {rtol} (at most {ratio:.1%} of elements outside)")
    aclnn.aclrtDestroyStream(stream)
    print("\n".join(f"{k}: {v}" for k, v in sorted(summary.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
