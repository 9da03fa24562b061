"""The program of an element-wise kernel from its float32 Compute, per dtype.

Every element-wise kernel we emulate computes in float32: a float32 input
is read as is, a 16-bit one widened exactly first (``Cast(CAST_NONE)``),
and a 16-bit result narrowed last with the kernel's round mode. An operator
writes its Compute once, on float32 names, and :func:`elementwise` makes
the program of each dtype from it.
"""
from __future__ import annotations

from .form import Attr, Instr, Product, Program, Tensor
from .isa import INSTRUCTIONS, MASK_DTYPE

__all__ = ["elementwise"]


def _attrs_of(scalar) -> tuple:
    if isinstance(scalar, Attr):
        return (scalar.name,)
    if isinstance(scalar, Product):
        return _attrs_of(scalar.a) + _attrs_of(scalar.b)
    return ()


def _renamed(step: Instr, names: dict) -> Instr:
    return Instr(step.op, tuple(names.get(a, a) if isinstance(a, str) else a for a in step.args))


def elementwise(name: str, inputs: tuple, body: tuple, result: str, dtype: str, narrowing: str = "CAST_RINT",
                output: str = "out", input_dtypes: tuple | None = None, masks: tuple = ()) -> Program:
    """The program ``name`` of float32 ``body`` with output dtype ``dtype``.

    ``inputs``: ``((input, local), ...)`` in the kernel's input order: the program's input tensor and the
    float32 name the body reads it by; their dtypes are ``input_dtypes`` (all ``dtype`` by default).
    ``result``: the float32 name the body leaves the result in. A float32 input is read by the body
    directly (its local renamed to it), a 16-bit one widened into its local first; a float32 result is
    written to ``output`` directly, a 16-bit one narrowed into it last by ``narrowing``. Every other name
    the body uses is a float32 local, declared in order of first use; the attributes are those its
    scalars read. ``masks``: the locals that hold Compare masks (:data:`.isa.MASK_DTYPE`).
    """
    input_dtypes = (dtype,) * len(inputs) if input_dtypes is None else tuple(input_dtypes)
    names = {local: tensor for (tensor, local), d in zip(inputs, input_dtypes) if d == "float32"}
    if dtype == "float32":
        names[result] = output
    steps = (tuple(Instr("Cast", (local, tensor, "CAST_NONE"))
                   for (tensor, local), d in zip(inputs, input_dtypes) if d != "float32")
             + tuple(_renamed(step, names) for step in body)
             + ((Instr("Cast", (output, result, narrowing)),) if dtype != "float32" else ()))
    given = {tensor for tensor, _local in inputs} | {output}
    locals_, attrs = [], []
    for step in steps:
        for arg, kind in zip(step.args, INSTRUCTIONS[step.op]):
            if kind in "dDs" and arg not in given and arg not in locals_:
                locals_.append(arg)
            for attr in _attrs_of(arg):
                if attr not in attrs:
                    attrs.append(attr)
    return Program(name, tuple(Tensor(t, d) for (t, _local), d in zip(inputs, input_dtypes)),
                   Tensor(output, dtype), tuple(Tensor(n, MASK_DTYPE if n in masks else "float32") for n in locals_),
                   steps, tuple(attrs))
