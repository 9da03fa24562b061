"""Validate an RmsNorm launch's tiling and schedule before (or instead of) running it (issue 42).

:func:`validate` builds the platform kernel's host tiling, its row streams and its per-core schedule, runs
the row machine's stream check (every arena and global access in bounds, for every tile), then walks every
tile's global copies without computing anything and checks that the cores split the rows into contiguous
blocks, each row on one core, each element of y and rstd written exactly once and each element of x read.

:func:`validate_tiling` checks a given tiling (the host's with fields changed, as ``swishgrad validate --op
rms_norm --set`` makes) the same way, after its fields against the host's own rules (:func:`field_findings`):
the shape's rows and columns, ``avgFactor = 1 / numCol``, the cores, and the mode's buffers within the bounds
the host tiles by (the model has no UB layout of these kernels beyond the host's figures).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from ...engine import opcodes as O
from ...engine.rows import check
from .api import check_inputs, tiling_for
from .host_a2 import MODES, A2Tiling, mixed_split
from .kernel_950 import row_program_950
from .kernel_950_split import split_ub_factor
from .kernel_a2 import GAMMA, RSTD, X, Y, row_program, schedule

__all__ = ["RmsNormValidation", "validate", "validate_tiling", "field_findings", "host_tiling", "with_fields"]

_IN, _OUT = O.ROW_OPCODES["R_GM_IN"], O.ROW_OPCODES["R_GM_OUT"]


@dataclass(frozen=True)
class RmsNormValidation:
    mode: str
    block_dim: int
    rows_per_core: int
    instructions_per_row: int
    findings: tuple          # empty: valid

    @property
    def ok(self) -> bool:
        return not self.findings


def host_tiling(x_shape, gamma_shape, x_dtype=np.float32, gamma_dtype=None, epsilon=1e-6, platform=None):
    """The platform's host tiling of the launch (the argument rules checked as the functional API does)."""
    gamma_dtype = np.dtype(x_dtype if gamma_dtype is None else gamma_dtype)
    x_probe = np.empty(tuple(x_shape), np.dtype(x_dtype))
    g_probe = np.empty(tuple(gamma_shape), gamma_dtype)
    check_inputs(x_probe, g_probe, epsilon)
    return tiling_for(x_probe.shape, g_probe, epsilon, x_probe.dtype, platform)


def with_fields(t, changes: dict):
    """The tiling ``t`` with fields changed (``{name: text or value}``), each parsed as the field's type; a
    ValueError names an unknown field or a bad value."""
    fields = {f.name: f for f in dataclasses.fields(t)}
    parsed = {}
    for name, value in changes.items():
        if name not in fields:
            raise ValueError(f"{name!r} is not a field of the {type(t).__name__} (fields: {', '.join(fields)})")
        old = getattr(t, name)
        try:
            parsed[name] = (str(value) if isinstance(old, str) else np.float32(float(value))
                            if isinstance(old, np.floating) else int(value))
        except (TypeError, ValueError):
            raise ValueError(f"{name}={value!r}: expected {type(old).__name__}") from None
    return dataclasses.replace(t, **parsed)


