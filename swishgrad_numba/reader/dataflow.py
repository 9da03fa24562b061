"""What a body computes, as one expression per output: a comparison that ignores
tensor names, buffer reuse and the order of independent steps.

:func:`output_expression` follows the steps from the inputs: each tensor holds an
expression (nested tuples); the output's is the result. Operands of a commutative
instruction (Add, Mul, Max, Min, and the product in MulDstAdd) are sorted, which
changes no IEEE result. Inputs are ``("in", k)`` by position, attributes
``("attr", name)`` (through ``attrs``, a renaming), constants their float32 value.
Works on :class:`.description.Body` steps and on the program form's instructions.
"""
from __future__ import annotations

from .instructions import STEP_KINDS

__all__ = ["output_expression"]

_COMMUTATIVE = frozenset(("Add", "Mul", "Max", "Min"))


def output_expression(steps, inputs, output, attrs=None):
    """The output's expression: ``steps`` (``.op``, ``.args``), ``inputs`` (tensor names in
    order), ``output`` (tensor name); ``attrs`` renames attributes (e.g. {"sconf": "beta"})."""
    attrs = attrs or {}
    held = {name: ("in", k) for k, name in enumerate(inputs)}
    for step in steps:
        kinds = STEP_KINDS[step.op]
        ops = []
        for arg, kind in zip(step.args, kinds):
            if kind in "sD":
                if arg not in held:
                    raise ValueError(f"{step}: reads {arg!r} before anything writes it")
                ops.append(held[arg])
            elif kind == "k":
                ops.append(_scalar(arg, attrs))
            elif kind in "mc":
                ops.append(arg)
        if step.op in _COMMUTATIVE:
            ops = sorted(ops, key=repr)
        elif step.op == "MulDstAdd":          # dst * src0 + src1
            ops = sorted(ops[:2], key=repr) + ops[2:]
        held[step.args[0]] = (step.op, *ops)
    return held[output]


def _scalar(arg, attrs):
    if hasattr(arg, "a") and hasattr(arg, "b"):            # a product, computed once
        return ("*", *sorted((_scalar(arg.a, attrs), _scalar(arg.b, attrs)), key=repr))
    if hasattr(arg, "value"):
        return float(arg.value)
    return ("attr", attrs.get(arg.name, arg.name))
