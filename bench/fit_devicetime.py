"""Calibrate the device-time model's defaults on public copy-only measurements, and check it on held-out launches.

    python bench/fit_devicetime.py            # fit, print params.CALIBRATED and the validation table
    python bench/fit_devicetime.py --check    # also exit 1 if the checked-in CALIBRATED differs from the fit

Calibration data (the only figures the fit sees), from the Ascend C examples of hicann/asc-devkit:

- ``examples/01_simd_cpp_api/.../data_copy`` README: a float16 [12288, 12288] tensor copied GM -> UB (no compute,
  no write-back) in tiles of [1, 64], [64, 64] and [64, 1024], on 48 Atlas A2/A3 cores (Task Duration and
  aiv_mte2_time) and on 64 Ascend 950 cores (Task Duration);
- ``examples/03_simt_api/.../grid_dim_config`` README: empty-kernel launches on the 950 with 1..1024 blocks;
- issue 38: the Add of two float16 [8192, 8192] tensors on one core (tiles of 4096, one buffer), which alone fixes
  the transfer latency (nothing waits on a copy in the copy-only launches).

A tile of [rows, cols] of the row-major tensor is one DataCopy of ``rows`` bursts (GM rows) of ``cols`` elements.
The same README's copy with rows of 12287 elements (unaligned row starts) fixes the cost of an unaligned burst.
The copies are modelled with a buffer per tile: nothing waits for a copy to land before the next is issued (48 A2
cores each issue a 128-byte copy every 21 cycles in the [1, 64] launch, far less than a round trip to GM).
Held out (never fitted): the same Add on all cores (issues 32 and 38), at two tile sizes per SoC. Results and
sources: docs/devicetime.md.
"""
from __future__ import annotations

import math
import sys

import numpy as np

from swishgrad_numba import devicetime as dt
from swishgrad_numba.devicetime.params import CALIBRATED
from swishgrad_numba.platform import ASCEND950_PLATFORM, REFERENCE_PLATFORM

DATA_COPY = "asc-devkit examples/01_simd_cpp_api data_copy README"
GRID_DIM = "asc-devkit examples/03_simt_api grid_dim_config README"
ISSUE_ADD = "issue 32 (public Add example, measured)"
ISSUE_38 = "issue 38 (public Add example, measured)"
ISSUE_38_RATIO = "issue 38 (as the model's 0.74x)"
SIDE = 12288                       # the copied tensor: float16 [SIDE, SIDE]

# (family, cores, tile rows, tile cols, Task Duration us, aiv_mte2_time us or None); the unaligned row length is
# its own entry below
COPY_ONLY = [
    ("ascend910b", 48, 1, 64, 564.84, 548.161),
    ("ascend910b", 48, 64, 64, 233.54, 220.772),
    ("ascend910b", 48, 64, 1024, 215.82, 202.657),
    ("ascend950", 64, 1, 64, 884.06, None),
    ("ascend950", 64, 64, 64, 208.64, None),
    ("ascend950", 64, 64, 1024, 188.52, None),
]
# The same [64, 1024] copy on the A2 with rows of 12287 elements (row starts not 32-byte aligned): Task Duration.
UNALIGNED_A2 = (48, 64, 1024, 12287, 275.3)
# 950 empty kernel: (blocks, Task Duration us)
EMPTY_950 = [(1, 1.221), (32, 1.557), (64, 2.173), (128, 3.141), (1024, 16.422)]
# The A2's head for one block: the fastest tiny vector kernels of public profiles take 2.6-3.1 us (assumed: no
# empty-kernel figure for the A2); its growth per block is fitted on the 48-block copies.
A2_HEAD_ONE_BLOCK_US = 2.6
# The Add of two float16 [8192, 8192] tensors (2 inputs, 1 output, one Add per tile), measured on the device:
# (family, cores, tile elements, buffers, Task Duration us, source, role). Issue 32 gave the A2's three launches
# on 48 cores; issue 38 the 950's two tilings and the one-core launches (for the A2's one core it gives only a
# ratio: the model's 5,096 us then was 0.74x of it, so 5,096 / 0.74 us). The transfer latency is fitted on the
# one-core launches ("fit"); the many-core launches, whose tile sizes rank as measured only with that latency,
# are held out.
ADD_LAUNCHES = [
    ("ascend910b", 48, 4096, 1, 306.6, ISSUE_ADD, "held out"),
    ("ascend910b", 48, 16384, 1, 268.5, ISSUE_ADD, "held out"),
    ("ascend910b", 48, 16384, 2, 264.0, ISSUE_ADD, "held out"),
    ("ascend910b", 1, 4096, 1, round(5096.1 / 0.74, 1), ISSUE_38_RATIO, "fit"),
    ("ascend950", 64, 4096, 1, 310.5, ISSUE_38, "held out"),
    ("ascend950", 64, 21760, 1, 251.7, ISSUE_38, "held out"),
    ("ascend950", 1, 4096, 1, 8924.0, ISSUE_38, "fit"),
]
ADD_SIDE = 8192
CALIBRATED_KEYS = ("aggregate_gbps", "datacopy_cycles", "burst_cycles", "head_us", "head_per_block_us",
                   "unaligned_burst_cycles", "transfer_latency_cycles")
