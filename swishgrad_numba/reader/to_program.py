"""A read body as the program form (:mod:`swishgrad_numba.program`, issue 28): one renaming.

Step -> Instr, AttrRef -> Attr, Constant -> Const(value, text), ScalarProduct ->
Product; the body's GM
inputs (those it reads, in the entry's order) are the program's inputs, its
stored tensor the output, every other tensor a local. A widening Cast is
written with CAST_NONE, the one mode the program form takes for it (the
widening is exact whatever the mode). :func:`from_program` is the inverse (a
program as a body, for :mod:`.printer` to write out as Ascend C).

Arithmetic on 16-bit tensors (issue 43; ``Add(z, x, y)`` on half or bfloat16 tensors, the device's native
16-bit instructions): the model is that each instruction's exact result is rounded once to the tensor's
dtype, to nearest even (``sixteen_bit="rint"``, the default). It is written as the float32 instruction
on the operands' exact widenings (``Cast`` CAST_NONE into float32 locals ``<tensor>_f32``), its result
narrowed by one ``Cast`` CAST_RINT. For Add, Sub, Mul, Div, Muls, Adds, Max, Min, Abs, Neg, Reciprocal,
MulDstAdd and Axpy that is the exact result rounded once: their float32 result is either exact or
correctly rounded, and rounding a correctly rounded 24-bit result again to 11 (half) or 8 (bfloat16)
bits gives the one rounding of the exact value (24 >= 2p + 2, the innocuous double rounding of
Figueroa, 1995). For Exp and Ln it is the model's float32 instruction rounded once. A scalar operand has
the tensor's type (``Muls(const LocalTensor<T>&, ..., const T&)``): a constant is rounded to the dtype
(through float32, as a ``2.5f`` literal converted to ``half``) before the instruction; an attribute
scalar on a 16-bit instruction is refused. The alternative, ``sixteen_bit="round"``, narrows to nearest
with ties away from zero (CAST_ROUND); ``sixteen_bit=None`` refuses 16-bit arithmetic, as before.
"""
from __future__ import annotations

import keyword
import re

from .description import AttrRef, Body, Constant, ScalarProduct, Step
from .byte_tensors import BYTE_DTYPES, at_boundary, checked_uses
from .gm_scalars import exact_in
from .instructions import COMPARE_OPS, VECTOR_CALLS

__all__ = ["SIXTEEN_BIT", "to_program", "from_program", "attr_name", "c_attr_name", "rounded_to"]

#: The choices of 16-bit arithmetic (``sixteen_bit=``): the narrowing Cast's round mode, or None (refused).
SIXTEEN_BIT = {"rint": "CAST_RINT", "round": "CAST_ROUND", None: None}
_NARROW = ("float16", "bfloat16")


def attr_name(c_name: str) -> str:
    """The program's name for the attribute (tiling field) ``c_name``: itself where it is a plain ASCII
    Python identifier (the compiled pass makes Python names of it), else ``c_`` and its characters, each
    not an ASCII letter or digit written ``_<hex code>_``: a keyword (``lambda``), a leading underscore,
    a non-ASCII letter (which Python would NFKC-normalise) and a name starting ``c_`` are all written so.
    :func:`c_attr_name` is the inverse."""
    if c_name.isascii() and c_name.isidentifier() and not keyword.iskeyword(c_name) \
            and not c_name.startswith(("_", "c_")):
        return c_name
    return "c_" + "".join(ch if ch.isascii() and ch.isalnum() else f"_{ord(ch):x}_" for ch in c_name)


def c_attr_name(name: str) -> str:
    """The C name of the program's attribute ``name`` (the inverse of :func:`attr_name`)."""
    if not name.startswith("c_"):
        return name
    return re.sub(r"_([0-9a-f]+)_", lambda m: chr(int(m.group(1), 16)), name[2:])


