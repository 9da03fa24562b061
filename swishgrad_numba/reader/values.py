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

__all__ = ["CNum", "TypeVal", "DTYPE_OF_CTYPE", "INT_TYPES", "number", "arith", "convert", "render", "as_constant",
           "complement", "is_int", "negate"]

#: C type names of the dtypes a program holds (others: int, bool, ...).
DTYPE_OF_CTYPE = {"float": "float32", "half": "float16", "float16_t": "float16", "__fp16": "float16",
                  "bfloat16_t": "bfloat16", "__bf16": "bfloat16", "uint8_t": "uint8"}
#: Issue 43: the integer locals a Cast converts to and from (program.int_casts); int64_t stays unread.
DTYPE_OF_CTYPE.update({"int32_t": "int32", "int16_t": "int16", "int8_t": "int8"})
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
    """A C literal, of its C type: a decimal integer is ``int`` where it fits (else ``int64_t``), an octal
    or hexadecimal one ``int``, ``uint32_t``, ``int64_t`` or ``uint64_t`` (the first that holds it); a
    ``u`` suffix makes it unsigned, ``l``/``ll`` 64 bits."""
    body = text.rstrip("fFlLuU")
    if text.lower().startswith(("0x", "0b")):
        digits = text.rstrip("uUlL")
        value = _int64(int(digits, 16 if digits[1] in "xX" else 2))
        return _typed_literal(value, text[len(digits):], True, str(value))
    if any(c in body for c in ".eE"):
        if text[-1] in "fF":
            return CNum(float(np.float32(float(body))), "float", body)
        return CNum(float(body), "double", body)
    digits = text.rstrip("uUlL")
    if len(digits) > 1 and digits[0] == "0":            # octal: 010 is 8
        if not set(digits) <= set("01234567"):
            raise ValueError(f"the octal literal {text} has a digit past 7")
        value = _int64(int(digits, 8))
        return _typed_literal(value, text[len(digits):], True, str(value))
    return _typed_literal(_int64(int(digits)), text[len(digits):], False, digits)


def _typed_literal(value, suffix, based, text) -> CNum:
    unsigned, wide = "u" in suffix.lower(), "l" in suffix.lower()
    order = [("int", 32, False), ("uint32_t", 32, True), ("int64_t", 64, False), ("uint64_t", 64, True)]
    for name, bits, uns in order:
        if (wide and bits < 64) or (unsigned and not uns) or (not based and not unsigned and uns):
            continue
        if value < (1 << bits if uns else 1 << (bits - 1)):
            return CNum(value, name, text)
    raise ValueError(f"the literal {value} fits no C integer type")


#: The C integer types: name -> (bits, unsigned); the canonical name of each promoted type is
#: ``int``, ``uint32_t``, ``int64_t`` or ``uint64_t``.
INT_TYPES = {"bool": (1, True), "char": (8, False), "int8_t": (8, False), "uint8_t": (8, True),
             "short": (16, False), "int16_t": (16, False), "uint16_t": (16, True), "int": (32, False),
             "int32_t": (32, False), "unsigned": (32, True), "uint32_t": (32, True), "long": (64, False),
             "int64_t": (64, False), "uint64_t": (64, True), "size_t": (64, True)}
_CANONICAL = {(32, False): "int", (32, True): "uint32_t", (64, False): "int64_t", (64, True): "uint64_t"}


def is_int(x) -> bool:
    """Whether ``x`` is a compile-time integer (of any C integer type)."""
    return isinstance(x, CNum) and x.ctype not in _FLOATS


def _promoted(ctype: str) -> tuple:
    """(bits, unsigned) of a C integer type after the integer promotions (a type narrower than int is int)."""
    bits, unsigned = INT_TYPES.get(ctype, (64, False))
    return (32, False) if bits < 32 else (bits, unsigned)


def _common(a: str, b: str) -> tuple:
    """The usual arithmetic conversions of two integer types (C11 6.3.1.8)."""
    (ba, ua), (bb, ub) = _promoted(a), _promoted(b)
    if ua == ub:
        return max(ba, bb), ua
    (bu, _), (bs, _) = ((ba, ua), (bb, ub)) if ua else ((bb, ub), (ba, ua))
    if bu >= bs:
        return bu, True
    return bs, False           # the signed type is wider: it holds every value of the unsigned one


def _wrap(value: int, bits: int, unsigned: bool, what: str) -> int:
    if unsigned:
        return value % (1 << bits)
    if not -(1 << (bits - 1)) <= value < 1 << (bits - 1):
        raise ValueError(f"{what} overflows {_CANONICAL[(bits, False)]} (undefined in C)")
    return value


