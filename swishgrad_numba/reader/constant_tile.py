"""A tile of a constant length (issue 43): the samples' first tutorials fix the size in ``constexpr``
constants (``TILE_LENGTH = BLOCK_LENGTH / TILE_NUM / BUFFER_NUM``) and pass the same constant to every
``DataCopy`` and vector call of the tile.

A vector call's constant count is read as the tile's length where every copy from GM the kernel has made
so far is of that same constant count: the call then covers the whole tile the copies brought in, as a
count that is the tile's length does. A copy back to GM of another constant count after such a call is
refused (the program form stores what it computed, the whole tile). Anything else keeps the refusal "a
constant count covers part of a tile"."""
from __future__ import annotations

from .abstract import refuse
from .values import CNum, is_int

__all__ = ["note_copy", "covers_the_tile"]


def note_copy(machine, node, load, count) -> None:
    """Record a GM copy's count (``load``: GM -> local); check a store against an accepted constant tile."""
    const = count.value if isinstance(count, CNum) and is_int(count) else None
    accepted = machine.__dict__.get("constant_tile")
    if not load:
        if accepted is not None and const is not None and const != accepted:
            refuse(node, f"a copy to GM of {const} elements", f"the tile's vector calls computed {accepted}: "
                   "the program form stores the whole tile")
        return
    machine.__dict__.setdefault("load_counts", set()).add(const)


def covers_the_tile(machine, count) -> bool:
    """Whether a vector call's constant ``count`` is the tile's length (see the module)."""
    if not is_int(count) or machine.__dict__.get("load_counts") != {count.value}:
        return False
    machine.__dict__["constant_tile"] = count.value
    return True

