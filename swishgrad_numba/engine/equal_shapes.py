"""The broadcast walk's equal-shape launches on the flat launch (issue 39).

Where a launch of the broadcast walk is the identity walk (:mod:`swishgrad_numba.kernel.broadcast_identity`:
inputs of the output's shape, contiguous, every element covered once), each output element is computed
from the same element of each input. A stream of element-wise instructions (:func:`elementwise`: every
opcode one of :data:`.opcodes.NAMES`, each computing an element from the same element of its sources and
the stream's scalars; no row instruction, nothing that reads an element's position) then gives the same
bits on any schedule, so :func:`run_flat` runs it as the element-wise walk's launch does
(:meth:`.runner.Prepared.run`: the flat blocks of the grain, :mod:`.fused16` where its shape applies),
over one core's passes of the walk's UB loop length, cut into a bin per thread. This saves the walk's
per-loop work and, below :data:`swishgrad_numba.kernel.SERIAL_BELOW` elements, the thread pool's wake-up.
Only the numbers are computed this way: the tiling, its checks and the device-time model still see the
broadcast walk.
"""
from __future__ import annotations

import functools

import numpy as np

from .. import runtime
from ..kernel import SERIAL_BELOW
from ..kernel import plan as kernel_plan
from . import opcodes as O

__all__ = ["elementwise", "run_flat"]


def elementwise(code: np.ndarray) -> bool:
    """Whether every instruction of a stream is an element-wise one (:data:`.opcodes.NAMES`: none of the
    row machine's reductions, Brcb or global copies)."""
    code = np.asarray(code)
    return code.ndim == 2 and code.shape[1] == O.FIELDS and bool(((code[:, O.OP] >= 0)
                                                                     & (code[:, O.OP] < len(O.NAMES))).all())


@functools.lru_cache(maxsize=64)
def _plan(numel: int, pass_len: int, threads: int) -> kernel_plan.Plan:
    """One core's passes of ``pass_len`` over ``numel`` elements, cut into ``threads`` bins (read-only)."""
    passes = -(-numel // pass_len)
    run = kernel_plan.CoreRun(0, 1, 0, passes, pass_len, numel - (passes - 1) * pass_len, numel)
    made = kernel_plan.plan([run], numel, threads)
    made.pieces.flags.writeable = False
    made.bins.flags.writeable = False
    return made


def run_flat(prepared, ins: tuple, out: np.ndarray, attrs, pass_len: int) -> bool:
    """Run ``prepared`` (a :class:`.runner.Prepared`) over the flat ``ins`` into ``out`` on the flat launch,
    where it can: its stream element-wise, one input per array, all of them flat, C-contiguous arrays of
    ``out``'s length and of one itemsize, 2 or 4 bytes (the flat launch's raw forms). Whether it ran (False:
    nothing was touched, the caller runs its walk)."""
    n = out.shape[0] if out.ndim == 1 else -1
    if (n < 1 or pass_len < 1 or len(ins) != prepared.inputs or out.itemsize not in (2, 4)
            or not out.flags.c_contiguous or not out.flags.writeable
            or any(a.ndim != 1 or a.shape[0] != n or a.itemsize != out.itemsize or not a.flags.c_contiguous
                   for a in ins)):
        return False
    if not _elementwise_of(prepared):
        return False
    threads = 1 if n < SERIAL_BELOW else runtime.num_threads()
    prepared.run(tuple(ins), out, _plan(n, min(pass_len, n), threads), attrs)
    return True


def _elementwise_of(prepared) -> bool:
    """:func:`elementwise` of a prepared program's main stream, found once per program."""
    got = prepared.__dict__.get("_elementwise")
    if got is None:
        got = prepared.__dict__["_elementwise"] = elementwise(prepared.main.code)
    return got