def to_program(body: Body, name: str, sixteen_bit="rint"):
    """``body`` as a :class:`swishgrad_numba.program.Program` named ``name`` (checked when made);
    ``sixteen_bit`` the model of arithmetic on 16-bit tensors (:data:`SIXTEEN_BIT`, module docstring)."""
    from ..program.form import Attr, Const, Instr, Product, Program, Tensor

    if sixteen_bit not in SIXTEEN_BIT:
        raise ValueError(f"sixteen_bit must be one of {list(SIXTEEN_BIT)}, got {sixteen_bit!r}")
    dtypes = dict(body.tensors)
    inputs = tuple(Tensor(t, dtypes[t]) for _, t in body.inputs)
    output = Tensor(body.output[1], dtypes[body.output[1]])
    io = {t.name for t in inputs} | {output.name}
    local = tuple(Tensor(t, dt) for t, dt in body.tensors if t not in io)
    wide = {}           # a 16-bit tensor -> its float32 local

    def operand(a):
        if isinstance(a, AttrRef):
            return Attr(attr_name(a.name))
        if isinstance(a, Constant):
            return Const(a.value, a.text)
        if isinstance(a, ScalarProduct):
            return Product(operand(a.a), operand(a.b))
        return a

    def step(s):
        args = tuple(operand(a) for a in s.args)
        if s.op == "Cast" and dtypes[s.args[0]] == "float32" and dtypes[s.args[1]] != "float32":
            # widening 16-bit to float32 is exact whatever mode the source names (tanh_grad: CAST_RINT)
            args = args[:2] + ("CAST_NONE",)
        elif s.op == "Cast" and dtypes[s.args[1]] == "float32" and dtypes[s.args[0]] in _NARROW \
                and s.args[2] == "CAST_NONE":
            # narrowing with CAST_NONE: the RoundMode page's CAST_NONE is CAST_RINT where precision is lost
            # (as the program form's int32 -> float32; issue 43)
            args = args[:2] + ("CAST_RINT",)
        return Instr("Select" if s.op == "Selects" else s.op, args)

    def widened(t):
        if t not in wide:
            w, k = f"{t}_f32", 0
            while w in dtypes or w in wide.values():
                k += 1
                w = f"{t}_f32_{k}"
            wide[t] = w
        return wide[t]

    def native(s):
        """A 16-bit instruction as float32 on the exact widenings, narrowed once; None where it is not one."""
        from ..program.isa import INSTRUCTIONS, ROUNDED_SIXTEEN_BIT_OPS, SIXTEEN_BIT_OPS
        from .errors import KernelSourceError

        if s.op in COMPARE_OPS:
            return _exact16(s, dtypes, widened, operand, body)
        kinds = INSTRUCTIONS.get(s.op, "")
        exact16 = s.op in SIXTEEN_BIT_OPS and s.op not in ROUNDED_SIXTEEN_BIT_OPS
        rounded16 = s.op in ROUNDED_SIXTEEN_BIT_OPS    # the form takes it natively: refused here where asked
        if (sixteen_bit is None and not rounded16) or exact16 or s.op == "Cast" or len(kinds) != len(s.args):
            return None
        tensors = [a for a, k in zip(s.args, kinds) if k in "dDs" and isinstance(a, str) and a in dtypes]
        kinds16 = {dtypes[t] for t in tensors}
        if not kinds16 or not kinds16 <= set(_NARROW) or len(kinds16) != 1:
            return None                   # float32 (or mixed: the form refuses it)
        dt = kinds16.pop()
        if sixteen_bit is None:
            at = getattr(s, "at", ("", 0))
            raise KernelSourceError(at[0], at[1], f"{s.op} on {dt}", "16-bit arithmetic is refused "
                                    "(sixteen_bit=None)")
        out, args = [], []
        for a, k in zip(s.args, kinds):
            if k in "sD" and a not in [w for w, _ in out]:
                out.append((a, Instr("Cast", (widened(a), a, "CAST_NONE"))))
            if k in "dDs":
                args.append(widened(a))
            elif k == "k" and _exact_in(a, body, dt):     # a T scalar of the dtype (.scalar_puns, .gm_scalars)
                args.append(operand(a))
            elif k == "k":
                if not isinstance(a, Constant):
                    at = getattr(s, "at", ("", 0))
                    raise KernelSourceError(at[0], at[1], f"{s.op} on {dt} with the scalar {a}", "an attribute "
                                            f"converted to {dt} is not modelled (a constant is)")
                args.append(Const(rounded_to(a.value, dt)))
            else:
                args.append(operand(a))
        return [i for _, i in out] + [Instr(s.op, tuple(args)),
                                      Instr("Cast", (s.args[0], widened(s.args[0]), SIXTEEN_BIT[sixteen_bit]))]

    steps = []
    for s in body.steps:
        steps.extend(native(s) or [step(s)])
    if "int16" in dtypes.values():          # ReinterpretCast's bit views kept in step (issue 43, .bitviews)
        from .bitviews import bits_constant, resolve

        steps = resolve([bits_constant(i, dtypes) for i in steps], tuple(t.name for t in inputs), output.name,
                        dict(body.bit_views))
    local = local + tuple(Tensor(w, "float32") for w in wide.values())
    if any(t.dtype in BYTE_DTYPES for t in inputs + (output,)):       # 1-byte GM tensors (.byte_tensors)
        checked_uses(body, body.output[0])
        inputs, output, made, steps = at_boundary(inputs, output, steps, body.dtype)
        local = local + made
    return Program(name, inputs, output, local, tuple(steps), tuple(attr_name(a) for a in body.attrs))


