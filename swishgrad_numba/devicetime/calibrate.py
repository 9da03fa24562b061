"""Calibration: fit the model's free parameters to ``msprof op`` measurements of real launches.

``msprof op`` writes ``OpBasicInfo.csv`` (``Task Duration(us)``, ``Block Dim``) and ``PipeUtilization.csv``
(per core ``aiv_time(us)``, ``aiv_vec_time(us)``, ``aiv_mte2_time(us)``, ``aiv_mte3_time(us)``, ...).
:func:`fit` fits :data:`~.params.FREE_PARAMETERS` by least squares on the relative errors of the launch time
and of each core's VECTOR, MTE2 and MTE3 time (Levenberg-Marquardt on the logarithms of the parameters, with a
central-difference Jacobian, bounded steps and a rank check that leaves what the data cannot fix alone; NumPy
only). The rows of PipeUtilization.csv are matched to the model's cores in file order.
"""
from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass

import numpy as np

from .custom import estimate_custom
from .estimate import estimate
from ..platform import Platform
from .params import FITTABLE_PARAMETERS, FREE_PARAMETERS, Params, default_params

__all__ = ["Measurement", "FitResult", "read_msprof", "fit"]

_CORE_COLUMNS = ("aiv_vec_time(us)", "aiv_mte2_time(us)", "aiv_mte3_time(us)")


@dataclass(frozen=True)
class Measurement:
    """One launch as msprof op measured it (checked: a duration > 0, finite core times >= 0)."""

    duration_us: float
    block_dim: int | None
    cores: tuple          # per core: (aiv_vec_time, aiv_mte2_time, aiv_mte3_time), microseconds

    def __post_init__(self):
        d = self.duration_us
        if isinstance(d, bool) or not isinstance(d, (int, float)) or not math.isfinite(d) or d <= 0:
            raise ValueError(f"measurement: duration_us must be a finite time > 0, got {d!r}")
        b = self.block_dim
        if b is not None and (isinstance(b, bool) or not isinstance(b, int) or b < 1):
            raise ValueError(f"measurement: block_dim must be None or an integer >= 1, got {b!r}")
        try:
            cores = tuple(tuple(float(v) for v in row) for row in self.cores)
        except (TypeError, ValueError):
            raise ValueError("measurement: cores must hold one (vec, mte2, mte3) triple of times per core") from None
        if any(len(row) != 3 or not all(math.isfinite(v) and v >= 0 for v in row) for row in cores):
            raise ValueError("measurement: cores must hold one (vec, mte2, mte3) triple of finite times >= 0 "
                             "per core")
        object.__setattr__(self, "cores", cores)


def _read_csv(path, argname: str) -> list:
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            header = [str(h).strip() for h in (reader.fieldnames or [])]
            twice = sorted({h for h in header if header.count(h) > 1})
            if twice:
                raise ValueError(f"{argname}: {str(path)!r} has the column(s) {twice} more than once; which one "
                                 f"to read is ambiguous")
            rows = list(reader)
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{argname}: cannot read {str(path)!r}: {getattr(exc, 'strerror', None) or exc}") from None
    except csv.Error as exc:
        raise ValueError(f"{argname}: {str(path)!r} is not a CSV file: {exc}") from None
    if not rows:
        raise ValueError(f"{argname}: {str(path)!r} has no data rows")
    return rows


def _number(row, column, path, argname, positive=False):
    try:
        value = float(str(row[column]).strip())
    except KeyError:
        raise ValueError(f"{argname}: {str(path)!r} has no column {column!r}") from None
    except ValueError:
        raise ValueError(f"{argname}: {str(path)!r}: column {column!r} holds {row[column]!r}, not a number") from None
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise ValueError(f"{argname}: {str(path)!r}: column {column!r} holds {value}, not a "
                         f"{'number > 0' if positive else 'number >= 0'}")
    return value


def read_msprof(folder, argname: str = "msprof") -> Measurement:
    """Read ``OpBasicInfo.csv`` and ``PipeUtilization.csv`` from an ``msprof op`` output folder.

    Raises
    ------
    ValueError
        A file that is missing, unreadable, not CSV, or without the columns (the message names the file).
    """
    basic_path = os.path.join(folder, "OpBasicInfo.csv")
    pipe_path = os.path.join(folder, "PipeUtilization.csv")
    basic_rows = _read_csv(basic_path, argname)
    if len(basic_rows) != 1:
        raise ValueError(f"{argname}: {basic_path!r} has {len(basic_rows)} launches; give a folder of one launch")
    basic = basic_rows[0]
    duration = _number(basic, "Task Duration(us)", basic_path, argname, positive=True)
    block_dim = None
    if "Block Dim" in basic and str(basic["Block Dim"]).strip():
        block_dim = _number(basic, "Block Dim", basic_path, argname, positive=True)
        if block_dim != int(block_dim):
            raise ValueError(f"{argname}: {basic_path!r}: Block Dim holds {block_dim}, not a whole number")
        block_dim = int(block_dim)
    cores = tuple(tuple(_number(row, c, pipe_path, argname) for c in _CORE_COLUMNS)
                  for row in _read_csv(pipe_path, argname))
    return Measurement(duration, block_dim, cores)


