"""Accuracy survey: the emulator, the operator's NumPy golden and PyTorch against float64.

Run from the repository root::

    python bench/accuracy_survey.py            # full survey, a few minutes on 2 cores
    python bench/accuracy_survey.py --quick    # smaller float32 samples

For every case it evaluates SwishGrad (model section 1) in float64 on the
inputs *as rounded to the dtype* and with beta rounded to float32 (exactly
what the kernel sees), then measures against it with
:func:`swishgrad_numba.precision.compare`:

- the emulator (``swishgrad_numba.swish_backward``);
- the operator's float32 NumPy golden (``swishgrad_numba.golden.numpy_golden``);
- PyTorch's ``torch.ops.aten.silu_backward`` at beta = 1 (skipped when torch
  is not installed);

and checks the emulator against the NumPy golden by the operator's own
standard (model section 7). Inputs: every one of the 2^16 bit patterns of x
for float16 and bfloat16 (NaN and inf included) with grad = 1, -3.3 (as
rounded to the dtype) and a seeded uniform grad in [-5, 5]; for float32 a
seeded uniform sample of x in [-5, 5] (grad = 1 and uniform grad) and a
wide-range sample (|x| log-uniform in [2^-30, 2^8], random sign, grad = 1).
Prints Markdown tables. Not collected by pytest.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import swishgrad_numba as sg
from swishgrad_numba.golden import float64_truth, numpy_golden
from swishgrad_numba.precision import compare

BETAS = (0.5, 1.0, 1.1, 2.0, -1.5)
UINT = {2: np.uint16, 4: np.uint32}


def _to_torch(a):
    import torch

    if a.dtype == sg.bfloat16:
        return torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(a.copy())


def _from_torch(t, dtype):
    import torch

    if dtype == sg.bfloat16:
        return t.view(torch.int16).numpy().view(sg.bfloat16)
    return t.numpy()


def torch_silu_backward(grad, x):
    """PyTorch's silu_backward on CPU, or None without torch."""
    try:
        import torch
    except ImportError:
        return None
    with torch.no_grad():
        out = torch.ops.aten.silu_backward(_to_torch(grad), _to_torch(x))
    return _from_torch(out, x.dtype)


def cases_16bit(dtype, rng):
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(dtype)
    grads = {
        "1": np.ones(x.shape, dtype),
        "-3.3": np.full(x.shape, -3.3, dtype=np.float32).astype(dtype),
        "U[-5,5]": rng.uniform(-5, 5, x.size).astype(dtype),
    }
    for gname, g in grads.items():
        yield "all 2^16 x", gname, g, x


def cases_float32(n_uniform, n_wide, rng):
    x = rng.uniform(-5, 5, n_uniform).astype(np.float32)
    yield f"2^{int(np.log2(n_uniform))} x in U[-5,5]", "1", np.ones(n_uniform, np.float32), x
    yield f"2^{int(np.log2(n_uniform))} x in U[-5,5]", "U[-5,5]", rng.uniform(-5, 5, n_uniform).astype(np.float32), x
    mag = np.exp2(rng.uniform(-30, 8, n_wide))
    xw = (mag * rng.choice([-1.0, 1.0], n_wide)).astype(np.float32)
    yield f"2^{int(np.log2(n_wide))} x wide", "1", np.ones(n_wide, np.float32), xw


# Below this beta*x the float32 sigmoid 1/(1 + e^-(beta*x)) leaves float32's
# normal range (e^87.34 ~ 2^126): the float32 recipe then loses relative
# accuracy, and returns 0 once e^-(beta*x) overflows (beta*x < -88.72).
SIGMOID_NORMAL_LIMIT = -87.0
FLT_MAX = float(np.finfo(np.float32).max)


def in_float32_domain(x, beta):
    """Mask of x where beta*x >= -87 and |beta*x| fits float32 (no exp/Muls overflow)."""
    with np.errstate(invalid="ignore", over="ignore"):
        xb = float(np.float32(beta)) * x.astype(np.float64)
    return np.isfinite(xb) & (xb >= SIGMOID_NORMAL_LIMIT) & (np.abs(xb) <= FLT_MAX)


def _fmt(v):
    if isinstance(v, str):
        return v
    if v == 0:
        return "0"
    if not np.isfinite(v):
        return str(v)
    return f"{v:.2e}"


