"""Expressions and types for :class:`.machine.Machine`: what each evaluates to at compile time."""
from __future__ import annotations

import re

import numpy as np

from .abstract import Mode, Symbolic, TilingField, Unknown, refuse
from .description import AttrRef, Constant, ScalarProduct
from . import launch_scalars
from .errors import KernelSourceError
from .limits import MAX_EVAL_DEPTH
from .objects import GMAddr
from .parser import BUILTIN_TYPES
from .scalar_puns import is_bits, is_scalar_cast, pun_combine, scalar_cast
from .syntax import Member, Name, Num, Type, Unary
from .templates import alias_type, class_value, variable
from .values import CNum, TypeVal, arith, as_constant, complement, convert, is_int, negate, number, render

__all__ = ["ExpressionMixin"]

_CANON = {"float16_t": "half", "__fp16": "half", "__bf16": "bfloat16_t", "float32_t": "float"}
_SIZES = {"float": 4, "half": 2, "bfloat16_t": 2, "double": 8, "int8_t": 1, "uint8_t": 1, "int16_t": 2,
          "uint16_t": 2, "int32_t": 4, "uint32_t": 4, "int": 4, "int64_t": 8, "uint64_t": 8}


#: ``event_t``'s named ids (``SetFlag<HardEvent::MTE2_V>(EVENT_ID0)``, ``event_t id = EVENT_ID1;``): they
#: order the pipes, which the model runs in program order, so only their values are read (issue 43).
_EVENT_IDS = {f"EVENT_ID{k}": k for k in range(8)}

#: A device build's core type (asc-devkit impl/utils/sys_constants.h: MIX 0, AIC 1, AIV 2): the element-wise
#: kernels run on the vector cores, so ``g_coreType`` is ``AIV`` and ``if (g_coreType == AIC) return;`` drops
#: out (a model choice: the reader reads the vector core's program; issue 43).
_CORE_TYPES = {"MIX": 0, "AIC": 1, "AIV": 2, "g_coreType": 2}


