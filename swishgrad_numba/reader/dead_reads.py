"""A call that reads a tensor nothing wrote, whose result nobody reads (issue 43).

``Cast(tmp1, zLocal, CAST_NONE, n)`` where ``zLocal`` is the output queue's fresh tensor, and ``tmp1`` is
written whole by the next call that touches it (``Adds(tmp1, tmp0, 3.0f, n)``) before anything reads it:
the device computes on whatever bytes ``zLocal`` held, and the result is overwritten unread, so no output
element depends on it. :func:`drop` leaves such calls out of the tile; the program form computes the
same output without them.

A call is left out only where all of this holds: one of its sources is neither loaded nor written before
it (in the prologue or the tile so far); its destination is written again, as a destination that is not
read (``d``, not ``D``), by a later call of the tile, and nothing (a call or the store) reads it in between;
and neither that destination nor the unwritten source is a ``ReinterpretCast`` view, a part of a buffer
(``buf[n]``) or a buffer that has one. Anything else that reads an unwritten tensor is still refused when
the body is assembled ("nothing writes that tensor before it is read").
"""
from __future__ import annotations

from .instructions import STEP_KINDS

__all__ = ["drop"]


def drop(prologue: list, tile: list, viewed: set) -> list:
    """``tile``'s events without the dead calls that read an unwritten tensor (module docstring); ``viewed``
    holds the keys of views, parts and the buffers that have them."""
    written = {e.key for e in prologue + tile if e.kind == "load"}
    written |= {e.step.args[0] for e in prologue if e.kind == "step"}
    out = list(tile)
    dead = set()
    for i, e in enumerate(tile):
        if e.kind != "step":
            continue
        s = e.step
        kinds = STEP_KINDS[s.op]
        sources = [a for a, k in zip(s.args, kinds) if k in "sD" and isinstance(a, str)]
        unwritten = [a for a in sources if a not in written]
        if unwritten and kinds[0] == "d" and not (set(unwritten) | {s.args[0]}) & viewed \
                and _overwritten_unread(tile, i, s.args[0]):
            dead.add(i)
            continue
        written.add(s.args[0])
    return [e for i, e in enumerate(out) if i not in dead]


def _overwritten_unread(tile, i, key) -> bool:
    for e in tile[i + 1:]:
        if e.kind == "store":
            if e.key == key:
                return False
            continue
        if e.kind != "step":
            if e.key == key:          # loaded again: overwritten
                return True
            continue
        kinds = STEP_KINDS[e.step.op]
        if any(a == key and k in "sD" for a, k in zip(e.step.args, kinds)):
            return False
        if e.step.args[0] == key and kinds[0] == "d":
            return True
    return False
