"""An abstract interpreter of kernel code: it runs what is known at compile time and
records the vector calls; anything it cannot follow is refused with its line.

Values: :class:`.values.CNum` and :class:`.values.TypeVal` (compile time),
:class:`.description.AttrRef` (a float tiling field), :class:`Unknown` (known only
at run time: core index, lengths, loop counters), :class:`Symbolic` (a template
argument of the entry, such as the tiling key), :class:`Tensor`, and the objects
the style modules (:mod:`.a2`, :mod:`.dag`) define. Their hooks decide calls.
"""
from __future__ import annotations

from dataclasses import dataclass

from .description import AttrRef
from .errors import KernelSourceError
from .parser import BUILTIN_TYPES
from .syntax import Binary, Block, Call, CCast, Cond, Decl, ExprStmt, For, If, Index, InitList, Member, Name, Num, \
    Return, Scoped, Str, Type, Unary, While
from .values import CNum, TypeVal, arith, convert, negate, number, render

__all__ = ["Machine", "Unknown", "Symbolic", "Tensor", "Mode", "refuse"]

_CANON = {"float16_t": "half", "__fp16": "half", "__bf16": "bfloat16_t"}
_SIZES = {"float": 4, "half": 2, "bfloat16_t": 2, "double": 8, "int8_t": 1, "uint8_t": 1, "int16_t": 2,
          "uint16_t": 2, "int32_t": 4, "uint32_t": 4, "int": 4, "int64_t": 8, "uint64_t": 8}


@dataclass(frozen=True)
class Unknown:
    why: str


@dataclass(frozen=True)
class Symbolic:
    """A value that depends on a non-type template argument of the entry (``text`` as written)."""
    text: str


@dataclass(frozen=True)
class Tensor:
    """A local tensor (A2 buffer, MicroAPI register, DAG node): ``key`` its storage, ``dtype``."""
    key: str
    dtype: str


@dataclass(frozen=True)
class Mode:
    """An ``AscendC::RoundMode`` value."""
    name: str


class Return_(Exception):
    def __init__(self, value):
        self.value = value


def refuse(node, construct, detail=""):
    at = getattr(node, "at", ("", 0))
    raise KernelSourceError(at[0], at[1], construct, detail)