PLATFORMS = {"ascend910b": REFERENCE_PLATFORM, "ascend950": ASCEND950_PLATFORM}


def copy_launch(cores: int, rows: int, cols: int, side_cols: int = SIDE) -> dict:
    """estimate_custom's arguments for the data_copy example: each core reads its share of whole tiles (rows of
    ``side_cols`` elements; a length that is not whole 32-byte blocks leaves the row starts unaligned)."""
    tiles = SIDE * side_cols // (rows * cols) // cores
    # buffer_num=None: nothing waits for a copy to land before the next is issued (module docstring)
    return dict(dtype="float16", inputs=1, outputs=0, instructions=[], core_tiles=[[rows * cols] * tiles] * cores,
                bursts=rows, buffer_num=None, gm_aligned=side_cols * 2 % 32 == 0,
                label=f"copy GM->UB f16 [{SIDE}, {side_cols}], tiles [{rows}, {cols}], {cores} cores")


def add_launch(cores: int, tile: int, buffers: int) -> dict:
    """estimate_custom's arguments for the Add example: the tensor cut into tiles (the last one short), whole
    tiles dealt to the cores, the first ones one more."""
    numel = ADD_SIDE * ADD_SIDE
    total = -(-numel // tile)
    per, extra = divmod(total, cores)
    core_tiles = [[tile] * (per + (1 if c < extra else 0)) for c in range(cores)]
    core_tiles[-1 if extra == 0 else extra - 1][-1] = numel - (total - 1) * tile
    return dict(dtype="float16", inputs=2, outputs=1, instructions=["Add"], core_tiles=core_tiles,
                buffer_num=buffers, label=f"Add f16, tiles {tile}, {buffers} buffer(s), {cores} cores")


def fit_950_head() -> tuple:
    """(head_us, head_per_block_us) of the 950: least squares on the relative errors, a linear problem."""
    blocks = np.array([b for b, _ in EMPTY_950], dtype=float)
    measured = np.array([m for _, m in EMPTY_950])
    design = np.column_stack([np.ones_like(blocks), blocks]) / measured[:, None]
    (head, per_block), *_ = np.linalg.lstsq(design, np.ones_like(measured), rcond=None)
    return float(head), float(per_block)


def fit_family(family: str, head: tuple | None) -> dict:
    """Fit the GM bandwidth, the DataCopy and burst costs (and the A2's head per block) on the copies."""
    # the copies are fitted without the transfer latency (fitted last, below): nothing waits on a copy but the
    # core's end on its last one, under 0.2 us of launches of 190-880 us
    base = dt.default_params(PLATFORMS[family]).replace(transfer_latency_cycles=0.0)
    free = ["aggregate_gbps", "datacopy_cycles", "burst_cycles"]
    if head is None:
        base = base.replace(head_us=A2_HEAD_ONE_BLOCK_US)
        free.append("head_per_block_us")
    else:
        base = base.replace(head_us=head[0], head_per_block_us=head[1])
    launches = []
    for fam, cores, rows, cols, task_us, mte2_us in COPY_ONLY:
        if fam != family:
            continue
        per_core = () if mte2_us is None else ((0.0, mte2_us, 0.0),) * cores
        launches.append({"custom": copy_launch(cores, rows, cols),
                         "msprof": dt.Measurement(task_us, cores, per_core)})
    result = dt.fit(launches, params=base, free=tuple(free))
    if not result.converged or result.undetermined:
        raise SystemExit(f"{family}: the fit did not settle: {result}")
    if family == "ascend910b":
        # then the cost of an unaligned burst, alone, on the unaligned copy (the 950 has no such figure)
        cores, rows, cols, side_cols, task_us = UNALIGNED_A2
        launch = {"custom": copy_launch(cores, rows, cols, side_cols), "msprof": dt.Measurement(task_us, cores, ())}
        result = dt.fit([launch], params=result.params, free=("unaligned_burst_cycles",))
        if not result.converged or result.undetermined:
            raise SystemExit(f"{family}: the unaligned fit did not settle: {result}")
    # then what the copies cannot show (nothing waits on a copy there): the latency of a transfer, on the one-core
    # Add (one core alone: no sharing, so its tile period is the Add, the DataCopies' fixed parts, the bytes at
    # the core's own read rate, and the latency, the one unknown)
    launches = [{"custom": add_launch(cores, tile, buffers), "msprof": dt.Measurement(task_us, cores, ())}
                for fam, cores, tile, buffers, task_us, _source, role in ADD_LAUNCHES
                if fam == family and role == "fit"]
    result = dt.fit(launches, params=result.params, free=("transfer_latency_cycles",))
    if not result.converged or result.undetermined:
        raise SystemExit(f"{family}: the transfer latency fit did not settle: {result}")
    values = {k: float(getattr(result.params, k)) for k in CALIBRATED_KEYS}
    return {k: float(f"{v:.4g}") for k, v in values.items()}


def calibrate() -> dict:
    a2 = fit_family("ascend910b", None)
    a950 = fit_family("ascend950", fit_950_head())
    a950["unaligned_burst_cycles"] = a2["unaligned_burst_cycles"]      # assumed: no 950 figure
    return {"ascend910b": a2, "ascend950": a950}


def validation_rows(calibrated: dict) -> list:
    """(SoC, launch, measured, predicted, ratio, role, source) for every public figure the model can predict."""
    rows = []
    params = {fam: dt.default_params(PLATFORMS[fam]).replace(**calibrated[fam]) for fam in PLATFORMS}
    names = {"ascend910b": "Atlas A2", "ascend950": "Ascend 950"}
    for fam, cores, r, c, task_us, mte2_us in COPY_ONLY:
        est = dt.estimate_custom(**copy_launch(cores, r, c), params=params[fam])
        rows.append((names[fam], f"copy [{r}, {c}] tiles, {cores} cores, Task Duration", task_us, est.duration_us,
                     "calibration", DATA_COPY))
        if mte2_us is not None:
            mte2 = est.pipe_utilization()[0]["aiv_mte2_time(us)"]
            rows.append((names[fam], f"copy [{r}, {c}] tiles, {cores} cores, aiv_mte2_time", mte2_us, mte2,
                         "calibration", DATA_COPY))
    for blocks, measured in EMPTY_950:
        head = params["ascend950"].head_us + params["ascend950"].head_per_block_us * blocks
        rows.append(("Ascend 950", f"empty kernel, {blocks} blocks", measured, head, "calibration", GRID_DIM))
    cores, r, c, side_cols, task_us = UNALIGNED_A2
    est = dt.estimate_custom(**copy_launch(cores, r, c, side_cols), params=params["ascend910b"])
    rows.append(("Atlas A2", f"copy [{r}, {c}] tiles, rows of {side_cols} (unaligned), {cores} cores, Task Duration",
                 task_us, est.duration_us, "calibration", DATA_COPY))
    for fam, cores, tile, buffers, measured, source, role in ADD_LAUNCHES:
        est = dt.estimate_custom(**add_launch(cores, tile, buffers), params=params[fam])
        label = f"Add f16 [8192, 8192], tiles {tile}, {buffers} buffer{'s' if buffers > 1 else ''}, {cores} " \
                f"core{'s' if cores > 1 else ''}"
        rows.append((names[fam], label, measured, est.duration_us,
                     "calibration" if role == "fit" else role, source))
    return rows


def _ratio(measured, predicted) -> float:
    """Predicted over measured; for ranges, the worst ratio between the two ranges' nearest ends (1 if they meet)."""
    lo_m, hi_m = (measured, measured) if not isinstance(measured, tuple) else measured
    lo_p, hi_p = (predicted, predicted) if not isinstance(predicted, tuple) else predicted
    if lo_p > hi_m:
        return lo_p / hi_m
    if hi_p < lo_m:
        return hi_p / lo_m
    return 1.0


def _fmt(value) -> str:
    return f"{value[0]:.1f}-{value[1]:.1f}" if isinstance(value, tuple) else f"{value:.2f}"


def markdown(rows) -> str:
    lines = ["| SoC | launch | measured (us) | predicted (us) | predicted / measured | role | source |",
             "|---|---|---|---|---|---|---|"]
    for soc, label, measured, predicted, role, source in rows:
        lines.append(f"| {soc} | {label} | {_fmt(measured)} | {_fmt(predicted)} | {_ratio(measured, predicted):.3f} "
                     f"| {role} | {source} |")
    return "\n".join(lines)


def worst(rows) -> dict:
    """Per SoC, the worst factor off (max of ratio and 1 / ratio)."""
    out = {}
    for soc, _label, measured, predicted, _role, _source in rows:
        r = _ratio(measured, predicted)
        out[soc] = max(out.get(soc, 1.0), r, 1 / r)
    return out


def main(argv) -> int:
    calibrated = calibrate()
    print("CALIBRATED =", calibrated)
    rows = validation_rows(calibrated)
    print(markdown(rows))
    print("worst factor off per SoC:", {k: round(v, 3) for k, v in worst(rows).items()})
    if "--check" in argv:
        differs = {fam: (calibrated[fam], CALIBRATED[fam]) for fam in calibrated
                   if any(not math.isclose(calibrated[fam][k], CALIBRATED[fam][k], rel_tol=1e-3)
                          for k in calibrated[fam])}
        if differs:
            print("checked-in params.CALIBRATED differs from the fit:", differs)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
