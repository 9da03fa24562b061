"""Calibration: fit the model's free parameters to ``msprof op`` measurements of real launches.

``msprof op`` writes ``OpBasicInfo.csv`` (``Task Duration(us)``, ``Block Dim``) and ``PipeUtilization.csv``
(per core ``aiv_time(us)``, ``aiv_vec_time(us)``, ``aiv_mte2_time(us)``, ``aiv_mte3_time(us)``, ...).
:func:`fit` fits :data:`~.params.FREE_PARAMETERS` by least squares on the relative errors of the launch time
and of each core's VECTOR, MTE2 and MTE3 time (Levenberg-Marquardt on the logarithms of the parameters, with a
forward-difference Jacobian; NumPy only). The rows of PipeUtilization.csv are matched to the model's cores in
file order.
"""
from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass

import numpy as np

from .estimate import estimate, estimate_custom
from .params import FREE_PARAMETERS, Params, default_params

__all__ = ["Measurement", "FitResult", "read_msprof", "fit"]

_CORE_COLUMNS = ("aiv_vec_time(us)", "aiv_mte2_time(us)", "aiv_mte3_time(us)")


@dataclass(frozen=True)
class Measurement:
    """One launch as msprof op measured it."""

    duration_us: float
    block_dim: int | None
    cores: tuple          # per core: (aiv_vec_time, aiv_mte2_time, aiv_mte3_time), microseconds


def _read_csv(path, argname: str) -> list:
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            rows = list(csv.DictReader(fh))
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{argname}: cannot read {str(path)!r}: {getattr(exc, 'strerror', None) or exc}") from None
    except csv.Error as exc:
        raise ValueError(f"{argname}: {str(path)!r} is not a CSV file: {exc}") from None
    if not rows:
        raise ValueError(f"{argname}: {str(path)!r} has no data rows")
    return rows


def _number(row, column, path, argname):
    try:
        value = float(str(row[column]).strip())
    except KeyError:
        raise ValueError(f"{argname}: {str(path)!r} has no column {column!r}") from None
    except ValueError:
        raise ValueError(f"{argname}: {str(path)!r}: column {column!r} holds {row[column]!r}, not a number") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{argname}: {str(path)!r}: column {column!r} holds {value}, not a time >= 0")
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
    basic = _read_csv(basic_path, argname)[0]
    duration = _number(basic, "Task Duration(us)", basic_path, argname)
    block_dim = None
    if "Block Dim" in basic and str(basic["Block Dim"]).strip():
        block_dim = int(_number(basic, "Block Dim", basic_path, argname))
    cores = tuple(tuple(_number(row, c, pipe_path, argname) for c in _CORE_COLUMNS)
                  for row in _read_csv(pipe_path, argname))
    return Measurement(duration, block_dim, cores)


@dataclass
class FitResult:
    """The fitted parameters and how well they explain each launch."""

    params: Params
    fitted: dict             # free parameter -> value
    undetermined: tuple      # free parameters the measurements do not constrain (kept at their start value)
    residuals: list          # per launch: measured and predicted launch time, relative error
    rms: float               # root mean square of all relative residuals

    def __str__(self) -> str:
        lines = ["fitted: " + ", ".join(f"{k} = {v:.6g}" for k, v in self.fitted.items())]
        if self.undetermined:
            lines.append("not determined by these measurements: " + ", ".join(self.undetermined))
        for r in self.residuals:
            lines.append(f"  {r['label']}: measured {r['measured_us']:.3f} us, predicted {r['predicted_us']:.3f} us "
                         f"({100 * r['relative_error']:+.2f} %)")
        return "\n".join(lines)


def _launch(item, index):
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
        return item["custom"], None, None, None, m
    return item.get("tiling"), item["numel"], item["dtype"], item.get("platform"), m


def _estimate(params, tiling, numel, dtype, platform):
    if numel is None:      # another kernel: estimate_custom's arguments
        return estimate_custom(**tiling, params=params)
    return estimate(tiling, numel, dtype, platform=platform, params=params, allow_invalid=True)