@dataclass
class FitResult:
    """The fitted parameters and how well they explain each launch."""

    params: Params
    fitted: dict             # free parameter -> value (an undetermined one keeps its start value)
    undetermined: tuple      # free parameters the measurements cannot fix (left at their start values)
    residuals: list          # per launch: measured and predicted launch time, relative error
    rms: float               # root mean square of all relative residuals
    converged: bool = True   # False: the iterations ran out before the fit settled (the values are the best found)
    iterations: int = 0
    loose: tuple = ()        # fitted parameters the data do not pin down at the result: other values fit as well

    def __str__(self) -> str:
        lines = [("fitted: " if self.converged else "DID NOT CONVERGE; best values found: ")
                 + ", ".join(f"{k} = {v:.6g}" for k, v in self.fitted.items() if k not in self.undetermined)]
        if self.undetermined:
            lines.append("not determined by these measurements (left at their start values): "
                         + ", ".join(self.undetermined))
        if self.loose:
            lines.append("not pinned down at the result (other values fit as well): " + ", ".join(self.loose))
        for r in self.residuals:
            lines.append(f"  {r['label']}: measured {r['measured_us']:.3f} us, predicted {r['predicted_us']:.3f} us "
                         f"({100 * r['relative_error']:+.2f} %)")
        lines.append(f"rms relative error {self.rms:.3g} after {self.iterations} iteration(s)")
        return "\n".join(lines)


def _launch(item, index, platform):
    if not isinstance(item, dict):
        raise TypeError(f"launches[{index}] must be a dict with tiling, numel, dtype and msprof, "
                        f"got {type(item).__name__}")
    needed = ("custom", "msprof") if "custom" in item else ("numel", "dtype", "msprof")
    missing = [k for k in needed if k not in item]
    if missing:
        raise ValueError(f"launches[{index}] lacks {missing}")
    if "custom" in item and not isinstance(item["custom"], dict):
        raise TypeError(f"launches[{index}].custom must be a dict of estimate_custom's arguments")
    m = item["msprof"]
    if not isinstance(m, Measurement):
        m = read_msprof(m, argname=f"launches[{index}].msprof")
    if "custom" in item:
        custom = dict(item["custom"])
        if "params" in custom:
            raise ValueError(f"launches[{index}].custom must not hold params (fit sets them)")
        custom.setdefault("platform", platform)
        return custom, None, None, None, m
    # a launch without its own platform runs on fit's (so its host tiling is that platform's kernel's)
    return item.get("tiling"), item["numel"], item["dtype"], item.get("platform", platform), m


def _estimate(params, tiling, numel, dtype, platform):
    if numel is None:      # another kernel: estimate_custom's arguments
        return estimate_custom(**tiling, params=params)
    return estimate(tiling, numel, dtype, platform=platform, params=params, allow_invalid=True)


def _check_launch(index, est, m):
    """The measurement must describe the modelled launch: its Block Dim and its per-core rows."""
    if m.block_dim is not None and m.block_dim != est.n_cores:
        raise ValueError(f"launches[{index}].msprof: Block Dim {m.block_dim} but the model launches {est.n_cores} "
                         f"cores for this tiling (a profile of another launch?)")
    if m.cores and len(m.cores) != est.n_cores:
        raise ValueError(f"launches[{index}].msprof: PipeUtilization.csv has {len(m.cores)} core rows but the "
                         f"model launches {est.n_cores} cores")


def _residuals(params, launches, with_cores=True):
    res, rows = [], []
    for tiling, numel, dtype, platform, m in launches:
        est = _estimate(params, tiling, numel, dtype, platform)
        res.append(est.duration_us / m.duration_us - 1.0)
        rows.append((est, m))
        if with_cores:
            util = est.pipe_utilization()
            for core, measured in enumerate(m.cores):
                for col, value in zip(_CORE_COLUMNS, measured):
                    if value > 0:
                        res.append(util[core][col] / value - 1.0)
    return np.asarray(res), rows


