"""SiluGrad's Compute as a program (:mod:`swishgrad_numba.program`), both kernels.

The A2 kernel (``op_kernel/silu_grad.h``, docs/model.md "SiluBackward"):
``z(x) = s * (1 + x * (1 - s))`` with ``s`` the sigmoid, then ``dx = dy * z``.
The 950 runs the same steps (its products commute); on the broadcast walk
its inputs may differ in dtype, which the compiled pass does not take yet,
so the 950 still launches the hand-written pass.
"""
from __future__ import annotations

from ...program import Program, Tensor
from ...program.form import V

__all__ = ["programs", "device_instructions"]

_BODY = (V.Muls("t", "xf", -1.0), V.Exp("t", "t"), V.Adds("t", "t", 1.0),
         V.Duplicate("one", 1.0), V.Div("s", "one", "t"),               # sigmoid(x)
         V.Sub("t", "one", "s"), V.Mul("t", "xf", "t"), V.Adds("t", "t", 1.0), V.Mul("z", "s", "t"),   # z(x)
         V.Mul("y", "dyf", "z"))


def programs(architecture: str, dtype: str, variant: str = "main") -> Program:
    """SiluGrad's program for ``dtype`` (inputs ``dy``, ``x``): 16-bit inputs widened first (CAST_NONE),
    the result narrowed last (CAST_RINT)."""
    f32 = tuple(Tensor(n) for n in ("t", "one", "s", "z"))
    if dtype == "float32":
        names = {"xf": "x", "dyf": "dy", "y": "out"}
        body = tuple(type(i)(i.op, tuple(names.get(a, a) if isinstance(a, str) else a for a in i.args))
                     for i in _BODY)
        return Program("SiluGrad", (Tensor("dy"), Tensor("x")), Tensor("out"), f32, body)
    return Program("SiluGrad", (Tensor("dy", dtype), Tensor("x", dtype)), Tensor("out", dtype),
                   f32 + (Tensor("dyf"), Tensor("xf"), Tensor("y")),
                   (V.Cast("dyf", "dy", "CAST_NONE"), V.Cast("xf", "x", "CAST_NONE")) + _BODY
                   + (V.Cast("out", "y", "CAST_RINT"),))


def device_instructions(architecture: str, tiling, itemsize: int) -> tuple:
    """The vector instructions of one tile for the device-time model: the program's (a 16-bit one
    has the widening Casts of dy and x in front and the narrowing one after)."""
    return programs(architecture, "float32" if itemsize == 4 else "float16").instructions()
