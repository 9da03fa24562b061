""":func:`estimate_custom`: the device-time model of any element-wise kernel on the CopyIn / Compute / CopyOut
template, from its tiles per core (the SwishGrad-family launches are :func:`.estimate.estimate`)."""
from __future__ import annotations

import numpy as np

from ..platform import Platform
from .checks import (MAX_CORES, MAX_TILE_ELEMENTS, check_buffer_num, check_params, custom_itemsize,
                     positive_int)
from .estimate import MAX_TILES, Estimate, simulate
from .params import Params
from .stages import check_instructions

__all__ = ["estimate_custom"]


def estimate_custom(*, dtype, inputs, outputs, instructions, core_tiles, buffer_num: int | None = 2,
                    platform: Platform | None = None, params: Params | None = None,
                    label: str = "custom kernel", bursts: int = 1, compute_dtype=None,
                    gm_aligned: bool = True) -> Estimate:
    """Estimate any element-wise kernel on the CopyIn / Compute / CopyOut template.

    Parameters
    ----------
    dtype : dtype-like
        The element type the kernel moves and computes in.
    inputs, outputs : int
        DataCopy calls per tile in (>= 1) and out (>= 0; 0 for a kernel that only reads).
    instructions : list of str
        Vector instructions per tile, names from the cost table (e.g. ``["Add"]``; may be empty).
    core_tiles : sequence of sequences of int
        Per core, the lengths of its tiles in elements (each in 1..:data:`MAX_TILE_ELEMENTS`; every core at least
        one tile; at most :data:`MAX_TILES` tiles over the cores whose tiles differ).
    buffer_num : int or None
        Buffers per queue (1: no overlap of neighbouring tiles; 2: double buffering); more than a core's tiles
        changes nothing. The queues (``inputs + outputs``) hold at most 64 buffers in all (the device's rule,
        :func:`check_buffer_num`). ``None``, for a kernel that only reads (``outputs=0``, no instructions):
        nothing waits for a copy to land before the next is issued (a buffer per tile).
    bursts : int
        Contiguous pieces each DataCopy moves (1: a contiguous tile; ``rows`` for a tile of rows strided in GM).
    compute_dtype : dtype-like, optional
        The element type the instructions run on (default ``dtype``; float32 for a kernel that widens 16-bit data).
    gm_aligned : bool
        False when the bursts start at GM addresses that are not 32-byte aligned (rows of a length that is not
        whole 32-byte blocks): each burst then pays ``params.unaligned_burst_cycles`` more.
    """
    if not isinstance(gm_aligned, bool):
        raise TypeError(f"gm_aligned must be True or False, got {type(gm_aligned).__name__}")
    itemsize = custom_itemsize(dtype)
    compute_itemsize = itemsize if compute_dtype is None else custom_itemsize(compute_dtype, "compute_dtype")
    inputs = positive_int(inputs, "inputs")
    outputs = positive_int(outputs, "outputs", minimum=0)
    instructions = check_instructions(instructions)
    if buffer_num is None:
        if outputs or instructions:
            raise ValueError("buffer_num=None (nothing waits for a landing) is for a kernel that only reads: "
                             f"outputs=0 and no instructions, got outputs={outputs}, {len(instructions)} instructions")
    else:
        buffer_num = check_buffer_num(buffer_num, inputs + outputs)
    bursts = positive_int(bursts, "bursts")
    if platform is not None and not isinstance(platform, Platform):
        raise TypeError(f"platform must be a Platform, got {type(platform).__name__}")
    params = check_params(params, platform)
    if isinstance(core_tiles, (str, bytes)) or not hasattr(core_tiles, "__len__") or len(core_tiles) == 0:
        raise ValueError("core_tiles must be a non-empty sequence with one sequence of tile lengths per core")
    if len(core_tiles) > MAX_CORES:
        raise ValueError(f"core_tiles: at most {MAX_CORES} cores, got {len(core_tiles)}")
    lengths, counts, seen, distinct_tiles = [], [], set(), 0
    # id -> (the sequence, its checked array): one list object is often every core's; each is held here, so
    # no id is reused by another object during the call (a row of a 2-D array is a new object each time)
    same = {}
    for core, tiles in enumerate(core_tiles):
        if id(tiles) in same:   # the very object already checked
            lengths.append(same[id(tiles)][1])
            counts.append(same[id(tiles)][1].size)
            continue
        try:
            arr = np.asarray(tiles)
        except (TypeError, ValueError):
            raise TypeError(f"core_tiles[{core}] must be a sequence of integers") from None
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"core_tiles[{core}] must be a non-empty sequence of tile lengths, got {tiles!r}")
        if arr.dtype.kind not in "iu":
            raise TypeError(f"core_tiles[{core}] must hold integers, got {arr.dtype}")
        if (arr <= 0).any():
            raise ValueError(f"core_tiles[{core}]: tile lengths must be >= 1 element, got {int(arr.min())}")
        if (arr > MAX_TILE_ELEMENTS).any():
            raise ValueError(f"core_tiles[{core}]: tile lengths must be at most {MAX_TILE_ELEMENTS} elements, "
                             f"got {int(arr.max())}")
        arr = arr.astype(np.int64)
        key = arr.tobytes()
        if key not in seen:          # only distinct cores are simulated (and held in memory)
            seen.add(key)
            distinct_tiles += arr.size
            if distinct_tiles > MAX_TILES:
                raise ValueError(f"core_tiles: more than {MAX_TILES} tiles over the cores whose tiles differ; "
                                 f"not modelled (split the launch, or give equal cores equal tiles)")
        lengths.append(arr)
        counts.append(arr.size)
        same[id(tiles)] = (tiles, arr)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    if buffer_num is None:
        buffer_num = max(counts)
    return simulate(offsets, np.concatenate(lengths), itemsize, compute_itemsize, inputs, outputs, instructions,
                    buffer_num, params, label, bursts=bursts, gm_aligned=gm_aligned)
