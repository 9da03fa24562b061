"""The program form: a kernel's Compute as a list of vector instructions.

A :class:`Program` is what one tile (A2) or one UB loop (950) computes, per
element, written in upstream's own vocabulary and argument order, destination
first: ``Muls(dst, src, scalar)``, ``Div(dst, src0, src1)``,
``Cast(dst, src, CAST_RINT)``, ``MulDstAdd(dst, src0, src1)`` (which also
reads ``dst``). Operands are named local tensors, each with its dtype, and
scalars: an operator attribute (:class:`Attr`, e.g. ``beta``) or a constant
(:class:`Const`: a float literal, or a double expression rounded to float
once, as ``-1.595769121 * 0.044715`` is in upstream's sources).
A :class:`Call` runs a subroutine, itself a program (asc-devkit builds
``Tanh`` and ``Erf`` that way).

What each instruction computes is :mod:`.semantics`'; how a program runs
over a pass is the engine's (:mod:`swishgrad_numba.engine`); the instructions' operands are
:mod:`.isa`'s. This module holds the form and the checks that make a
program well typed.
"""
from __future__ import annotations

import ast
import operator
from dataclasses import dataclass, field

import numpy as np

from .isa import BIT_OPS, CMP_MODES, DTYPES, FLOAT_DTYPES, INSTRUCTIONS, MASK_BIT_OPS, MASK_DTYPE, ROUND_MODES, SIXTEEN_BIT_OPS, V
from .isa import WHOLE_ROUND_MODES
from .int_casts import ROUNDED_INT_CASTS, UNMODELLED_CASTS

__all__ = ["DTYPES", "ROUND_MODES", "INSTRUCTIONS", "V", "Attr", "Const", "Product", "Tensor", "Instr", "Call",
           "Program", "c_float"]


def c_float(value) -> str:
    """A float32 value as a C++ float literal: ``1.5f``, and an infinity as ``(1.0f / 0.0f)``
    (``(-1.0f / 0.0f)``), a constant expression the reader evaluates back to it (C has no
    infinite literal; ``repr`` would give ``inff``)."""
    value = float(value)
    if np.isinf(value):
        return f"({'-' if value < 0 else ''}1.0f / 0.0f)"
    return f"{value!r}f"

@dataclass(frozen=True)
class Attr:
    """A scalar attribute of the operator (``beta``, ``alpha``, ...), float32 at launch."""

    name: str

    def __str__(self):
        return self.name


@dataclass(frozen=True)
class Const:
    """A float32 constant: ``value`` is a float literal, or a double
    expression (``text``, e.g. ``"-1.595769121 * 0.044715"``) evaluated in
    double and rounded to float once."""

    value: float
    text: str = ""

    @staticmethod
    def of(expr) -> "Const":
        """A constant from a number, or from the text of a double expression
        of numbers and ``+ - * /`` (evaluated in binary64, as C++ does).
        Nothing else is evaluated: no ``**`` (``9**9**9`` would not end), no
        names, at most :data:`MAX_CONST_TEXT` characters."""
        if isinstance(expr, str):
            if len(expr) > MAX_CONST_TEXT:
                raise ValueError(f"a constant expression is at most {MAX_CONST_TEXT} characters: {expr[:40]!r}...")
            try:
                return Const(float(_evaluate(ast.parse(expr.strip(), mode="eval").body, expr)), expr)
            except (SyntaxError, ZeroDivisionError, OverflowError) as exc:
                raise ValueError(f"constant expression {expr!r}: {exc}") from None
        return Const(float(expr))

    @property
    def f32(self) -> np.float32:
        with np.errstate(over="ignore"):
            return np.float32(self.value)

    def __str__(self):
        if self.text:
            return f"(float)({self.text})"
        return c_float(self.f32)


