"""Per-tile stage costs: CopyIn (MTE2), Compute (VECTOR), CopyOut (MTE3), bookkeeping (SCALAR).

Vectorised over tile lengths with NumPy. Transfer costs are returned as a fixed part and a byte count so that
the queue model (:mod:`.queue`) can apply the bandwidth it settles on.
"""
from __future__ import annotations

import numpy as np

from .params import (INSTRUCTION_COSTS, PTO_ISA_REPEAT_GAP, VECTOR_BYTES_PER_CYCLE, VIEW_INSTRUCTIONS, Params,
                     chip_family, instruction_names)

__all__ = ["check_instructions", "vector_cycles", "instruction_cycles"]


def check_instructions(instructions, argname: str = "instructions") -> tuple:
    """The instruction names as a tuple, or a TypeError/ValueError naming ``argname`` and the unknown names."""
    if isinstance(instructions, str) or not hasattr(instructions, "__iter__"):
        raise TypeError(f"{argname} must be a list of instruction names, got {type(instructions).__name__}")
    names = tuple(instructions)
    known = set(instruction_names())
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{argname} must hold instruction names (str), got {type(name).__name__}")
    unknown = sorted({name for name in names if name not in known})
    if unknown:
        raise ValueError(f"{argname}: unknown instruction name(s) {unknown}; the cost table knows "
                         f"{', '.join(instruction_names())}")
    return names


def instruction_cycles(name: str, elements, itemsize: int, params: Params) -> np.ndarray:
    """Cycles of one instruction over ``elements`` (an int64 array) of ``itemsize``-byte data.

    The instruction is issued in calls of at most ``params.max_repeat`` repeats of ``params.repeat_bytes``; each
    call pays the model's fixed part and ``params.issue_cycles``. Where the SoC's documentation states a slower
    rate for the instruction (:data:`~.params.VECTOR_BYTES_PER_CYCLE`), a repeat takes at least
    ``repeat_bytes / rate`` cycles. Zero elements cost nothing.
    """
    elements = np.asarray(elements, dtype=np.int64)
    if name in VIEW_INSTRUCTIONS:       # a view of the same bytes: nothing is issued
        return np.zeros(elements.shape, dtype=np.float64)
    per_repeat_elems = params.repeat_bytes // itemsize
    repeats = -(-elements // per_repeat_elems)
    calls = -(-repeats // params.max_repeat)
    row = INSTRUCTION_COSTS[params.cost_model][name]
    stated = VECTOR_BYTES_PER_CYCLE.get(chip_family(params.soc), {}).get(name)
    floor = 0.0 if stated is None else params.repeat_bytes / stated
    if params.cost_model == "pypto":
        latency, par32, par16 = row
        parallelism = par32 if itemsize >= 4 else par16
        per_repeat = max(1, per_repeat_elems // parallelism, floor)
        # each call: latency + (its repeats - 1) * per_repeat
        cycles = calls * (latency + params.issue_cycles) + (repeats - calls) * per_repeat
    else:
        startup, completion, per32, per16 = row
        per_repeat = max(per32 if itemsize >= 4 else per16, floor)
        cycles = (calls * (startup + completion + params.issue_cycles) + repeats * per_repeat
                  + (repeats - calls) * PTO_ISA_REPEAT_GAP)
    return cycles.astype(np.float64)


def vector_cycles(instructions, elements, itemsize: int, params: Params) -> np.ndarray:
    """VECTOR cycles of a tile of ``elements`` (array) running ``instructions`` in order on ``itemsize`` data."""
    elements = np.asarray(elements, dtype=np.int64)
    lengths, where = np.unique(elements, return_inverse=True)    # tiles mostly share a few lengths
    total = np.zeros(lengths.shape, dtype=np.float64)
    for name in instructions:
        total += instruction_cycles(name, lengths, itemsize, params)
    return total[np.ravel(where)]
