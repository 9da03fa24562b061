"""The device-time model of a row program (the engine's row machine, issue 42): each scheduled tile through the
stage/queue model of :mod:`.queue`, and RmsNorm's launches (:func:`estimate_rms_norm`).

Assumptions, beyond the element-wise template's (docs/devicetime.md, "Row programs"):

- **One stage set per tile.** A tile of the schedule (a core's gamma load, one row) is one CopyIn, one
  Compute and one CopyOut: its ``R_GM_IN`` copies are its CopyIn (each a DataCopy call, the bytes of its
  segment's dtype, padded to 32 bytes), its ``R_GM_OUT`` copies its CopyOut, its other instructions its
  Compute. A split row (A2 split_d, 950 split) is one tile whose copies are all its chunks' (the model does
  not overlap the chunks of one row with each other, only rows with rows).
- **Instruction costs** from the cost table by the nearest name: R_ADD Add, R_MUL Mul, R_DIV Div, R_SQRT Sqrt,
  R_MULS and R_MULS_AT Muls, R_ADDS Adds, R_DUP Duplicate, R_CAST_RINT Cast, R_MULA MulDstAdd, R_SET_IF_EQ
  CompareScalar and Select; the reductions (R_REPEAT_SUM, R_BLOCK_SUM, R_REDUCE_SUM) Add and the max/min
  ones (R_REPEAT_EXTREME, R_BLOCK_EXTREME, R_REDUCE_EXTREME) Max over the elements they read (no reduction row
  is in the public tables); the A2 scalar unit's ``s * avg + eps`` and ``1 /
  sqrt`` (R_MULS_ADDS_FUSED, R_RSQRT_F64) Muls, and the scalar steps of the A2 normal mode as the one-element
  vector instructions the stream holds. Every instruction computes in float32 (the row machine's arena).
- **Buffers.** ops-nn's ``rms_norm_base.h`` defines a single and a double buffer count; which queue of which
  mode takes which is not modelled: one buffer per queue by default (``buffer_num``).
"""
from __future__ import annotations

import numpy as np

from ..engine import opcodes as O
from ..platform import Platform
from .checks import check_params
from ..spec.arith import pad_to
from .estimate import MAX_TILES, Estimate, distinct_cores
from .queue import PIPES, schedule
from .stages import instruction_cycles

__all__ = ["ROW_COSTS", "estimate_rows", "estimate_rms_norm"]

#: The cost-table instructions each row opcode is charged as (module docstring); copies are charged as transfers.
ROW_COSTS = {
    "R_ADD": ("Add",), "R_MUL": ("Mul",), "R_DIV": ("Div",), "R_SQRT": ("Sqrt",), "R_MULS": ("Muls",),
    "R_MULS_AT": ("Muls",), "R_ADDS": ("Adds",), "R_DUP": ("Duplicate",), "R_CAST_RINT": ("Cast",),
    "R_MULA": ("MulDstAdd",), "R_SET_IF_EQ": ("CompareScalar", "Select"), "R_REPEAT_SUM": ("Add",),
    "R_BLOCK_SUM": ("Add",), "R_REDUCE_SUM": ("Add",), "R_MULS_ADDS_FUSED": ("Muls",), "R_RSQRT_F64": ("Muls",),
    "R_REPEAT_EXTREME": ("Max",), "R_BLOCK_EXTREME": ("Max",), "R_REDUCE_EXTREME": ("Max",),
}
_BLOCK = 32


def _read_elements(name: str, count: int) -> int:
    """Elements an instruction reads per its ``count`` (BlockReduceSum: 8 per block)."""
    return 8 * count if name in ("R_BLOCK_SUM", "R_BLOCK_EXTREME") else count


