"""SiluGrad's Compute as a program (:mod:`swishgrad_numba.program`), both kernels.

The A2 kernel (``op_kernel/silu_grad.h``, docs/model.md "SiluBackward"):
``z(x) = s * (1 + x * (1 - s))`` with ``s`` the sigmoid, then ``dx = dy * z``.
The 950 runs the same steps (its products commute) on the broadcast walk
(``Kernel.walk``), where ``dy`` and ``x`` may differ in dtype: its program
is then keyed ``"<dy>_<x>"`` and writes float32.
"""
from __future__ import annotations

from ...program import Program
from ...program.elementwise import elementwise
from ...program.form import V

__all__ = ["programs", "device_instructions"]

_BODY = (V.Muls("t", "xf", -1.0), V.Exp("t", "t"), V.Adds("t", "t", 1.0),
         V.Duplicate("one", 1.0), V.Div("s", "one", "t"),               # sigmoid(x)
         V.Sub("t", "one", "s"), V.Mul("t", "xf", "t"), V.Adds("t", "t", 1.0), V.Mul("z", "s", "t"),   # z(x)
         V.Mul("y", "dyf", "z"))


def programs(architecture: str, dtype: str, variant: str = "main") -> Program:
    """SiluGrad's program for ``dtype`` (inputs ``dy``, ``x``), or on the 950 for ``"<dy>_<x>"`` where
    their dtypes differ (the output is then float32): 16-bit inputs widened first (CAST_NONE), a 16-bit
    result narrowed last (CAST_RINT)."""
    inputs = (("dy", "dyf"), ("x", "xf"))
    if "_" in dtype:
        return elementwise("SiluGrad", inputs, _BODY, "y", "float32", input_dtypes=tuple(dtype.split("_")))
    return elementwise("SiluGrad", inputs, _BODY, "y", dtype)


def device_instructions(architecture: str, tiling, itemsize: int) -> tuple:
    """The vector instructions of one tile for the device-time model: the program's (a 16-bit one
    has the widening Casts of dy and x in front and the narrowing one after)."""
    return programs(architecture, "float32" if itemsize == 4 else "float16").instructions()
