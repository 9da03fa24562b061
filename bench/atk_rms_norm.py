"""Run upstream's ATK cases of aclnnRmsNorm from outside the project (issue 42).

    python bench/atk_rms_norm.py PATH [--max-elements N] [--seed S] [--soc ascend950]

``PATH``: an ops-nn checkout, or its ``norm/rms_norm/tests/st/aclnnRmsNorm/atk_aclnnRmsNorm.json``. Each case's
inputs are drawn as its ``range_values`` say (``[lo, hi]`` uniform; ``nd``: a mean and a standard deviation
drawn from their ranges, then normal values), seeded by the case id, in the case's dtypes. Each case runs
through aclnnRmsNorm (two phases on a stream) and the functional ``rms_norm``; the script reports, per case,
the mode the host picks, whether the two faces agree bit for bit (y and rstd), whether the sequential order
inside a repeat would change the bits, and the largest relative error of y against float64 (below 1e-3 of
the case's largest |y|, relative to that) in units of the dtype's epsilon. ``--soc ascend950`` runs the 950's
kernel. Nothing upstream is copied: the JSON is read where it lies.
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

import ml_dtypes
import numpy as np

from swishgrad_numba import aclnn
from swishgrad_numba.ops.rms_norm import rms_norm
from swishgrad_numba.ops.rms_norm.host_a2 import a2_tiling
from swishgrad_numba.ops.rms_norm.kernel_950 import arch35_tiling
from swishgrad_numba.platform import Platform

DTYPES = {"fp32": np.dtype(np.float32), "fp16": np.dtype(np.float16), "bf16": np.dtype(ml_dtypes.bfloat16)}
ACL = {np.dtype(np.float32): aclnn.ACL_FLOAT, np.dtype(np.float16): aclnn.ACL_FLOAT16,
       np.dtype(ml_dtypes.bfloat16): aclnn.ACL_BF16}
SUITE = Path("norm/rms_norm/tests/st/aclnnRmsNorm/atk_aclnnRmsNorm.json")


def draw(rng, spec, shape, dtype):
    rv = spec["range_values"]
    if isinstance(rv, dict) and rv.get("name") == "nd":
        mean, std = rng.uniform(*rv["mean"]), rng.uniform(*rv["std"])
        values = rng.normal(mean, std, size=shape)
    else:
        values = rng.uniform(rv[0], rv[1], size=shape)
    return values.astype(np.float32).astype(dtype)


def _tensor(a):
    return aclnn.aclCreateTensor(a.shape, ACL[a.dtype], None, 0, aclnn.ACL_FORMAT_ND, a.shape, a)


def run_aclnn(x, gamma, eps, stream):
    y = np.empty(x.shape, x.dtype)
    rstd = np.empty(x.shape[:x.ndim - gamma.ndim] + (1,) * gamma.ndim, np.float32)
    status, ws, ex = aclnn.aclnnRmsNormGetWorkspaceSize(_tensor(x), _tensor(gamma), eps, _tensor(y), _tensor(rstd))
    if status != aclnn.ACLNN_SUCCESS:
        raise RuntimeError(aclnn.aclGetRecentErrMsg())
    if aclnn.aclnnRmsNorm(np.zeros(ws, np.uint8), ws, ex, stream) != aclnn.ACLNN_SUCCESS:
        raise RuntimeError(aclnn.aclGetRecentErrMsg())
    aclnn.aclrtSynchronizeStream(stream)
    return y, rstd


def _bits(a):
    return np.ascontiguousarray(a).view({2: np.uint16, 4: np.uint32}[a.dtype.itemsize])


def _err_eps(y, x, gamma, eps):
    x64, g64 = x.astype(np.float64), gamma.astype(np.float64)
    axes = tuple(range(x.ndim - gamma.ndim, x.ndim))
    ms = np.mean(x64 * x64, axis=axes, keepdims=True)
    with np.errstate(all="ignore"):
        truth = x64 / np.sqrt(ms + float(np.float32(eps))) * g64
        floor = 1e-3 * np.nanmax(np.abs(truth)) if truth.size else 0.0
        err = np.abs(y.astype(np.float64) - truth) / np.maximum(np.abs(truth), max(floor, 1e-300))
    return float(np.nanmax(err) / float(ml_dtypes.finfo(y.dtype).eps)) if err.size else 0.0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("path", type=Path)
    p.add_argument("--max-elements", type=int, default=None, help="skip cases with more x elements")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--soc", default="ascend910b", help="the platform's SoC (ascend950 runs the 950 kernel)")
    args = p.parse_args(argv)
    path = args.path / SUITE if args.path.is_dir() else args.path
    cases = json.loads(path.read_text())
    platform = Platform(soc_version=args.soc)
    aclnn.set_platform(platform)
    status, stream = aclnn.aclrtCreateStream()
    summary = collections.Counter()
    worst = collections.defaultdict(float)
    for case in cases:
        xs, gs, es = case["inputs"]
        n_x = int(np.prod(xs["shape"]))
        if args.max_elements and n_x > args.max_elements:
            summary["skipped (size)"] += 1
            continue
        rng = np.random.default_rng([args.seed, case["id"]])
        x = draw(rng, xs, xs["shape"], DTYPES[xs["dtype"]])
        gamma = draw(rng, gs, gs["shape"], DTYPES[gs["dtype"]])
        eps = float(es["range_values"])
        y_a, r_a = run_aclnn(x, gamma, eps, stream)
        y_f, r_f = rms_norm(x, gamma, eps, platform=platform)
        agree = np.array_equal(_bits(y_a), _bits(y_f)) and np.array_equal(_bits(r_a), _bits(r_f))
        y_s, r_s = rms_norm(x, gamma, eps, order="sequential", platform=platform)
        order_sensitive = not (np.array_equal(_bits(y_s), _bits(y_f)) and np.array_equal(_bits(r_s), _bits(r_f)))
        tiling = a2_tiling if platform.architecture == "a2" else arch35_tiling
        mode = tiling(x.size // gamma.size, gamma.size, x.dtype, gamma.dtype, eps, platform).mode
        err = _err_eps(y_f, x, gamma, eps)
        worst[xs["dtype"]] = max(worst[xs["dtype"]], err)
        summary["run"] += 1
        summary["faces agree"] += agree
        summary["sequential order changes bits"] += order_sensitive
        summary[f"mode {mode}"] += 1
        print(f"case {case['id']:3d} {xs['dtype']} x{tuple(xs['shape'])} gamma{tuple(gs['shape'])} {mode:8s} "
              f"faces {'agree' if agree else 'DIFFER'}; sequential order "
              f"{'changes bits' if order_sensitive else 'same bits'}; max rel err {err:.2f} eps")
    aclnn.aclrtDestroyStream(stream)
    print("\n".join(f"{k}: {v}" for k, v in sorted(summary.items())))
    print("worst y error against float64, in the dtype's eps: " +
          ", ".join(f"{k} {v:.2f}" for k, v in sorted(worst.items())))
    return 0 if summary["faces agree"] == summary["run"] else 1


if __name__ == "__main__":
    sys.exit(main())
