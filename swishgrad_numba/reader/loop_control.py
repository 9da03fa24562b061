"""Loops of the class style besides the tile loop, and ``break``/``continue`` (issue 43).

The abstract reading (:mod:`.a2`) follows Process's tile loop once, its counter unknown. Around it:

* a *scalar loop* (one that makes no vector call and no copy: offsets, lengths, ``InitBuffer`` of a
  buffer array) is run iteration by iteration where its bounds are known when the kernel is read
  (constants, template arguments), and otherwise followed once with its counter unknown, every local and
  member it changes then a run-time value (:func:`scalar_loop`);
* a loop nested in the tile loop, before which the outer body makes no call (a row loop around a chunk
  loop, ``BigTailProcess``), is the tile loop itself: its body is the tile (:func:`.a2.ClassMachine.loop`);
* ``continue`` and ``break`` under a branch known only at run time in the tile loop are guards, as
  ``return`` is: the tile computes on the other way. The schedule (:mod:`.schedule`) runs every loop
  per core on the launch's values (:func:`run_loop`), jumps included, so each decision is made from the
  record, the core index, loop counters and constants only; a tile that a jump cuts short is refused
  there (its copies or its vector calls are not the program's).
"""
from __future__ import annotations

from .abstract import Unknown, refuse
from .syntax import For
from .values import CNum, render

__all__ = ["LoopJump", "MAX_UNROLL", "join_changes", "run_loop", "scalar_loop", "snapshot"]

#: Iterations a scalar loop with known bounds is run for when the kernel is read.
MAX_UNROLL = 4096


class LoopJump(Exception):
    """A ``break`` or ``continue`` leaving the body of the loop that runs it."""

    def __init__(self, stmt):
        super().__init__(stmt.kind)
        self.kind, self.at = stmt.kind, stmt.at


def snapshot(machine) -> tuple:
    """The locals and members a loop or branch may change."""
    return [dict(s) for s in machine.scopes], (dict(machine.this.members) if machine.this else {})


def join_changes(machine, before, why) -> None:
    """Every local of the scopes in ``before`` and member changed since then becomes a run-time value."""
    scopes, members = before
    for scope, saved in zip(machine.scopes, scopes):
        for k, v in saved.items():
            if k in scope and scope[k] is not v and scope[k] != v:
                scope[k] = Unknown(f"{k} ({why})")
    if machine.this:
        for k, v in machine.this.members.items():
            if k not in members or members[k] is not v and members[k] != v:
                machine.this.members[k] = Unknown(f"{k} ({why})")


def run_loop(machine, stmt, count) -> None:
    """Run ``stmt`` iteration by iteration, its condition a known number each time, ``continue`` and
    ``break`` taken; ``count()`` is called once per iteration (it refuses past a limit)."""
    machine.scopes.append({})
    machine.loop_depth = getattr(machine, "loop_depth", 0) + 1
    try:
        if isinstance(stmt, For) and stmt.init is not None:
            machine.run(stmt.init)
        while True:
            if stmt.cond is not None:
                c = machine.eval(stmt.cond)
                if not isinstance(c, CNum):
                    refuse(stmt, f"a loop while {render(stmt.cond)}", "its bound is known only at run time")
                if not c.value:
                    break
            count()
            try:
                machine.run(stmt.body)
            except LoopJump as j:
                if j.kind == "break":
                    break
            if isinstance(stmt, For) and stmt.step is not None:
                for x in stmt.step if isinstance(stmt.step, tuple) else (stmt.step,):
                    machine.eval(x)
    finally:
        machine.loop_depth -= 1
        machine.scopes.pop()


def scalar_loop(machine, stmt, method) -> None:
    """Follow a loop that is not the tile loop (see the module's doc); refused where it makes a vector call
    or a copy."""
    n, before = len(machine.events), snapshot(machine)
    branches = getattr(machine, "runtime_branches", 0)
    unrolled = _bounds_known(machine, stmt)
    if unrolled:
        iterations = [0]

        def count():
            iterations[0] += 1
            if iterations[0] > MAX_UNROLL:
                refuse(stmt, f"a loop in {method}", f"more than {MAX_UNROLL} iterations when the kernel is read")
        run_loop(machine, stmt, count)
        if getattr(machine, "runtime_branches", 0) != branches:     # a way chosen at run time: not one run
            _restore(machine, before)
            unrolled = False
    if not unrolled:
        machine.scopes.append({})
        machine.loop_depth = getattr(machine, "loop_depth", 0) + 1
        try:
            if isinstance(stmt, For) and stmt.init is not None:
                machine.run(stmt.init)
                for k in machine.scopes[-1]:
                    machine.scopes[-1][k] = Unknown(k)
            try:
                machine.run(stmt.body)
            except LoopJump:
                pass
        finally:
            machine.loop_depth -= 1
            machine.scopes.pop()
        join_changes(machine, before, "set in a loop")
    if len(machine.events) != n:
        refuse(stmt, f"a loop in {method}", "only Process's tile loop makes vector calls and copies")


def _restore(machine, before) -> None:
    scopes, members = before
    for scope, saved in zip(machine.scopes, scopes):
        scope.clear()
        scope.update(saved)
    if machine.this:
        machine.this.members = dict(members)


def _bounds_known(machine, stmt) -> bool:
    """Whether the loop's condition is a known number before its first iteration (its init run on a copy
    of the scopes, so nothing it does stays)."""
    saved = [dict(s) for s in machine.scopes]
    machine.scopes.append({})
    try:
        if isinstance(stmt, For) and stmt.init is not None:
            machine.run(stmt.init)
        return stmt.cond is not None and isinstance(machine.eval(stmt.cond), CNum)
    finally:
        machine.scopes.pop()
        for scope, s in zip(machine.scopes, saved):
            scope.clear()
            scope.update(s)
