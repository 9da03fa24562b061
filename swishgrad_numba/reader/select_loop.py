"""A loop that keeps one tensor's element or a constant by a comparison, element by element (issue 43).

``for (int64_t i = 0; i < n; ++i) { float f = a.GetValue(i); d.SetValue(i, f > c || f != f ? b.GetValue(i) :
z); }`` (ops-nn's experimental ReluGradV2 computes its result so) writes, to elements ``0 .. n-1`` of ``d``,
``b``'s element where the comparison of ``a``'s element with the constant ``c`` holds (or, with ``|| f != f``,
where ``a``'s element is a NaN), else ``z`` converted to ``d``'s type. The comparison and the choice are exact
on the scalar unit and in the vector instructions alike, so it is read as these steps at the ``SetValue``'s
line (a mask ``selectloop_mask<line>``, and ``selectloop_nan<line>`` for the NaN test):
``CompareScalar(mask, a, c, op)``, ``Selects(d, b, z, mask)``, then ``Compare(nan, a, a, NE)`` and
``Select(d, b, d, nan)``. ``a``, ``b`` and ``d`` are float32 tensors (an element read through
``static_cast<float>`` of a float32 one is the same value).

The body may declare ``bool k = false;`` and set ``k = <condition>;`` before the ``SetValue`` that reads
``k``, and hold ``if constexpr`` on compile-time conditions around those statements. Only that form is read:
a counter from 0 by 1 while below a bound that does not name it, one ``float`` element read, one condition of
that form, one ``SetValue`` at the counter. Any other loop over ``SetValue`` stays refused (:mod:`.a2`).
"""
from __future__ import annotations

from .abstract import Tensor, temporary
from .syntax import Binary, Block, Call, Cond, Decl, ExprStmt, For, If, Member, Name, Num, Unary
from .values import CNum, is_int

__all__ = ["select_loop"]

_OPS = {">": "GT", ">=": "GE", "<": "LT", "<=": "LE", "==": "EQ", "!=": "NE"}


def select_loop(machine, stmt) -> bool:
    """Whether ``stmt`` is a select loop (module docstring); if so its steps are recorded."""
    if not isinstance(stmt, For) or not isinstance(stmt.init, Decl) or len(stmt.init.names) != 1:
        return False
    counter, init, _ = stmt.init.names[0]
    if init is None or not _counts_up(stmt, counter):
        return False
    start = machine.eval(init)
    if not (is_int(start) and start.value == 0):
        return False
    body = _flat(machine, stmt.body)
    if body is None:
        return False
    lanes, flags, store = {}, {}, None
    for s in body:
        if isinstance(s, Decl) and len(s.names) == 1 and s.names[0][1] is not None:
            name, x, _ = s.names[0]
            t = machine.type_of(s.type)
            if t.cname == "float":
                tensor = _element(machine, x, counter)
                if tensor is None:
                    return False
                lanes[name] = tensor
            elif t.cname == "bool" and isinstance(x, Name) and x.last == "false":
                flags[name] = None
            else:
                return False
        elif isinstance(s, ExprStmt) and isinstance(s.x, Binary) and s.x.op == "=" and _one(s.x.a) in flags:
            flags[_one(s.x.a)] = s.x.b
        elif isinstance(s, ExprStmt) and store is None and _set_value(s.x, counter):
            store = s.x
        else:
            return False
    if store is None:
        return False
    dst = machine.eval(store.fn.obj)
    choice = store.args[1]
    if not isinstance(choice, Cond) or not isinstance(dst, Tensor) or dst.dtype != "float32":
        return False
    cond = flags[_one(choice.c)] if _one(choice.c) in flags else choice.c      # k: its one assignment
    test = _condition(machine, cond, lanes)
    kept = _element(machine, choice.a, counter)
    other = machine.eval(choice.b)
    if test is None or kept is None or not isinstance(other, CNum) or _names_counter(choice.b, counter):
        return False
    src, op, value, nan = test
    line, count = store.at[1], machine.eval(stmt.cond.b)
    mask = temporary(machine, f"selectloop_mask{line}", "uint8")
    machine.vector_call(store, "CompareScalar", [mask, src, value, op, count], trailing=(1,), counted=True)
    machine.vector_call(store, "Selects", [dst, kept, other, mask, count], trailing=(1,), counted=True)
    if nan:
        isnan = temporary(machine, f"selectloop_nan{line}", "uint8")
        machine.vector_call(store, "Compare", [isnan, src, src, "NE", count], trailing=(1,), counted=True)
        machine.vector_call(store, "Select", [dst, kept, dst, isnan, count], trailing=(1,), counted=True)
    return True


