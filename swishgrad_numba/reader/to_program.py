"""A read body as the program form (:mod:`swishgrad_numba.program`, issue 28): one renaming.

Step -> Instr, AttrRef -> Attr, Constant -> Const(value, text), ScalarProduct ->
Product; the body's GM
inputs (those it reads, in the entry's order) are the program's inputs, its
stored tensor the output, every other tensor a local. A widening Cast is
written with CAST_NONE, the one mode the program form takes for it (the
widening is exact whatever the mode).
"""
from __future__ import annotations

from .description import AttrRef, Body, Constant, ScalarProduct

__all__ = ["to_program"]


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
            return Attr(a.name)
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
    return Program(name, inputs, output, local, steps, body.attrs)