class ExpressionMixin:
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
                if self.dtype_flag(node.last) is not None:
                    return self.dtype_flag(node.last)
        if isinstance(node, Name) and len(node.segs) >= 2 and node.segs[-2][0] in self.symbols.classes:
            owner_args = tuple(self.type_or_value(a) for a in node.segs[-2][1] or ())
            member = self.member_alias(self.symbols.classes[node.segs[-2][0]], node.last, owner_args)
            return member or TypeVal(node.last, (), (node.segs[-2][0], owner_args))
        if isinstance(node, Name) and node.last in ("conditional_t", "conditional") and node.targs is not None \
                and len(node.targs) == 3 and (node.last == "conditional_t" or len(node.segs) == 1):
            cond = self.type_or_value(node.targs[0])       # std::conditional_t<c, A, B>
            if isinstance(cond, Symbolic) and getattr(self, "decide", None) is not None and all(
                    isinstance(self.scopes[0].get(n), Symbolic) for n in re.findall(r"[A-Za-z_]\w*", cond.text)):
                # on the entry's non-type template arguments alone: one variant per choice (issue 43)
                return self.type_of(node.targs[1] if self.decide(cond.text) else node.targs[2])
            if not is_int(cond):
                refuse(node, f"std::conditional_t on {render(node.targs[0])}", "not a compile-time condition")
            return self.type_of(node.targs[1] if cond.value else node.targs[2])
        if isinstance(node, Name) and len(node.segs) >= 2 and node.last == "type" and \
                node.segs[-2][0] == "conditional" and len(node.segs[-2][1] or ()) == 3:
            return self.type_of(Name(node.segs[:-2] + (("conditional_t", node.segs[-2][1]),), node.at))
        if isinstance(node, Name) and node.last in self.symbols.aliases and not any(s[1] for s in node.segs[:-1]):
            # using CT = float; CT<T>; Ns::CT<T> (issue 43: a namespace's, its segments flattened as symbols' are)
            t = alias_type(self, node, self.symbols.aliases[node.last])
            if t is not None:
                return t
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

    def member_alias(self, cls, name, owner_args):
        """``typename X<T>::Type``: the alias ``using Type = ...;`` of class ``X`` with ``owner_args`` bound,
        where it names a scalar type (None otherwise: a DAG's ``Dag<T>::OpDag`` is read by its owner)."""
        alias = next((a for a in getattr(cls, "aliases", ()) if a.name == name), None)
        if alias is None:
            return None
        env = {tp.name: (owner_args[i] if i < len(owner_args) else self.type_or_value(tp.default) if tp.default
                         else None) for i, tp in enumerate(cls.tparams)}
        saved, self.scopes = self.scopes, [self.scopes[0], env]
        try:
            t = self.type_of(alias.type)
        except KernelSourceError:
            return None
        finally:
            self.scopes = saved
        return t if t.cname in BUILTIN_TYPES else None     # a DAG's member type stays its owner's

    def same_type(self, node, a, b) -> CNum:
        """``std::is_same_v<a, b>``; a type the reader does not know is refused, not taken as different."""
        ta, tb = self.type_of(a), self.type_of(b)
        for t in (ta, tb):
            if t.cname not in BUILTIN_TYPES and t.cname not in self.symbols.classes:
                refuse(node, f"std::is_same_v with type {t.cname}", "a type the reader does not know")
        return CNum(int(ta == tb), "int")

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
        self.depth = getattr(self, "depth", 0) + 1
        if self.depth > MAX_EVAL_DEPTH:
            refuse(node, f"expression {_short(node)}", f"evaluation nested more than {MAX_EVAL_DEPTH} deep "
                   "(calls, statements and expressions)")
        try:
            return method(node)
        except KernelSourceError:
            raise
        except (ArithmeticError, ValueError) as exc:      # C arithmetic the reader does not model
            refuse(node, f"expression {_short(node)}", str(exc))
        except (IndexError, AttributeError, TypeError, KeyError) as exc:     # a construct of an unexpected form
            refuse(node, f"expression {_short(node)}", f"not in a form the reader reads ({type(exc).__name__})")
        finally:
            self.depth -= 1

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
                and node.segs[-2][0] in ("is_same", "IsSameType"):      # AscendC's IsSameType (issue 43)
            return self.same_type(node, *(node.targs or node.segs[-2][1]))
        if ident == "value" and len(node.segs) >= 2 and node.segs[-2][1] is not None and \
                (node.segs[-2][0] in self.symbols.classes or node.segs[-2][0] in self.symbols.specializations):          # IsBf16<T>::value, a trait of the sources (issue 43)
            return class_value(self, node, node.segs[-2][0], node.segs[-2][1])
        if ident in ("true", "false"):
            return CNum(int(ident == "true"), "int")
        if ident in _EVENT_IDS and len(node.segs) == 1:     # a pipe event's id: synchronisation only
            return CNum(_EVENT_IDS[ident], "int")
        if ident == "nullptr":
            return Unknown("nullptr")
        if len(node.segs) >= 2 and node.segs[-2][0] == "RoundMode":
            return Mode(ident)
        if len(node.segs) >= 2 and node.segs[-2][0] in ("CMPMODE", "SELMODE"):
            return Mode(ident, node.segs[-2][0])
        if len(node.segs) >= 2 and node.segs[-2][0] in self.symbols.enums:
            return self.enum_item(node, self.symbols.enums[node.segs[-2][0]], ident)
        if ident in self.symbols.variables and node.targs is not None:      # NEEDS_CAST<T> (issue 43)
            return variable(self, node, self.symbols.variables[ident])
        if ident in self.symbols.constants:
            return self.constant(node, ident)
        if ident in _CORE_TYPES and (len(node.segs) == 1 or node.segs[-2][0] == "AscendC") and node.targs is None:
            return CNum(_CORE_TYPES[ident], "int32_t")
        cname = _CANON.get(ident, ident)
        args = tuple(self.eval(a) for a in node.targs) if node.targs is not None else ()
        if cname in BUILTIN_TYPES or cname in self.symbols.classes or cname in self.symbols.aliases \
                or node.targs is not None or len(node.segs) >= 2:
            return TypeVal(cname, args)
        if len(node.segs) == 1 and self.dtype_flag(ident) is not None:
            return self.dtype_flag(ident)
        refuse(node, f"name {ident}", "not defined in the kernel's sources")

    def dtype_flag(self, ident):
        """``DTYPE_<NAME>`` of a tensor the entry's parameters do not name (the op definition's ``input_x``
        where the entry says ``x``): the read's dtype, as every dtype flag of a build (docs/model.md); None
        for another name or where the entry defines no flag."""
        if not ident.startswith("DTYPE_") or not self.scopes:
            return None
        return next((v for k, v in self.scopes[0].items() if k.startswith("DTYPE_") and isinstance(v, TypeVal)),
                    None)

    def constant(self, node, ident):
        """A file-level constant's value, evaluated once (in the file scope) and remembered."""
        memo = self.__dict__.setdefault("_constants", {})
        if ident in memo:
            if memo[ident] is _PENDING:
                refuse(node, f"constant {ident}", "its definition reads itself")
            return memo[ident]
        ctype, init, at = self.symbols.constants[ident]
        memo[ident], saved = _PENDING, (self.scopes, self.this)
        self.scopes, self.this = self.scopes[:1], None
        try:
            value = self.eval(init) if init is not None else Unknown(ident)
            if isinstance(value, tuple):          # an array: each value converted to its element type
                try:
                    value = tuple(convert(v, self.type_of(ctype).cname) if isinstance(v, CNum) else v
                                  for v in value)
                except ValueError as exc:
                    refuse(init, f"constant {ident}", str(exc))
            if isinstance(value, CNum):
                try:
                    value = convert(value, self.type_of(ctype).cname)
                except ValueError as exc:          # refused at the constant's definition
                    refuse(init, f"constant {ident}", str(exc))
                value = CNum(value.value, value.ctype, value.text, ident, value.compound)
        except BaseException:
            del memo[ident]
            raise
        finally:
            self.scopes, self.this = saved
        memo[ident] = value
        return value

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
        refuse(node, f"member {render(node)}", _why_no_member(obj, node.name, self.symbols.host_given))

    def _eval_Index(self, node):
        obj = self.eval(node.obj)
        if isinstance(obj, tuple):
            return self.element(node, obj)
        refuse(node, f"indexing {render(node)}", "a local tensor is read whole")

    def element(self, node, array: tuple):
        """``array[i]`` of an array read from its initialiser (``const float C[] = {...}``)."""
        index = self.eval(node.index)
        if not is_int(index):
            refuse(node, f"indexing {render(node)}", "an index that is not a compile-time integer")
        if not 0 <= index.value < len(array):
            refuse(node, f"indexing {render(node)}", f"index {index.value} outside the {len(array)} values of "
                   "its initialiser")
        return array[index.value]

    def _eval_Unary(self, node):
        if node.op == "sizeof":
            t = self.type_of(node.x)
            return CNum(_SIZES.get(t.cname, 8), "uint64_t")        # size_t
        x = self.eval(node.x)
        if node.op in ("&", "*", "+"):
            return x
        if isinstance(x, (Unknown, Symbolic, TilingField)):
            return x if isinstance(x, Unknown) or node.op != "!" and isinstance(x, TilingField) \
                else Symbolic(render(node))
        if isinstance(x, AttrRef) and node.op == "-":       # issue 43: -lambd_, the product with -1 (exact)
            return ScalarProduct(x, Constant(-1.0))
        if isinstance(x, launch_scalars.SCALARS):       # computed per launch (.launch_scalars)
            return launch_scalars.unary(node, node.op, x)
        if isinstance(x, CNum):
            if node.op == "-":
                return negate(x)
            if node.op == "!":
                return CNum(int(not x.value), "int")
            if node.op == "~" and is_int(x):
                return complement(x)
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
        a = self.eval(node.a)
        if isinstance(a, TypeVal) and node.op in ("-", "+") and isinstance(node.a, Name) and isinstance(node.b, Num):
            # (T)-2.5f: the parser, which does not know that T names a type, read it as T - 2.5f; a type
            # minus a literal is no C, so it is the C cast of the signed literal (issue 43)
            return self.cast(node, a, self.eval(Unary(node.op, node.b, node.at)))
        return self._combine(node, node.op, a, self.eval(node.b))

    def _combine(self, node, op, a, b):
        scalars = (CNum, Unknown, Symbolic, TilingField, TypeVal) + launch_scalars.SCALARS
        if isinstance(a, CNum) and isinstance(b, CNum):
            return arith(op, a, b)
        if op in ("+", "-") and not isinstance(a, scalars):
            return a        # a GM address or pointer plus an offset: the same storage
        if is_bits(a) or is_bits(b):            # integer arithmetic on a scalar's bits (.scalar_puns)
            return pun_combine(node, op, a, b)
        if isinstance(a, launch_scalars.SCALARS) or isinstance(b, launch_scalars.SCALARS):
            if op == "*" and not isinstance(a, launch_scalars.LaunchScalar) and \
                    not isinstance(b, launch_scalars.LaunchScalar):
                return self._product(node, a, b)
            if any(v in self.__dict__.get("double_products", ()) for v in (a, b)):
                refuse(node, f"arithmetic on attribute values {render(node)}", "a double product (a double "
                       "constant), which C computes with again in double: rounded twice, not modelled")
            return launch_scalars.combine(node, op, a, b)        # computed per launch
        if isinstance(a, Unknown) or isinstance(b, Unknown):
            return Unknown(render(node))
        if isinstance(a, (TilingField, Symbolic)) or isinstance(b, (TilingField, Symbolic)):
            return _symbolic(node, op, a, b)
        if isinstance(a, TypeVal) and isinstance(b, TypeVal) and op in ("==", "!="):
            return CNum(int((a == b) == (op == "==")), "int")
        return Unknown(render(node))

    def _product(self, node, a, b):
        """``a * b`` of attributes, float32 constants and such products, as C evaluates it: left to right, a
        float product rounded to float once (issue 43: ``alpha * scale * inputScale``). A product with a
        ``double`` constant is a double (exact: 24 + 24 bits), rounded to float only where it is stored; as
        the factor of a further product it would be rounded twice, so that is refused."""
        wide = self.__dict__.setdefault("double_products", set())
        for v in (a, b):
            if isinstance(v, ScalarProduct) and v in wide:
                refuse(node, f"attribute times {render(node)}", f"{v} is a double product (a double constant), "
                       "which C multiplies again in double: rounded twice, not modelled")
        p = ScalarProduct(self._factor(node, a), self._factor(node, b))
        if any(isinstance(v, CNum) and v.ctype == "double" for v in (a, b)):
            wide.add(p)
        return p

    def _factor(self, node, x):
        """A factor of a scalar product: an attribute, or a constant whose product with a float32
        rounds the same in float and in double (a float32 value)."""
        if isinstance(x, (AttrRef, ScalarProduct)):
            return x
        if isinstance(x, CNum) and not is_int(x) and float(np.float32(x.value)) == x.value or \
                is_int(x) and abs(x.value) < 2 ** 24:
            return as_constant(x)
        refuse(node, f"attribute times {render(node)}", "a factor that is not a float32 value")

    def _eval_Cond(self, node):
        c = self.eval(node.c)
        if isinstance(c, CNum):
            return self.eval(node.a if c.value else node.b)
        if isinstance(c, launch_scalars.SCALARS):             # decided per launch
            return launch_scalars.conditional(node, c, self.eval(node.a), self.eval(node.b))
        return Unknown(render(node))

    def _eval_CCast(self, node):
        return self.cast(node, self.type_of(node.type), self.eval(node.x), node.type.ptr)

    def cast(self, node, tval, value, ptr=""):
        if isinstance(value, CNum) and not ptr:
            return convert(value, tval.cname)
        if is_scalar_cast(value, tval.cname, ptr):       # of bits, or to half: per launch (.scalar_puns)
            return scalar_cast(node, tval.cname, value)
        if isinstance(value, launch_scalars.LaunchScalar):
            return launch_scalars.cast(node, tval.cname, value)
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
                value, target = self.eval(node.args[0]), fn.targs[0]
                if ident == "reinterpret_cast":          # a GM address as a typed pointer: a cast of the address
                    if not (isinstance(value, GMAddr) or type(value).__name__ == "_GMPtr") or \
                            not getattr(target, "ptr", ""):
                        refuse(node, "reinterpret_cast", "a bit trick the program form does not have (only a GM "
                               "address's reinterpret_cast<__gm__ T*> is read)")
                    return self.cast(node, self.type_of(target), value, target.ptr)
                return self.cast(node, self.type_of(target), value)
            if ident in ("is_same_v", "is_same") and fn.targs:
                return self.same_type(node, *fn.targs)
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


