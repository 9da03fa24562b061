"""The instruction set a program is written in: each instruction's operands, in upstream's order.

What each computes is :mod:`.semantics`'; the program form is :mod:`.form`.
"""
from __future__ import annotations

__all__ = ["DTYPES", "ROUND_MODES", "INSTRUCTIONS", "V"]

#: Tensor dtypes a program may hold (the Compare family's masks will add ``uint8``).
DTYPES = ("float32", "float16", "bfloat16")
#: ``AscendC::RoundMode`` values a Cast may name (CAST_NONE: the exact widening).
ROUND_MODES = ("CAST_NONE", "CAST_RINT", "CAST_ROUND")

# Operand kinds: "d" the destination (written), "D" a destination also read
# (MulDstAdd, Axpy), "s" a source tensor, "k" a scalar, "m" a round mode.
#: Every instruction the form knows, by upstream name: its operand kinds in
#: argument order. The ones without semantics yet (:data:`.semantics.DEFINED`)
#: may be written and printed, but not compiled.
INSTRUCTIONS = {
    "Muls": "dsk", "Adds": "dsk", "Maxs": "dsk", "Mins": "dsk",
    "Add": "dss", "Sub": "dss", "Mul": "dss", "Div": "dss", "Max": "dss", "Min": "dss",
    "Exp": "ds", "Ln": "ds", "Abs": "ds", "Reciprocal": "ds", "Neg": "ds",
    "Duplicate": "dk",
    "MulDstAdd": "Dss",
    "Axpy": "Dsk",
    "Cast": "dsm",
}


class _Vocabulary:
    """``V.Muls("xb", "x", Attr("beta"))`` is ``Instr("Muls", ("xb", "x", Attr("beta")))``."""

    def __getattr__(self, op):
        if op not in INSTRUCTIONS:
            raise AttributeError(f"no instruction {op!r}")
        from .form import Instr   # the form's instruction type

        return lambda *args: Instr(op, args)


#: The instructions as constructors, for writing programs.
V = _Vocabulary()