def _a2_fields(t: A2Tiling, x_dtype, gamma_dtype, platform) -> list:
    out = []
    if t.mode not in MODES:
        return [f"mode {t.mode!r} is not one of {', '.join(MODES)}"]
    mixed = x_dtype != gamma_dtype
    if mixed:
        ub = platform.ub_size - 1024
        align = -(-t.num_col // 16) * 16
        fits = mixed_split(t.num_col, ub, False)[0]
        feasible = {"merge_n": align <= 2000, "normal": fits == "normal",
                    "single_row": fits in ("normal", "single_row"), "split_d": True}
        limit = mixed_split(1 << 30, ub, False)[1]     # split_d's chunk, whatever the row
    else:
        per_block = 8 if x_dtype == np.float32 else 16
        align = -(-t.num_col // per_block) * per_block
        limit = 10240 if x_dtype == np.float32 else 12288
        feasible = {"merge_n": align <= 2000, "normal": align <= limit, "single_row": False, "split_d": True}
    if not feasible[t.mode]:
        out.append(f"mode {t.mode}: a row of {t.num_col} {x_dtype.name} elements does not fit that mode's "
                   f"buffers in UB (the host's bounds)")
    if t.mode == "split_d":
        if not 16 <= t.ub_factor <= limit or t.ub_factor % 16:
            out.append(f"ub_factor {t.ub_factor}: split_d's chunk must be a multiple of 16 in 16..{limit}")
    elif t.ub_factor != align:
        out.append(f"ub_factor {t.ub_factor}: mode {t.mode} holds the padded row, {align}")
    return out


def _950_fields(t, x_dtype, gamma_dtype, platform) -> list:
    out = []
    xb = x_dtype.itemsize
    align = -(-t.num_col * xb // 32) * 32 // xb
    if t.mode not in ("full_load", "split"):
        return [f"mode {t.mode!r} is not one of full_load, split"]
    if t.num_col_align != align:
        out.append(f"num_col_align {t.num_col_align}: the row padded to 32 bytes is {align}")
    fold = 2 ** int(math.floor(math.log2(align - 1))) if align > 1 else 1
    if t.mode == "full_load":
        if t.fold != fold:
            out.append(f"fold {t.fold}: the fold point of {align} is {fold}")
        host = tiling_for((1, t.num_col), np.empty(t.num_col, gamma_dtype), t.epsilon, x_dtype, platform)
        if host.mode != "full_load":
            out.append(f"mode full_load: a row of {t.num_col} {x_dtype.name} elements does not fit its buffers in "
                       f"UB (the host's bound)")
    else:
        most = split_ub_factor(x_dtype, gamma_dtype, platform.ub_size)
        if t.ub_factor < 64 or t.ub_factor > most or t.ub_factor & (t.ub_factor - 1):
            out.append(f"ub_factor {t.ub_factor}: split's chunk must be a power of two in 64..{most}")
    return out


def field_findings(t, x_dtype, gamma_dtype, platform, num_row: int, num_col: int, epsilon) -> list:
    """The tiling's fields against the launch and the host's rules; empty when they hold."""
    from .api import checked_platform

    platform = checked_platform(platform)
    x_dtype, gamma_dtype = np.dtype(x_dtype), np.dtype(gamma_dtype)
    out = []
    if (t.num_row, t.num_col) != (num_row, num_col):
        out.append(f"num_row, num_col ({t.num_row}, {t.num_col}): the launch has {num_row} rows of {num_col}")
    if t.avg_factor != np.float32(np.float32(1.0) / np.float32(num_col)):
        out.append(f"avg_factor {t.avg_factor}: must be 1 / numCol in float32, "
                   f"{np.float32(np.float32(1.0) / np.float32(num_col))}")
    if t.epsilon != np.float32(epsilon):
        out.append(f"epsilon {t.epsilon}: the launch's is {np.float32(epsilon)}")
    if t.block_factor < 1:
        return out + [f"block_factor {t.block_factor}: must be at least 1"]
    if not 1 <= t.block_dim <= platform.core_num:
        out.append(f"block_dim {t.block_dim}: must be in 1..{platform.core_num} (the platform's cores)")
    elif (t.block_dim - 1) * t.block_factor >= num_row:
        out.append(f"block_dim {t.block_dim}: cores past row {num_row} run no rows (blocks of {t.block_factor})")
    if t.num_col == num_col:
        out += (_a2_fields if isinstance(t, A2Tiling) else _950_fields)(t, x_dtype, gamma_dtype, platform)
    return out


def validate(x_shape, gamma_shape, x_dtype=np.float32, gamma_dtype=None, epsilon=1e-6,
             platform=None) -> RmsNormValidation:
    """Check the launch of ``x_shape`` with gamma of ``gamma_shape`` (no data needed)."""
    gamma_dtype = np.dtype(x_dtype if gamma_dtype is None else gamma_dtype)
    t = host_tiling(x_shape, gamma_shape, x_dtype, gamma_dtype, epsilon, platform)
    return validate_tiling(t, x_dtype, gamma_dtype, platform, t.num_row, t.num_col, epsilon)


def validate_tiling(t, x_dtype, gamma_dtype, platform, num_row: int, num_col: int,
                    epsilon=1e-6) -> RmsNormValidation:
    """Check the tiling ``t`` (an A2Tiling or Arch35Tiling) for ``num_row`` rows of ``num_col``: its fields
    (:func:`field_findings`), then, where they leave a program to build, its streams and schedule."""
    x_dtype, gamma_dtype = np.dtype(x_dtype), np.dtype(gamma_dtype)
    findings = field_findings(t, x_dtype, gamma_dtype, platform, num_row, num_col, epsilon)
    if any(f.startswith(("mode ", "block_factor", "num_row", "ub_factor")) for f in findings) or t.block_dim < 1:
        return RmsNormValidation(t.mode, t.block_dim, t.block_factor, 0, tuple(findings))
    prog = (row_program(t, x_dtype) if isinstance(t, A2Tiling) else row_program_950(t, x_dtype))
    rows, n = num_row, num_col
    sizes = (rows * n, n, rows * n, rows)
    starts = np.cumsum((0,) + sizes[:-1])
    segments = np.stack([starts, sizes], axis=1).astype(np.int64)
    tiles, core_ptr = schedule(t, segments)
    try:
        check(prog.code, prog.stream_ptr, prog.scalars, prog.arena_len, segments, tiles, core_ptr)
    except ValueError as exc:
        return RmsNormValidation(t.mode, t.block_dim, t.block_factor, 0, tuple(findings) + (str(exc),))
    written = {Y: np.zeros(rows * n, np.int64), RSTD: np.zeros(rows, np.int64)}
    read = np.zeros(rows * n, bool)
    seen_rows = []
    for c in range(len(core_ptr) - 1):
        core_rows = [int((tiles[i, 1 + X] - starts[X]) // n) for i in range(core_ptr[c], core_ptr[c + 1])
                     if tiles[i, 0] == 1]
        if core_rows and core_rows != list(range(core_rows[0], core_rows[0] + len(core_rows))):
            findings.append(f"core {c}: its rows are not one contiguous block")
        seen_rows += core_rows
        for i in range(core_ptr[c], core_ptr[c + 1]):
            s = tiles[i, 0]
            for pc in range(prog.stream_ptr[s], prog.stream_ptr[s + 1]):
                op, d, a, _b, cnt, _k0, _k1, mode = (int(v) for v in prog.code[pc])
                if op == _IN and mode == X:
                    first = tiles[i, 1 + X] + a - starts[X]
                    read[first:first + cnt] = True
                elif op == _OUT:
                    first = tiles[i, 1 + mode] + d - starts[mode]
                    written[mode][first:first + cnt] += 1
    if sorted(seen_rows) != list(range(rows)):
        findings.append("the cores do not run every row exactly once")
    for seg, name in ((Y, "y"), (RSTD, "rstd")):
        bad = np.flatnonzero(written[seg] != 1)
        if bad.size:
            findings.append(f"{bad.size} elements of {name} are not written exactly once (first: {bad[0]})")
    if not read.all():
        findings.append(f"{int((~read).sum())} elements of x are never read")
    return RmsNormValidation(t.mode, t.block_dim, t.block_factor, int(prog.stream_ptr[2] - prog.stream_ptr[1]),
                             tuple(findings))