_COMPARISONS = ("==", "!=", "<", ">", "<=", ">=")
_PENDING = object()       # a constant being evaluated


def _why_no_member(obj, name, host_given=False) -> str:
    struct = getattr(obj, "struct", False)
    if struct is None:          # the tiling data of a struct not in the folder
        named = f"the tiling struct {obj.name} is not in the kernel's folder" if getattr(obj, "name", "") else \
            "no tiling struct was found (GET_TILING_DATA names none, nor does a REGISTER_TILING_DEFAULT)"
        if host_given:
            return named + " nor declared in op_host (BEGIN_TILING_DATA_DEF, REGISTER_TILING_DATA_CLASS)"
        return (named + "; one declared in op_host (BEGIN_TILING_DATA_DEF) is not read: op_host was not given "
                "(give read_kernel the operator's folder)")
    if struct:
        return f"the tiling struct {struct.name} has no field {name}"
    cls = getattr(obj, "cls", None)
    if cls is not None:
        return f"class {cls.name} has no member {name}"
    return f"{type(obj).__name__} {getattr(obj, 'why', '')} has no members the reader follows".replace("  ", " ")


def _short(node) -> str:
    text = render(node)
    return text if len(text) <= 60 else text[:57] + "..."


def _symbolic(node, op, a, b):
    """A comparison of a template argument or a tiling field with a constant, as a canonical
    condition (``dType == 3``, ``haveTanhx == 1``) so that one condition is one choice."""
    def text(v):
        if isinstance(v, CNum):
            return repr(v.value)
        return v.name if isinstance(v, TilingField) else v.text
    if isinstance(a, TilingField) or isinstance(b, TilingField):
        if op not in _COMPARISONS or not all(isinstance(v, (CNum, TilingField)) for v in (a, b)):
            return Unknown(render(node))
    if op in _COMPARISONS and all(isinstance(v, (CNum, TilingField, Symbolic)) for v in (a, b)):
        return Symbolic(f"{text(a)} {op} {text(b)}")
    return Symbolic(render(node))
