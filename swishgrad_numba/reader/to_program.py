"""A read body as the program form (:mod:`swishgrad_numba.program`, issue 28): one renaming.

Step -> Instr, AttrRef -> Attr, Constant -> Const(value, text), ScalarProduct ->
Product; the body's GM
inputs (those it reads, in the entry's order) are the program's inputs, its
stored tensor the output, every other tensor a local. A widening Cast is
written with CAST_NONE, the one mode the program form takes for it (the
widening is exact whatever the mode). :func:`from_program` is the inverse (a
program as a body, for :mod:`.printer` to write out as Ascend C).
"""
from __future__ import annotations

import keyword
import re

from .description import AttrRef, Body, Constant, ScalarProduct, Step

__all__ = ["to_program", "from_program", "attr_name", "c_attr_name"]


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


def to_program(body: Body, name: str):
    """``body`` as a :class:`swishgrad_numba.program.Program` named ``name`` (checked when made)."""
    from ..program.form import Attr, Const, Instr, Product, Program, Tensor

    dtypes = dict(body.tensors)
    inputs = tuple(Tensor(t, dtypes[t]) for _, t in body.inputs)
    output = Tensor(body.output[1], dtypes[body.output[1]])
    io = {t.name for t in inputs} | {output.name}
    local = tuple(Tensor(t, dt) for t, dt in body.tensors if t not in io)

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
        return Instr(s.op, args)

    steps = tuple(step(s) for s in body.steps)
    return Program(name, inputs, output, local, steps, tuple(attr_name(a) for a in body.attrs))


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
        steps.append(Step(i.op, tuple(operand(a) for a in i.args)))
    tensors = tuple((t.name, t.dtype) for t in program.inputs + (program.output,) + program.locals)
    return Body(program.inputs[0].dtype if program.inputs else program.output.dtype,
                tuple(zip(gm_inputs, (t.name for t in program.inputs))), (gm_output, program.output.name), tensors,
                tuple(steps), tuple(c_attr_name(a) for a in program.attrs), "", 2)