def convert(x: CNum, ctype: str) -> CNum:
    """``x`` converted to C type ``ctype`` (a float conversion rounds once; the text stays). To an
    unsigned type an integer wraps around; a float out of the target's range is refused (ValueError), as
    C leaves it undefined. An integer to a signed type that
    cannot hold it wraps modulo 2^bits (implementation-defined in C; C++20's rule and the device
    compiler's, clang's: ``constexpr int c = 274877906944;`` is 0)."""
    kind = "float" if ctype == "float" else "double" if ctype == "double" else "int" if ctype in _INTS else None
    if kind is None:
        return x
    if kind == "int":
        if x.value != x.value or x.value in (float("inf"), float("-inf")):
            raise ValueError(f"{x.value} converted to {ctype}")
        bits, unsigned = INT_TYPES.get(ctype, (64, False))
        value = int(x.value)                       # a float truncates toward zero
        if ctype == "bool":
            value = int(x.value != 0)
        elif x.ctype in _FLOATS:
            low, high = (0, 1 << bits) if unsigned else (-(1 << (bits - 1)), 1 << (bits - 1))
            if not low <= value < high:
                raise ValueError(f"{x.value} converted to {ctype} (out of its range: undefined in C)")
        elif unsigned:
            value %= 1 << bits
        elif not -(1 << (bits - 1)) <= value < 1 << (bits - 1):    # issue 43: modulo 2^bits, as C++20
            value = (value + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))   # and clang/GCC do
        name = ctype if ctype in INT_TYPES else "int64_t"
        return CNum(value, name, x.text if x.ctype not in _FLOATS and value == x.value else "", x.name)
    with np.errstate(over="ignore"):
        v = float(np.float32(x.value)) if kind == "float" else float(x.value)
    return CNum(v, kind, x.text, x.name, x.compound)


def arith(op: str, a: CNum, b: CNum) -> CNum:
    """``a op b`` under C's usual arithmetic conversions."""
    kinds = {a.ctype, b.ctype}
    kind = "double" if "double" in kinds else "float" if "float" in kinds else "int"
    if op in ("==", "!=", "<", ">", "<=", ">=", "&&", "||") and (kind != "int" or op in ("&&", "||")):
        fn = {"==": lambda x, y: x == y, "!=": lambda x, y: x != y, "<": lambda x, y: x < y,
              ">": lambda x, y: x > y, "<=": lambda x, y: x <= y, ">=": lambda x, y: x >= y,
              "&&": lambda x, y: bool(x) and bool(y), "||": lambda x, y: bool(x) or bool(y)}[op]
        return CNum(int(fn(a.value, b.value)), "int")
    if kind == "int":
        if op in ("<<", ">>"):             # the type of the promoted left operand
            bits, unsigned = _promoted(a.ctype)
            x, y = _wrap(int(a.value), bits, unsigned, "a value"), int(b.value)
            if not 0 <= y < bits:
                raise ValueError(f"a shift by {y} of a {bits}-bit value")
            if op == ">>":
                return CNum(x >> y, _CANONICAL[(bits, unsigned)])
            if not unsigned and x < 0:
                raise ValueError("a left shift of a negative value (undefined in C++17)")
            r = _wrap(x << y, bits, True, "") if unsigned else x << y
            if not unsigned:           # C++17: representable in the unsigned type, then converted (wraps)
                if r >= 1 << bits:
                    raise ValueError(f"{x} << {y} overflows {bits} bits (undefined in C++17)")
                r = r - (1 << bits) if r >= 1 << (bits - 1) else r
            return CNum(r, _CANONICAL[(bits, unsigned)])
        bits, unsigned = _common(a.ctype, b.ctype)
        x, y = _wrap(int(a.value), bits, unsigned, "a value"), _wrap(int(b.value), bits, unsigned, "a value")
        if op in _COMPARE:
            return CNum(int(_COMPARE[op](x, y)), "int")
        if op in ("/", "%") and y == 0:
            raise ValueError("a division by zero")
        if op in ("/", "%"):          # C truncates toward zero
            q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
            r = q if op == "/" else x - y * q
        elif op in _INT_OPS:
            r = _INT_OPS[op](x, y)
        else:
            raise ValueError(f"operator {op} on integers")
        return CNum(_wrap(r, bits, unsigned, f"{x} {op} {y}"), _CANONICAL[(bits, unsigned)])
    if op not in _FLOAT_OPS:
        raise ValueError(f"operator {op} on a floating value")
    t = np.float32 if kind == "float" else np.float64
    with np.errstate(all="ignore"):
        x, y = t(a.value), t(b.value)
        v = _FLOAT_OPS[op](x, y)
    # only arithmetic done in double keeps a text the program form can re-evaluate
    text = f"{_paren(a)} {op} {_paren(b)}" if kind == "double" and a.text and b.text else ""
    return CNum(float(v), kind, text, "", True)


_COMPARE = {"==": lambda x, y: x == y, "!=": lambda x, y: x != y, "<": lambda x, y: x < y,
            ">": lambda x, y: x > y, "<=": lambda x, y: x <= y, ">=": lambda x, y: x >= y}
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
    if x.ctype not in _FLOATS:
        bits, unsigned = _promoted(x.ctype)
        value = _wrap(-_wrap(int(x.value), bits, unsigned, "a value"), bits, unsigned, f"-{x.value}")
        return CNum(value, _CANONICAL[(bits, unsigned)], text if not unsigned else "", "", x.compound)
    return CNum(-x.value, x.ctype, text, "", x.compound)


def complement(x: CNum) -> CNum:
    """``~x`` of an integer."""
    bits, unsigned = _promoted(x.ctype)
    value = _wrap(int(x.value), bits, unsigned, "a value")
    return CNum((1 << bits) - 1 - value if unsigned else -value - 1, _CANONICAL[(bits, unsigned)])


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
