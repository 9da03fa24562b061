"""``swishgrad demo``: the SPEC's seed example in every dtype."""
from __future__ import annotations

import numpy as np

SEED_BETA = 1.1


def seed_inputs(dtype):
    """gradOutput = six ones, self = 1..6, in ``dtype``."""
    grad = np.ones(6, dtype=np.float32).astype(dtype)
    x = np.arange(1, 7, dtype=np.float32).astype(dtype)
    return grad, x


def float64_swish_grad(grad, x, beta):
    """The formula in float64 on the given (already rounded) inputs."""
    g = np.asarray(grad, dtype=np.float64)
    xb = np.float64(np.float32(beta)) * np.asarray(x, dtype=np.float64)
    sig = 1.0 / (1.0 + np.exp(-xb))
    return g * sig * (1.0 + xb * (1.0 - sig))


def run_demo(out=print) -> None:
    from .. import compute_tiling, swish_backward
    from ..dtypes import SUPPORTED_DTYPES

    out(f"SwishGrad seed example: gradOutput = 1 x 6, self = 1..6, beta = {SEED_BETA}")
    for name, dtype in SUPPORTED_DTYPES.items():
        grad, x = seed_inputs(dtype)
        tiling = compute_tiling(x.size, dtype, scale=SEED_BETA)
        result = swish_backward(grad, x, SEED_BETA)
        exact = float64_swish_grad(grad, x, SEED_BETA)
        err = np.abs(result.astype(np.float64) - exact) / np.abs(exact)
        out("")
        out(f"[{name}] tiling: " + ", ".join(f"{k}={v}" for k, v in tiling.as_dict().items()))
        out(f"[{name}] gradInput : " + " ".join(f"{float(v):.8g}" for v in result))
        out(f"[{name}] float64   : " + " ".join(f"{v:.8g}" for v in exact))
        out(f"[{name}] rel. error: " + " ".join(f"{v:.2e}" for v in err) + f"  (max {err.max():.2e})")


def _cmd_demo(args) -> int:
    run_demo()
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("demo", help="run the SPEC's seed example in float32, float16 and bfloat16")
    p.set_defaults(func=_cmd_demo)
