"""``DataCopy(dst, src, n)`` between two local tensors (issue 43): a copy inside the UB.

The copy moves bytes: ``dst`` then holds what ``src`` holds, bit for bit. The program form has no copy
instruction, so the reader forwards it: the calls that read ``dst`` after the copy read ``src`` (the
same bits), until ``dst`` is written again (``Muls(dst, dst, k)`` is then ``Muls(dst, src, k)``), and a
store of ``dst`` stores ``src``. :func:`record` notes the copy as an event of its own while the entry is
followed; :func:`forward` rewrites the tile's events without it.

Refused, at the copy's or the reading call's line: a copy between tensors of different dtypes (the bytes
of one read as the other), a copy into or from a ``ReinterpretCast`` view or into a tensor that has one
(another view would not see the forwarded bytes), a constant count that covers part of a tile, a copy
outside Process's tile loop, a read of ``dst`` after ``src`` was written again (``dst`` still holds the old
bytes, which the program no longer has), and a call that reads its destination (``Axpy(dst, ...)``) where
that destination is a forwarded copy but for the only copy of its source: the call then runs in the
source's bytes, and a later read of the source itself is refused (it holds the copy's value).
"""
from __future__ import annotations

from dataclasses import replace

from .abstract import Tensor, refuse
from .constant_tile import covers_the_tile
from .errors import KernelSourceError
from .instructions import STEP_KINDS
from .objects import Event
from .values import CNum, render

__all__ = ["record", "forward"]


def record(machine, node, dst: Tensor, src: Tensor, count) -> None:
    """Note ``DataCopy(dst, src, count)`` (both local tensors) as a ``copy`` event (key ``dst``, gm ``src``)."""
    what = f"DataCopy({render(node.args[0])}, {render(node.args[1])})"
    if dst.dtype != src.dtype:
        refuse(node, f"{what} from {src.dtype} to {dst.dtype}", "a local copy moves bytes: the program form "
               "reads a copy between tensors of one dtype")
    views = getattr(machine, "bit_views", {})
    viewed = set(views) | set(views.values())
    if dst.key in viewed or src.key in viewed:
        refuse(node, f"{what} of a ReinterpretCast view's buffer", "a copy is forwarded to the calls that "
               "read its destination, which another view of the same bytes would not see")
    if isinstance(count, CNum) and not covers_the_tile(machine, count):
        refuse(node, f"{what} of {count.value} elements", "a constant count covers part of a tile")
    machine.events.append(Event("copy", step=node.at, key=dst.key, gm=src.key))


def forward(file, prologue: list, tile: list, names: dict) -> tuple:
    """``(prologue, tile)`` with each copy event forwarded (module docstring)."""
    for e in prologue:
        if e.kind == "copy":
            raise KernelSourceError(e.step[0], e.step[1], f"DataCopy into {names.get(e.key, e.key)}",
                                    "a copy between local tensors is read inside Process's tile loop only")
    if not any(e.kind == "copy" for e in tile):
        return prologue, tile
    alias, stale, taken, out = {}, {}, {}, []     # taken: a copy's source that now holds the copy's value

    def name(k):
        return names.get(k, k)

    def read(k, at, what):
        if k in stale:
            raise KernelSourceError(at[0], at[1], f"{what} reading {name(k)}", f"it was copied from "
                                    f"{name(stale[k])}, which was written again since (the program form "
                                    "forwards a local copy to its readers)")
        if k in taken:
            raise KernelSourceError(at[0], at[1], f"{what} reading {name(k)}", f"its copy {name(taken[k])} "
                                    "was updated in place, in its bytes (the program form forwards a local "
                                    "copy to its readers)")
        return alias.get(k, k)

    def wrote(k):
        alias.pop(k, None)
        stale.pop(k, None)
        taken.pop(k, None)
        for d, s in list(alias.items()):
            if s == k:
                stale[d] = s
                del alias[d]

    for e in tile:
        if e.kind == "copy":
            src = read(e.gm, e.step, "DataCopy")
            wrote(e.key)
            if src != e.key:
                alias[e.key] = src
        elif e.kind == "load":
            wrote(e.key)
            out.append(e)
        elif e.kind == "store":
            out.append(replace(e, key=read(e.key, (file, 0), "the store to GM")))
        else:
            s = e.step
            args, dst = [], s.args[0]
            for a, kind in zip(s.args, STEP_KINDS[s.op]):
                if kind == "D" and isinstance(a, str) and a in alias and _sole_alias(alias, a):
                    # Axpy(z, ...) on z = copy of y: computed in y's bytes, z's value from here on
                    dst = alias[a]
                    a = dst
                elif kind == "D" and isinstance(a, str) and (a in alias or a in stale or a in taken):
                    raise KernelSourceError(s.at[0], s.at[1], f"{s.op} into {name(a)}", "it reads its destination, "
                                            "a local copy the program form forwards to its readers")
                args.append(read(a, s.at, s.op) if kind == "s" and isinstance(a, str) else a)
            args += list(s.args[len(args):])
            if dst != s.args[0]:
                taken[dst] = s.args[0]
            else:
                wrote(dst)
            out.append(replace(e, step=replace(s, args=tuple(args))))
    return prologue, out


def _sole_alias(alias: dict, key) -> bool:
    """Whether ``key`` is the only copy of its source (then a call that reads and writes ``key`` can run in
    the source's bytes)."""
    return sum(1 for src in alias.values() if src == alias[key]) == 1
