"""Which variant a tile ran, from the branches that chose it (issue 43), not only from its vector calls.

A variant is the path the abstract reading took through branches it could not decide (a tiling field, the
tiling key, a branch known for the launch: :func:`.read._paths`), named by their conditions. Two variants may
make the same vector calls (a helper called with different scalars under ``key == 1`` and ``key == 2``), so
the calls alone cannot tell which one a core ran. The reading therefore notes, for each condition it decided,
the ``if`` statements that asked it (:func:`asked`); a variant's :attr:`.description.Body.ways` are those
statements with the way its path took them (:func:`ways_of`). The schedule (:mod:`.schedule`) notes the way
each core took every ``if`` it decided (:meth:`.machine.Machine.branch_taken`), and a tile is a variant only
where its calls are the variant's and no branch went the other way (:func:`compatible`).
"""
from __future__ import annotations

from .values import render

__all__ = ["asked", "compatible", "statement_key", "ways_of"]


def statement_key(stmt) -> tuple:
    """An ``if`` statement's identity in both readings of the source: its file, line and condition as written."""
    return (str(stmt.at[0]), int(stmt.at[1]), render(stmt.cond))


def asked(machine, stmt, text: str) -> None:
    """Note that ``stmt`` asked the path driver the condition ``text``."""
    machine.__dict__.setdefault("ways_asked", {}).setdefault(text, set()).add(statement_key(stmt))


def ways_of(machine, conds) -> tuple:
    """``((statement key, taken), ...)``: each statement that asked one of ``conds`` (the path's (text, choice))
    with the way the path took it."""
    by_text = getattr(machine, "ways_asked", {})
    return tuple(sorted({(k, bool(c)) for t, c in conds for k in by_text.get(t, ())}))


def compatible(ways: tuple, taken: dict) -> bool:
    """Whether a variant of ``ways`` agrees with ``taken`` (statement key -> the set of ways a tile took it):
    no statement the variant's path decided went only the other way."""
    return all(k not in taken or c in taken[k] for k, c in ways)
