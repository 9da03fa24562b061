"""An abstract interpreter of kernel code: it runs what is known at compile time and
records the vector calls; anything it cannot follow is refused with its line.

Values: :class:`.values.CNum` and :class:`.values.TypeVal` (compile time),
:class:`.description.AttrRef` (a float tiling field), :class:`Unknown` (known only
at run time: core index, lengths, loop counters), :class:`Symbolic` (a template
argument of the entry, such as the tiling key), :class:`Tensor`, and the objects
the style modules (:mod:`.a2`, :mod:`.dag`) define. Their hooks decide calls.
"""
from __future__ import annotations

from .abstract import Mode, Return_, Symbolic, Tensor, Unknown, refuse
from .expressions import ExpressionMixin
from .instructions import NO_DEFAULT_TILING
from .limits import MAX_EVAL_DEPTH
from .syntax import Alias, Block, Decl, ExprStmt, For, If, Jump, Member, Name, Return, Scoped, While
from .values import CNum, TypeVal, convert, render

__all__ = ["Machine", "Unknown", "Symbolic", "Tensor", "Mode", "Return_", "refuse"]


class Machine(ExpressionMixin):
    """Runs statements in scopes; ``symbols`` are the sources' file-level names."""

    def __init__(self, symbols, dtype_macros=None):
        self.symbols = symbols
        self.scopes = [dict(dtype_macros or {})]
        self.this = None

    # ------------------------------------------------------------ hooks (the styles override)
    def call(self, node, fn_name: Name, args):
        refuse(node, f"unknown call {fn_name.text()}")

    def call_method(self, node, obj, name, targs, args):
        refuse(node, f"unknown call .{name}", f"on {type(obj).__name__}")

    def construct(self, node, tval: TypeVal, name: str, args):
        return Unknown(f"{tval.cname} {name}")

    def loop(self, stmt):
        refuse(stmt, "a loop", "only straight-line code is read")

    def runtime_branch(self, stmt):
        refuse(stmt, "a runtime branch", f"if ({render(stmt.cond)})")

    def jump(self, stmt):
        refuse(stmt, f"{stmt.kind}", "only in a loop the reader follows (the class style's)")

    def branch_taken(self, stmt, taken: bool):
        """An ``if`` decided on known values went the way ``taken`` (the schedule notes it: .variant_ways)."""

    def name_value(self, node, value, name):
        return value

    # ------------------------------------------------------------ scopes
    def lookup(self, name: str):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        raise KeyError(name)

    def assign(self, target, value, node):
        if isinstance(target, Name) and len(target.segs) == 1:
            for scope in reversed(self.scopes):
                if target.last in scope:
                    scope[target.last] = value
                    return
            if self.this is not None and target.last in self.this.members:
                self.this.members[target.last] = value
                return
        if isinstance(target, Member):
            obj = self.eval(target.obj)
            if obj is self.this and obj is not None:
                self.this.members[target.name] = value
                return
            if isinstance(obj, Unknown):       # a field of a run-time struct (DataCopyParams, ...)
                return
        from .scalar_puns import is_pun_target, pun_assign
        if is_pun_target(target):              # *(P*)&var = x: a scalar's bits (issue 43, .scalar_puns)
            return pun_assign(self, target, value, node)
        refuse(node, f"assignment to {render(target)}")

    # ------------------------------------------------------------ statements
    def run(self, stmt):
        self.depth = getattr(self, "depth", 0) + 1
        if self.depth > MAX_EVAL_DEPTH:
            refuse(stmt, "a statement", f"evaluation nested more than {MAX_EVAL_DEPTH} deep (calls, statements "
                   "and expressions)")
        try:
            self._run(stmt)
        except (IndexError, AttributeError, TypeError, KeyError) as exc:     # a construct of an unexpected form
            refuse(stmt, f"the statement {type(stmt).__name__}", f"not in a form the reader reads "
                   f"({type(exc).__name__})")
        finally:
            self.depth -= 1

    def _run(self, stmt):
        if isinstance(stmt, Block):
            self.scopes.append({})
            try:
                for s in stmt.stmts:
                    self.run(s)
            finally:
                self.scopes.pop()
        elif isinstance(stmt, Scoped):
            self.run(stmt.body)
        elif isinstance(stmt, ExprStmt):
            if not (isinstance(stmt.x, Name) and stmt.x.text() == NO_DEFAULT_TILING):
                self.eval(stmt.x)
        elif isinstance(stmt, Decl):
            self.declare(stmt)
        elif isinstance(stmt, Alias):
            self.scopes[-1][stmt.name] = self.type_or_value(stmt.type)
        elif isinstance(stmt, If):
            cond = self.eval(stmt.cond)
            if isinstance(cond, CNum):
                self.branch_taken(stmt, bool(cond.value))
                branch = stmt.then if cond.value else stmt.other
                if branch is not None:
                    self.run(branch)
            else:
                self.runtime_branch(stmt)
        elif isinstance(stmt, (For, While)):
            self.loop(stmt)
        elif isinstance(stmt, Return):
            raise Return_(None if stmt.x is None else self.eval(stmt.x))
        elif isinstance(stmt, Jump):
            self.jump(stmt)
        else:
            refuse(stmt, type(stmt).__name__)

    def declare(self, decl: Decl):
        tval = self.type_of(decl.type)
        for name, init, ctor in decl.names:
            if init is not None:
                value = self.eval(init)
                if isinstance(value, CNum) and tval.cname in ("float", "double", "int", "uint32_t", "uint64_t",
                                                               "int32_t", "int64_t", "uint16_t", "uint8_t"):
                    value = convert(value, tval.cname)
                    value = CNum(value.value, value.ctype, value.text, name, value.compound)
                elif isinstance(value, tuple) and tval.cname in ("float", "double", "int", "uint32_t", "int32_t",
                                                                  "int64_t", "uint64_t"):
                    value = tuple(convert(v, tval.cname) if isinstance(v, CNum) else v for v in value)
                elif tval.cname in ("half", "bfloat16_t") and not decl.type.ptr:
                    from .scalar_puns import is_scalar_cast, scalar_cast
                    if is_scalar_cast(value, tval.cname, ""):      # T v = alpha: C's conversion (issue 43)
                        value = scalar_cast(decl, tval.cname, value)
                value = self.name_value(decl, value, name)
            else:
                value = self.construct(decl, tval, name, [self.eval(a) for a in ctor or ()])
            self.scopes[-1][name] = value
