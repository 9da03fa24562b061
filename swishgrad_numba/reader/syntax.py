"""The syntax tree of the C++ subset: expressions, statements, declarations.

Every node carries ``at``, its (file, line), for the reader's error messages.
Types are expressions too (a :class:`Name` with template arguments, or a
:class:`Type` where qualifiers, ``*`` or ``&`` are written).
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Name", "Num", "Str", "Call", "Member", "Index", "Unary", "Binary", "Cond", "CCast", "InitList",
           "Type", "Decl", "ExprStmt", "If", "For", "While", "Block", "Return", "Jump", "Scoped", "Function", "Param",
           "TParam", "ClassDef", "Alias", "Namespace", "Enum"]


@dataclass(frozen=True)
class Name:
    """``A::B<T>::C``: segments of (identifier, template arguments or None)."""
    segs: tuple
    at: tuple = field(compare=False, default=("", 0))

    @property
    def last(self) -> str:
        return self.segs[-1][0]

    @property
    def targs(self):
        return self.segs[-1][1]

    def text(self) -> str:
        return "::".join(s for s, _ in self.segs)


@dataclass(frozen=True)
class Num:
    text: str
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class Str:
    text: str
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class Call:
    fn: object
    args: tuple
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class Member:
    obj: object
    name: str
    targs: object   # tuple or None (``obj.template Name<...>``)
    arrow: bool
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class Index:
    obj: object
    index: object
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class Unary:
    op: str         # "-", "+", "!", "~", "*", "&", "++", "--", "post++", "post--", "sizeof"
    x: object
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class Binary:
    op: str         # arithmetic, comparison, logical, and the assignments "=", "+=", ...
    a: object
    b: object
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class Cond:
    c: object
    a: object
    b: object
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class CCast:
    """``(type)x``."""
    type: object
    x: object
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class InitList:
    items: tuple
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class Type:
    """A type with what surrounds its name: ``quals`` (const, __ubuf__, ...), ``ptr`` ("*", "&", "")."""
    name: object
    quals: tuple = ()
    ptr: str = ""
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class Decl:
    """``type a = x, b(args), c;``: ``names`` of (name, init or None, constructor args or None)."""
    type: Type
    names: tuple
    at: tuple = field(compare=False, default=("", 0))
    tparams: tuple = ()     # a variable template's (``template <typename T> constexpr bool F = ...;``)
    dims: tuple = ()        # per name, its array bounds' expressions (``int64_t dims[8];``; () where none)


@dataclass(frozen=True)
class ExprStmt:
    x: object
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class If:
    cond: object
    constexpr: bool
    then: object
    other: object
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class For:
    init: object
    cond: object
    step: object
    body: object
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class While:
    cond: object
    body: object
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class Block:
    stmts: tuple
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class Return:
    x: object
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class Jump:
    """``break;`` or ``continue;`` in a loop (``kind`` the keyword)."""
    kind: str
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class Scoped:
    """``__VEC_SCOPE__ { ... }``: a macro that opens a block."""
    name: str
    body: Block
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class Param:
    type: Type
    name: str
    default: object = None


@dataclass(frozen=True)
class TParam:
    """A template parameter: ``kind`` "type" or "value", with its default."""
    kind: str
    name: str
    type: object = None
    default: object = None


@dataclass(frozen=True)
class Function:
    """A function or method: ``name`` may be qualified (``Kernel<T>::Init``)."""
    name: Name
    tparams: tuple
    ret: object
    params: tuple
    body: object          # Block, or None for a declaration
    specs: tuple = ()     # __global__, __aicore__, inline, ...
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class ClassDef:
    name: str
    tparams: tuple
    bases: tuple
    fields: tuple         # Decl
    methods: tuple        # Function
    aliases: tuple        # Alias
    at: tuple = field(compare=False, default=("", 0))
    spec: object = None   # a specialization's template arguments (``struct IsBf16<bfloat16_t>``), else None


@dataclass(frozen=True)
class Alias:
    """``using name = type;``, with template parameters if declared under a template."""
    name: str
    tparams: tuple
    type: object
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class Namespace:
    name: str
    items: tuple
    at: tuple = field(compare=False, default=("", 0))


@dataclass(frozen=True)
class Enum:
    name: str
    items: tuple          # (name, expr or None)
    at: tuple = field(compare=False, default=("", 0))
