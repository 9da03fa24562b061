"""Constant folding of a lowered program's steps before the engine lowers them to a stream.

A float32 ``Duplicate`` of a constant fills a whole row with one value, and every instruction that reads
that row as its last tensor operand reads the same number in every lane. Where an instruction has a
scalar form computed by the same function of :mod:`swishgrad_numba.program.semantics`, :func:`fold`
gives it that form, the constant as its scalar, and drops the Duplicate once nothing reads its row:

- ``Add(x, d)`` or ``Add(d, x)``: ``Adds(x, k)``, both ``saturate(x + k)``;
- ``Mul(x, d)`` or ``Mul(d, x)``: ``Muls(x, k)``, both ``saturate(x * k)``;
- ``Max(x, d)``, ``Min(x, d)``: ``Maxs(x, k)``, ``Mins(x, k)``, both ``max_(x, k)`` (``min_``);
- ``Compare(x, d)``: ``CompareScalar(x, k)``, both ``compare_<mode>(x, k)``; ``Compare(d, x)`` the same
  with the mode mirrored (LT <-> GT, LE <-> GE);
- ``Select(x, d, m)``: ``Select(x, m, k)`` (its scalar form), both ``saturate(x if m else k)``;
- ``Div(d, x)`` with ``k`` 1.0: ``Reciprocal(x)``, both ``saturate(1 / x)``;

where ``d = Duplicate(k)``. Each pair is the same function of the same numbers provided the row holds
``k`` itself: ``duplicate(k, sat)`` (:func:`~swishgrad_numba.program.semantics.duplicate`) is ``k``'s
bits in both overflow modes, which :func:`fold` asks the semantics module for each constant (an infinite
or NaN constant, which saturation changes, is never folded). Where the Duplicate is the first operand,
the operands swap: IEEE 754 addition and multiplication are commutative, a comparison mirrored is the
same predicate (false for a NaN either way), and ``k`` is never a NaN, so a NaN ``x`` is the result's one
NaN operand in either order. An attribute's value is known only at launch: a Duplicate of an attribute
stays. Only float32 values are folded (a 16-bit Duplicate writes the dtype's bits; :mod:`.stream` lowers
16-bit Selects and Compares between widenings).

A step that repeats an earlier one (the same instruction, mode, scalars and result dtype on the same
values: an SSA value never changes; constants compared by their bits, so 0.0 and -0.0 differ) is dropped
and its readers read the earlier result (GeluV2 takes the Abs of one value twice). Nothing else changes:
the same steps compute the same values, minus the rows the Duplicates and the repeats filled.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..program.form import Const, Product
from ..program.isa import MASK_DTYPE
from ..program.lower import Step
from ..program.overflow import saturate

__all__ = ["fold", "ENABLED", "SCALAR_FORMS", "scalar_key"]

#: Whether :mod:`.stream` folds (a benchmark turns it off to compare; the bits are the same either way).
ENABLED = True
#: A two-source step whose second source may become a scalar: its scalar form.
SCALAR_FORMS = {"Add": "Adds", "Mul": "Muls", "Max": "Maxs", "Min": "Mins", "Compare": "CompareScalar"}
#: Those whose first source may become the scalar, the operands swapped: the mode they then take.
_MIRRORED = {("Add", ""): "", ("Mul", ""): "", ("Compare", "LT"): "GT", ("Compare", "GT"): "LT",
             ("Compare", "LE"): "GE", ("Compare", "GE"): "LE", ("Compare", "EQ"): "EQ", ("Compare", "NE"): "NE"}


def _foldable(k) -> bool:
    """Whether a Duplicate of ``k`` fills its row with ``k``'s own bits in both overflow modes. A Duplicate is
    ``saturate(k)`` (:func:`~swishgrad_numba.program.semantics.duplicate`), here its plain Python function:
    preparing a stream loads no compiled code (a fresh process's first call would read it from the disk)."""
    if not isinstance(k, Const):
        return False
    f = np.float32(k.f32)
    return all(np.float32(saturate.py_func(f, sat)).view(np.uint32) == f.view(np.uint32) for sat in (False, True))


def fold(steps: tuple, values: dict, keep: int) -> tuple:
    """``steps`` with every float32 Duplicate of a constant folded into the instructions that read it
    (the table above), a repeated step replaced by its first, and the Duplicates nothing reads any more
    dropped; ``keep``: the value computed (never dropped)."""
    dtype = {v: values[v].dtype for s in steps for v in (s.dst,) + tuple(s.srcs)}
    dups = {s.dst: s.scalars[0] for s in steps
            if s.op == "Duplicate" and dtype[s.dst] == "float32" and _foldable(s.scalars[0])}
    out, seen, alias = [], {}, {}
    for s in steps:
        s = _folded(s, dups, dtype) if dups else s
        if any(v in alias for v in s.srcs):
            s = replace(s, srcs=tuple(alias.get(v, v) for v in s.srcs))
        key = (s.op, s.srcs, tuple(scalar_key(k) for k in s.scalars), s.mode, dtype[s.dst])
        if key in seen and s.dst != keep:   # computed before: the same function of the same values
            alias[s.dst] = seen[key]
            continue
        seen.setdefault(key, s.dst)
        out.append(s)
    read = {keep}
    kept = []
    for s in reversed(out):   # drop what nothing reads (the folded Duplicates)
        if s.dst in read or s.op != "Duplicate":
            read.update(s.srcs)
            kept.append(s)
    return tuple(reversed(kept))


def _folded(s: Step, dups: dict, dtype: dict) -> Step:
    if len(s.srcs) == 2 and s.op in SCALAR_FORMS and (s.srcs[1] in dups or (s.op, s.mode) in _MIRRORED):
        x, d = s.srcs
        mode = s.mode
        if d not in dups:   # the Duplicate first: the operands swapped
            d, x, mode = x, d, _MIRRORED[s.op, s.mode]
        result = MASK_DTYPE if s.op == "Compare" else "float32"
        if d in dups and dtype[x] == "float32" and dtype[s.dst] == result:
            return Step(SCALAR_FORMS[s.op], s.dst, (x,), (dups[d],), mode)
    if s.op == "Div" and s.srcs[0] in dups and _is_one(dups[s.srcs[0]]):
        x = s.srcs[1]
        if dtype[x] == "float32" and dtype[s.dst] == "float32":
            return Step("Reciprocal", s.dst, (x,), ())
    if s.op == "Select" and s.mode == "tensor" and s.srcs[1] in dups:
        x, d, m = s.srcs
        if dtype[x] == "float32" and dtype[s.dst] == "float32" and dtype[m] == MASK_DTYPE:
            return Step("Select", s.dst, (x, m), (dups[d],), "scalar")
    return s


def _is_one(k: Const) -> bool:
    return np.float32(k.f32).view(np.uint32) == np.float32(1.0).view(np.uint32)


def scalar_key(k):
    """A scalar operand as a key: a constant by its float32 bits (``Const(0.0) == Const(-0.0)``, and a NaN
    constant is not equal to itself)."""
    if isinstance(k, Const):
        return "const", int(np.float32(k.f32).view(np.uint32))
    if isinstance(k, Product):
        return "product", scalar_key(k.a), scalar_key(k.b)
    return k
