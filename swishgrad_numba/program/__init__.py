"""Operators as data: a kernel's Compute as a program of vector instructions.

- :mod:`.form`: the program form (instructions in upstream's names and
  argument order, typed local tensors, attributes and constants,
  subroutines) and its printing;
- :mod:`.semantics`: what each instruction computes, defined once;
- :mod:`.lower`, :mod:`.compiler`: a program in SSA form, its 16-bit tables
  chosen, then as the walk's pass function;
- :mod:`.passes`: the compiled passes, one per (operator, kernel, dtype,
  variant, overflow mode), registered with the walk and disk-cacheable.
"""
from .form import Attr, Call, Const, Instr, Product, Program, Tensor
from .passes import Compiled, compiled

__all__ = ["Attr", "Call", "Const", "Instr", "Product", "Program", "Tensor", "Compiled", "compiled"]
