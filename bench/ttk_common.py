"""What the third tier's TTK runners (bench/ttk_swiglu.py, bench/ttk_mish.py) share: reading a TTK row, making
its inputs, launching an aclnn pair, and the row's tolerance against a float64 truth. Nothing upstream is copied.
"""
from __future__ import annotations

import ast
import csv
import re

import ml_dtypes
import numpy as np

from swishgrad_numba import aclnn

ACL = {np.dtype(np.float32): aclnn.ACL_FLOAT, np.dtype(np.float16): aclnn.ACL_FLOAT16,
       np.dtype(ml_dtypes.bfloat16): aclnn.ACL_BF16}
#: The tolerance ``(rtol, ratio)`` where a row gives none: SwiGlu's rows' own per dtype.
DEFAULT_TOLERANCE = {"float32": (1e-4, 1e-4), "float16": (1e-3, 1e-3), "bfloat16": (1e-3, 1e-3)}


def rows(path):
    return list(csv.DictReader(open(path)))


def field(row, name):
    text = row.get(name) or ""
    return ast.literal_eval(re.sub(r"(-?)\b(nan|inf)\b", r"'\1\2'", text)) if text else None


def inputs(row, rng):
    """The row's inputs (None for an absent one): uniform in the range's first two values, in the dtype; any
    further values of the range (nan, -0.0, inf) written into the first elements of each input, in turn."""
    shapes, dtypes, ranges = field(row, "input_shapes"), field(row, "input_dtypes"), field(row, "input_data_ranges")
    out = []
    for i, (shape, dtype) in enumerate(zip(shapes, dtypes)):
        if dtype is None:
            out.append(None)
            continue
        r = [float(v) for v in ranges[min(i, len(ranges) - 1)]]
        lo, hi = r[0], r[1]
        if np.isfinite(lo) and np.isfinite(hi):
            v = rng.uniform(lo, hi, size=shape).astype(np.float32)
        else:
            v = np.full(shape, lo if lo == hi else np.nan, np.float32)
        flat = v.reshape(-1)
        for k, special in enumerate(r[2:]):
            if k < flat.size:
                flat[k] = special
        out.append(v.astype(np.dtype(dtype)))
    return out


def tolerance(row, dtype):
    """``(rtol, ratio, atol)``: the row's, :data:`DEFAULT_TOLERANCE` where it gives none, and ``atol`` its
    ``absolute_precision`` or 1e-8 (the value the Mish and SwiGluGrad rows give) where it gives none."""
    tol = field(row, "precision_tolerances")
    rtol, ratio = (float(v) for v in tol[0]) if tol else DEFAULT_TOLERANCE[np.dtype(dtype).name]
    atol = float(row.get("absolute_precision") or 1e-8)
    return rtol, ratio, atol


def within(y, truth, rtol, ratio, atol) -> bool:
    """At most ``ratio`` of y's elements off the golden (the float64 truth rounded once to y's dtype, as upstream's
    golden is the formula in float32 cast to the dtype) by more than ``rtol`` relatively and ``atol``
    absolutely; NaN matches NaN, an infinity the same infinity."""
    with np.errstate(all="ignore"):
        y64 = y.astype(np.float64)
        golden = truth.astype(y.dtype).astype(np.float64)
        diff = np.abs(y64 - golden)
        good = (diff <= rtol * np.abs(golden)) | (diff <= atol) | (np.isnan(y64) & np.isnan(golden)) \
            | (np.isinf(golden) & (y64 == golden))
    return bool(np.mean(~good) <= ratio) if good.size else True


def tensor(a):
    return aclnn.aclCreateTensor(a.shape, ACL[a.dtype], None, 0, aclnn.ACL_FORMAT_ND, a.shape, a)


def launch(pair, args, stream):
    """Phase one ``pair[0](*args)`` then phase two; a RuntimeError with the recent message on failure."""
    status, ws, ex = getattr(aclnn, pair[0])(*args)
    if status != aclnn.ACLNN_SUCCESS:
        raise RuntimeError(aclnn.aclGetRecentErrMsg())
    if getattr(aclnn, pair[1])(np.zeros(ws, np.uint8), ws, ex, stream) != aclnn.ACLNN_SUCCESS:
        raise RuntimeError(aclnn.aclGetRecentErrMsg())
    aclnn.aclrtSynchronizeStream(stream)


def bits(a):
    return np.ascontiguousarray(a).view({2: np.uint16, 4: np.uint32}[a.dtype.itemsize])


def sig(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
