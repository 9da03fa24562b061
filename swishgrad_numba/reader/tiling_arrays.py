"""Array fields of the tiling struct (issue 43): ``TILING_DATA_FIELD_DEF_ARR(int64_t, 8, dims)`` in op_host, or
``int64_t dims[8];`` in a kernel-side struct.

The field is ``N`` elements of its type in the struct's C layout (the record's sub-array, at the element
type's alignment). The kernel indexes it with a constant or with an index computed on the scalar unit
(``t->strides[t->axis]``): the abstract reading takes the element as a value known at launch, and a core's
schedule (:mod:`.schedule`) reads it from the launch's record, the index checked against ``N``. Integer
elements only: a float array's element as a vector call's scalar (an attribute) is refused, as are arrays
of several dimensions and a bound that is not a compile-time integer.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .abstract import Unknown, refuse
from .errors import KernelSourceError
from .values import is_int, render

__all__ = ["TilingArray", "array_ctype", "split_ctype", "array_element"]

_ARRAY = re.compile(r"^(\w+)\[(\d+)\]$")


@dataclass(frozen=True)
class TilingArray:
    """An array field of the tiling struct: ``name``, ``length`` elements of C type ``ctype``."""
    name: str
    length: int
    ctype: str


def split_ctype(ctype: str):
    """``("int64_t", 8)`` for an array field's type ``"int64_t[8]"``; ``(ctype, None)`` for a scalar field."""
    m = _ARRAY.match(ctype)
    return (m.group(1), int(m.group(2))) if m else (ctype, None)


def _bound(symbols, node, depth=0):
    """A bound's value: an integer literal, or a constant of the sources whose initialiser is one."""
    from .syntax import Name, Num
    from .values import number

    if isinstance(node, Num):
        try:
            return number(node.text)
        except ValueError:
            return None
    if isinstance(node, Name) and node.last in symbols.constants and depth < 8:
        return _bound(symbols, symbols.constants[node.last][1], depth + 1)
    return None


def array_ctype(symbols, decl, k) -> str:
    """The C type of ``decl``'s ``k``-th name as a struct field: ``"T"``, or ``"T[N]"`` for an array."""
    base = decl.type.name.last
    bounds = decl.dims[k] if decl.dims else ()
    if not bounds:
        return base
    name = decl.names[k][0]
    if len(bounds) != 1 or bounds[0] is None:
        raise KernelSourceError(*decl.at, f"tiling struct field {name}", "an array of several dimensions, or of "
                                "no bound: one bound is read")
    n = _bound(symbols, bounds[0])
    if not is_int(n) or not 0 < n.value <= 1 << 16:
        raise KernelSourceError(*decl.at, f"tiling struct field {name}", f"its bound {render(bounds[0])} is not a "
                                "compile-time integer from 1 to 65536")
    return f"{base}[{n.value}]"


def array_element(m, node, array: TilingArray, index):
    """``array[index]`` in the abstract reading: an integer known at launch (a schedule's record has it)."""
    if array.ctype in ("float", "double", "half", "bfloat16_t"):
        refuse(node, f"element of the float array field {array.name}", "a float array's element (an attribute "
               "per index) is not read")
    if is_int(index) and not 0 <= index.value < array.length:
        refuse(node, f"indexing {render(node)}", f"index {index.value} outside the {array.length} elements of "
               f"{array.name}")
    return Unknown(render(node))
