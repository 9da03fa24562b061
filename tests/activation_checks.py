"""What the activation references' own tests share: the 16-bit sweeps, ulp
measures and the "narrowed from the truth" bound."""
import ml_dtypes
import numpy as np

F32 = np.float32
DT16 = {"float16": np.dtype(np.float16), "bfloat16": np.dtype(ml_dtypes.bfloat16)}


def every16(dtype):
    """All 65,536 bit patterns of a 16-bit dtype."""
    return np.arange(65536, dtype=np.uint32).astype(np.uint16).view(DT16[dtype])


def ulp32(v):
    """binary32 spacing at |v| (a float64 array), subnormal spacing included."""
    a = np.abs(np.asarray(v, dtype=np.float64)).astype(F32)
    return (np.nextafter(a, F32(np.inf)) - a).astype(np.float64)


def spacing16(v, dtype):
    """Spacing of the 16-bit dtype at |v|."""
    mant, emin = (10, -14) if dtype == "float16" else (7, -126)
    e = np.frexp(np.abs(np.asarray(v, dtype=np.float64)))[1] - 1
    return np.ldexp(1.0, np.maximum(e, emin) - mant)


def assert_narrowed_from_truth(ref16, truth, slack32, dtype, context, min_checked=0):
    """A 16-bit result must be the truth rounded to nearest, up to the float32
    computation's own error: |ref - truth| <= spacing16/2 + slack32, where the
    truth is finite and inside the dtype's finite range (at least
    ``min_checked`` such elements)."""
    r = ref16.astype(np.float64)
    largest = 65504.0 if dtype == "float16" else float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)
    finite = np.isfinite(truth) & (np.abs(truth) < largest)
    err = np.abs(r - truth)
    bad = finite & ~(err <= spacing16(truth, dtype) / 2 + slack32)
    assert not bad.any(), f"{context}: {bad.sum()} elements, first at {np.flatnonzero(bad)[:3]}"
    assert finite.sum() >= min_checked
