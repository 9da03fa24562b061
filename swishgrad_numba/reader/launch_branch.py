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

A branch on an attribute's value (``if (beta > 0.0f)``) is known at launch too: each way is a variant
(:func:`attribute_way`, whichever calls its ways make), and the schedule evaluates the condition on the
launch's record as the scalar unit computes it (:func:`decided_attribute`, :func:`.launch_scalars.evaluate`:
float32 arithmetic, IEEE comparisons, a NaN true).

The same holds for a branch in Process around whole tiles (``if (loopCount == 1) { one tile } else
{ the loop }``): each way is a path of its own.
"""
from __future__ import annotations

from .values import render

__all__ = ["mark", "follow_one_way", "attribute_way", "decided_attribute", "located", "refuse_empty_way"]


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
    branch = _chosen(machine, stmt)
    if branch is not None:
        machine.run(branch)
    return True


def attribute_way(machine, stmt, cond) -> bool:
    """Follow one way of ``if (cond)``, ``cond`` computed from attributes, as a path of its own; False where
    ``cond`` is not an attribute value or the machine's driver does not fork paths."""
    from .launch_scalars import SCALARS

    if not isinstance(cond, SCALARS) or mark(machine) is None:
        return False
    branch = _chosen(machine, stmt, attribute=True)
    if branch is not None:
        machine.run(branch)
    return True


def decided_attribute(stmt, cond, attributes):
    """The way of ``if (cond)`` (the branch to run, or None) where ``cond`` is an attribute value and the
    launch's ``attributes`` (C field name -> value) are given; ``False`` where it is not such a branch."""
    from .launch_scalars import SCALARS, evaluate

    if not isinstance(cond, SCALARS) or attributes is None:
        return False
    return stmt.then if evaluate(cond, attributes) != 0 else stmt.other


def _chosen(machine, stmt, attribute=False):
    """The way of ``stmt`` this path takes (the driver's choice), the branch noted on the machine."""
    from .variant_ways import asked

    text = render(stmt.cond)
    asked(machine, stmt, text)
    taken = machine.decide(text)
    machine.__dict__.setdefault("launch_branches", []).append((text if taken else f"!({text})", stmt.at,
                                                               attribute))
    return stmt.then if taken else stmt.other


def refuse_empty_way(machine) -> None:
    """Refuse a path that computes nothing because of an attribute's value (``if (scale == 0.0f) return;``):
    run without its own record the kernel would compute the other way for every value."""
    from .errors import KernelSourceError

    for way, at, attribute in getattr(machine, "launch_branches", ()):
        if attribute:
            raise KernelSourceError(str(at[0]), at[1], f"a branch on attribute values: if ({way})", "on that way "
                                    "the kernel computes nothing (a guard on an attribute is not read)")


def located(machine, exc):
    """``exc`` (a refusal of a path's body) at the branch that chose the path, where it names no line."""
    from .errors import KernelSourceError

    taken = getattr(machine, "launch_branches", None)
    if exc.line or not taken:
        return exc
    way, at, attribute = taken[-1]
    if attribute:
        return KernelSourceError(str(at[0]), at[1], f"a branch on attribute values: if ({way})",
                                 f"on that way: {exc.construct}: {exc.detail}")
    return KernelSourceError(str(at[0]), at[1], exc.construct, f"{exc.detail} (on the way `{way}` of this "
                             "branch)")
