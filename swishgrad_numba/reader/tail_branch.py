"""A tail tile under a branch after Process's tile loop (issue 43)::

    for (uint32_t i = 0; i < loops; i++) { Step(i * tileLength, tileLength); }
    if (rest > 0) { Step(loops * tileLength, rest); }

The branch depends on the launch (``rest``), so the abstract reading (:mod:`.a2`) follows it both ways.
It is read where one way makes no vector call and no copy and the other makes exactly the tile loop's
events (the same loads, steps and stores in the same order): either way every tile computes what the tile
loop computes, which is all the program form holds. Whether the tail is taken, and over which elements,
is the schedule's (:mod:`.schedule`, which runs the branch per core on the launch's values).

A guarded set-up before the tile loop (:func:`guarded_prologue`)::

    if (blockLength > 0) { Duplicate(thr, lambd, n); }      // in Init, or in Process before its loop

is read where no copy came before it and one way makes vector calls only and the other none: the
program's steps before the tile loop are those calls. The schedule runs the branch per core: a core that takes the way
without them and then walks a tile is refused there (its tile would compute other vector calls than the
program), so a core that skips the set-up must walk no tile (``if (blockLength <= 0) return;``)."""
from __future__ import annotations

__all__ = ["guarded_prologue", "tail_of_the_loop"]


def guarded_prologue(machine, then_events, else_events):
    """The events to keep for a runtime branch before the tile loop and before any copy, whose one way made
    only vector calls and the other none; None where the branch is not such a set-up."""
    if getattr(machine, "tile", None) is not None or machine.in_tile:
        return None
    if any(getattr(e, "kind", None) != "step" for e in machine.events):     # after a copy: in the tile
        return None
    for taken, other in ((then_events, else_events), (else_events, then_events)):
        if not other and taken and all(getattr(e, "kind", None) == "step" for e in taken):
            return list(taken)
    return None


def tail_of_the_loop(machine, n, then_events, else_events):
    """The events to keep for a runtime branch after the tile loop whose ways made ``then_events`` and
    ``else_events`` (from event ``n``); None where the branch is not a tail tile of the loop."""
    tile = getattr(machine, "tile", None)
    if tile is None or machine.in_tile or not machine.methods or not machine.methods[-1].startswith("Process"):
        return None
    loop_events = machine.events[tile[0]:tile[1]]
    if not loop_events:
        return None
    for taken, other in ((then_events, else_events), (else_events, then_events)):
        if not other and list(taken) == list(loop_events):
            return list(taken)
    return None
