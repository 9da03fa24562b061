"""Run upstream's 950 TTK rows of SwiGlu (79) and SwiGluGrad from outside the project (issue 41).

    python bench/ttk_swiglu.py PATH [--seed S] [--soc ascend950]

``PATH``: an ops-nn checkout (``activation/swi_glu/tests/st/arch35/ttk_kernel_swi_glu_st.csv`` and
``activation/swi_glu_grad/tests/st/arch35/ttk_kernel_swi_glu_grad_st.csv``). Each row's inputs are uniform in its
``input_data_ranges`` in its dtype, split at its ``dim``; each runs through the aclnn pair (aclnnSwiGlu,
aclnnSwiGluGrad) and the functional face on the platform. Reported per row: whether the faces agree bit for bit
and whether the result is within the row's ``(rtol, ratio)`` of float64 (bench/ttk_common.py). SwiGluGrad runs
the platform's kernel (the 950's regbase one by default); a row a face refuses is counted as refused.
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

SUITES = {"swiglu": Path("activation/swi_glu/tests/st/arch35/ttk_kernel_swi_glu_st.csv"),
          "swiglu_grad": Path("activation/swi_glu_grad/tests/st/arch35/ttk_kernel_swi_glu_grad_st.csv")}


def _halves(x, dim):
    a, b = np.split(x.astype(np.float64), 2, axis=dim)
    return a, b


def run_row(op, row, rng, platform, stream):
    dim = int(T.field(row, "attributes").get("dim", -1))
    ins = [v for v in T.inputs(row, rng) if v is not None]
    if op == "swiglu":
        (x,) = ins
        y_f = sg.swiglu(x, dim, platform=platform)
        y_a = np.empty_like(y_f)
        T.launch(("aclnnSwiGluGetWorkspaceSize", "aclnnSwiGlu"), (T.tensor(x), dim, T.tensor(y_a)), stream)
        a, b = _halves(x, dim)
        truth = a * T.sig(a) * b
    else:
        g, x = ins if ins[0].size * 2 == ins[1].size else ins[::-1]
        y_f = sg.swiglu_backward(g, x, dim, platform=platform)
        y_a = np.empty_like(y_f)
        T.launch(("aclnnSwiGluGradGetWorkspaceSize", "aclnnSwiGluGrad"),
                 (T.tensor(g), T.tensor(x), dim, T.tensor(y_a)), stream)
        a, b = _halves(x, dim)
        g64 = g.astype(np.float64)
        s = T.sig(a)
        truth = np.concatenate([g64 * b * s * (1 + a * T.sig(-a)), g64 * a * s], axis=dim)
    agree = np.array_equal(T.bits(y_a), T.bits(y_f))
    return agree, T.within(y_f, truth, *T.tolerance(row, x.dtype))


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
                agree, ok = run_row(op, row, np.random.default_rng([args.seed, i]), platform, stream)
            except (NotImplementedError, RuntimeError) as exc:
                summary[f"{op} refused"] += 1
                print(f"{row['testcase_name']}: refused: {str(exc).splitlines()[0][:160]}")
                continue
            summary[f"{op} faces agree"] += agree
            summary[f"{op} within the row's tolerance"] += ok
            print(f"{row['testcase_name']}: faces {'agree' if agree else 'DIFFER'}; "
                  f"{'within' if ok else 'OUTSIDE'} its tolerance")
    aclnn.aclrtDestroyStream(stream)
    print("\n".join(f"{k}: {v}" for k, v in sorted(summary.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
