"""Precision metrics and the operator's pass/fail standard (model section 7).

:func:`compare` measures an output (a device dump, the emulator, another
implementation) against a golden and returns a :class:`PrecisionReport`:

- relative error per element, ``|out - golden| / max(|golden|, tiny)`` in
  float64, where ``tiny`` is the smallest *normal* number of the output
  dtype (float32 and bfloat16: 2^-126, float16: 2^-14); MERE is its mean,
  MARE its maximum, plus the maximum absolute error;
- ULP distances in the output dtype: both values are mapped to a monotone
  integer line (the bit patterns read as sign-magnitude integers and turned
  into two's complement), so the distance between neighbouring
  representable numbers is 1, between +0 and -0 is 0, and between the
  largest finite and inf is 1;
- the number and positions of mismatches (bit patterns that differ; any NaN
  equals any NaN);
- NaN and inf agreement.

The verdict of model section 7: MERE < threshold and MARE < 10 x threshold,
with threshold 2^-13 for float32, 2^-10 for float16 and 2^-7 for bfloat16.

Golden precision. The golden may be of the output dtype (an emulator run)
or wider (a float64 evaluation of the formula). Relative and absolute errors
use the golden's own value; ULP distances and mismatches use the golden
rounded once (to nearest even) to the output dtype, so against a float64
golden "mismatch" means "not the correctly rounded result".

Non-finite values (a choice of this project; model section 7 is silent):
where the golden, rounded to the output dtype, is NaN or +-inf, the output
must be NaN (any NaN) or the same infinity; these elements are left out of
MERE and MARE, and any disagreement on them fails the verdict by itself.
Where the rounded golden is finite but the output is NaN or inf, the
element's relative error is +inf, so MARE (and MERE) are inf and the
verdict fails. A golden beyond the dtype's range therefore expects the inf
a correct cast gives.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..dtypes import DTYPES, SUPPORTED_DTYPES, canonical_dtype, dtype_info

__all__ = [
    "THRESHOLDS",
    "PrecisionReport",
    "compare",
    "threshold_for",
    "tiny_for",
    "ulp_distance",
    "ordered_int",
]

#: model section 7: MERE must be below this, MARE below 10 times this (the
#: dtype table's thresholds, by name).
THRESHOLDS = {name: info.threshold for name, info in DTYPES.items()}

#: MARE limit as a multiple of the threshold.
MARE_FACTOR = 10.0

_UINT = {2: np.uint16, 4: np.uint32}
_SIGNED = {2: np.int16, 4: np.int32}


def threshold_for(dtype) -> float:
    """model section 7 MERE threshold of a supported dtype."""
    return dtype_info(dtype).threshold


def tiny_for(dtype) -> float:
    """Smallest positive normal number of a supported dtype (the relative error's floor)."""
    return dtype_info(dtype).tiny


def ordered_int(a: np.ndarray) -> np.ndarray:
    """Map float bit patterns to int64 on a line that is monotone in the value.

    Non-negative floats keep their bit pattern as an integer; a negative
    float with magnitude bits ``m`` maps to ``-m``. Both zeros map to 0 and
    consecutive representable numbers to consecutive integers. NaN patterns
    land beyond the infinities and must be masked by the caller.
    """
    dt = canonical_dtype(a.dtype, argname="a.dtype")
    bits = np.ascontiguousarray(a).view(_UINT[dt.itemsize]).astype(np.int64)
    sign_bit = 1 << (8 * dt.itemsize - 1)
    mag = bits & (sign_bit - 1)
    return np.where(bits & sign_bit, -mag, mag)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise ULP distance between two arrays of one supported dtype, as int64.

    Where either value is NaN the distance is meaningless (returned as -1).
    """
    a = np.asarray(a)
    b = np.asarray(b)
    if a.dtype != b.dtype:
        raise TypeError(f"a and b must have the same dtype, got {a.dtype} and {b.dtype}")
    if a.shape != b.shape:
        raise ValueError(f"a and b must have the same shape, got {a.shape} and {b.shape}")
    d = np.abs(ordered_int(a) - ordered_int(b))
    with np.errstate(invalid="ignore"):  # signalling-NaN patterns raise "invalid" when widened
        nan = np.isnan(a.astype(np.float32)) | np.isnan(b.astype(np.float32))
    d[nan] = -1
    return d


def _ulp_bucket_label(k: int) -> str:
    # Bucket 0 holds distance 0, bucket 1 distance 1, bucket k >= 2 the
    # distances 2^(k-2)+1 .. 2^(k-1).
    if k <= 1:
        return str(k)
    lo, hi = (1 << (k - 2)) + 1, 1 << (k - 1)
    return str(hi) if lo == hi else f"{lo}-{hi}"


def _ulp_histogram(d: np.ndarray) -> dict[str, int]:
    if d.size == 0:
        return {}
    # bucket(d) = 0 for d == 0, else 1 + bit_length(d - 1); frexp gives the
    # bit length of a non-negative integer exactly (all d < 2^53).
    _, e = np.frexp(np.maximum(d - 1, 0).astype(np.float64))
    buckets = np.where(d == 0, 0, 1 + e)
    counts = np.bincount(buckets)
    return {_ulp_bucket_label(k): int(c) for k, c in enumerate(counts) if c}


@dataclass
class PrecisionReport:
    """Result of :func:`compare`. ``str(report)`` is a readable summary.

    Attributes
    ----------
    dtype : str
        Output dtype name; thresholds and ULPs refer to it.
    shape : tuple
        Shape of the compared arrays.
    numel : int
        Number of elements.
    threshold, mare_limit : float
        MERE must be < ``threshold``, MARE < ``mare_limit`` (10x).
    tiny : float
        Floor of the relative error's denominator (smallest normal).
    mere, mare : float
        Mean and max relative error over elements whose golden is finite
        (0.0 when there are none).
    max_abs_error : float
        Max ``|out - golden|`` over the same elements (inf if the output is
        non-finite there).
    relative_count : int
        Number of elements that entered MERE/MARE.
    over_limit_count : int
        How many of them have a relative error >= ``mare_limit`` (each one
        alone fails MARE).
    max_ulp : int
        Max ULP distance over elements where neither side is NaN.
    ulp_histogram : dict
        ``{"0": n0, "1": n1, "2": n2, "3-4": ..., "5-8": ...}``.
    mismatch_count : int
        Elements whose bits differ from the golden rounded to the output
        dtype (any NaN equals any NaN).
    mismatch_positions : list of tuple
        Multi-indices of the first ``max_positions`` mismatches, in C order.
    nan_golden, nan_output, nan_disagree : int
        NaN counts, and elements NaN on exactly one side.
    inf_golden, inf_output, inf_disagree : int
        Inf counts, and elements (neither NaN) where one side is inf and the
        other is not the same value.
    mere_ok, mare_ok, nonfinite_ok, passed : bool
        The three criteria and the verdict (all three).
    worst : list of dict
        The worst elements, worst first: ``index``, ``output``, ``golden``,
        ``rel_error``, ``abs_error``, ``ulp`` and any ``inputs`` given.
    """

    dtype: str
    shape: tuple
    numel: int
    threshold: float
    mare_limit: float
    tiny: float
    mere: float
    mare: float
    max_abs_error: float
    relative_count: int
    over_limit_count: int
    max_ulp: int
    ulp_histogram: dict
    mismatch_count: int
    mismatch_positions: list
    nan_golden: int
    nan_output: int
    nan_disagree: int
    inf_golden: int
    inf_output: int
    inf_disagree: int
    mere_ok: bool
    mare_ok: bool
    nonfinite_ok: bool
    passed: bool
    worst: list = field(default_factory=list)

    def to_dict(self) -> dict:
        """Plain JSON-serialisable dict (inf written as the string ``"inf"``)."""
        def clean(v):
            if isinstance(v, float) and not math.isfinite(v):
                return str(v)
            if isinstance(v, dict):
                return {k: clean(w) for k, w in v.items()}
            if isinstance(v, (list, tuple)):
                return [clean(w) for w in v]
            return v
        return {name: clean(getattr(self, name)) for name in self.__dataclass_fields__}

    def format(self, worst: int | None = None) -> str:
        """Multi-line report; ``worst`` limits the worst-element listing."""
        verdict = "PASS" if self.passed else "FAIL"
        mark = {True: "ok", False: "FAIL"}
        lines = [
            f"precision report: {self.dtype}, shape {self.shape}, {self.numel} elements",
            f"  verdict       : {verdict} (model section 7: MERE < {self.threshold:.6g}, "
            f"MARE < {self.mare_limit:.6g}, NaN/inf must agree)",
            f"  MERE          : {self.mere:.6e}  [{mark[self.mere_ok]}]",
            f"  MARE          : {self.mare:.6e}  [{mark[self.mare_ok]}]",
            f"  max abs error : {self.max_abs_error:.6e}",
            f"  relative error over {self.relative_count} elements with a finite golden "
            f"(denominator max(|golden|, {self.tiny:.6g})); {self.over_limit_count} at or above "
            f"the MARE limit",
            f"  max ULP       : {self.max_ulp}",
            "  ULP histogram : " + (", ".join(f"{k}: {v}" for k, v in self.ulp_histogram.items()) or "-"),
            f"  mismatches    : {self.mismatch_count} of {self.numel} (bit patterns; any NaN equals any NaN)",
            f"  NaN           : golden {self.nan_golden}, output {self.nan_output}, "
            f"disagree {self.nan_disagree}",
            f"  inf           : golden {self.inf_golden}, output {self.inf_output}, "
            f"disagree {self.inf_disagree}  [{mark[self.nonfinite_ok]}]",
        ]
        if self.mismatch_positions:
            shown = ", ".join(str(tuple(p)) for p in self.mismatch_positions[:10])
            more = " ..." if self.mismatch_count > 10 else ""
            lines.append(f"  first mismatch positions: {shown}{more}")
        rows = self.worst if worst is None else self.worst[:worst]
        if rows:
            input_names = list(rows[0].get("inputs", {}))
            lines.append("  worst elements:")
            header = ["index", "output", "golden", "rel error", "abs error", "ulp"] + input_names
            table = [header]
            for r in rows:
                table.append([str(tuple(r["index"])), f"{r['output']:.9g}", f"{r['golden']:.9g}",
                              f"{r['rel_error']:.3e}", f"{r['abs_error']:.3e}",
                              "nan" if r["ulp"] < 0 else str(r["ulp"])]
                             + [f"{r['inputs'][n]:.9g}" for n in input_names])
            widths = [max(len(row[i]) for row in table) for i in range(len(header))]
            for row in table:
                lines.append("    " + "  ".join(c.rjust(w) for c, w in zip(row, widths)))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()


def _round_golden(golden: np.ndarray, dt: np.dtype) -> np.ndarray:
    # One rounding to nearest even from the golden's dtype (NumPy casts
    # float64 -> float16 and ml_dtypes float64 -> bfloat16 directly, not
    # through float32); overflow becomes inf.
    with np.errstate(over="ignore", invalid="ignore"):
        return golden.astype(dt)


def compare(output, golden, *, inputs: dict | None = None, worst: int = 10,
            max_positions: int = 100) -> PrecisionReport:
    """Measure ``output`` against ``golden`` and give the model section 7 verdict.

    Parameters
    ----------
    output : numpy.ndarray
        float32, float16 or bfloat16; its dtype selects the threshold and
        the ULP grid.
    golden : numpy.ndarray
        Same shape, any of float64, float32, float16, bfloat16.
    inputs : dict of str to numpy.ndarray, optional
        Arrays of the same shape (e.g. ``{"grad": g, "x": x}``) whose values
        are listed next to each worst element.
    worst : int
        How many worst elements to keep (>= 0). Elements with a NaN/inf
        disagreement come first, then by relative error, then ULP distance.
    max_positions : int
        How many mismatch positions to keep (>= 0).

    Returns
    -------
    PrecisionReport
    """
    if not isinstance(output, np.ndarray):
        raise TypeError(f"output must be a numpy.ndarray, got {type(output).__name__}")
    if not isinstance(golden, np.ndarray):
        raise TypeError(f"golden must be a numpy.ndarray, got {type(golden).__name__}")
    dt = canonical_dtype(output.dtype, argname="output.dtype")
    if golden.dtype != np.float64 and golden.dtype not in SUPPORTED_DTYPES.values():
        raise TypeError(f"golden.dtype must be float64, float32, float16 or bfloat16, got {golden.dtype}")
    if golden.shape != output.shape:
        raise ValueError(f"golden must have the output's shape {output.shape}, got {golden.shape}")
    inputs = dict(inputs or {})
    for name, arr in inputs.items():
        if not isinstance(arr, np.ndarray) or arr.shape != output.shape:
            raise ValueError(f"inputs[{name!r}] must be a numpy.ndarray of shape {output.shape}")
    for name, value in (("worst", worst), ("max_positions", max_positions)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")

    shape = output.shape
    out = np.ascontiguousarray(output).reshape(-1)
    gold = np.ascontiguousarray(golden).reshape(-1)
    gold_r = _round_golden(gold, dt)
    with np.errstate(invalid="ignore"):  # signalling-NaN patterns raise "invalid" when widened
        out64 = out.astype(np.float64)
        gold64 = gold.astype(np.float64)
        gold_r64 = gold_r.astype(np.float64)

    nan_o = np.isnan(out64)
    nan_g = np.isnan(gold_r64)
    inf_o = np.isinf(out64)
    inf_g = np.isinf(gold_r64)
    nan_dis = nan_o != nan_g
    inf_dis = (inf_o | inf_g) & ~nan_o & ~nan_g & (out64 != gold_r64)

    # Relative error over elements whose (rounded) golden is finite.
    rel_mask = ~(nan_g | inf_g)
    tiny = tiny_for(dt)
    with np.errstate(invalid="ignore", over="ignore"):
        abs_err = np.abs(out64 - gold64)
        abs_err[~rel_mask] = np.nan  # not part of the statistics
        abs_err[rel_mask & ~np.isfinite(out64)] = np.inf
        rel = abs_err / np.maximum(np.abs(gold64), tiny)
    rel_vals = rel[rel_mask]
    threshold = THRESHOLDS[dt.name]
    mare_limit = MARE_FACTOR * threshold
    n_rel = int(rel_vals.size)
    mere = float(rel_vals.mean()) if n_rel else 0.0
    mare = float(rel_vals.max()) if n_rel else 0.0
    max_abs = float(abs_err[rel_mask].max()) if n_rel else 0.0

    ulp = ulp_distance(out, gold_r)
    ulp_valid = ulp[ulp >= 0]
    max_ulp = int(ulp_valid.max()) if ulp_valid.size else 0
    bits_o = out.view(_UINT[dt.itemsize])
    bits_g = gold_r.view(_UINT[dt.itemsize])
    mismatch = (bits_o != bits_g) & ~(nan_o & nan_g)
    mism_idx = np.flatnonzero(mismatch)

    mere_ok = bool(mere < threshold)
    mare_ok = bool(mare < mare_limit)
    nonfinite_ok = bool(not nan_dis.any() and not inf_dis.any())

    def unravel(i):
        return [int(v) for v in np.unravel_index(int(i), shape)] if shape else []

    worst_rows = []
    if worst and out.size:
        # Worst first: non-finite disagreements, then relative error, then
        # ULP distance. Only elements that differ at all are candidates.
        disagree = nan_dis | inf_dis
        key = np.where(disagree, np.inf, np.where(np.isnan(rel), -1.0, rel))
        cand = np.flatnonzero(disagree | (key > 0) | (ulp > 0) | mismatch)
        if cand.size > worst:
            cand = cand[np.argpartition(-key[cand], worst - 1)[:worst]]
        order = cand[np.lexsort((ulp[cand], key[cand]))[::-1]]
        flat_inputs = {n: np.ascontiguousarray(a).reshape(-1) for n, a in inputs.items()}
        for i in order:
            row = {
                "index": unravel(i),
                "output": float(out64[i]),
                "golden": float(gold64[i]),
                "rel_error": float(rel[i]) if rel_mask[i] else float("nan"),
                "abs_error": float(abs_err[i]) if rel_mask[i] else float("nan"),
                "ulp": int(ulp[i]),
            }
            if flat_inputs:
                row["inputs"] = {n: float(a[i]) for n, a in flat_inputs.items()}
            worst_rows.append(row)

    return PrecisionReport(
        dtype=dt.name,
        shape=tuple(int(s) for s in shape),
        numel=int(out.size),
        threshold=threshold,
        mare_limit=mare_limit,
        tiny=tiny,
        mere=mere,
        mare=mare,
        max_abs_error=max_abs,
        relative_count=n_rel,
        over_limit_count=int(np.count_nonzero(rel_vals >= mare_limit)),
        max_ulp=max_ulp,
        ulp_histogram=_ulp_histogram(ulp_valid),
        mismatch_count=int(mism_idx.size),
        mismatch_positions=[unravel(i) for i in mism_idx[:max_positions]],
        nan_golden=int(nan_g.sum()),
        nan_output=int(nan_o.sum()),
        nan_disagree=int(nan_dis.sum()),
        inf_golden=int(inf_g.sum()),
        inf_output=int(inf_o.sum()),
        inf_disagree=int(inf_dis.sum()),
        mere_ok=mere_ok,
        mare_ok=mare_ok,
        nonfinite_ok=nonfinite_ok,
        passed=mere_ok and mare_ok and nonfinite_ok,
        worst=worst_rows,
    )
