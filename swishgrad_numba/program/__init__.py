"""Operators as data: a kernel's Compute as a program of vector instructions.

- :mod:`.form`: the program form (instructions in upstream's names and
  argument order, typed local tensors, attributes and constants,
  subroutines) and its printing;
- :mod:`.semantics`: what each instruction computes, defined once;
- :mod:`.lower`: a program in SSA form, its 16-bit tables chosen;
- :mod:`.passes`: the compiled programs, one per (operator, kernel, dtype,
  variant, overflow mode), each launched on the engine
  (:mod:`swishgrad_numba.engine`) by its route from the walks.
"""
from .form import Attr, Call, Const, Instr, Product, Program, Tensor
from .passes import Compiled, compiled

__all__ = ["Attr", "Call", "Const", "Instr", "Product", "Program", "Tensor", "Compiled", "compiled"]
