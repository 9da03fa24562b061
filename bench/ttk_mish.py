"""Run upstream's 950 TTK rows of Mish and MishGrad from outside the project (issue 41).

    python bench/ttk_mish.py PATH [--seed S] [--soc ascend950]

``PATH``: an ops-nn checkout (``activation/mish/tests/st/arch35/ttk_kernel_mish_st.csv`` and
``activation/mish_grad/tests/st/arch35/ttk_kernel_mish_grad_st.csv``). Each row's inputs are uniform in the first
two values of its ``input_data_ranges`` in its dtypes, with the range's further values (nan, -0.0, inf) in the first
elements (bench/ttk_common.py); each runs through the aclnn pair (aclnnMish, aclnnMishBackward) and the functional
face. Reported per row: whether the faces agree bit for bit and whether the result is within the row's tolerance
of float64. A MishGrad row that gives the third input (``tanhx``) is the op type's MishGradWithTanhX form, which
aclnnMishBackward never launches (it passes nullptr): reported as not reachable, not run.
"""
from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ttk_common as T  # noqa: E402

import swishgrad_numba as sg  # noqa: E402
from swishgrad_numba import aclnn  # noqa: E402
from swishgrad_numba.platform import Platform  # noqa: E402

SUITES = {"mish": Path("activation/mish/tests/st/arch35/ttk_kernel_mish_st.csv"),
          "mish_grad": Path("activation/mish_grad/tests/st/arch35/ttk_kernel_mish_grad_st.csv")}


def _mish_parts(x):
    x64 = x.astype(np.float64)
    with np.errstate(all="ignore"):
        t = np.tanh(np.logaddexp(0.0, x64))
        return x64, t


def run_row(op, row, rng, platform, stream):
    ins = T.inputs(row, rng)
    if op == "mish":
        (x,) = ins
        y_f = sg.mish(x, platform=platform)
        y_a = np.empty_like(y_f)
        T.launch(("aclnnMishGetWorkspaceSize", "aclnnMish"), (T.tensor(x), T.tensor(y_a)), stream)
        x64, t = _mish_parts(x)
        with np.errstate(all="ignore"):
            truth = x64 * t
    else:
        if len(ins) > 2 and ins[2] is not None:
            return None
        g, x = ins[:2]
        y_f = sg.mish_backward(g, x, platform=platform)
        y_a = np.empty_like(y_f)
        T.launch(("aclnnMishBackwardGetWorkspaceSize", "aclnnMishBackward"), (T.tensor(g), T.tensor(x), T.tensor(y_a)),
                 stream)
        x64, t = _mish_parts(x)
        with np.errstate(all="ignore"):
            truth = g.astype(np.float64) * (t + x64 * (1.0 - t * t) * T.sig(x64))
    return np.array_equal(T.bits(y_a), T.bits(y_f)), T.within(y_f, truth, *T.tolerance(row, x.dtype))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("path", type=Path)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--soc", default="ascend950")
    args = p.parse_args(argv)
    platform = Platform(soc_version=args.soc)
    aclnn.set_platform(platform)
    _, stream = aclnn.aclrtCreateStream()
    summary = collections.Counter()
    for op, suite in SUITES.items():
        path = args.path / suite
        if not path.exists():
            print(f"{op}: no suite at {path}")
            continue
        for i, row in enumerate(T.rows(path)):
            summary[f"{op} rows"] += 1
            try:
                result = run_row(op, row, np.random.default_rng([args.seed, i]), platform, stream)
            except (NotImplementedError, RuntimeError, ValueError) as exc:
                summary[f"{op} refused"] += 1
                print(f"{row['testcase_name']}: refused: {str(exc).splitlines()[0][:160]}")
                continue
            if result is None:
                summary[f"{op} tanhx given: not reachable through aclnn"] += 1
                print(f"{row['testcase_name']}: gives tanhx (MishGradWithTanhX): not reachable through "
                      f"aclnnMishBackward; not run")
                continue
            agree, ok = result
            summary[f"{op} faces agree"] += agree
            summary[f"{op} within the row's tolerance"] += ok
            print(f"{row['testcase_name']}: faces {'agree' if agree else 'DIFFER'}; "
                  f"{'within' if ok else 'OUTSIDE'} its tolerance")
    aclnn.aclrtDestroyStream(stream)
    print("\n".join(f"{k}: {v}" for k, v in sorted(summary.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