# The log of a parameter stays within this of its start (a factor of e^9, about 8000, either way): a step that
# drives a parameter towards 0 or infinity leaves the region where the data say anything about it.
_LOG_BOUND = 9.0
# Where a parameter starts at 0 (no logarithm), the fit starts it here (cycles, microseconds: small but not tiny).
_ZERO_START = 1.0
# The largest change of a log-parameter in one step (a factor of 2).
_MAX_STEP = math.log(2.0)
# Central-difference step on the log scale.
_JAC_STEP = 1e-4
# A direction of the parameters whose singular value is below this fraction of the largest is not fixed by the
# data; a parameter weighing more than _NULL_WEIGHT in such a direction is undetermined.
_RANK_TOL = 1e-5
_NULL_WEIGHT = 0.1


def _undetermined(jac) -> np.ndarray:
    """Per column of ``jac`` (d residual / d log parameter): True where the data cannot fix the parameter,
    alone (no effect) or with others (a combination of parameters with no effect)."""
    norms = np.linalg.norm(jac, axis=0)
    out = norms <= 1e-9 * max(float(norms.max()), 1e-300) if norms.size else np.zeros(0, dtype=bool)
    live = ~out
    if live.sum() > 0:
        scaled = jac[:, live] / norms[live]
        _, sv, vt = np.linalg.svd(scaled, full_matrices=True)
        sv = np.concatenate([sv, np.zeros(vt.shape[0] - sv.shape[0])])
        null = vt[sv <= _RANK_TOL * sv[0]]
        weak = (np.abs(null) > _NULL_WEIGHT).any(axis=0) if null.size else np.zeros(live.sum(), dtype=bool)
        out[np.flatnonzero(live)[weak]] = True
    return out


_PATTERN_FACTORS = (2.0, 1.25, 1.05, 1.01, 1.001)


def _pattern_step(x, active, x0, cost, residuals):
    """The first move of one parameter by one of :data:`_PATTERN_FACTORS` (either way) that lowers the cost:
    ``(x, residuals, cost)``, or None."""
    for factor in _PATTERN_FACTORS:
        for j in np.flatnonzero(active):
            for sign in (1.0, -1.0):
                xn = x.copy()
                xn[j] = np.clip(x[j] + sign * math.log(factor), x0[j] - _LOG_BOUND, x0[j] + _LOG_BOUND)
                rn = residuals(xn)
                if rn is not None and float(rn @ rn) < cost * (1 - 1e-9):
                    return xn, rn, float(rn @ rn)
    return None


