"""A scalar's bits read as another type, on the scalar unit (issue 43)::

    uint32_t bits;
    *(reinterpret_cast<float*>(&bits)) = v;                                  // v's bits as uint32_t
    *(reinterpret_cast<uint16_t*>(&out)) = static_cast<uint16_t>(bits >> 16);  // out (bfloat16_t): the top half

A store through a pointer of another type to a local of the same size (``*(P*)&var = x``, with
``reinterpret_cast`` or a C cast) converts ``x`` to ``P`` as C's assignment does and leaves ``var`` holding
those bytes: :class:`BitScalar` ``reinterpret``. Integer arithmetic on such bits (``>> << & | ^ + - *``, the
comparisons) and integer casts follow C (:func:`.values.arith`, :func:`.values.convert`: promotions,
wrap-around of unsigned types). A value known only at launch (an attribute) is computed per launch, as
:mod:`.launch_scalars` computes; a BitScalar is one of its launch scalars, whose float value is the one the
kernel's ``T`` scalar holds (a ``bfloat16_t``'s value widened exactly). Refused: a store of fewer bytes than
the local holds (the rest would be whatever was there), a type the reader does not know the size of,
float arithmetic on bits and a cast of bits to an integer from a float type.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .abstract import refuse
from .description import AttrRef, Constant, ScalarProduct
from .launch_scalars import SCALARS, LaunchScalar
from .syntax import Call, CCast, Name, Unary
from .values import INT_TYPES, CNum, arith, convert, render

__all__ = ["BitScalar", "is_pun_target", "pun_assign", "pun_combine", "pun_cast", "to_sixteen", "FLOAT_BITS",
           "is_bits", "is_scalar_cast", "scalar_cast"]

#: a float C type's bits: (unsigned integer type of its size, NumPy type)
FLOAT_BITS = {"float": ("uint32_t", np.float32), "half": ("uint16_t", np.float16), "bfloat16_t": ("uint16_t", None)}
_INT_OPS = (">>", "<<", "&", "|", "^", "+", "-", "*", "==", "!=", "<", ">", "<=", ">=")
_SIZE = {c: bits // 8 for c, (bits, _) in INT_TYPES.items() if c != "bool"}
_SIZE.update({"float": 4, "half": 2, "bfloat16_t": 2})


@dataclass(frozen=True)
class BitScalar(LaunchScalar):
    """``op`` of ``args`` of C type ``ctype``: ``reinterpret`` (the bits of ``args[0]`` read as ``ctype``),
    ``convert`` (C's conversion of an integer to ``ctype``) or an integer operator of :data:`_INT_OPS`."""

    ctype: str = "uint32_t"

    def __str__(self):
        if self.op in ("reinterpret", "convert"):
            return f"{self.op}<{self.ctype}>({self.args[0]})"
        return f"({self.args[0]} {self.op} {self.args[1]})"

    @property
    def boolean(self) -> bool:
        return self.op in ("==", "!=", "<", ">", "<=", ">=")

    def bits_value(self, fields, evaluate):
        """Its value at launch (:func:`.launch_scalars.evaluate` calls it): a CNum of its C type for an
        integer, else the float32 the ``T`` scalar holds (NumPy float32)."""
        return _value(self, fields, evaluate)


def is_bits(x) -> bool:
    """Whether ``x`` is a BitScalar that C computes with as integer bits (or as half: refused)."""
    return isinstance(x, BitScalar) and x.ctype not in ("float", "bfloat16_t")


def _ctype(x) -> str | None:
    if isinstance(x, BitScalar):
        return x.ctype
    if isinstance(x, CNum):
        return x.ctype
    if isinstance(x, (AttrRef, ScalarProduct, LaunchScalar, Constant)):
        return "float"
    return None


def _is_int(ctype) -> bool:
    return ctype in INT_TYPES


def is_pun_target(target) -> bool:
    """Whether an assignment's target is ``*(P*)&var``."""
    return isinstance(target, Unary) and target.op == "*" and _pointer_cast(target.x) is not None


def _pointer_cast(node):
    """(pointer type node, local's name) of ``reinterpret_cast<P*>(&var)`` or ``(P*)&var``; else None."""
    if isinstance(node, Call) and isinstance(node.fn, Name) and node.fn.last == "reinterpret_cast" \
            and node.fn.targs and len(node.args) == 1:
        ptype, x = node.fn.targs[0], node.args[0]
    elif isinstance(node, CCast):
        ptype, x = node.type, node.x
    else:
        return None
    if getattr(ptype, "ptr", "") != "*" or not (isinstance(x, Unary) and x.op == "&" and isinstance(x.x, Name)
                                                and len(x.x.segs) == 1):
        return None
    return ptype, x.x.last


def _declared_type(m, name):
    """The C type of the local ``name``: from its value, or an uninitialised local's (``Unknown("T name")``)."""
    value = m.local(name)
    known = _ctype(value)
    if known is not None:
        return known
    why = getattr(value, "why", "")
    parts = why.split(" ")
    return parts[0] if len(parts) == 2 and parts[1] == name else None


def pun_assign(m, target, value, node):
    """``*(P*)&var = value``: ``var`` holds ``value`` converted to ``P``, its bytes read as ``var``'s type."""
    ptype, name = _pointer_cast(target.x)
    pointee = m.type_of(ptype).cname
    held = _declared_type(m, name)
    what = f"assignment to {render(target)}"
    if held not in _SIZE or pointee not in _SIZE:
        refuse(node, what, f"a store through a {pointee} pointer into {held or 'a local of unknown type'}: the "
               "reader reads the bits of a scalar of a known size only")
    if _SIZE[held] != _SIZE[pointee]:
        refuse(node, what, f"a store of {_SIZE[pointee]} bytes into a {held} of {_SIZE[held]}: the other bytes are "
               "whatever the local held")
    source = _ctype(value)
    if source is None:
        refuse(node, what, "the value stored is not a scalar the reader knows")
    if source != pointee:
        value = pun_cast(node, pointee, value)
    m.assign(Name(((name, None),)), BitScalar("reinterpret", (value,), held), node)


def pun_combine(node, op, a, b):
    """``a op b`` where one is a :class:`BitScalar`: integer arithmetic as C's."""
    ta, tb = _ctype(a), _ctype(b)
    if op not in _INT_OPS or not (_is_int(ta) and _is_int(tb)):
        refuse(node, f"operator {op} on the bits of a scalar {render(node)}", f"integer {' '.join(_INT_OPS)} on "
               "integers is read (arithmetic on the bits as a float is not modelled)")
    try:
        ctype = arith(op, CNum(1, ta), CNum(1, tb)).ctype
    except ValueError as e:
        refuse(node, f"operator {op} on the bits of a scalar {render(node)}", str(e))
    return BitScalar(op, (a, b), ctype)


def is_scalar_cast(value, cname, ptr) -> bool:
    """Whether a C cast of ``value`` to ``cname`` is one of :func:`scalar_cast`'s (a GM value's casts are
    .gm_scalars' own: to its own type it is itself, not a conversion from float)."""
    if getattr(value, "op", None) == "gm":
        return False
    return not ptr and isinstance(value, SCALARS) and (isinstance(value, BitScalar) or cname in ("half", "bfloat16_t"))


def scalar_cast(node, cname, value):
    """A C cast of a launch scalar: of bits (:func:`pun_cast`), or of a float to a 16-bit type."""
    return to_sixteen(node, cname, value) if cname in ("half", "bfloat16_t") else pun_cast(node, cname, value)


def to_sixteen(node, cname, value):
    """``static_cast<half>(x)`` (or ``bfloat16_t``) of a float launch scalar: C's conversion, to nearest even,
    computed per launch; a 16-bit vector call then takes it as its ``T`` scalar (one of that type already: itself)."""
    if _ctype(value) == cname:
        return value
    if _ctype(value) != "float":
        refuse(node, f"conversion of {value} from {_ctype(value)} to {cname}", "a float scalar's conversion to a "
               "16-bit type is read (an integer's is not modelled)")
    return BitScalar("convert", (value,), cname)


def pun_cast(node, cname, value):
    """A C conversion of a :class:`BitScalar` (or of a value stored through a pointer) to ``cname``."""
    source = _ctype(value)
    if source == cname:
        return value
    if _is_int(source) and (_is_int(cname) or cname == "float"):
        return BitScalar("convert", (value,), cname)
    refuse(node, f"conversion of {value} from {source} to {cname}", "of the bits of scalars, integer "
           "conversions (and integers to float) are read; a float to an integer or 16-bit type is not modelled")


def _cnum(x, fields, evaluate) -> CNum:
    if isinstance(x, CNum):
        return x
    if isinstance(x, BitScalar):
        v = _value(x, fields, evaluate)
        return v if isinstance(v, CNum) else CNum(float(v), "float")
    return CNum(float(np.float32(evaluate(x, fields))), "float")


def _value(x, fields, evaluate):
    if x.op == "reinterpret":
        src = _cnum(x.args[0], fields, evaluate)
        raw = _raw_bits(src, _ctype(x.args[0]))
        return _from_bits(raw, x.ctype)
    if x.op == "convert":
        src = _cnum(x.args[0], fields, evaluate)
        if x.ctype in ("half", "bfloat16_t"):          # a float to the kernel's 16-bit T: to nearest even
            from .to_program import rounded_to
            from .values import DTYPE_OF_CTYPE
            return np.float32(rounded_to(src.value, DTYPE_OF_CTYPE[x.ctype]))
        out = convert(src, x.ctype)
        return np.float32(out.value) if x.ctype == "float" else out
    return arith(x.op, _cnum(x.args[0], fields, evaluate), _cnum(x.args[1], fields, evaluate))


def _raw_bits(v: CNum, ctype: str) -> int:
    if ctype in FLOAT_BITS:
        if ctype == "bfloat16_t":
            return int(np.float32(v.value).view(np.uint32)) >> 16      # an exact bfloat16 value
        return int(np.array(v.value, FLOAT_BITS[ctype][1]).view(_UINT[FLOAT_BITS[ctype][0]]))
    bits, _ = INT_TYPES[ctype]
    return int(v.value) % (1 << bits)


def _from_bits(raw: int, ctype: str):
    if ctype == "bfloat16_t":
        return np.array(raw << 16, np.uint32).view(np.float32)[()]
    if ctype in FLOAT_BITS:
        return np.float32(np.array(raw, _UINT[FLOAT_BITS[ctype][0]]).view(FLOAT_BITS[ctype][1])[()])
    unsigned = {1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t"}[_SIZE[ctype]]
    return convert(CNum(raw, unsigned), ctype)          # to a signed type: modulo 2^bits, the same bytes


_UINT = {"uint16_t": np.uint16, "uint32_t": np.uint32, "uint64_t": np.uint64}
