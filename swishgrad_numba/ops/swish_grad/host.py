"""SwishGrad's facts (docs/model.md sections 3 and 9): both kernels' structs and the host tiling of the
platform's kernel. :mod:`.description` describes the operator with them.

The arithmetic is the templates' (:mod:`swishgrad_numba.spec`), evaluated on Python ints (exact);
this module checks, decides and builds the records.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import DTypeInfo
from ...platform import ARCH_950, ARCH_A2, Platform
from ...spec import a2 as spec_a2
from ...spec import arch35 as spec_arch35
from ...tiling.host import ARGNAMES, check_block_size
from ...tiling.records import (ARCH35_TILING_DTYPE, ARCH35_TILING_FIELDS, LAYOUTS, TILING_DTYPE,  # noqa: F401
                              TILING_FIELDS, UB_SIZED_FIELDS, Tiling)

__all__ = ["TILING_FIELDS", "TILING_DTYPE", "ARCH35_TILING_FIELDS", "ARCH35_TILING_DTYPE", "LAYOUTS",
           "host_tiling", "host_fields"]

# ---------------------------------------------------------------- structs: written once, in tiling.records

# ---------------------------------------------------------------- the host tiling

def host_tiling(n: int, info: DTypeInfo, beta32, platform: Platform) -> Tiling:
    """The host tiling of the kernel ``platform``'s SoC runs, as CANN picks it: an Ascend 950 gets the
    arch35 tiling (model section 9), every other SoC the Atlas A2 one (section 3). ``n``, ``info`` and
    ``platform`` are checked (:func:`swishgrad_numba.tiling.compute_tiling`); ``beta32`` is float32."""
    block_dim, fields = host_fields(n, info, platform, ARGNAMES)
    layout = LAYOUTS[platform.architecture]
    record = np.zeros((), dtype=layout.dtype)
    for name, value in fields._asdict().items():   # each checked to fit by host_fields
        record[name] = value
    record[layout.beta_field] = beta32
    if platform.architecture == ARCH_950:
        return Tiling(data=record[()], block_dim=block_dim, tiling_key=spec_arch35.tiling_key(info.arch35_template),
                      workspace_size=spec_arch35.WORKSPACE_SIZE)
    return Tiling(data=record[()], block_dim=block_dim, tiling_key=spec_a2.TILING_KEY,
                  workspace_size=platform.lib_workspace_size)


def host_fields(n: int, info: DTypeInfo, platform: Platform, names: dict) -> tuple:
    """``(block_dim, fields)`` of the host tiling, or a ValueError naming the argument at fault by
    ``names`` (keys as :data:`ARGNAMES`)."""
    b, ub = info.itemsize, platform.ub_size
    if platform.architecture == ARCH_950:
        accepted, block_dim, fields = spec_arch35.host_tiling(n, b, ub, platform.core_num)
        if not accepted:
            need = spec_arch35.BUFFER_NUM * spec_arch35.UB_ALIGN_BYTES
            raise ValueError(f"{names['ub_size']} ({ub} bytes) is too small: the 950 kernel needs "
                             f"{spec_arch35.BUFFER_NUM} buffers of at least {spec_arch35.UB_ALIGN_BYTES} bytes "
                             f"({need} bytes)")
    else:
        block = platform.block_size
        check_block_size(block, info, names)
        accepted, block_dim, fields = spec_a2.host_tiling(n, b, ub, platform.core_num, block)
        if not accepted:
            units = spec_a2.tile_units(b)
            raise ValueError(f"{names['ub_size']} ({ub} bytes) is too small: the {info.name} kernel needs "
                             f"{units} tile buffers of at least one {block}-byte block ({units * block} bytes)")
    # The fields sized by the platform rather than by numel: the UB's (UB_SIZED_FIELDS)
    # and coreNum (the cores, capped by numel).
    ub = f"{names['ub_size']} ({ub} bytes)"
    causes = dict.fromkeys(UB_SIZED_FIELDS, ub)
    causes["coreNum"] = f"platform.core_num ({platform.core_num}) with {names['numel']} ({n})"
    layout = LAYOUTS[platform.architecture]
    for name, value in fields._asdict().items():
        low, high = layout.int_range(name)
        if not low <= value <= high:
            cause = causes.get(name, f"{names['numel']} ({n})")
            raise ValueError(f"{cause} is too large: the tiling field {name} = {value} does not fit its C type "
                             f"({layout.dtype.fields[name][0].name})")
    return block_dim, fields

