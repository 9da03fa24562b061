"""Scalars a kernel computes from its attributes on the scalar unit, evaluated per launch (issue 43).

An attribute's value is known when the operator runs (``op.run(**attrs)``), so C arithmetic on it
(``factorNeg_ / inputScale_``, ``1.0f / beta_``), a comparison (``inputScale_ == 0.0F``) and a conditional
(``c ? a : b``) are computed once per launch, before the vector calls, as the scalar unit computes them:
each ``+ - * /`` in float32, rounded once to nearest even (C's ``float`` arithmetic with
``FLT_EVAL_METHOD`` 0, IEEE 754 binary32; subnormals kept: a model choice, the scalar unit's treatment of
them is not documented publicly); comparisons as IEEE 754 orders floats (a NaN compares false but for
``!=``; ``-0.0 == 0.0``); ``&&``, ``||`` on C truth values. A :class:`LaunchScalar` stands in the kernel's
body as the attribute :attr:`LaunchScalar.name` (:func:`named`), whose value :func:`attribute_values` gives
at launch. A branch (``if``) on such a value is refused (the reader does not choose bodies by attribute
values), and so is arithmetic with a ``double`` constant (C would compute it in double).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from .description import AttrRef, Constant, ScalarProduct

__all__ = ["LaunchScalar", "ARITHMETIC", "COMPARISONS", "evaluate", "named", "attribute_values"]

ARITHMETIC = ("+", "-", "*", "/")
COMPARISONS = ("==", "!=", "<", ">", "<=", ">=")
LOGICAL = ("&&", "||")


@dataclass(frozen=True)
class LaunchScalar:
    """``op`` of ``args`` (AttrRef, Constant, ScalarProduct or LaunchScalar): an arithmetic or comparison
    operator, ``&&``/``||``, ``neg`` (one argument) or ``?:`` (condition, then, else)."""

    op: str
    args: tuple

    def __str__(self):
        if self.op == "?:":
            return f"({self.args[0]} ? {self.args[1]} : {self.args[2]})"
        if self.op == "neg":
            return f"(-{self.args[0]})"
        if self.op == "gm":                 # a GM input's element (.gm_scalars)
            return str(self.args[0])
        return f"({self.args[0]} {self.op} {self.args[1]})"

    @property
    def name(self) -> str:
        """The attribute name it stands as: ``s_`` and a digest of its expression (a plain identifier)."""
        return "s_" + hashlib.sha1(str(self).encode()).hexdigest()[:12]

    @property
    def boolean(self) -> bool:
        return self.op in COMPARISONS + LOGICAL


def evaluate(x, fields) -> np.float32:
    """``x``'s float32 value (a truth value as 1.0 or 0.0) with the attributes' values ``fields`` (a tiling
    record or a mapping by C name)."""
    f = np.float32
    if isinstance(x, AttrRef):
        return f(fields[x.name])
    if isinstance(x, Constant):
        return f(x.value)
    if isinstance(x, ScalarProduct):
        with np.errstate(all="ignore"):
            return f(evaluate(x.a, fields) * evaluate(x.b, fields))
    if not isinstance(x, LaunchScalar):
        raise TypeError(f"not a launch scalar: {x!r}")
    if hasattr(x, "bits_value"):             # a scalar's bits (.scalar_puns's BitScalar)
        v = x.bits_value(fields, evaluate)
        return f(v) if isinstance(v, np.floating) else f(v.value)
    if x.op == "gm":
        from .gm_scalars import value_of
        return value_of(x.args[0])
    v = [evaluate(a, fields) for a in x.args[:2]] if x.op != "?:" else None
    with np.errstate(all="ignore"):
        if x.op == "?:":
            return evaluate(x.args[1] if evaluate(x.args[0], fields) != 0 else x.args[2], fields)
        if x.op == "neg":
            return f(-v[0])
        if x.op in ARITHMETIC:
            a, b = v
            return f({"+": a + b, "-": a - b, "*": a * b, "/": a / b}[x.op])
        if x.op in COMPARISONS:
            a, b = v
            return f({"==": a == b, "!=": a != b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[x.op])
        if x.op == "&&":
            return f(v[0] != 0 and v[1] != 0)
        if x.op == "||":
            return f(v[0] != 0 or v[1] != 0)
    raise ValueError(f"launch scalar operator {x.op!r}")


def named(steps) -> tuple:
    """``steps`` with each LaunchScalar operand as the AttrRef of its :attr:`~LaunchScalar.name`, and the
    ((name, LaunchScalar), ...) so named."""
    scalars = {}

    def operand(a):
        if isinstance(a, LaunchScalar):
            scalars[a.name] = a
            return AttrRef(a.name)
        return a

    out = tuple(type(s)(s.op, tuple(operand(a) for a in s.args), s.at) for s in steps)
    return out, tuple(scalars.items())


def attribute_values(description, attrs, fields) -> dict:
    """The float32 value of each program attribute ``attrs`` (program names) for the record ``fields``: a
    tiling field's value, or a launch scalar's (by any body of ``description``)."""
    from .to_program import c_attr_name

    scalars = {n: s for b in description.bodies for n, s in getattr(b, "scalars", ())}
    out = {}
    for a in attrs:
        c = c_attr_name(a)
        out[a] = evaluate(scalars[c], fields) if c in scalars else np.float32(fields[c])
    return out


# ------------------------------------------------------------ reading (called by .expressions)
SCALARS = (AttrRef, ScalarProduct, LaunchScalar)


def _argument(node, op, x):
    """``x`` as an argument of a launch scalar: an attribute or launch scalar, or a constant C converts to
    float exactly (a ``float`` literal, an integer below 2**24)."""
    from .values import CNum, as_constant, is_int, render

    if isinstance(x, SCALARS):
        from .gm_scalars import check_argument
        check_argument(node, x)
        return x
    if isinstance(x, CNum) and (x.ctype == "float" or is_int(x) and abs(x.value) < 2 ** 24):
        return as_constant(x)
    from .abstract import refuse
    why = "a double constant, which C computes with in double (rounded twice: not modelled)" \
        if isinstance(x, CNum) else f"{x!r} is not known at launch"
    refuse(node, f"arithmetic on attribute values {render(node)}", why)


def combine(node, op, a, b):
    """``a op b`` where ``a`` or ``b`` is an attribute (or computed from attributes)."""
    from .abstract import refuse
    from .values import render

    if op not in ARITHMETIC + COMPARISONS + LOGICAL:
        refuse(node, f"operator {op} on attribute values {render(node)}", f"the launch scalars take "
               f"{' '.join(ARITHMETIC + COMPARISONS + LOGICAL)}")
    return LaunchScalar(op, (_argument(node, op, a), _argument(node, op, b)))


def unary(node, op, x):
    """``-x`` or ``!x`` of an attribute value (``!x`` is ``x == 0``: a NaN is true in C, so ``!NaN`` false)."""
    from .abstract import refuse
    from .values import render

    if op == "-":
        return LaunchScalar("neg", (x,))
    if op == "!":
        return LaunchScalar("==", (x, Constant(0.0)))
    refuse(node, f"operator {op} on attribute value {render(node)}", "the launch scalars take - and !")


def conditional(node, c, a, b):
    """``c ? a : b`` with ``c`` an attribute value: decided per launch."""
    return LaunchScalar("?:", (_argument(node, "?:", c), _argument(node, "?:", a), _argument(node, "?:", b)))


def cast(node, cname, x):
    """A C cast of an attribute value: to float it is itself; to bool, a truth value as itself; else refused
    (a conversion to an integer or 16-bit type is not modelled)."""
    from .abstract import refuse
    from .values import render

    if isinstance(x, LaunchScalar) and x.op == "gm":
        from .gm_scalars import cast as gm_cast
        return gm_cast(node, cname, x)
    if cname == "float" or cname == "bool" and isinstance(x, LaunchScalar) and x.boolean:
        return x
    refuse(node, f"cast of attribute value {render(node)} to {cname}", "only a float (or a truth value's "
           "bool) is kept: other conversions of a launch scalar are not modelled")


def refuse_branch(stmt, cond):
    """Refuse ``if (cond)`` where ``cond`` is an attribute value (a guard that returns on it too)."""
    from .abstract import refuse
    from .values import render

    if isinstance(cond, SCALARS):
        refuse(stmt, f"a branch on attribute values: if ({render(stmt.cond)})", "the reader does not choose "
               "vector calls by attribute values (only scalars computed from them: .launch_scalars)")


def fields_read(description, attrs) -> tuple:
    """The tiling fields (C names) the program attributes ``attrs`` read: a launch scalar's attributes for it."""
    from .to_program import c_attr_name

    scalars = {n: s for b in description.bodies for n, s in getattr(b, "scalars", ())}

    def leaves(x):
        if isinstance(x, AttrRef):
            return leaves(scalars[x.name]) if x.name in scalars else (x.name,)
        if isinstance(x, ScalarProduct):
            return leaves(x.a) + leaves(x.b)
        if isinstance(x, LaunchScalar):
            return tuple(n for a in x.args for n in leaves(a))
        return ()

    return tuple(dict.fromkeys(n for a in attrs for n in leaves(AttrRef(c_attr_name(a)))))
