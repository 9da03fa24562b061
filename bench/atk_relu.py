"""Run upstream's ATK cases of aclnnRelu and aclnnThresholdBackward from outside the project (issue 41).

    python bench/atk_relu.py PATH [--op relu|threshold_backward] [--max-elements N] [--seed S] [--soc SOC]

``PATH``: an ops-nn checkout, or the suite's JSON (``activation/relu/tests/st/aclnnRelu/atk_aclnnRelu.json``,
``activation/threshold_grad_v2_d/tests/st/aclnnThresholdBackward/atk_aclnnThresholdBackward.json``). Each case's
tensors are drawn as its ``range_values`` say (``[lo, hi]`` uniform, integers for integer dtypes; one value or a
one-value list: that value everywhere), seeded by the case id; a scalar threshold is its value, or one drawn from
its range, in the scalar's dtype. Each case runs through the aclnn two-phase pair and the functional face; the
script reports whether they agree bit for bit and whether the result equals the suite's golden rule, written here
from its description: Relu ``max(x, 0)`` with -0 made +0; ThresholdBackward torch's ``threshold_backward`` on
float32 copies, Cast back (``x <= threshold`` gives 0, else grad). The kernels' documented differences (the A2
bfloat16 ReluGrad's 0 * grad, a NaN self giving 0 on the A2, the A2 half compare against the threshold rounded to
half, int32 grads through float32) show as differences from that rule, counted per dtype. Nothing upstream is
copied: the JSON is read where it lies.
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

import ml_dtypes
import numpy as np

from swishgrad_numba import aclnn, relu, threshold_backward
from swishgrad_numba.platform import Platform

DTYPES = {"fp32": np.float32, "fp16": np.float16, "bf16": ml_dtypes.bfloat16, "int8": np.int8, "uint8": np.uint8,
          "int32": np.int32, "int64": np.int64}
ACL = {np.dtype(np.float32): aclnn.ACL_FLOAT, np.dtype(np.float16): aclnn.ACL_FLOAT16,
       np.dtype(ml_dtypes.bfloat16): aclnn.ACL_BF16, np.dtype(np.int8): aclnn.ACL_INT8,
       np.dtype(np.uint8): aclnn.ACL_UINT8, np.dtype(np.int32): aclnn.ACL_INT32, np.dtype(np.int64): aclnn.ACL_INT64}
SUITES = {"relu": Path("activation/relu/tests/st/aclnnRelu/atk_aclnnRelu.json"),
          "threshold_backward": Path("activation/threshold_grad_v2_d/tests/st/aclnnThresholdBackward/"
                                     "atk_aclnnThresholdBackward.json")}


def _value(v) -> float:
    return float(v[0] if isinstance(v, list) else v)


def draw(rng, spec, dtype):
    shape, rv = tuple(spec["shape"] or ()), spec["range_values"]
    dtype = np.dtype(dtype)
    if isinstance(rv, list) and len(rv) == 2:
        if dtype.kind in "iu":
            values = rng.integers(int(rv[0]), int(rv[1]), size=shape, endpoint=True)
        else:
            values = rng.uniform(rv[0], rv[1], size=shape)
    else:
        values = np.full(shape, _value(rv))
    with np.errstate(invalid="ignore", over="ignore"):
        return values.astype(np.float64).astype(np.float32).astype(dtype) if dtype.kind == "f" or \
            dtype == np.dtype(ml_dtypes.bfloat16) else values.astype(dtype)


def _tensor(a):
    return aclnn.aclCreateTensor(a.shape, ACL[a.dtype], None, 0, aclnn.ACL_FORMAT_ND, a.shape, a)


def _launch(phase_one, phase_two, args, stream):
    status, ws, ex = phase_one(*args)
    if status != aclnn.ACLNN_SUCCESS:
        raise RuntimeError(aclnn.aclGetRecentErrMsg())
    if phase_two(np.zeros(ws, np.uint8) if ws else None, ws, ex, stream) != aclnn.ACLNN_SUCCESS:
        raise RuntimeError(aclnn.aclGetRecentErrMsg())
    aclnn.aclrtSynchronizeStream(stream)


def _same(a, b) -> bool:
    if a.dtype.kind in "iu":
        return np.array_equal(a, b)
    af, bf = a.astype(np.float32), b.astype(np.float32)
    return bool(np.all((af == bf) & (np.signbit(af) == np.signbit(bf)) | (np.isnan(af) & np.isnan(bf))))


def golden(op, ins, t):
    with np.errstate(invalid="ignore", over="ignore"):
        if op == "relu":
            (x,) = ins
            return np.where(np.isnan(x.astype(np.float32)) | (x > 0), x, x.dtype.type(0)) if x.dtype.kind != "u" else x
        g, x = ins
        keep = ~(x.astype(np.float32) <= np.float32(t))
        return np.where(keep, g.astype(np.float32), np.float32(0)).astype(g.dtype)


def run_case(op, case, rng, platform, stream):
    specs = case["inputs"]
    if op == "relu":
        x = draw(rng, specs[0], DTYPES[specs[0]["dtype"]])
        out = np.zeros_like(x)
        _launch(aclnn.aclnnReluGetWorkspaceSize, aclnn.aclnnRelu, (_tensor(x), _tensor(out)), stream)
        return (x,), None, out, relu(x, platform=platform)
    gs, xs, ts = specs
    g, x = draw(rng, gs, DTYPES[gs["dtype"]]), draw(rng, xs, DTYPES[xs["dtype"]])
    rv = ts["range_values"]
    t = float(rng.uniform(rv[0], rv[1])) if isinstance(rv, list) and len(rv) == 2 else _value(rv)
    if ts["dtype"] in DTYPES and np.isfinite(t):   # the scalar holds a value of its own dtype
        t = float(np.array(t).astype(DTYPES[ts["dtype"]]))
    out = np.zeros(np.broadcast_shapes(g.shape, x.shape), g.dtype)
    _launch(aclnn.aclnnThresholdBackwardGetWorkspaceSize, aclnn.aclnnThresholdBackward,
            (_tensor(g), _tensor(x), aclnn.aclCreateScalar(t, aclnn.ACL_DOUBLE), _tensor(out)), stream)
    return (g, x), t, out, threshold_backward(g, x, t, platform=platform)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("path", type=Path)
    p.add_argument("--op", choices=sorted(SUITES), default="relu")
    p.add_argument("--max-elements", type=int, default=None, help="skip cases with more elements")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--soc", default="ascend910b", help="the platform's SoC (ascend950 runs the 950 kernels)")
    args = p.parse_args(argv)
    path = args.path / SUITES[args.op] if args.path.is_dir() else args.path
    cases = json.loads(path.read_text())
    platform = Platform(soc_version=args.soc)
    aclnn.set_platform(platform)
    _status, stream = aclnn.aclrtCreateStream()
    summary = collections.Counter()
    for case in cases:
        n = max(int(np.prod(s["shape"] or [1])) for s in case["inputs"] if s["type"] == "tensor")
        if args.max_elements and n > args.max_elements:
            summary["skipped (size)"] += 1
            continue
        rng = np.random.default_rng([args.seed, case["id"]])
        try:
            ins, t, via_aclnn, via_function = run_case(args.op, case, rng, platform, stream)
        except (RuntimeError, TypeError, ValueError) as exc:
            summary["refused"] += 1
            print(f"case {case['id']:3d} refused: {exc}")
            continue
        agree = _same(via_aclnn, via_function)
        gold = _same(via_function, golden(args.op, ins, t))
        summary["run"] += 1
        summary["faces agree"] += agree
        summary["golden rule holds"] += gold
        dtype = case["inputs"][0]["dtype"]
        if not gold:
            summary[f"differs from the golden rule ({dtype})"] += 1
        print(f"case {case['id']:3d} {dtype} {tuple(case['inputs'][0]['shape'] or ())}"
              f"{'' if t is None else f' threshold {t!r}'}: faces {'agree' if agree else 'DIFFER'}, "
              f"golden rule {'holds' if gold else 'differs'}")
    aclnn.aclrtDestroyStream(stream)
    print("\n".join(f"{k}: {v}" for k, v in sorted(summary.items())))
    return 0 if summary["faces agree"] == summary["run"] else 1


if __name__ == "__main__":
    sys.exit(main())