#: The longest text :meth:`Const.of` evaluates (upstream's longest is about 30).
MAX_CONST_TEXT = 200
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def _evaluate(node, expr):
    """A parsed constant expression's value: numbers, ``+ - * /`` and parentheses only."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_evaluate(node.left, expr), _evaluate(node.right, expr))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_evaluate(node.operand, expr))
    raise ValueError(f"a constant expression holds numbers and + - * / only: {expr!r}")


@dataclass(frozen=True)
class Product:
    """A scalar computed once on the scalar unit: ``a * b`` in float32, rounded once (the A2
    Swish kernel's ``scale = -1.0f * scale``)."""

    a: object
    b: object

    def __post_init__(self):
        for name in ("a", "b"):
            v = getattr(self, name)
            if isinstance(v, (int, float, str)) and not (isinstance(v, str) and v.isidentifier()):
                object.__setattr__(self, name, Const.of(v))

    def __str__(self):
        return f"({self.a} * {self.b})"


@dataclass(frozen=True)
class Tensor:
    """A named local tensor (or an input / the output) and its dtype."""

    name: str
    dtype: str = "float32"

    def __post_init__(self):
        if self.dtype not in DTYPES:
            raise ValueError(f"tensor {self.name!r}: dtype {self.dtype!r} is not one of {DTYPES}")


@dataclass(frozen=True)
class Instr:
    """One vector instruction: upstream's name and its operands in upstream's order."""

    op: str
    args: tuple

    def __post_init__(self):
        # a number given for a scalar operand is a float literal, a text (not a name) a double expression
        kinds = INSTRUCTIONS.get(self.op, "")
        object.__setattr__(self, "args", tuple(
            Const.of(a) if k in "kx" and (isinstance(a, (int, float)) or isinstance(a, str) and not a.isidentifier())
            else a for a, k in zip(self.args, kinds + "?" * len(self.args))))

    def __str__(self):
        return f"{self.op}({', '.join(str(a) for a in self.args)});"

    @property
    def dst(self) -> str:
        return self.args[0]

    def sources(self) -> tuple:
        """The tensor names the instruction reads (a read-write destination first)."""
        kinds = INSTRUCTIONS[self.op]
        return tuple(a for a, k in zip(self.args, kinds) if k in "sD" or (k == "x" and isinstance(a, str)))

    def scalars(self) -> tuple:
        return tuple(a for a, k in zip(self.args, INSTRUCTIONS[self.op])
                     if k == "k" or (k == "x" and not isinstance(a, str)))

    @property
    def mode(self) -> str:
        """The round mode of a Cast, the compare mode of a Compare, ``"tensor"`` or ``"scalar"`` for a
        Select's second source; else empty."""
        kinds = INSTRUCTIONS.get(self.op, "")
        if "x" in kinds:
            return "tensor" if isinstance(self.args[kinds.index("x")], str) else "scalar"
        return next((a for a, k in zip(self.args, kinds) if k in "mc"), "")


@dataclass(frozen=True)
class Call:
    """``name(dst, src...)``: the subroutine ``program`` with its inputs bound to
    ``srcs`` and its output to ``dst`` (its locals are its own)."""

    program: "Program"
    dst: str
    srcs: tuple

    def __str__(self):
        return f"{self.program.name}({', '.join((self.dst,) + tuple(self.srcs))});"

    def sources(self) -> tuple:
        return tuple(self.srcs)


@dataclass(frozen=True)
class Program:
    """A kernel's Compute: ``inputs`` (tensors read from GM, in the kernel's
    input order), ``output`` (the tensor written back), ``locals``, the
    attributes it reads and its ``body``. Checked when made."""

    name: str
    inputs: tuple
    output: Tensor
    locals: tuple
    body: tuple
    attrs: tuple = ()
    tensors: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if self.name in INSTRUCTIONS or not self.name.isidentifier() or "__" in self.name:
            raise ValueError(f"a program's name is an identifier without '__', not an instruction's: {self.name!r}")
        tensors = {}
        for t in self.inputs + (self.output,):
            if t.dtype not in FLOAT_DTYPES:
                raise ValueError(f"{self.name}: input or output {t.name!r} must be one of {FLOAT_DTYPES}, "
                                 f"not {t.dtype}")
        for t in self.inputs + (self.output,) + self.locals:
            if tensors.get(t.name, t) != t:
                raise ValueError(f"{self.name}: tensor {t.name!r} declared twice")
            tensors[t.name] = t
        object.__setattr__(self, "tensors", tensors)
        for step in self.body:
            self._check(step)

    def _check(self, step):
        where = f"{self.name}: {step}"
        if isinstance(step, Call):
            sub = step.program
            names = (step.dst,) + tuple(step.srcs)
            if len(step.srcs) != len(sub.inputs):
                raise ValueError(f"{where} passes {len(step.srcs)} inputs, {sub.name} takes {len(sub.inputs)}")
            for name, formal in zip(names, (sub.output,) + sub.inputs):
                if self._tensor(name, where).dtype != formal.dtype:
                    raise ValueError(f"{where}: {name!r} is not {formal.dtype} as {sub.name}'s {formal.name!r}")
            self._scalars(sub.attrs, where)
            return
        kinds = INSTRUCTIONS.get(step.op)
        if kinds is None:
            raise ValueError(f"{where}: unknown instruction {step.op!r}")
        if len(step.args) != len(kinds):
            raise ValueError(f"{where}: {step.op} takes {len(kinds)} operands, got {len(step.args)}")
        tensors = []
        for arg, kind in zip(step.args, kinds):
            if kind == "k" or (kind == "x" and not isinstance(arg, str)):
                if not isinstance(arg, (Attr, Const, Product)):
                    raise ValueError(f"{where}: operand {arg!r} must be a scalar (Attr, Const or Product)")
                self._scalars((arg,), where)
            elif kind == "m":
                if arg not in ROUND_MODES:
                    raise ValueError(f"{where}: round mode {arg!r} is not one of {ROUND_MODES}")
            elif kind == "c":
                if arg not in CMP_MODES:
                    raise ValueError(f"{where}: compare mode {arg!r} is not one of {CMP_MODES}")
            else:
                tensors.append(self._tensor(arg, where).dtype)
        if step.op == "Cast":
            self._check_cast(step, where)
            return
        if step.op == "Reinterpret" or "int16" in tensors:      # 16-bit bit patterns (issue 43, isa)
            self._check_bits(step, tensors, where)
            return
        if step.op in MASK_BIT_OPS and set(tensors) == {MASK_DTYPE}:     # masks (issue 43, isa.MASK_BIT_OPS)
            return
        if step.op == "Not":
            raise ValueError(f"{where}: Not acts on masks ({MASK_DTYPE}) only")
        # the mask operand: a Compare's destination, a Select's last source; every other tensor float32
        # (or, for SIXTEEN_BIT_OPS, all of one 16-bit dtype); ShiftRight writes an int32
        values = [d for d in tensors if d != MASK_DTYPE]
        wide = values[0] if step.op in SIXTEEN_BIT_OPS and values and values[0] in FLOAT_DTYPES else "float32"
        want = [wide] * len(tensors)
        if step.op in ("Compare", "CompareScalar"):
            want[0] = MASK_DTYPE
        elif step.op == "Select":
            want[-1] = MASK_DTYPE
        elif step.op == "ShiftRight":
            want[0] = "int32"
        if tensors != want:
            raise ValueError(f"{where}: {step.op} computes on float32 tensors only"
                             + (f" (its mask: {MASK_DTYPE})" if MASK_DTYPE in want else ""))

    #: The exact conversions (CAST_NONE) besides the widenings: int32 -> float32 (rounded to nearest even
    #: past 2^24), float16 -> int8 and int8 -> float16 (the A2 GeluGradV2's round trip).
    INT_CASTS = (("float32", "int32"), ("int8", "float16"), ("float16", "int8"))

    #: The mask Casts of the A2 MishGrad's NaN guard (issue 41): a mask to half (CAST_NONE), half back to a
    #: mask (CAST_RINT); :mod:`.semantics`, "mask arithmetic".
    MASK_CASTS = {("float16", MASK_DTYPE): "CAST_NONE", (MASK_DTYPE, "float16"): "CAST_RINT"}

    def _check_cast(self, step, where):
        dst, src, mode = self.tensors[step.args[0]].dtype, self.tensors[step.args[1]].dtype, step.args[2]
        if (dst, src) in ROUNDED_INT_CASTS:      # issue 43: float <-> int in the modes Cast lists (.int_casts)
            if mode not in ROUNDED_INT_CASTS[dst, src]:
                raise ValueError(f"{where}: a Cast from {src} to {dst} takes {', '.join(ROUNDED_INT_CASTS[dst, src])} "
                                 f"(asc-devkit Cast.md, Table 4), not {mode}")
            return
        if dst == src == "float32":     # issue 43: to a whole float32 (isa.WHOLE_ROUND_MODES)
            if mode not in WHOLE_ROUND_MODES:
                raise ValueError(f"{where}: a Cast from float32 to float32 rounds to a whole number, by one of "
                                 f"{', '.join(WHOLE_ROUND_MODES)} (asc-devkit Cast.md), not {mode}")
            return
        if (dst, src) in self.MASK_CASTS:
            if mode != self.MASK_CASTS[dst, src]:
                raise ValueError(f"{where}: a Cast from {src} to {dst} is {self.MASK_CASTS[dst, src]}")
            return
        if (dst, src) not in self.INT_CASTS and not {dst, src} <= set(FLOAT_DTYPES):
            why = UNMODELLED_CASTS.get((dst, src))
            raise ValueError(f"{where}: no Cast from {src} to {dst}" + (f": {why}" if why else ""))
        if (dst, src) in self.INT_CASTS:
            if mode != "CAST_NONE":
                raise ValueError(f"{where}: a Cast between {src} and {dst} is CAST_NONE")
            return
        widening = dst == "float32" and src != "float32"
        narrowing = src == "float32" and dst != "float32"
        if widening != (mode == "CAST_NONE") or not (widening or narrowing):
            raise ValueError(f"{where}: a Cast widens 16-bit to float32 with CAST_NONE, or narrows float32 "
                             f"to 16-bit with one of {ROUND_MODES[1:]}")
        if mode == "CAST_ODD" and dst != "float16":   # asc-devkit's asc_float2bf16 lists no ODD (issue 43)
            raise ValueError(f"{where}: CAST_ODD narrows float32 to float16 only, not to {dst}")

    def _check_bits(self, step, tensors, where):
        if step.op == "Reinterpret":
            if sorted(tensors) not in (["float16", "int16"], ["bfloat16", "int16"]):
                raise ValueError(f"{where}: a Reinterpret is between int16 and float16 or bfloat16, not "
                                 f"{tensors[1]} to {tensors[0]}")
            return
        if step.op not in BIT_OPS or set(tensors) != {"int16"}:
            raise ValueError(f"{where}: on int16 tensors only {BIT_OPS}, all of int16")
        if step.op == "Duplicate":
            v = float(step.args[1].f32) if isinstance(step.args[1], Const) else None
            if v is None or not (v == int(v) and 0 <= v <= 65535):
                raise ValueError(f"{where}: an int16 Duplicate writes a constant's bits, a whole number 0..65535")

    def _tensor(self, name, where) -> Tensor:
        if not isinstance(name, str) or name not in self.tensors:
            raise ValueError(f"{where}: {name!r} is not a declared tensor")
        return self.tensors[name]

    def _scalars(self, scalars, where):
        for s in scalars:
            if isinstance(s, Product):
                for name, arg in (("a", s.a), ("b", s.b)):
                    if not isinstance(arg, (Attr, Const, Product)):
                        raise ValueError(f"{where}: Product's {name} = {arg!r} must be a scalar: an Attr "
                                         f"(an attribute is Attr(name), not its name), a Const or a Product")
                self._scalars((s.a, s.b), where)
            elif isinstance(s, Attr) and s.name not in self.attrs:
                raise ValueError(f"{where}: attribute {s.name!r} is not one of {self.name}'s {self.attrs}")

    def instructions(self) -> tuple:
        """The instruction names issued, in order, subroutines expanded (the device-time model's list)."""
        out = []
        for step in self.body:
            out.extend(step.program.instructions() if isinstance(step, Call) else (step.op,))
        return tuple(out)

    def subroutines(self) -> tuple:
        """The subroutines called, each once, callees first."""
        seen = []
        for step in self.body:
            if isinstance(step, Call):
                for sub in step.program.subroutines() + (step.program,):
                    if sub not in seen:
                        seen.append(sub)
        return tuple(seen)

    def __str__(self):
        lines = []
        for sub in self.subroutines():
            lines += [_header(sub), *("    " + str(s) for s in sub.body), ""]
        lines += [_header(self), *("    " + str(s) for s in self.body)]
        return "\n".join(lines)


def _header(p: Program) -> str:
    def decl(t):
        return f"{t.dtype} {t.name}"
    head = f"{p.name}({', '.join(decl(t) for t in p.inputs)}) -> {decl(p.output)}"
    if p.attrs:
        head += f"  attrs({', '.join(p.attrs)})"
    if p.locals:
        head += f"  locals({', '.join(decl(t) for t in p.locals)})"
    return head + ":"