def _exact16(s, dtypes, widened, operand, body=None):
    """A comparison or selection on 16-bit tensors as its float32 instruction on the exact widenings (the
    scalar rounded to the dtype first, as the kernel's ``T``); a selection's result, one of its exact
    sources, narrowed back (exactly). None where its tensors are float32 (the step as it is)."""
    from ..program.form import Const, Instr
    from .errors import KernelSourceError

    kinds = VECTOR_CALLS[s.op]
    values = {dtypes[a] for a, k in zip(s.args, kinds) if k in "ds" and dtypes[a] != "uint8"}
    if not values <= set(_NARROW):
        return None
    if len(values) != 1:
        return None                      # mixed: the form refuses it
    dt = values.pop()
    out, args = [], []
    for a, k in zip(s.args, kinds):
        if k in "ds" and dtypes[a] in _NARROW:
            if k == "s" and all(w != widened(a) for w in (i.args[0] for i in out)):
                out.append(Instr("Cast", (widened(a), a, "CAST_NONE")))
            args.append(widened(a))
        elif k == "k" and _exact_in(a, body, dt):          # a T scalar of the dtype (.scalar_puns, .gm_scalars)
            args.append(operand(a))
        elif k == "k":
            if not isinstance(s.args[kinds.index("k")], Constant):
                raise KernelSourceError(s.at[0], s.at[1], f"{s.op} on {dt} with the scalar {a}", "an attribute "
                                        f"converted to {dt} is not modelled (a constant is)")
            args.append(Const(rounded_to(a.value, dt)))
        else:
            args.append(operand(a))
    out.append(Instr("Select" if s.op == "Selects" else s.op, tuple(args)))
    if kinds[0] == "d" and dtypes[s.args[0]] in _NARROW:
        out.append(Instr("Cast", (s.args[0], widened(s.args[0]), "CAST_RINT")))
    return out


def _exact_in(a, body, dtype) -> bool:
    """Whether the operand ``a`` names a launch scalar of ``body`` that holds a 16-bit ``dtype`` value: a
    ``bfloat16_t`` or ``half`` read from bits (.scalar_puns's BitScalar, whose ``ctype`` is its C type) or a
    GM value read as ``dtype`` (.gm_scalars)."""
    from .values import DTYPE_OF_CTYPE

    if exact_in(body, a, dtype):
        return True
    scalar = dict(getattr(body, "scalars", ()) or ()).get(getattr(a, "name", None))
    return getattr(scalar, "ctype", None) in ("bfloat16_t", "half") and DTYPE_OF_CTYPE[scalar.ctype] == dtype


def rounded_to(value, dtype) -> float:
    """A constant as the kernel's ``T`` scalar: through float32 (a ``2.5f`` literal), then to ``dtype``, to
    nearest even (C++'s float to half or bfloat16_t conversion)."""
    import numpy as np

    from ..dtypes import dtype_info

    with np.errstate(over="ignore"):
        return float(np.float32(value).astype(dtype_info(dtype).numpy).astype(np.float32))


def from_program(program, gm_inputs: tuple, gm_output: str) -> Body:
    """``program`` (straight-line: no Call) as a :class:`.description.Body` whose inputs are read from the GM
    arguments ``gm_inputs`` (in the program's input order) and whose output is stored to ``gm_output``."""
    from ..program.form import Attr, Call, Const, Product

    if len(gm_inputs) != len(program.inputs):
        raise ValueError(f"gm_inputs must name the program's {len(program.inputs)} inputs, got {gm_inputs!r}")

    def operand(a):
        if isinstance(a, Attr):
            return AttrRef(c_attr_name(a.name))
        if isinstance(a, Const):
            return Constant(float(a.f32), a.text)
        if isinstance(a, Product):
            return ScalarProduct(operand(a.a), operand(a.b))
        return a

    steps = []
    for i in program.body:
        if isinstance(i, Call):
            raise ValueError(f"{program.name}: {i} calls a subroutine; only straight-line programs are printed")
        op = "Selects" if i.op == "Select" and not isinstance(i.args[2], str) else i.op
        steps.append(Step(op, tuple(operand(a) for a in i.args)))
    tensors = tuple((t.name, t.dtype) for t in program.inputs + (program.output,) + program.locals)
    return Body(program.inputs[0].dtype if program.inputs else program.output.dtype,
                tuple(zip(gm_inputs, (t.name for t in program.inputs))), (gm_output, program.output.name), tensors,
                tuple(steps), tuple(c_attr_name(a) for a in program.attrs), "", 2)
