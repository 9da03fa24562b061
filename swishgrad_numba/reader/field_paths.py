"""A path on which a tiling field equals none of the constants the kernel compares it with (issue 43).

An optional input (ops-nn's MishGrad ``tanhx``) is often switched on a flag the host sets to 0 or 1:
``if (haveTanhx == 1)`` loads it, ``if (haveTanhx == 0)`` computes without it. The reader follows every
choice of each condition, so it also follows the path where the flag is neither 0 nor 1: there the tanhx
branch of Compute reads a tensor no copy loaded. Such a path (two or more equalities of one field taken
false, none true) whose body reads a tensor nothing writes is left out (:func:`neither`), where another
path of the dtype reads; and a launch whose record gives a tile the variant ``f == c`` (``!(f == c)``)
while its field ``f`` is not (is) ``c`` is refused (:func:`check_fields`), so a record that takes the
path left out never runs as another variant.
"""
from __future__ import annotations

import re

from .errors import KernelSourceError

__all__ = ["neither", "check_fields"]

_EQ = re.compile(r"^(\w+) == (-?\d+)$")
_NOT_EQ = re.compile(r"^!\((\w+) == (-?\d+)\)$")


def neither(conds, exc: KernelSourceError) -> bool:
    """Whether a path that chose ``conds`` ((text, taken), ...) and was refused with ``exc`` is one to leave
    out (module docstring)."""
    if "nothing writes that tensor before it is read" not in str(exc):
        return False
    false, true = {}, set()
    for text, taken in conds:
        m = _EQ.match(text)
        if m and taken:
            true.add(m.group(1))
        elif m:
            false.setdefault(m.group(1), set()).add(m.group(2))
    return any(len(values) >= 2 and name not in true for name, values in false.items())


def check_fields(variant: str, values: dict, file) -> None:
    """Refuse a tile's ``variant`` whose terms ``f == c`` / ``!(f == c)`` on a record field ``f`` (``values``:
    name -> (value, C type)) do not hold for the record."""
    for term in filter(None, (t.strip() for t in variant.split("&&"))):
        m, negated = _EQ.match(term), False
        if m is None:
            m, negated = _NOT_EQ.match(term), True
        if m is None or m.group(1) not in values:
            continue
        holds = (int(values[m.group(1)][0]) == int(m.group(2))) != negated
        if not holds:
            raise KernelSourceError(file, 0, f"the record's {m.group(1)} = {values[m.group(1)][0]}",
                                    f"the calls of a tile are those of the variant `{variant}`, which it does "
                                    "not satisfy: the path it takes was not read")
