"""Validate an RmsNorm launch's tiling and schedule before (or instead of) running it (issue 42).

:func:`validate` builds the platform kernel's host tiling, its row streams and its per-core schedule, runs
the row machine's stream check (every arena and global access in bounds, for every tile), then walks every
tile's global copies without computing anything and checks that the cores split the rows into contiguous
blocks, each row on one core, each element of y and rstd written exactly once and each element of x read.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...engine import opcodes as O
from ...engine.rows import check
from .api import check_inputs, tiling_for
from .kernel_950 import row_program_950
from .kernel_a2 import GAMMA, RSTD, X, Y, row_program, schedule

__all__ = ["RmsNormValidation", "validate"]

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


def validate(x_shape, gamma_shape, x_dtype=np.float32, gamma_dtype=None, epsilon=1e-6,
             platform=None) -> RmsNormValidation:
    """Check the launch of ``x_shape`` with gamma of ``gamma_shape`` (no data needed)."""
    gamma_dtype = np.dtype(x_dtype if gamma_dtype is None else gamma_dtype)
    x_probe = np.empty(tuple(x_shape), np.dtype(x_dtype))
    g_probe = np.empty(tuple(gamma_shape), gamma_dtype)
    check_inputs(x_probe, g_probe, epsilon)
    t = tiling_for(x_probe.shape, g_probe, epsilon, x_probe.dtype, platform)
    prog = (row_program(t, x_probe.dtype) if t.mode in ("normal", "merge_n", "split_d", "single_row")
            else row_program_950(t, x_probe.dtype))
    rows, n = t.num_row, t.num_col
    sizes = (rows * n, n, rows * n, rows)
    starts = np.cumsum((0,) + sizes[:-1])
    segments = np.stack([starts, sizes], axis=1).astype(np.int64)
    tiles, core_ptr = schedule(t, segments)
    check(prog.code, prog.stream_ptr, prog.scalars, prog.arena_len, segments, tiles, core_ptr)
    findings = []
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
