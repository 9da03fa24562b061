"""A plain reference for the Casts between float and integer dtypes (issue 43), written from asc-devkit's Cast
page: a float rounded to a whole number by the mode (RINT to nearest even, FLOOR toward -inf, CEIL toward
+inf, ROUND half away from zero, TRUNC toward zero), clipped to the integer's range, NaN 0; an integer rounded
to the float dtype by the mode, between its two neighbours in that dtype (CAST_NONE: RINT)."""
import ml_dtypes
import numpy as np

MODES = ("CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC")
NP = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": np.dtype(ml_dtypes.bfloat16),
      "int32": np.dtype(np.int32), "int16": np.dtype(np.int16), "int8": np.dtype(np.int8),
      "uint8": np.dtype(np.uint8)}


def to_int(src, dst, mode, wrap=False):
    """The ``dst`` integers of the float array ``src`` in ``mode``; ``wrap``: a finite whole number past the range
    keeps its low bits (two's complement), where by default it is clipped."""
    with np.errstate(invalid="ignore"):
        x = np.asarray(src).astype(np.float64)
    info = np.iinfo(NP[dst])
    nan = np.isnan(x)
    x = np.where(nan, 0.0, x)
    if mode in ("CAST_RINT", "CAST_NONE"):
        r = np.rint(x)
    elif mode == "CAST_FLOOR":
        r = np.floor(x)
    elif mode == "CAST_CEIL":
        r = np.ceil(x)
    elif mode == "CAST_ROUND":
        r = np.where(x >= 0, np.floor(x + 0.5), np.ceil(x - 0.5))
    else:
        r = np.trunc(x)
    if wrap:
        span = float(info.max) - float(info.min) + 1
        finite = np.isfinite(r)
        low = np.fmod(np.where(finite, r, 0.0), span)      # exact; a multiple of the span past 2^63 gives 0
        wrapped = (np.where(finite, low, 0).astype(np.int64) - int(info.min)) % int(span) + int(info.min)
        return np.where(finite, wrapped, np.clip(r, info.min, info.max)).astype(NP[dst])
    return np.clip(r, info.min, info.max).astype(NP[dst])


def to_float(src, dst, mode):
    """The ``dst`` floats of the integer array ``src`` in ``mode``."""
    x = np.asarray(src).astype(np.float64)          # exact for every int32
    near = x.astype(NP[dst])                        # to nearest even (one rounding from the exact value)
    back = near.astype(np.float64)
    below = np.where(back > x, np.nextafter(near, NP[dst].type(-np.inf)), near)
    above = np.where(back < x, np.nextafter(near, NP[dst].type(np.inf)), near)
    lo, hi = below.astype(np.float64), above.astype(np.float64)
    if mode in ("CAST_RINT", "CAST_NONE"):
        return near
    if mode == "CAST_FLOOR":
        return below
    if mode == "CAST_CEIL":
        return above
    if mode == "CAST_TRUNC":
        return np.where(x >= 0, below, above)
    tie_or_up = (hi - x) < (x - lo)
    tie = (hi - x) == (x - lo)
    return np.where(tie, np.where(x >= 0, above, below), np.where(tie_or_up, above, below))


def cast(src, dst, mode, wrap=False):
    """``src`` (an array of its dtype) cast to the dtype named ``dst`` (``wrap``: :func:`to_int`'s)."""
    if np.issubdtype(NP[dst], np.integer):
        return to_int(src, dst, mode, wrap)
    return to_float(src, dst, mode)