def _counts_up(stmt, counter) -> bool:
    cond, step = stmt.cond, stmt.step
    if isinstance(step, tuple):
        step = step[0] if len(step) == 1 else None
    if not (isinstance(cond, Binary) and cond.op == "<" and _one(cond.a) == counter
            and not _names_counter(cond.b, counter)):
        return False
    return isinstance(step, Unary) and step.op in ("++", "post++") and _one(step.x) == counter or \
        isinstance(step, Binary) and step.op == "+=" and _one(step.a) == counter and isinstance(step.b, Num) \
        and step.b.text in ("1", "1u", "1U")


def _flat(machine, body):
    """The loop body's statements, ``if constexpr`` on compile-time conditions resolved (None: another form)."""
    out = []
    for s in body.stmts if isinstance(body, Block) else (body,):
        if isinstance(s, If) and s.constexpr:
            c = machine.eval(s.cond)
            if not isinstance(c, CNum):
                return None
            branch = s.then if c.value else s.other
            inner = _flat(machine, branch) if branch is not None else []
            if inner is None:
                return None
            out += inner
        else:
            out.append(s)
    return out


def _element(machine, x, counter):
    """The float32 tensor whose element at the counter ``x`` reads (``t.GetValue(i)``, possibly through
    ``static_cast<float>``), else None."""
    if isinstance(x, Call) and isinstance(x.fn, Name) and x.fn.last == "static_cast" and len(x.args) == 1 \
            and x.fn.targs and machine.type_of(x.fn.targs[0]).cname == "float":
        x = x.args[0]
    if not (isinstance(x, Call) and isinstance(x.fn, Member) and x.fn.name == "GetValue" and len(x.args) == 1
            and _one(x.args[0]) == counter):
        return None
    t = machine.eval(x.fn.obj)
    return t if isinstance(t, Tensor) and t.dtype == "float32" else None


def _condition(machine, cond, lanes):
    """``(tensor, CMPMODE, constant, nan)`` of ``f op c`` or ``f op c || f != f`` (either order), else None."""
    nan = False
    if isinstance(cond, Binary) and cond.op == "||":
        for first, second in ((cond.a, cond.b), (cond.b, cond.a)):
            lane = _lane_of(first, lanes)
            if lane is not None and _is_nan_test(second, lanes) == lane:
                cond, nan = first, True
                break
        else:
            return None
    if not (isinstance(cond, Binary) and cond.op in _OPS and _one(cond.a) in lanes):
        return None
    value = machine.eval(cond.b)
    if not isinstance(value, CNum):
        return None
    return lanes[_one(cond.a)], _OPS[cond.op], value, nan


def _lane_of(cond, lanes):
    return _one(cond.a) if isinstance(cond, Binary) and _one(cond.a) in lanes else None


def _is_nan_test(x, lanes):
    """The lane ``f`` of ``f != f``, else None."""
    if isinstance(x, Binary) and x.op == "!=" and _one(x.a) in lanes and _one(x.a) == _one(x.b):
        return _one(x.a)
    return None


def _set_value(x, counter) -> bool:
    return isinstance(x, Call) and isinstance(x.fn, Member) and x.fn.name == "SetValue" and len(x.args) == 2 \
        and _one(x.args[0]) == counter


def _one(node):
    """A plain name's identifier, else None."""
    return node.last if isinstance(node, Name) and len(node.segs) == 1 and node.targs is None else None


def _names_counter(node, counter) -> bool:
    if _one(node) == counter:
        return True
    if isinstance(node, (tuple, list)):
        return any(_names_counter(x, counter) for x in node)
    if hasattr(node, "__dataclass_fields__"):
        return any(_names_counter(getattr(node, f), counter) for f in node.__dataclass_fields__ if f != "at")
    return False
