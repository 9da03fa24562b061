"""C++ lambdas (issue 43): ``[this](int64_t n) { Compute(n); }`` handed to a helper template that calls it.

A lambda is read where it is written as a closure over the scopes it may name, and run where it is called,
as a function whose body sees those scopes, its own parameters and the ``this`` it captured. What it may
name follows its capture list: a class's template arguments and members (through ``this``) always; the
enclosing function's locals with ``&`` as they are when it is called, with ``=`` as they were when it was
written, a local named alone (``[n]``) as it was then. A local captured by reference by name (``[&n]``), an
init-capture (``[k = n]``), a generic lambda (``auto`` parameters are read as their arguments) or a lambda
that names a local it did not capture is refused at its line.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .abstract import Return_, refuse
from .syntax import Param

__all__ = ["Lambda", "Closure", "parse_lambda", "closure", "call_closure"]


@dataclass(frozen=True)
class Lambda:
    """``[captures](params) { body }``: ``default`` "&", "=" or ""; ``names`` the locals captured by copy;
    ``this`` whether ``this`` (or a default, which captures it) is captured."""
    default: str
    names: tuple
    this: bool
    params: tuple
    body: object
    at: tuple = field(compare=False, default=("", 0))


@dataclass(eq=False)
class Closure:
    """A lambda as the reader holds it: its node, the scopes its body sees and its ``this``."""
    node: Lambda
    scopes: list
    this: object


def parse_lambda(p) -> Lambda:
    """The lambda at ``p``'s ``[`` (``p`` a statement parser)."""
    at = p.at()
    p.take("[")
    default, names, this = "", [], False
    while not p.accept("]"):
        if p.accept("this"):
            this = True
        elif p.is_("&", "=") and p.peek().text in (",", "]"):
            default = p.tok.text
            p.i += 1
        elif p.tok.kind == "id" and p.peek().text in (",", "]"):
            names.append(p.ident())
        else:
            p.fail("a lambda capturing " + repr(p.tok.text), "only this, & and = and locals by copy are read")
        if not p.is_("]"):
            p.take(",")
    params = []
    if p.accept("("):
        while not p.accept(")"):
            t = p.type()
            name = p.ident() if p.tok.kind == "id" else ""
            params.append(Param(t, name, None))
            if not p.is_(")"):
                p.take(",")
    while p.tok.kind == "id" and p.tok.text in ("mutable", "constexpr", "__aicore__", "inline"):
        p.i += 1
    if p.accept("->"):
        p.type()
    if not p.is_("{"):
        p.fail("a lambda without a body")
    return Lambda(default, tuple(names), this or bool(default), tuple(params), p.block(), at)


def closure(m, node: Lambda) -> Closure:
    """The closure ``node`` makes where it is evaluated."""
    if node.this and m.this is None:
        refuse(node, "a lambda capturing this", "outside a method")
    outer = 2 if m.this is not None else 1          # the file's names and the class's template bindings
    if node.default == "&":
        scopes = list(m.scopes)                    # the same dictionaries: the locals as they are then
    elif node.default == "=":
        scopes = m.scopes[:outer] + [dict(s) for s in m.scopes[outer:]]
    else:
        scopes = list(m.scopes[:outer])
    if node.names:
        captured = {}
        for name in node.names:
            try:
                captured[name] = m.lookup(name)
            except KeyError:
                refuse(node, f"a lambda capturing {name}", "not a local of the function it is written in")
        scopes = scopes + [captured]
    return Closure(node, scopes, m.this if node.this else None)


def call_closure(m, node, c: Closure, args) -> object:
    """``c(args)``: its body run with its parameters bound; what it returns."""
    lam = c.node
    if len(args) != len(lam.params):
        refuse(node, "a call of a lambda", f"{len(args)} arguments for its {len(lam.params)} parameters")
    params = {p.name: a for p, a in zip(lam.params, args) if p.name}
    saved = (m.scopes, m.this)
    m.scopes, m.this = list(c.scopes) + [params], c.this
    try:
        m.run(lam.body)
        return None
    except Return_ as r:
        return r.value
    finally:
        m.scopes, m.this = saved