def _stream_costs(prog, seg_itemsize, params):
    """Per stream: (vector cycles, input copies, input bytes, output copies, output bytes)."""
    out = []
    for s in range(len(prog.stream_ptr) - 1):
        vec, copies_in, bytes_in, copies_out, bytes_out = 0.0, 0, 0, 0, 0
        for pc in range(prog.stream_ptr[s], prog.stream_ptr[s + 1]):
            op, _d, _a, _b, count, _k0, _k1, mode = (int(v) for v in prog.code[pc])
            name = O.ROW_NAMES[op - len(O.NAMES)]
            if name == "R_GM_IN":
                copies_in, bytes_in = copies_in + 1, bytes_in + pad_to(count * seg_itemsize[mode], _BLOCK)
            elif name == "R_GM_OUT":
                copies_out, bytes_out = copies_out + 1, bytes_out + pad_to(count * seg_itemsize[mode], _BLOCK)
            else:
                elems = np.array([_read_elements(name, count)], dtype=np.int64)
                vec += sum(float(instruction_cycles(c, elems, 4, params)[0]) for c in ROW_COSTS[name])
        out.append((vec, copies_in, bytes_in, copies_out, bytes_out))
    return out


def estimate_rows(prog, tiles, core_ptr, seg_itemsize, *, params, label: str, buffer_num: int = 1,
                  tile_elements=None, valid: bool = True, findings=()) -> Estimate:
    """Estimate a row program's launch: ``tiles`` (column 0 the stream) cut by ``core_ptr`` into cores;
    ``seg_itemsize`` the bytes per element of each global segment (a copy's ``mode``)."""
    costs = _stream_costs(prog, seg_itemsize, params)
    streams = np.asarray(tiles)[:, 0].astype(np.int64)
    # cores with the same stream sequence run the same schedule: simulated once, weighted
    classes, offsets, seq = distinct_cores(np.asarray(core_ptr, np.int64), streams)
    if seq.size > MAX_TILES:
        raise ValueError(f"the launch's distinct cores hold more than {MAX_TILES} tiles; not modelled")
    table = np.array(costs, dtype=np.float64).reshape(-1, 5)[seq]
    copy = params.datacopy_cycles + params.burst_cycles
    stages = {"offsets": offsets, "scalar": np.full(seq.size, params.scalar_cycles_per_tile),
              "in_fixed": table[:, 1] * copy, "in_bytes": table[:, 2], "vec": table[:, 0],
              "out_fixed": table[:, 3] * copy, "out_bytes": table[:, 4]}
    weight = np.bincount(classes, minlength=offsets.shape[0] - 1)
    clock = params.cycles_per_us
    aggregate = params.aggregate_gbps * 1e3 / clock
    class_end, starts, durations, saturated = schedule(
        stages, weight, buffer_num, params.core_read_bytes_per_cycle, params.core_write_bytes_per_cycle,
        aggregate, params.transfer_latency_cycles)
    cum = np.vstack([np.zeros((1, 4)), np.cumsum(durations, axis=0)])
    busy_us = (cum[offsets[1:]] - cum[offsets[:-1]]) / clock
    end_us = class_end / clock
    span = float(end_us.max()) if end_us.size else 0.0
    head = params.head_us + params.head_per_block_us * classes.shape[0]
    frac = saturated / clock / span if span > 0 else 0.0
    if frac >= 0.5:
        bottleneck = "aggregate bandwidth"
    elif head > span:
        bottleneck = "launch overhead"
    else:
        bottleneck = PIPES[int(np.argmax(busy_us[int(np.argmax(end_us))]))]
    elements = (np.maximum(table[:, 2] // seg_itemsize[0], 1) if tile_elements is None
                else np.asarray(tile_elements)[seq]).astype(np.int64)
    return Estimate(duration_us=head + span, bottleneck=bottleneck, label=label, params=params,
                    buffer_num=buffer_num, head_us=head, gm_saturated=frac, classes=classes, class_offsets=offsets,
                    class_tiles=elements, class_starts_us=starts / clock, class_durations_us=durations / clock,
                    class_end_us=end_us, class_busy_us=busy_us, itemsize=int(seg_itemsize[0]), valid=valid,
                    findings=tuple(findings))


def estimate_rms_norm(x_shape, gamma_shape, x_dtype=np.float32, gamma_dtype=None, epsilon=1e-6, *,
                      platform: Platform | None = None, params=None, tiling=None, buffer_num: int = 1,
                      allow_invalid: bool = False) -> Estimate:
    """The device time of one RmsNorm launch under the model: the platform's host tiling (or ``tiling``, checked
    by :func:`~swishgrad_numba.ops.rms_norm.validate.validate_tiling`; a ValueError refuses an invalid one unless
    ``allow_invalid``), its row streams and per-core schedule (module docstring for what is assumed)."""
    from ..ops.rms_norm.kernel_950 import row_program_950
    from ..ops.rms_norm.kernel_a2 import row_program, schedule as row_schedule
    from ..ops.rms_norm.validate import host_tiling, validate_tiling

    if buffer_num not in (1, 2):
        raise ValueError(f"buffer_num must be 1 or 2, got {buffer_num!r}")
    gamma_dtype = np.dtype(x_dtype if gamma_dtype is None else gamma_dtype)
    host = host_tiling(x_shape, gamma_shape, x_dtype, gamma_dtype, epsilon, platform)
    t = host if tiling is None else tiling
    report = validate_tiling(t, x_dtype, gamma_dtype, platform, host.num_row, host.num_col, epsilon)
    if not report.ok and (not allow_invalid or report.instructions_per_row == 0):
        raise ValueError("the tiling is invalid: " + "; ".join(report.findings))
    params = check_params(params, platform if platform is not None else Platform())
    xb, gb = np.dtype(x_dtype).itemsize, gamma_dtype.itemsize
    prog = row_program(t, x_dtype) if t.mode in ("normal", "merge_n", "split_d", "single_row") else \
        row_program_950(t, x_dtype)
    rows, n = t.num_row, t.num_col
    sizes = (rows * n, n, rows * n, rows)
    starts = np.cumsum((0,) + sizes[:-1])
    segments = np.stack([starts, sizes], axis=1).astype(np.int64)
    tiles, core_ptr = row_schedule(t, segments)
    return estimate_rows(prog, tiles, core_ptr, (xb, gb, xb, 4), params=params, buffer_num=buffer_num,
                         label=f"rms_norm {tuple(x_shape)} over {tuple(gamma_shape)} {np.dtype(x_dtype).name} "
                               f"({t.mode}, {t.block_dim} cores)", tile_elements=np.array([n, n]),
                         valid=report.ok, findings=report.findings)


ROW_COSTS["R_EXP"] = ("Exp",)     # SwiGlu's sigmoid (issue 41)
__all__ += ["estimate_swiglu"]


def estimate_swiglu(x_shape, dim=-1, dtype=np.float32, *, grad: bool = False, platform: Platform | None = None,
                    params=None, tiling=None, buffer_num: int | None = None, allow_invalid: bool = False) -> Estimate:
    """The device time of one SwiGlu launch (SwiGluGrad's with ``grad``) under the row model: the platform's host
    tiling (or ``tiling``, checked by :func:`~swishgrad_numba.ops.swi_glu.validate.validate_tiling`; a ValueError
    refuses an invalid one unless ``allow_invalid``), its tile streams and per-core order. ``buffer_num``: the
    tiling's (double buffering: 2) by default. SwiGluGrad on a 950: its regbase tiling
    (:mod:`~swishgrad_numba.ops.swi_glu.host_950`, checked by ``validate_tiling_950``), one tile per UB loop,
    double-buffered queues (2); the row streams copy row by row, so a loop of many short rows is charged
    one DataCopy per row and half (the device copies a loop's rows in one DataCopyPad per tensor)."""
    from ..ops.swi_glu.api import check_inputs, tiling_for
    from ..ops.swi_glu.kernel import tile_kinds, row_program, schedule
    from ..ops.swi_glu.kernel_grad import row_program_grad, schedule_grad
    from ..ops.swi_glu.validate import validate_tiling

    platform = platform if platform is not None else Platform()
    from ..dtypes import canonical_dtype

    dtype = canonical_dtype(dtype)
    d, name = check_inputs(np.broadcast_to(np.zeros((), dtype), tuple(x_shape)), dim)
    host = tiling_for(x_shape, d, dtype, platform)
    if grad and platform.architecture != "a2":
        return _estimate_swiglu_grad_950(x_shape, d, name, platform, params, tiling, buffer_num, allow_invalid)
    if grad:
        from ..ops.swi_glu.host import swiglu_tiling
        host = swiglu_tiling(tuple(x_shape), d, name, platform.ub_size, platform.core_num, grad=True)
    t = host if tiling is None else tiling
    report = validate_tiling(t, x_shape, d, platform, grad=grad)
    if not report.ok and (not allow_invalid or report.total_tiles == 0):
        raise ValueError("the tiling is invalid: " + "; ".join(report.findings))
    buffer_num = (2 if t.is_double_buffer else 1) if buffer_num is None else buffer_num
    if buffer_num not in (1, 2):
        raise ValueError(f"buffer_num must be 1 or 2, got {buffer_num!r}")
    params = check_params(params, platform)
    xb = np.dtype(dtype).itemsize
    n = t.row_len * t.col_len
    if grad:
        segments = np.array([[0, 2 * n], [2 * n, n], [3 * n, 2 * n]], dtype=np.int64)
        prog, (tiles, core_ptr), seg = row_program_grad(t), schedule_grad(t, segments), (xb, xb, xb)
    else:
        segments = np.array([[0, 2 * n], [2 * n, n]], dtype=np.int64)
        prog, (tiles, core_ptr), seg = row_program(t), schedule(t, segments), (xb, xb)
    return estimate_rows(prog, tiles, core_ptr, seg, params=params, buffer_num=buffer_num,
                         label=f"swiglu{'_grad' if grad else ''} {tuple(x_shape)} dim {d} {name} "
                               f"({t.base_row_len} x {t.base_col_len} tiles, {t.block_dim} cores)",
                         tile_elements=np.array([r * c for r, c in tile_kinds(t)]), valid=report.ok,
                         findings=report.findings)


def _estimate_swiglu_grad_950(x_shape, d, name, platform, params, tiling, buffer_num, allow_invalid) -> Estimate:
    from ..ops.swi_glu.host_950 import swiglu_grad_tiling_950
    from ..ops.swi_glu.kernel_grad_950 import row_program_950, schedule_950, tile_kinds_950
    from ..ops.swi_glu.validate import validate_tiling_950

    host = swiglu_grad_tiling_950(tuple(x_shape), d, name, platform.ub_size, platform.core_num)
    t = host if tiling is None else tiling
    report = validate_tiling_950(t, x_shape, d, platform)
    if not report.ok and (not allow_invalid or report.total_tiles == 0):
        raise ValueError("the tiling is invalid: " + "; ".join(report.findings))
    buffer_num = 2 if buffer_num is None else buffer_num
    if buffer_num not in (1, 2):
        raise ValueError(f"buffer_num must be 1 or 2, got {buffer_num!r}")
    params = check_params(params, platform)
    xb = t.dsize
    n = t.row_total * t.col_total
    segments = np.array([[0, 2 * n], [2 * n, n], [3 * n, 2 * n]], dtype=np.int64)
    kinds = tile_kinds_950(t)
    tiles, core_ptr = schedule_950(t, segments, kinds)
    kernel = "MoveAlign" if t.move_align else "UbRearrange"
    return estimate_rows(row_program_950(t, kinds), tiles, core_ptr, (xb, xb, xb), params=params,
                         buffer_num=buffer_num,
                         label=f"swiglu_grad {tuple(x_shape)} dim {d} {name} ({kernel}, {t.row_tile_num} x "
                               f"{t.col_tile_num} blocks, {t.used_core_num} cores)",
                         tile_elements=np.array([r * c for r, c, _p in kinds]), valid=report.ok,
                         findings=report.findings)
