"""Compile-time values: C numbers with their C type, types, and an expression's text.

C arithmetic is followed where it changes a constant: ``int / int``
truncates, an ``f``-suffixed literal is a float32, ``float op float`` rounds
to float32, anything with a double is double. A constant kept with its
``text`` is a double expression of numbers only, which the program form
re-evaluates in double and rounds to float once.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .description import Constant
from .limits import INT_MAX, INT_MIN
from .syntax import Binary, Call, CCast, Cond, InitList, Index, Member, Name, Num, Str, Type, Unary

__all__ = ["CNum", "TypeVal", "DTYPE_OF_CTYPE", "number", "arith", "convert", "render", "as_constant"]

#: C type names of the dtypes a program holds (others: int, bool, ...).
DTYPE_OF_CTYPE = {"float": "float32", "half": "float16", "float16_t": "float16", "__fp16": "float16",
                  "bfloat16_t": "bfloat16", "__bf16": "bfloat16", "uint8_t": "uint8"}
_FLOATS = ("float", "double")
_INTS = ("int", "bool", "char", "short", "long", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
         "uint16_t", "uint32_t", "uint64_t", "size_t", "unsigned")


@dataclass(frozen=True)
class CNum:
    """A compile-time number: ``ctype`` "int", "float" or "double"; ``text`` the number-only
    expression it came from ("" once an int or float operation makes it not a double expression)."""

    value: object
    ctype: str
    text: str = ""
    name: str = ""
    compound: bool = False     # the text holds an operator


@dataclass(frozen=True)
class TypeVal:
    """A resolved type: its canonical C name (``half`` for float16_t too) and template arguments."""

    cname: str
    args: tuple = ()
    owner: tuple = ()     # (class, template arguments) of a member type: SwishGradDAG<half>::OpDag

    @property
    def dtype(self):
        return DTYPE_OF_CTYPE.get(self.cname)


def number(text: str) -> CNum:
    """A C literal."""
    body = text.rstrip("fFlLuU")
    if text.lower().startswith("0x"):
        value = _int64(int(text.rstrip("uUlL"), 16))
        return CNum(value, "int", str(value))
    if any(c in body for c in ".eE"):
        if text[-1] in "fF":
            return CNum(float(np.float32(float(body))), "float", body)
        return CNum(float(body), "double", body)
    return CNum(_int64(int(body)), "int", body)


def convert(x: CNum, ctype: str) -> CNum:
    """``x`` converted to C type ``ctype`` (a float conversion rounds once; the text stays)."""
    kind = "float" if ctype == "float" else "double" if ctype == "double" else "int" if ctype in _INTS else None
    if kind is None:
        return x
    if kind == "int":
        if x.value != x.value or x.value in (float("inf"), float("-inf")):
            raise ValueError(f"{x.value} converted to {ctype}")
        return CNum(_int64(int(x.value)), "int", x.text if x.ctype == "int" else "", x.name)
    with np.errstate(over="ignore"):
        v = float(np.float32(x.value)) if kind == "float" else float(x.value)
    return CNum(v, kind, x.text, x.name, x.compound)


def arith(op: str, a: CNum, b: CNum) -> CNum:
    """``a op b`` under C's usual arithmetic conversions."""
    kinds = {a.ctype, b.ctype}
    kind = "double" if "double" in kinds else "float" if "float" in kinds else "int"
    if op in ("==", "!=", "<", ">", "<=", ">=", "&&", "||"):
        fn = {"==": lambda x, y: x == y, "!=": lambda x, y: x != y, "<": lambda x, y: x < y,
              ">": lambda x, y: x > y, "<=": lambda x, y: x <= y, ">=": lambda x, y: x >= y,
              "&&": lambda x, y: bool(x) and bool(y), "||": lambda x, y: bool(x) or bool(y)}[op]
        return CNum(int(fn(a.value, b.value)), "int")
    if kind == "int":
        x, y = int(a.value), int(b.value)
        if op in ("<<", ">>") and not 0 <= y < 64:
            raise ValueError(f"a shift by {y}")
        if op in ("/", "%") and y == 0:
            raise ValueError("a division by zero")
        if op in ("/", "%"):          # C truncates toward zero
            q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
            return CNum(_int64(q if op == "/" else x - y * q), "int")
        if op not in _INT_OPS:
            raise ValueError(f"operator {op} on integers")
        return CNum(_int64(_INT_OPS[op](x, y)), "int")
    if op not in _FLOAT_OPS:
        raise ValueError(f"operator {op} on a floating value")
    t = np.float32 if kind == "float" else np.float64
    with np.errstate(all="ignore"):
        x, y = t(a.value), t(b.value)
        v = _FLOAT_OPS[op](x, y)
    # only arithmetic done in double keeps a text the program form can re-evaluate
    text = f"{_paren(a)} {op} {_paren(b)}" if kind == "double" and a.text and b.text else ""
    return CNum(float(v), kind, text, "", True)


_INT_OPS = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y, "&": lambda x, y: x & y,
            "|": lambda x, y: x | y, "^": lambda x, y: x ^ y, "<<": lambda x, y: x << y, ">>": lambda x, y: x >> y}
_FLOAT_OPS = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y, "/": lambda x, y: x / y}


def _int64(v: int) -> int:
    """``v`` if a 64-bit type holds it (int64_t or uint64_t), else ValueError."""
    if not INT_MIN <= v <= INT_MAX:
        raise ValueError("an integer past 64 bits")
    return v


def _paren(x: CNum) -> str:
    return f"({x.text})" if x.compound else x.text


def negate(x: CNum) -> CNum:
    text = f"-{_paren(x)}" if x.text else ""
    return CNum(-x.value, x.ctype, text, "", x.compound)


def as_constant(x: CNum) -> Constant:
    """A scalar operand of a float instruction (the C call converts it to float once)."""
    with np.errstate(over="ignore"):
        value = float(np.float32(x.value))
    text = x.text if x.compound and x.ctype in ("double", "float") else ""
    return Constant(value, text, x.name)


def render(node) -> str:
    """An expression as C++ text (for messages and variant names)."""
    if isinstance(node, Name):
        return "::".join(s + (f"<{', '.join(render(a) for a in t)}>" if t is not None else "") for s, t in node.segs)
    if isinstance(node, (Num, Str)):
        return node.text
    if isinstance(node, Call):
        return f"{render(node.fn)}({', '.join(render(a) for a in node.args)})"
    if isinstance(node, Member):
        targs = f"<{', '.join(render(a) for a in node.targs)}>" if node.targs is not None else ""
        return f"{render(node.obj)}{'->' if node.arrow else '.'}{node.name}{targs}"
    if isinstance(node, Index):
        return f"{render(node.obj)}[{render(node.index)}]"
    if isinstance(node, Unary):
        return f"{render(node.x)}{node.op[4:]}" if node.op.startswith("post") else f"{node.op}{render(node.x)}"
    if isinstance(node, Binary):
        return f"{render(node.a)} {node.op} {render(node.b)}"
    if isinstance(node, Cond):
        return f"{render(node.c)} ? {render(node.a)} : {render(node.b)}"
    if isinstance(node, CCast):
        return f"({render(node.type)}){render(node.x)}"
    if isinstance(node, Type):
        return " ".join(node.quals + (render(node.name) + node.ptr,))
    if isinstance(node, InitList):
        return "{" + ", ".join(render(i) for i in node.items) + "}"
    return repr(node)
