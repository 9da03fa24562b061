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
from .checks import check_buffer_num
from .estimate import OPS, Estimate, estimate

__all__ = ["template_tiling", "variant", "candidates", "best_tiling", "KNOBS", "MAX_SEARCH_TILES"]

#: The longest walk (simulated tiles) ``best_tiling`` estimates; longer candidates are skipped and counted.
MAX_SEARCH_TILES = 300_000
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


def variant(text: str, numel: int, dtype, platform: Platform, base, op: str = "swish_grad"):
    """Parse one ``FIELD=VALUE`` of ``--compare``: ``(label, tiling, buffer_num)``.

    ``buffer_num=K`` keeps the tiling; ``cores=K`` (also ``block_dim``, ``coreNum``), ``tileDataNum=T`` (A2) and
    ``ubFormer=U`` (950) are the host tiling with that knob; any other struct field is set in the host's record
    as given (estimated even if the validator rejects it, and marked invalid). ``buffer_num`` is checked as
    :func:`~swishgrad_numba.devicetime.estimate` checks its own (the device's 64 buffers over ``op``'s queues),
    a knob as the host tiling checks its platform; every refusal names ``--compare`` and the text.
    """
    name, sep, value = text.partition("=")
    name = name.strip()
    try:
        number = int(value, 0)
    except ValueError:
        raise ValueError(f"--compare {text!r}: expected FIELD=INTEGER") from None
    if not sep or not name:
        raise ValueError(f"--compare {text!r}: expected FIELD=INTEGER")
    tile_field = "ubFormer" if platform.architecture == ARCH_950 else "tileDataNum"
    try:
        if name == "buffer_num":   # the estimate's own rule for its buffer_num
            inputs, outputs = OPS[op]
            return text, base, check_buffer_num(number, inputs + outputs)
        if name in ("cores", "block_dim", "coreNum", "core_num"):
            return text, template_tiling(numel, dtype, platform, cores=number), None
        if name == tile_field:
            return text, template_tiling(numel, dtype, platform, tile=number), None
    except ValueError as exc:
        raise ValueError(f"--compare {text!r}: {exc}") from None
    record = np.array(base.data, dtype=base.data.dtype)
    if name not in record.dtype.names:
        raise ValueError(f"--compare {text!r}: unknown field; knobs: buffer_num, cores, {tile_field}; struct fields: "
                         f"{', '.join(record.dtype.names)}")
    kind = record.dtype[name]
    if kind.kind in "iu":
        lo, hi = np.iinfo(kind).min, np.iinfo(kind).max
        if not lo <= number <= hi:
            raise ValueError(f"--compare {text!r}: {name} is a {kind} field: it holds {lo}..{hi}")
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


def _lower_bound_us(cores: int, nbytes: int, inputs: int, outputs: int, params) -> float:
    """No launch on ``cores`` cores moving ``nbytes`` per input and output is faster than its head plus its
    reads at the cores' read rates, its writes at their write rates, or all of it at the GM bandwidth."""
    clock = params.cycles_per_us
    cycles = max(inputs * nbytes / (cores * params.core_read_bytes_per_cycle),
                 outputs * nbytes / (cores * params.core_write_bytes_per_cycle),
                 (inputs + outputs) * nbytes / (params.aggregate_gbps * 1e3 / clock))
    return params.head_us + params.head_per_block_us * cores + cycles / clock


def best_tiling(numel: int, dtype, platform: Platform | None = None, params=None, *,
                progress: bool = False, progress_stream=None, baseline: Estimate | None = None,
                report: dict | None = None) -> tuple[Estimate, Estimate, int]:
    """The fastest of :func:`candidates` under the model: ``(best, host, candidates considered)``.

    A candidate whose walk would take more than :data:`MAX_SEARCH_TILES` simulated tiles is skipped (counted in
    ``report["skipped"]`` when a dict is given); one that cannot beat the best so far even at full bandwidth
    (:func:`_lower_bound_us`) is considered without being simulated.

    Every candidate is checked with :func:`validate_tiling` on ``platform`` first (a rejected one would be a
    bug of the template: it raises). ``progress`` reports on ``progress_stream`` (default stderr): a tqdm bar on a
    terminal, else a plain line about every tenth of the candidates. ``baseline`` (e.g. a file's tiling) is the
    estimate a candidate must beat (default: the host tiling's).
    """
    platform = REFERENCE_PLATFORM if platform is None else platform
    stream = sys.stderr if progress_stream is None else progress_stream
    info = dtype_info(dtype)
    host = estimate(None, numel, info.numpy, platform=platform, params=params, label="host tiling")
    tilings = candidates(numel, info.numpy, platform)
    iterator = tilings
    on_terminal = progress and hasattr(stream, "isatty") and stream.isatty()
    if on_terminal:
        from tqdm import tqdm
        iterator = tqdm(tilings, desc="tilings", unit="tiling", file=stream)
    best = host if baseline is None else baseline
    step = max(1, len(tilings) // 10)
    skipped = 0
    params = host.params
    inputs, outputs = OPS["swish_grad"]
    nbytes = -(-numel * info.itemsize // 32) * 32
    for i, tiling in enumerate(iterator):
        if progress and not on_terminal and (i % step == 0 or i == len(tilings) - 1):
            print(f"tilings: {i + 1}/{len(tilings)}", file=stream, flush=True)
        findings = validate_tiling(tiling, numel, info.numpy, platform)
        if not findings.ok:
            raise AssertionError(f"a template tiling failed validation: {findings.format()}")
        if _lower_bound_us(tiling.block_dim, nbytes, inputs, outputs, params) >= best.duration_us:
            continue        # cannot win: skip its (long) simulation
        fields = tiling.data
        tile = fields["ubFormer"].item() if platform.architecture == ARCH_950 else fields["tileDataNum"].item()
        # up to three distinct cores (the 950's walk) of about numel / cores / tile tiles each
        if 3 * -(-numel // (tiling.block_dim * tile)) > MAX_SEARCH_TILES:
            skipped += 1
            continue
        est = estimate(tiling, numel, info.numpy, platform=platform, params=params,
                       label=f"{tiling.block_dim} cores, tiles of {tile}")
        if est.duration_us < best.duration_us * (1 - 1e-9):   # a real gain, not rounding
            best = est
    if report is not None:
        report.update(candidates=len(tilings), skipped=skipped)
    return best, host, len(tilings) - skipped
