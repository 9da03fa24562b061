"""A branch known for the launch whose ways make different vector calls (issue 43)::

    void Compute(int32_t progress, uint32_t len) {
        ...
        if (progress == tileNum - 1) {       // the last tile: another stream of calls
            Muls(yLocal, xLocal, half, len);
        } else {
            Adds(yLocal, xLocal, one, len);
        }
    }

The condition reads the loop index, a length, the tiling record or the core index: no tensor's data (a
value read from a tensor, ``GetValue``, is refused where it is read, so no scalar the abstract reading
holds comes from data). Each way is then a stream of straight-line calls of its own: the reading
(:func:`.read._paths`) follows the entry once per way, each a variant named by the condition as written
(``progress == tileNum - 1``, ``!(progress == tileNum - 1)``), and the schedule (:mod:`.schedule`), which
runs the scalar code per core on the launch's values, takes each branch the way the core takes it, each
tile then running the variant whose calls it made (:func:`.launch_plan.run_own_schedule`). A branch that
the schedule cannot decide (its condition not known for the launch) is refused there, at its line.

The same holds for a branch in Process around whole tiles (``if (loopCount == 1) { one tile } else
{ the loop }``): each way is a path of its own.
"""
from __future__ import annotations

from .values import render

__all__ = ["mark", "follow_one_way"]


def mark(machine):
    """The path driver's state before a branch is tried both ways (None where the machine has no driver
    that forks paths: the schedule's, the host's)."""
    state = getattr(getattr(machine, "decide", None), "state", None)
    return state() if state is not None else None


def follow_one_way(machine, stmt, at, saved) -> bool:
    """Follow one way of ``stmt`` as a path of its own (the module's doc), the machine put back to
    ``saved`` (members, scopes, the number of events, the tile loop's bounds) and the driver to ``at``
    (:func:`mark`); False where the machine's driver does not fork paths."""
    if at is None:
        return False
    members, scopes, n, tile = saved
    if machine.this:
        machine.this.members = dict(members)
    for scope, kept in zip(machine.scopes, scopes):
        scope.clear()
        scope.update(kept)
    del machine.events[n:]
    machine.tile, machine.inner = tile
    machine.decide.rewind(at)            # the choices the trial ways made are made again on the way taken
    branch = stmt.then if machine.decide(render(stmt.cond)) else stmt.other
    if branch is not None:
        machine.run(branch)
    return True
