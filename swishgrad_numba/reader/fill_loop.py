"""A loop that fills a local tensor with one value by ``SetValue`` (issue 43): a ``Duplicate``.

``for (uint32_t i = 0; i < n; ++i) { t.SetValue(i, v); }`` (ops-nn's experimental SoftPlusV2 fills its
``yLocal`` with 1 so) writes ``v``, converted to ``t``'s type, to elements ``0 .. n-1`` of ``t``: what
``Duplicate(t, v, n)`` writes, so it is read as that vector call at the ``SetValue``'s line, its count ``n``
checked as any vector call's (the tile's length). Only that form is: a counter from 0 by 1 (``++i``,
``i++``, ``i += 1``) while ``i < n``, one ``SetValue`` with the counter as its index and a value that does not
name the counter. Any other loop over ``SetValue`` stays refused (:mod:`.a2`).
"""
from __future__ import annotations

from .abstract import Tensor
from .syntax import Binary, Block, Call, Decl, ExprStmt, For, Member, Name, Num, Unary
from .values import is_int

__all__ = ["fill_loop"]


def fill_loop(machine, stmt) -> bool:
    """Whether ``stmt`` is a fill loop (module docstring); if so its ``Duplicate`` is recorded by
    ``machine.vector_call``."""
    if not isinstance(stmt, For) or not isinstance(stmt.init, Decl) or len(stmt.init.names) != 1:
        return False
    counter, init, _ = stmt.init.names[0]
    body = stmt.body.stmts if isinstance(stmt.body, Block) else (stmt.body,)
    if len(body) != 1 or not isinstance(body[0], ExprStmt):
        return False
    call = body[0].x
    if not (isinstance(call, Call) and isinstance(call.fn, Member) and call.fn.name == "SetValue"
            and len(call.args) == 2 and _is(call.args[0], counter) and not _names(call.args[1], counter)):
        return False
    cond, step = stmt.cond, stmt.step
    if isinstance(step, tuple):                    # the step's comma list
        step = step[0] if len(step) == 1 else None
    if not (isinstance(cond, Binary) and cond.op == "<" and _is(cond.a, counter) and not _names(cond.b, counter)):
        return False
    steps = isinstance(step, Unary) and step.op in ("++", "post++") and _is(step.x, counter) or \
        isinstance(step, Binary) and step.op == "+=" and _is(step.a, counter) and isinstance(step.b, Num) \
        and step.b.text in ("1", "1u", "1U")
    if not steps or init is None:
        return False
    start = machine.eval(init)
    tensor = machine.eval(call.fn.obj)
    if not (is_int(start) and start.value == 0 and isinstance(tensor, Tensor)):
        return False
    value, count = machine.eval(call.args[1]), machine.eval(cond.b)
    machine.vector_call(call, "Duplicate", [tensor, value, count], trailing=(1,), counted=True)
    return True


def _is(node, name) -> bool:
    return isinstance(node, Name) and len(node.segs) == 1 and node.last == name


def _names(node, name) -> bool:
    """Whether ``name`` is named anywhere under ``node``."""
    if _is(node, name):
        return True
    if isinstance(node, (tuple, list)):
        return any(_names(x, name) for x in node)
    if hasattr(node, "__dataclass_fields__"):
        return any(_names(getattr(node, f), name) for f in node.__dataclass_fields__ if f != "at")
    return False