def _residuals(params, launches, with_cores=True):
    res, rows = [], []
    for tiling, numel, dtype, platform, m in launches:
        est = _estimate(params, tiling, numel, dtype, platform)
        res.append(est.duration_us / m.duration_us - 1.0)
        rows.append((est, m))
        if with_cores:
            util = est.pipe_utilization()
            for core, measured in enumerate(m.cores[:len(util)]):
                for col, value in zip(_CORE_COLUMNS, measured):
                    if value > 0:
                        res.append(util[core][col] / value - 1.0)
    return np.asarray(res), rows


def fit(launches, *, platform=None, params: Params | None = None, free=FREE_PARAMETERS, max_iterations: int = 60,
        tolerance: float = 1e-12) -> FitResult:
    """Fit the free parameters to measured launches by least squares.

    Parameters
    ----------
    launches : list of dict
        Each with ``numel``, ``dtype``, ``msprof`` (an msprof op output folder or a :class:`Measurement`), and
        optionally ``tiling`` (None: the host's) and ``platform``; or, for another element-wise kernel,
        ``custom`` (a dict of :func:`~.estimate.estimate_custom`'s arguments but ``params``) and ``msprof``.
    params : Params, optional
        The start and the values of the parameters not fitted (default: the platform's public figures).
    free : sequence of str
        The parameters to fit (default :data:`FREE_PARAMETERS`).

    Returns
    -------
    FitResult
        ``.params`` can be saved with :func:`~.params.save_params` and given to every command.
    """
    if isinstance(launches, dict) or not hasattr(launches, "__iter__"):
        raise TypeError("launches must be a list of dicts")
    launches = [_launch(item, i) for i, item in enumerate(launches)]
    if not launches:
        raise ValueError("launches must hold at least one measured launch")
    free = tuple(free)
    unknown = sorted(set(free) - set(FREE_PARAMETERS))
    if unknown:
        raise ValueError(f"free: unknown parameter(s) {unknown}; fit can fit {list(FREE_PARAMETERS)}")
    base = default_params(platform) if params is None else params
    if not isinstance(base, Params):
        raise TypeError(f"params must be a devicetime.Params, got {type(base).__name__}")
    start = np.array([max(getattr(base, k), 1e-3) if getattr(base, k) > 0 else 1.0 for k in free])
    x = np.log(start)

    def model(xv):
        return base.replace(**{k: float(v) for k, v in zip(free, np.exp(xv))})

    r, _ = _residuals(model(x), launches)
    cost = float(r @ r)
    damping = 1e-3
    active = np.ones(len(free), dtype=bool)
    for _ in range(max_iterations):
        jac = np.empty((r.shape[0], len(free)))
        for j in range(len(free)):
            step = 1e-6
            xs = x.copy()
            xs[j] += step
            jac[:, j] = (_residuals(model(xs), launches)[0] - r) / step
        active = np.linalg.norm(jac, axis=0) > 1e-9
        if not active.any():
            break
        ja = jac[:, active]
        improved = False
        for _ in range(12):
            lhs = ja.T @ ja + damping * np.diag(np.diag(ja.T @ ja) + 1e-12)
            delta = np.linalg.solve(lhs, -ja.T @ r)
            xn = x.copy()
            xn[active] += delta
            rn, _ = _residuals(model(xn), launches)
            cn = float(rn @ rn)
            if cn < cost:
                improved = True
                x, r, done = xn, rn, cost - cn < tolerance * max(cost, 1e-30)
                cost = cn
                damping = max(damping / 10, 1e-12)
                break
            damping *= 10
        if not improved or done or cost < 1e-26:
            break
    fitted_params = model(x)
    _, rows = _residuals(fitted_params, launches, with_cores=False)
    residuals = [{"label": est.label, "measured_us": m.duration_us, "predicted_us": est.duration_us,
                  "relative_error": est.duration_us / m.duration_us - 1.0} for est, m in rows]
    return FitResult(params=fitted_params, fitted={k: getattr(fitted_params, k) for k in free},
                     undetermined=tuple(k for k, a in zip(free, active) if not a), residuals=residuals,
                     rms=math.sqrt(cost / max(len(r), 1)))