def fit(launches, *, platform=None, params: Params | None = None, free=FREE_PARAMETERS, max_iterations: int = 100,
        tolerance: float = 1e-12) -> FitResult:
    """Fit the free parameters to measured launches by least squares.

    Levenberg-Marquardt on the parameters' logarithms, with a central-difference Jacobian, steps of at most a
    factor of 2 and each parameter kept within a factor of e^9 of its start (1 where it starts at 0). Before
    fitting, a rank check of
    the Jacobian at the start lists every parameter the measurements cannot fix (no effect, or an effect some
    other parameter can make up for); those stay at their start values and are reported as ``undetermined``.

    Parameters
    ----------
    launches : list of dict
        Each with ``numel``, ``dtype``, ``msprof`` (an msprof op output folder or a :class:`Measurement`), and
        optionally ``tiling`` (None: the host's) and ``platform`` (default: fit's); or, for another element-wise
        kernel, ``custom`` (a dict of :func:`~.custom.estimate_custom`'s arguments but ``params``) and
        ``msprof``. A measurement's Block Dim and core rows must match the modelled launch.
    platform : Platform, optional
        The hardware of every launch that names none (default: the reference platform), and of the default
        ``params``.
    params : Params, optional
        The start and the values of the parameters not fitted (default: the platform's figures).
    free : sequence of str
        The parameters to fit (default :data:`FREE_PARAMETERS`; any of :data:`FITTABLE_PARAMETERS`).

    Returns
    -------
    FitResult
        ``.params`` can be saved with :func:`~.params.save_params` and given to every command; ``.converged``
        is False when the iterations ran out first.
    """
    if isinstance(launches, dict) or not hasattr(launches, "__iter__"):
        raise TypeError("launches must be a list of dicts")
    if platform is not None and not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    launches = [_launch(item, i, platform) for i, item in enumerate(launches)]
    if not launches:
        raise ValueError("launches must hold at least one measured launch")
    if isinstance(free, str):
        free = (free,)
    free = tuple(free)
    unknown = sorted(set(free) - set(FITTABLE_PARAMETERS))
    if unknown:
        raise ValueError(f"free: unknown parameter(s) {unknown}; fit can fit {list(FITTABLE_PARAMETERS)}")
    if len(set(free)) != len(free) or not free:
        raise ValueError(f"free: give each parameter once, and at least one, got {list(free)}")
    base = default_params(platform) if params is None else params
    if not isinstance(base, Params):
        raise TypeError(f"params must be a devicetime.Params, got {type(base).__name__}")
    if not isinstance(max_iterations, int) or isinstance(max_iterations, bool) or max_iterations < 1:
        raise ValueError(f"max_iterations must be an integer >= 1, got {max_iterations!r}")
    for i, (tiling, numel, dtype, plat, m) in enumerate(launches):
        _check_launch(i, _estimate(base, tiling, numel, dtype, plat), m)
    # a parameter at 0 has no logarithm: it starts from a small value instead (and may be fitted from there)
    start = np.array([getattr(base, k) if getattr(base, k) > 0 else _ZERO_START for k in free])
    x0 = np.log(start)

    left_alone = np.zeros(len(free), dtype=bool)      # undetermined: exactly their start values

    def model(xv):
        return base.replace(**{k: float(v) for k, v, keep in zip(free, np.exp(xv), left_alone) if not keep})

    def residuals(xv):
        try:
            return _residuals(model(xv), launches)[0]
        except ValueError:          # a value outside what the model takes: as bad as can be
            return None

    def jacobian(xv, active):
        jac = np.zeros((r.shape[0], len(free)))
        for j in np.flatnonzero(active):
            up, down = xv.copy(), xv.copy()
            up[j] += _JAC_STEP
            down[j] -= _JAC_STEP
            r_up, r_down = residuals(up), residuals(down)
            if r_up is None or r_down is None:
                continue
            jac[:, j] = (r_up - r_down) / (2 * _JAC_STEP)
        return jac

    x = x0.copy()
    r = residuals(x)
    if r is None:
        raise ValueError("params: the start values give no estimate")
    undetermined = _undetermined(jacobian(x, np.ones(len(free), dtype=bool)))
    left_alone[:] = undetermined
    active = ~undetermined
    r = residuals(x)
    cost = float(r @ r)
    damping = 1e-3
    converged = not active.any() or cost < 1e-26
    iterations = 0
    while not converged and iterations < max_iterations:
        iterations += 1
        jac = jacobian(x, active)[:, active]
        gradient = jac.T @ r
        if np.abs(gradient).max() <= 1e-14:
            converged = True
            break
        improved = False
        for _ in range(20):
            lhs = jac.T @ jac + damping * np.diag(np.diag(jac.T @ jac) + 1e-12)
            delta = np.clip(np.linalg.solve(lhs, -gradient), -_MAX_STEP, _MAX_STEP)
            xn = x.copy()
            xn[active] = np.clip(x[active] + delta, x0[active] - _LOG_BOUND, x0[active] + _LOG_BOUND)
            rn = residuals(xn)
            cn = float(rn @ rn) if rn is not None else math.inf
            if cn < cost:
                improved = True
                small_change = cost - cn <= tolerance * max(cost, 1e-30)
                x, r, cost = xn, rn, cn
                damping = max(damping / 10, 1e-12)
                converged = cost < 1e-26
                if small_change and not converged:       # settled, or stalled at a kink (below)
                    improved = False
                break
            damping *= 10
        if not improved:
            # The model is piecewise smooth (a cap binds or not), so a local linearisation can stall at a kink:
            # try moving one parameter at a time by a factor before calling it settled.
            escaped = _pattern_step(x, active, x0, cost, residuals)
            if escaped is None:
                converged = True        # no step of either kind lowers the cost: a minimum
                break
            x, r, cost = escaped
            damping = 1e-3
    loose = _undetermined(jacobian(x, active)) & active if active.any() else active
    fitted_params = model(x)
    _, rows = _residuals(fitted_params, launches, with_cores=False)
    residual_rows = [{"label": est.label, "measured_us": m.duration_us, "predicted_us": est.duration_us,
                      "relative_error": est.duration_us / m.duration_us - 1.0} for est, m in rows]
    return FitResult(params=fitted_params, fitted={k: getattr(fitted_params, k) for k in free},
                     undetermined=tuple(k for k, u in zip(free, undetermined) if u), residuals=residual_rows,
                     rms=math.sqrt(cost / max(len(r), 1)), converged=bool(converged), iterations=iterations,
                     loose=tuple(k for k, u in zip(free, loose) if u))
