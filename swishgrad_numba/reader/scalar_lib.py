"""AscendC's integer helpers on the scalar unit, and ``std::min``/``std::max`` (issue 43).

Scalar code sizes its loops with them (``CeilDivision(len, lanes)``, ``AlignUp(n, 8)``). Their
definitions, from asc-devkit's ``impl/basic_api/utils/kernel_utils_ceil_oom_que.h``:

- ``DivCeil``, ``ConstCeil``, ``Ceil``: ``uint32_t`` arguments and result, ``(a + b - 1) / b``;
- ``AlignUp``: ``uint32_t``, ``DivCeil(a, b) * b``;
- ``CeilDivision``: ``int32_t`` arguments and result, 0 where the divisor is 0, else ``(a + b - 1) / b``.

Each argument is converted to the parameter's type as C converts it (an ``int64_t`` wraps modulo 2^32),
and the arithmetic is C's in that type (``uint32_t`` wraps; an ``int32_t`` overflow, undefined in C, is
refused, as is a ``DivCeil`` by zero). ``std::min(a, b)`` is ``b < a ? b : a`` and ``std::max(a, b)``
``a < b ? b : a``, both operands of one type as the template requires (else refused). An argument known
only at run time (a tiling field, the core index) gives a value known only at run time; the kernel's
own function of one of these names is called instead (it is found first).
"""
from __future__ import annotations

from .abstract import Tensor, Unknown, refuse
from .values import CNum, arith, convert, render

__all__ = ["SCALAR_HELPERS", "is_scalar_helper", "scalar_helper"]

#: name -> (parameter C type, where it is declared)
SCALAR_HELPERS = {"DivCeil": ("uint32_t", "AscendC"), "ConstCeil": ("uint32_t", "AscendC"),
                  "Ceil": ("uint32_t", "AscendC"), "AlignUp": ("uint32_t", "AscendC"),
                  "CeilDivision": ("int32_t", "AscendC"), "min": (None, "std"), "max": (None, "std")}


def is_scalar_helper(fn, args) -> bool:
    """Whether the call ``fn(args)`` is one of :data:`SCALAR_HELPERS` (unqualified or in its namespace),
    on no tensor."""
    if fn.last not in SCALAR_HELPERS or any(isinstance(a, Tensor) for a in args):
        return False
    return len(fn.segs) == 1 or len(fn.segs) == 2 and fn.segs[0][0] == SCALAR_HELPERS[fn.last][1]


def scalar_helper(node, name, args):
    """The value of the helper ``name`` on ``args`` (CNum), or Unknown where an argument is."""
    if len(args) != 2:
        refuse(node, f"{name} with {len(args)} arguments", "it takes two")
    if not all(isinstance(a, CNum) for a in args):
        return Unknown(render(node))
    ctype = SCALAR_HELPERS[name][0]
    try:
        if ctype is None:
            return _min_max(node, name, *args)
        a, b = (convert(x, ctype) for x in args)
        if b.value == 0 and name == "CeilDivision":
            return CNum(0, ctype)
        one = CNum(1, ctype)
        q = arith("/", arith("-", arith("+", a, b), one), b)
        q = arith("*", q, b) if name == "AlignUp" else q
        return convert(q, ctype)
    except ValueError as e:
        refuse(node, f"{name}({', '.join(render(x) for x in node.args)})", str(e))


def _min_max(node, name, a, b) -> CNum:
    if a.ctype != b.ctype:
        refuse(node, f"std::{name} of {a.ctype} and {b.ctype}", "std::min and std::max take two operands of "
               "one type (the template deduces one T)")
    if name == "min":
        return b if arith("<", b, a).value else a
    return b if arith("<", a, b).value else a