class Machine:
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
        refuse(node, f"assignment to {render(target)}")

    # ------------------------------------------------------------ statements
    def run(self, stmt):
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
            self.eval(stmt.x)
        elif isinstance(stmt, Decl):
            self.declare(stmt)
        elif isinstance(stmt, If):
            cond = self.eval(stmt.cond)
            if isinstance(cond, CNum):
                branch = stmt.then if cond.value else stmt.other
                if branch is not None:
                    self.run(branch)
            else:
                self.runtime_branch(stmt)
        elif isinstance(stmt, (For, While)):
            self.loop(stmt)
        elif isinstance(stmt, Return):
            raise Return_(None if stmt.x is None else self.eval(stmt.x))
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
                value = self.name_value(decl, value, name)
            else:
                value = self.construct(decl, tval, name, [self.eval(a) for a in ctor or ()])
            self.scopes[-1][name] = value

    # ------------------------------------------------------------ types
    def type_of(self, node) -> TypeVal:
        if isinstance(node, Type):
            return self.type_of(node.name)
        if isinstance(node, TypeVal):
            return node
        if isinstance(node, Name) and len(node.segs) == 1 and node.targs is None:
            try:
                value = self.lookup(node.last)
                if isinstance(value, TypeVal):
                    return value
            except KeyError:
                pass
        if isinstance(node, Name) and len(node.segs) >= 2 and node.segs[-2][0] in self.symbols.classes:
            owner_args = tuple(self.type_or_value(a) for a in node.segs[-2][1] or ())
            return TypeVal(node.last, (), (node.segs[-2][0], owner_args))
        if isinstance(node, Name) and node.last not in self.symbols.aliases:
            # a type's name: the library's (TPipe, LocalTensor, ...) or a class of the sources
            args = tuple(self.type_or_value(a) for a in node.targs or ())
            return TypeVal(_CANON.get(node.last, node.last), args)
        value = self.eval(node)
        if isinstance(value, TypeVal):
            return value
        if isinstance(node, Name):
            args = tuple(self.eval(a) for a in node.targs or ())
            return TypeVal(node.last, args)
        refuse(node, f"type {render(node)}")

    def type_or_value(self, node):
        if isinstance(node, Type) and not node.quals and not node.ptr:
            node = node.name
        if isinstance(node, Type) or isinstance(node, Name) and not self._is_value_name(node):
            return self.type_of(node)
        return self.eval(node)

    def _is_value_name(self, node) -> bool:
        try:
            return not isinstance(self.eval(node), TypeVal)
        except KernelSourceError:
            return False

    # ------------------------------------------------------------ expressions
    def eval(self, node):
        method = getattr(self, "_eval_" + type(node).__name__, None)
        if method is None:
            refuse(node, f"expression {render(node)}")
        return method(node)

    def _eval_Num(self, node):
        return number(node.text)

    def _eval_Str(self, node):
        return Unknown("a string")

    def _eval_InitList(self, node):
        return tuple(self.eval(i) for i in node.items)

    def _eval_Type(self, node):
        return self.type_of(node.name)

    def _eval_Name(self, node):
        ident = node.last
        if len(node.segs) == 1 and node.targs is None:
            if ident == "this":
                return self.this
            try:
                return self.lookup(ident)
            except KeyError:
                pass
            if self.this is not None and ident in self.this.members:
                return self.this.members[ident]
        if ident == "is_same_v" and node.targs is not None or ident == "value" and len(node.segs) >= 2 \
                and node.segs[-2][0] == "is_same":
            a, b = (self.type_of(t) for t in (node.targs or node.segs[-2][1]))
            return CNum(int(a.cname == b.cname), "int")
        if ident in ("true", "false"):
            return CNum(int(ident == "true"), "int")
        if ident == "nullptr":
            return Unknown("nullptr")
        if len(node.segs) >= 2 and node.segs[-2][0] == "RoundMode":
            return Mode(ident)
        if len(node.segs) >= 2 and node.segs[-2][0] in self.symbols.enums:
            return self.enum_item(node, self.symbols.enums[node.segs[-2][0]], ident)
        if ident in self.symbols.constants:
            ctype, init, at = self.symbols.constants[ident]
            value = self.eval(init) if init is not None else Unknown(ident)
            if isinstance(value, CNum):
                value = convert(value, self.type_of(ctype).cname)
                return CNum(value.value, value.ctype, value.text, ident, value.compound)
            return value
        cname = _CANON.get(ident, ident)
        args = tuple(self.eval(a) for a in node.targs) if node.targs is not None else ()
        if cname in BUILTIN_TYPES or cname in self.symbols.classes or cname in self.symbols.aliases \
                or node.targs is not None or len(node.segs) >= 2:
            return TypeVal(cname, args)
        refuse(node, f"name {ident}", "not defined in the kernel's sources")

    def enum_item(self, node, enum, ident):
        value = -1
        for item, expr in enum.items:
            value = self.eval(expr).value if expr is not None else value + 1
            if item == ident:
                return CNum(value, "int")
        refuse(node, f"{enum.name}::{ident}")

    def _eval_Member(self, node):
        obj = self.eval(node.obj)
        members = getattr(obj, "members", None)
        if members is not None and node.name in members:
            return members[node.name]
        refuse(node, f"member {render(node)}")

    def _eval_Index(self, node):
        refuse(node, f"indexing {render(node)}", "a local tensor is read whole")

    def _eval_Unary(self, node):
        if node.op == "sizeof":
            t = self.type_of(node.x)
            return CNum(_SIZES.get(t.cname, 8), "int")
        x = self.eval(node.x)
        if node.op in ("&", "*", "+"):
            return x
        if isinstance(x, (Unknown, Symbolic)):
            return x if isinstance(x, Unknown) else Symbolic(render(node))
        if isinstance(x, AttrRef):
            refuse(node, f"arithmetic on attribute {x.name}", "the program form takes an attribute as it is")
        if isinstance(x, CNum):
            if node.op == "-":
                return negate(x)
            if node.op == "!":
                return CNum(int(not x.value), "int")
        if node.op.endswith(("++", "--")):
            return Unknown(render(node))
        refuse(node, f"operator {node.op}")

    def _eval_Binary(self, node):
        if node.op in ("=", "+=", "-=", "*=", "/="):
            value = self.eval(node.b)
            if node.op != "=":
                value = self._combine(node, node.op[0], self.eval(node.a), value)
            self.assign(node.a, value, node)
            return value
        return self._combine(node, node.op, self.eval(node.a), self.eval(node.b))

    def _combine(self, node, op, a, b):
        if isinstance(a, CNum) and isinstance(b, CNum):
            return arith(op, a, b)
        if isinstance(a, AttrRef) or isinstance(b, AttrRef):
            name = (a if isinstance(a, AttrRef) else b).name
            refuse(node, f"arithmetic on attribute {name}", "the program form takes an attribute as it is")
        if isinstance(a, Symbolic) or isinstance(b, Symbolic):
            return Symbolic(render(node))
        if isinstance(a, TypeVal) and isinstance(b, TypeVal) and op in ("==", "!="):
            return CNum(int((a == b) == (op == "==")), "int")
        if op in ("+", "-") and not isinstance(a, (CNum, Unknown)):
            return a        # a GM address or pointer plus an offset: the same storage
        return Unknown(render(node))

    def _eval_Cond(self, node):
        c = self.eval(node.c)
        if isinstance(c, CNum):
            return self.eval(node.a if c.value else node.b)
        return Unknown(render(node))

    def _eval_CCast(self, node):
        return self.cast(node, self.type_of(node.type), self.eval(node.x), node.type.ptr)

    def cast(self, node, tval, value, ptr=""):
        if isinstance(value, CNum) and not ptr:
            return convert(value, tval.cname)
        return value

    def _eval_Call(self, node):
        fn = node.fn
        if isinstance(fn, Member):
            obj = self.eval(fn.obj)
            targs = tuple(self.type_or_value(a) for a in fn.targs) if fn.targs is not None else ()
            return self.call_method(node, obj, fn.name, targs, [self.eval(a) for a in node.args])
        if isinstance(fn, Name):
            ident = fn.last
            if ident in ("static_cast", "reinterpret_cast") and fn.targs:
                if ident == "reinterpret_cast":
                    refuse(node, "reinterpret_cast", "a bit trick the program form does not have")
                return self.cast(node, self.type_of(fn.targs[0]), self.eval(node.args[0]))
            if ident in ("is_same_v", "is_same") and fn.targs:
                a, b = (self.type_of(t) for t in fn.targs)
                return CNum(int(a.cname == b.cname), "int")
            if _CANON.get(ident, ident) in BUILTIN_TYPES and len(node.args) == 1:     # float(x)
                return self.cast(node, TypeVal(_CANON.get(ident, ident)), self.eval(node.args[0]))
            if len(fn.segs) == 1 and fn.targs is None and len(node.args) == 1:
                try:
                    t = self.lookup(ident)
                except KeyError:
                    t = None
                if isinstance(t, TypeVal):                                    # TYPE_X(1)
                    return self.cast(node, t, self.eval(node.args[0]))
            return self.call(node, fn, node.args)
        refuse(node, f"call {render(fn)}")
