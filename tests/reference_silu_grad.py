"""A plain reading of SiluGrad (docs/model.md, "SiluBackward"), for the tests only.

No tiling, no Numba, nothing from the package: NumPy float32 arrays, one
instruction per line, the correctly rounded Exp of tests/reference.py.
"""
from __future__ import annotations

import numpy as np

from reference import ref_exp_f32


def ref_silu_grad(dy: np.ndarray, x: np.ndarray) -> np.ndarray:
    """dx of SiluGrad: both inputs widened to float32, broadcast against each
    other, the kernels' sequence step by step, then narrowed with round to
    nearest even to the inputs' dtype when they agree (float32 otherwise)."""
    dy, x = np.asarray(dy), np.asarray(x)
    out_dtype = dy.dtype if dy.dtype == x.dtype else np.dtype(np.float32)
    one = np.float32(1.0)
    with np.errstate(all="ignore"):
        g, xf = np.broadcast_arrays(dy.astype(np.float32), x.astype(np.float32))
        shape = g.shape
        g, xf = g.reshape(-1), xf.reshape(-1)
        t = xf * np.float32(-1.0)     # Muls(x, -1)
        t = ref_exp_f32(t)            # Exp
        t = t + one                   # Adds(t, 1)
        s = one / t                   # Div(1, t)
        t = one - s                   # Sub(1, s)
        t = xf * t                    # Mul(x, t)
        t = t + one                   # Adds(t, 1)
        t = s * t                     # Mul(s, t)
        o = g * t                     # Mul(dy, t)
        return o.astype(out_dtype).reshape(shape)   # Cast CAST_RINT (no-op for float32)
