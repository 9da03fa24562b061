"""A guard on the core index that a path's tiling-field choice settles (issue 43)::

    void Init(GM_ADDR x, GM_ADDR y, const Tiling* t) {
        blockNum_ = t->blockNum;
        if (blockNum_ == 0) { return; }           // an empty tensor: nothing bound, nothing to do
        xGm_.SetGlobalBuffer((__gm__ T*)x + t->blockFormer * GetBlockIdx());
        ...
    }
    void Process() {
        if (GetBlockIdx() >= blockNum_) { return; }
        ...                                        // copies from xGm_
    }

``blockNum == 0`` compares a tiling field with a constant, so the reader follows it as a variant
(:func:`.read._paths`); on the path that takes it, Init returns before binding ``xGm_``. Process's guard
compares the core index, known only at run time, so it would be followed both ways, and the way that goes
on copies from the unbound tensor. But a core index is never negative: where the path settled ``F == 0``,
``GetBlockIdx() >= F`` holds on every core (and ``GetBlockIdx() < F`` fails), so the guard returns and the
path computes nothing, as the kernel does. :func:`settled` answers such a condition; any other is left to
the reading both ways.
"""
from __future__ import annotations

from .abstract import TilingField
from .syntax import Binary, Call

__all__ = ["settled"]

_CORE = ("GetBlockIdx",)
_FLIP = {">=": "<=", "<=": ">=", ">": "<", "<": ">", "==": "==", "!=": "!="}


def settled(machine, cond):
    """True or False where ``cond`` compares ``GetBlockIdx()`` with a tiling field this path chose to be 0
    (``idx >= F``, ``idx < F``, ``F > idx``, ``F <= idx``, ``idx == F`` and their likes); None otherwise."""
    known = getattr(getattr(machine, "decide", None), "known", None)
    if known is None or not isinstance(cond, Binary) or cond.op not in _FLIP:
        return None
    op, core, other = cond.op, cond.a, cond.b
    if not _is_core(core):
        op, core, other = _FLIP[op], cond.b, cond.a
        if not _is_core(core):
            return None
    field = machine.eval(other)
    if not isinstance(field, TilingField) or known(f"{field.name} == 0") is not True:
        return None
    return {">=": True, "<": False}.get(op)          # the core index against zero: idx >= 0 always


def _is_core(node):
    return isinstance(node, Call) and getattr(node.fn, "last", None) in _CORE and not node.args
