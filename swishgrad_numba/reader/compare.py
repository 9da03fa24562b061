"""The A2 basic API's comparisons and selection (issue 43), read in their own argument order.

- ``Compare(mask, src0, src1, CMPMODE::LT, count)`` and ``CompareScalar(mask, src0, scalar, mode, count)``
  write a ``LocalTensor<uint8_t>`` mask, one bit per element on the device; the program form keeps one
  0/1 per element (:data:`swishgrad_numba.program.isa.MASK_DTYPE`), which is the same element by element.
- ``Select(dst, mask, src0, src1, SELMODE::VSEL_TENSOR_TENSOR_MODE, count)``: ``src0`` where the mask's bit
  is set, else ``src1``; with ``VSEL_TENSOR_SCALAR_MODE`` the fourth argument is a scalar.
  ``VSEL_CMPMASK_SPR`` (the mask left in a register by a level-0 Compare) is refused, as are the level-0
  forms (mask and repeat parameters) of all three.

Each is recorded in the program form's order, ``Compare(mask, src0, src1, mode)`` and
``Select(dst, src0, src1, mask)`` (``Selects`` where ``src1`` is a scalar). Their results are exact (a
comparison, a picked element), so on half and bfloat16 tensors they are the float32 instruction on the
exact widenings (:mod:`.to_program`).
"""
from __future__ import annotations

from .abstract import Mode, Tensor, refuse
from .mask_words import note_mask
from .select_views import unview

__all__ = ["compare_call"]

_CMP = ("LT", "GT", "EQ", "LE", "GE", "NE")
_SEL = {"VSEL_TENSOR_TENSOR_MODE": "Select", "VSEL_TENSOR_SCALAR_MODE": "Selects"}


def compare_call(machine, node, ident, args):
    """Record ``ident`` (Compare, CompareScalar or Select) called with the evaluated ``args``; ``Compares``
    (asc-devkit's other name of the scalar comparison, ops-nn ``shrink.h:150``) is CompareScalar (issue 43)."""
    if ident == "Compares":
        ident = "CompareScalar"
    if ident in ("Compare", "CompareScalar"):
        if len(args) != 5:
            refuse(node, f"{ident} with {len(args)} arguments", "the reader knows (dst, src0, src1, CMPMODE, "
                   "count); the level-0 forms (mask, repeat parameters) and the CMPMASK register are not read")
        _mask(node, ident, args[0])
        note_mask(machine, args[0])            # its words may be combined (.mask_words)
        mode = args[3]
        if not isinstance(mode, Mode) or mode.kind != "CMPMODE" or mode.name not in _CMP:
            refuse(node, f"{ident} mode", f"not an AscendC::CMPMODE ({', '.join(_CMP)})")
        return machine.vector_call(node, ident, args[:3] + [mode.name, args[4]], trailing=(1,), counted=True)
    if len(args) != 6:
        refuse(node, f"Select with {len(args)} arguments", "the reader knows (dst, selMask, src0, src1, SELMODE, "
               "count); the level-0 forms (mask, repeat parameters) are not read")
    _mask(node, "Select", args[1])
    mode = args[4]
    if not isinstance(mode, Mode) or mode.kind != "SELMODE" or mode.name not in _SEL:
        name = mode.name if isinstance(mode, Mode) else "mode"
        refuse(node, f"Select {name}", f"the reader knows {' and '.join(_SEL)} (VSEL_CMPMASK_SPR reads a mask "
               "register a level-0 Compare set)")
    op = _SEL[mode.name]
    args = unview(machine, node, op, [args[0], args[2], args[3], args[1], args[5]])   # half views: .select_views
    return machine.vector_call(node, op, args, trailing=(1,), counted=True)


def _mask(node, op, arg):
    if isinstance(arg, Tensor) and arg.dtype != "uint8":
        refuse(node, f"{op} with a mask of {arg.dtype}", "the reader reads a comparison's mask as a "
               "LocalTensor<uint8_t>")
