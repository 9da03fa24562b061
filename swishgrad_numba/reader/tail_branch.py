"""A tail tile under a branch after Process's tile loop (issue 43)::

    for (uint32_t i = 0; i < loops; i++) { Step(i * tileLength, tileLength); }
    if (rest > 0) { Step(loops * tileLength, rest); }

The branch depends on the launch (``rest``), so the abstract reading (:mod:`.a2`) follows it both ways.
It is read where one way makes no vector call and no copy and the other makes exactly the tile loop's
events (the same loads, steps and stores in the same order): either way every tile computes what the tile
loop computes, which is all the program form holds. Whether the tail is taken, and over which elements,
is the schedule's (:mod:`.schedule`, which runs the branch per core on the launch's values)."""
from __future__ import annotations

__all__ = ["tail_of_the_loop"]


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
