"""Tilings beside the host's: ``--compare`` variants and the ``--best`` search over the template's tilings.

Every variant of a knob (tile size, core count) is the host tiling computed on a platform with that knob, so
it is a tiling the template itself produces; every candidate of :func:`best_tiling` passes
:func:`~swishgrad_numba.validate_tiling` on the real platform before it is estimated.
"""
from __future__ import annotations

import dataclasses
import sys

import numpy as np

from ..dtypes import dtype_info
from ..platform import ARCH_950, REFERENCE_PLATFORM, Platform
from ..spec import a2 as spec_a2
from ..spec import arch35 as spec_arch35
from ..tiling.host import compute_tiling
from ..tiling.validate import validate_tiling
from .estimate import Estimate, estimate

__all__ = ["template_tiling", "variant", "candidates", "best_tiling", "KNOBS"]

#: The knobs ``--compare`` understands beside raw struct fields.
KNOBS = ("buffer_num", "cores", "tileDataNum", "ubFormer")


def template_tiling(numel: int, dtype, platform: Platform, *, tile: int | None = None, cores: int | None = None):
    """The host tiling of the platform's kernel with at most ``cores`` cores and tiles (A2 ``tileDataNum``, 950
    ``ubFormer``) of ``tile`` elements; None keeps the host's choice. A ValueError names a tile the kernel's
    alignment or unified buffer cannot take."""
    info = dtype_info(dtype)
    changes = {}
    if cores is not None:
        if cores < 1 or cores > platform.core_num:
            raise ValueError(f"cores must be in 1..{platform.core_num} on this platform, got {cores}")
        changes["core_num"] = cores
    if tile is not None:
        if platform.architecture == ARCH_950:
            align = spec_arch35.UB_ALIGN_BYTES // info.itemsize
            ub = tile * spec_arch35.BUFFER_NUM * info.itemsize
            if tile < align or tile % align or ub > platform.ub_size:
                raise ValueError(f"ubFormer must be a multiple of {align} elements whose {spec_arch35.BUFFER_NUM} "
                                 f"slots fit the {platform.ub_size}-byte UB, got {tile}")
        else:
            per_block = platform.block_size // info.itemsize
            ub = tile * info.itemsize * spec_a2.tile_units(info.itemsize)
            if tile < per_block or tile % per_block or ub > platform.ub_size:
                raise ValueError(f"tileDataNum must be a multiple of {per_block} elements whose buffers fit the "
                                 f"{platform.ub_size}-byte UB, got {tile}")
        changes["ub_size"] = ub
    return compute_tiling(numel, info.numpy, platform=dataclasses.replace(platform, **changes))


def variant(text: str, numel: int, dtype, platform: Platform, base):
    """Parse one ``FIELD=VALUE`` of ``--compare``: ``(label, tiling, buffer_num)``.

    ``buffer_num=K`` keeps the tiling; ``cores=K`` (also ``block_dim``, ``coreNum``), ``tileDataNum=T`` (A2) and
    ``ubFormer=U`` (950) are the host tiling with that knob; any other struct field is set in the host's record
    as given (estimated even if the validator rejects it, and marked invalid).
    """
    name, sep, value = text.partition("=")
    name = name.strip()
    try:
        number = int(value, 0)
    except ValueError:
        raise ValueError(f"--compare {text!r}: expected FIELD=INTEGER") from None
    if not sep or not name:
        raise ValueError(f"--compare {text!r}: expected FIELD=INTEGER")
    if name == "buffer_num":
        if number < 1:
            raise ValueError(f"--compare {text!r}: buffer_num must be >= 1")
        return text, base, number
    if name in ("cores", "block_dim", "coreNum", "core_num"):
        return text, template_tiling(numel, dtype, platform, cores=number), None
    tile_field = "ubFormer" if platform.architecture == ARCH_950 else "tileDataNum"
    if name == tile_field:
        return text, template_tiling(numel, dtype, platform, tile=number), None
    record = np.array(base.data, dtype=base.data.dtype)
    if name not in record.dtype.names:
        raise ValueError(f"--compare {text!r}: unknown field; knobs: buffer_num, cores, {tile_field}; struct fields: "
                         f"{', '.join(record.dtype.names)}")
    record[name] = number
    fields = {k: record[k].item() for k in record.dtype.names}
    fields["blockDim"] = base.block_dim
    return text, fields, None


def candidates(numel: int, dtype, platform: Platform, steps_per_octave: int = 4, octaves: int = 4) -> list:
    """The template's tilings over a grid of tile sizes (geometric, ``steps_per_octave`` per factor of two, over
    ``octaves`` factors of two down from the largest) and core counts (all up to 8, then geometric), duplicates
    removed."""
    info = dtype_info(dtype)
    host = compute_tiling(numel, info.numpy, platform=platform)
    if platform.architecture == ARCH_950:
        unit = spec_arch35.UB_ALIGN_BYTES // info.itemsize
        largest = host.data["ubFormer"].item() // unit
    else:
        unit = platform.block_size // info.itemsize
        largest = host.data["tileDataNum"].item() // unit
    sizes = {max(1, int(largest / 2 ** (i / steps_per_octave))) for i in range(octaves * steps_per_octave + 1)}
    cores = set(range(1, min(8, platform.core_num) + 1))
    c = float(platform.core_num)
    while c > 8:
        cores.add(int(round(c)))
        c /= 2 ** 0.25
    seen, out = set(), []
    for size in sorted(sizes, reverse=True):
        for core in sorted(cores, reverse=True):
            tiling = template_tiling(numel, info.numpy, platform, tile=size * unit, cores=core)
            key = (tiling.block_dim, tiling.data.tobytes())
            if key not in seen:
                seen.add(key)
                out.append(tiling)
    return out


def best_tiling(numel: int, dtype, platform: Platform | None = None, params=None, *,
                progress: bool = False) -> tuple[Estimate, Estimate, int]:
    """The fastest of :func:`candidates` under the model: ``(best, host, candidates tried)``.

    Every candidate is checked with :func:`validate_tiling` on ``platform`` first (a rejected one would be a
    bug of the template: it raises). ``progress`` shows a tqdm bar on stderr.
    """
    platform = REFERENCE_PLATFORM if platform is None else platform
    info = dtype_info(dtype)
    host = estimate(None, numel, info.numpy, platform=platform, params=params, label="host tiling")
    tilings = candidates(numel, info.numpy, platform)
    iterator = tilings
    if progress:
        from tqdm import tqdm
        iterator = tqdm(tilings, desc="tilings", unit="tiling", file=sys.stderr)
    best = host
    for tiling in iterator:
        report = validate_tiling(tiling, numel, info.numpy, platform)
        if not report.ok:
            raise AssertionError(f"a template tiling failed validation: {report.format()}")
        fields = tiling.data
        tile = fields["ubFormer"].item() if platform.architecture == ARCH_950 else fields["tileDataNum"].item()
        est = estimate(tiling, numel, info.numpy, platform=platform, params=params,
                       label=f"{tiling.block_dim} cores, tiles of {tile}")
        if est.duration_us < best.duration_us * (1 - 1e-9):   # a real gain, not rounding
            best = est
    return best, host, len(tilings)
