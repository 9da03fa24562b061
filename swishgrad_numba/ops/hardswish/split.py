"""The block-factor split the HardSwish and HardSwishGrad kernels share (both architectures).

Their tiling structs are alike (``HardSwishTilingData``, ``HardSwishGradTilingData``: ``int64 totalNum,
blockFactor, ubFactor``, 24 bytes) and so are their hosts' core splits (``blockFactor = CeilDiv(totalNum,
coreNum)``, ``usedCoreNum = CeilDiv(totalNum, blockFactor)``) and their kernels' walks (``Init``: core ``i``
takes ``min(blockFactor, totalNum - i * blockFactor)`` elements from ``i * blockFactor``; ``Process``:
loops of ``ubFactor`` elements, the last the rest). docs/model.md, "Hardswish and HardswishBackward", cites
the lines.
"""
from __future__ import annotations

import numpy as np

from ..registry import OpTiling, WalkCheck
from ...spec import a2 as spec_a2
from ...spec.arith import ceil_div
from ...tiling.findings import finding
from ...tiling.records import checked_record

__all__ = ["RECORD_DTYPE", "FIELDS", "record", "used_cores", "walk_fields", "check_split", "read_only"]

#: ``HardSwishTilingData`` / ``HardSwishGradTilingData`` (either architecture): three int64, 24 bytes.
FIELDS = ("totalNum", "blockFactor", "ubFactor")
RECORD_DTYPE = np.dtype([(name, "<i8") for name in FIELDS])
assert RECORD_DTYPE.itemsize == 24


def used_cores(numel: int, core_num: int) -> tuple:
    """``(blockFactor, usedCoreNum)``: ``CeilDiv(totalNum, coreNum)`` and ``CeilDiv(totalNum, blockFactor)``."""
    block_factor = ceil_div(numel, core_num)
    return block_factor, ceil_div(numel, block_factor)


def record(numel: int, block_factor: int, ub_factor: int) -> np.void:
    return checked_record(RECORD_DTYPE, {"totalNum": numel, "blockFactor": block_factor, "ubFactor": ub_factor})


def walk_fields(tiling: OpTiling) -> spec_a2.TilingFields:
    """The split in the walk's A2 core-class form: the first ``blockDim - 1`` cores are "big" with
    ``blockFactor`` elements, the last takes the rest; passes of ``ubFactor``."""
    d = tiling.data
    return spec_a2.last_core_rest(int(d["totalNum"]), int(d["blockFactor"]), int(d["ubFactor"]), tiling.block_dim)


def check_split(tiling: OpTiling, numel: int, plan: tuple, extra_bytes: int, ub_size: int, key: int,
                key_text: str, align: int) -> WalkCheck:
    """The record for the validator: its fields' ranges, the tiling key, the UB (``plan``: ``((count,
    bytes per element), ...)`` of ``ubFactor`` elements each, plus ``extra_bytes`` of masks) and the
    cores' coverage (this walk is the kernel's own, so checked here)."""
    own = () if tiling.tiling_key == key else (finding(
        "TILING_KEY_MISMATCH", f"tiling key {tiling.tiling_key}; the host gives {key} ({key_text})."),)
    bad = [n for n in FIELDS if int(tiling[n]) < 1]
    if int(tiling["ubFactor"]) % align:
        bad.append("ubFactor")
    if bad:
        return WalkCheck(None, plan, 0, own + tuple(finding(
            "FIELD_RANGE", f"{n}={int(tiling[n])}: the kernel needs it >= 1 (ubFactor a multiple of {align}).")
            for n in dict.fromkeys(bad)))
    tile = int(tiling["ubFactor"])
    need = sum(c * (-(-tile * b // 32) * 32) for c, b in plan) + extra_bytes
    if need > ub_size >= sum(c * tile * b for c, b in plan):     # else the generic validator reports it
        own += (finding("UB_OVERFLOW", f"ubFactor {tile}: {need} bytes of buffers and masks exceed ub_size "
                                       f"{ub_size}."),)
    n, bf, bd = int(tiling["totalNum"]), int(tiling["blockFactor"]), tiling.block_dim
    if n < numel or bd * bf < n:
        own += (finding("COVERAGE_GAP", f"totalNum={n}, blockFactor={bf} over {bd} cores cover "
                                        f"{min(n, bd * bf)} of the {numel} elements."),)
    if n > numel:
        own += (finding("OVERRUN_BEYOND_PADDING", f"totalNum={n}: the kernel reads and writes past the "
                                                  f"tensor's {numel} elements."),)
    if (bd - 1) * bf >= n:
        own += (finding("IDLE_CORE", f"block dim {bd}: cores from {ceil_div(n, bf)} on start past totalNum."),)
    return WalkCheck(None, plan, tile, own, whole_blocks=False)


def read_only(a: np.ndarray) -> np.ndarray:
    """A read-only view: one array type for a kernel's inputs (a tuple of a writable and a read-only array
    cannot be indexed in jitted code; an input may be read-only, a broadcast view for one)."""
    v = a.view()
    v.flags.writeable = False
    return v