def measure(dtype, inputs, gname, g, x, beta, with_torch):
    ref = float64_truth(g, x, beta)
    emu = sg.swish_backward(g, x, beta)
    gold = numpy_golden(g, x, beta)
    rows = []
    impls = [("emulator", emu), ("NumPy golden", gold)]
    if with_torch and np.float32(beta) == 1:
        t = torch_silu_backward(g, x)
        if t is not None:
            impls.append(("torch silu_backward", t))
    for name, out in impls:
        r = compare(out, ref, worst=1)
        rows.append({
            "dtype": dtype.name, "inputs": inputs, "beta": beta, "grad": gname, "impl": name,
            "MERE": r.mere, "MARE": r.mare, "max ULP": r.max_ulp,
            "correctly rounded": 1.0 - r.mismatch_count / r.numel,
            ">= 10T": r.over_limit_count,
            "NaN/inf disagree": r.nan_disagree + r.inf_disagree,
            "verdict": "pass" if r.passed else "FAIL",
            "worst x": float(x[r.worst[0]["index"][0]]) if r.worst else None,
        })
    # The operator's own check: emulator against its NumPy golden.
    r = compare(emu, gold)
    vs_golden = {
        "dtype": dtype.name, "inputs": inputs, "beta": beta, "grad": gname,
        "bit-identical": 1.0 - r.mismatch_count / r.numel, "max ULP": r.max_ulp,
        "MERE": r.mere, "MARE": r.mare, ">= 10T": r.over_limit_count,
        "verdict": "pass" if r.passed else "FAIL",
    }
    return rows, vs_golden


def markdown(rows, columns):
    def cell(row, c):
        v = row[c]
        if c in ("correctly rounded", "bit-identical"):
            return f"{100 * v:.3f} %"
        if c == "worst x":
            return "-" if v is None else f"{v:.6g}"
        if isinstance(v, float):
            return _fmt(v) if c not in ("beta",) else f"{v:g}"
        return str(v)
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(cell(r, c) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--float32-samples", type=int, default=1 << 24, help="uniform float32 sample size")
    p.add_argument("--wide-samples", type=int, default=1 << 22, help="wide-range float32 sample size")
    p.add_argument("--quick", action="store_true", help="2^20 and 2^18 float32 samples")
    p.add_argument("--seed", type=int, default=20240601)
    p.add_argument("--no-torch", action="store_true", help="skip PyTorch even if installed")
    args = p.parse_args(argv)
    if args.quick:
        args.float32_samples, args.wide_samples = 1 << 20, 1 << 18
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    acc, vs = [], []
    for dtype in (np.dtype(np.float16), sg.bfloat16):
        for inputs, gname, g, x in cases_16bit(dtype, rng):
            for beta in BETAS:
                rows, v = measure(dtype, inputs, gname, g, x, beta, not args.no_torch)
                acc += rows
                vs.append(v)
                keep = in_float32_domain(x, beta)
                rows, _ = measure(dtype, "x with beta*x in [-87, FLT_MAX]", gname, g[keep], x[keep], beta,
                                  not args.no_torch)
                acc += rows
    for inputs, gname, g, x in cases_float32(args.float32_samples, args.wide_samples, rng):
        for beta in BETAS:
            rows, v = measure(np.dtype(np.float32), inputs, gname, g, x, beta, not args.no_torch)
            acc += rows
            vs.append(v)
            if "wide" in inputs:
                keep = in_float32_domain(x, beta)
                rows, _ = measure(np.dtype(np.float32), inputs + ", beta*x >= -87", gname, g[keep], x[keep],
                                  beta, not args.no_torch)
                acc += rows
    elapsed = time.perf_counter() - start
    print(f"# SwishGrad accuracy survey (seed {args.seed}, {elapsed:.0f} s)\n")
    print("## Against float64 (model section 7 metrics; ULPs and 'correctly rounded' "
          "against the float64 value rounded to the dtype)\n")
    print(markdown(acc, ["dtype", "inputs", "beta", "grad", "impl", "MERE", "MARE", "max ULP",
                         "correctly rounded", ">= 10T", "NaN/inf disagree", "verdict", "worst x"]))
    print("\n## Emulator against the operator's NumPy golden (the operator's own check)\n")
    print(markdown(vs, ["dtype", "inputs", "beta", "grad", "bit-identical", "max ULP", "MERE", "MARE",
                        ">= 10T", "verdict"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
