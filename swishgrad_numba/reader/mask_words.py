"""A Compare mask combined through its 16-bit words (issue 43): ``And``, ``Or`` and ``Not`` on
``mask.ReinterpretCast<uint16_t>()``.

On the device a Compare writes its ``LocalTensor<uint8_t>`` mask one bit per element (asc-devkit
``docs/api/context/Compare.md``), and the A2's ``And``, ``Or`` and ``Not`` take ``int16_t``/``uint16_t``
tensors only (``And.md``: "Atlas A2 ... int16_t, uint16_t"), so a kernel combines two masks through their
16-bit views, over ``count`` words, that is ``16 * count`` elements::

    Or(m1.ReinterpretCast<uint16_t>(), m1.ReinterpretCast<uint16_t>(), m2.ReinterpretCast<uint16_t>(), n / 16);
    Not(m1.ReinterpretCast<uint16_t>(), m1.ReinterpretCast<uint16_t>(), n / 16);

A view is read so only of a mask a Compare wrote (a uint8 tensor of numbers, a Cast's, holds a byte per
element: its words are the bit views' business, :mod:`.bitviews`). Bitwise, word by word, each bit is its
element's: the call is the program form's mask ``And``, ``Or`` or
``Not`` (:data:`swishgrad_numba.program.isa.MASK_BIT_OPS`) of the one-per-element masks, over the elements its
words cover. Its count, in words, is recorded as ``16 * count`` elements, so the launch's schedule
(:mod:`.schedule`) refuses a tile longer than the words cover (``n / 16`` words leave the last ``n % 16``
bits as they were: not what the program computes). The mask's bytes a call reaches are ``ceil(elements /
8)`` (:func:`mask_bytes`), which :mod:`.ub_bounds` and the parts check measure.

Refused at the call: ``Not`` on anything but a mask's 16-bit view (a number's bits through ``Not`` are not
modelled), and a call mixing a mask's view with another tensor.
"""
from __future__ import annotations

from dataclasses import dataclass

from .abstract import Tensor, refuse
from .values import CNum, is_int, render

__all__ = ["MaskWords", "WORD_OPS", "note_mask", "mask_view", "word_call", "all_words", "mask_bytes", "is_mask_operand"]

#: The calls read on a mask's 16-bit words.
WORD_OPS = ("And", "Or", "Not")
#: Elements (bits) per 16-bit word.
_BITS = 16


@dataclass(frozen=True)
class MaskWords(Tensor):
    """``mask.ReinterpretCast<uint16_t>()`` (or ``int16_t``) of a uint8 Compare mask ``key``."""


def note_mask(machine, tensor) -> None:
    """Record that a Compare wrote ``tensor``: a mask of bits, whose words :func:`mask_view` reads."""
    if isinstance(tensor, Tensor):
        machine.__dict__.setdefault("compare_masks", set()).add(tensor.key)


def mask_view(machine, obj, cname: str):
    """The 16-bit view of ``obj`` where it is a uint8 tensor a Compare wrote (:func:`note_mask`) viewed as
    ``uint16_t``/``int16_t``, else None (a uint8 tensor of numbers, a Cast's, holds a byte per element)."""
    if isinstance(obj, Tensor) and obj.dtype == "uint8" and cname in ("uint16_t", "int16_t") \
            and obj.key in machine.__dict__.get("compare_masks", ()):
        return MaskWords(obj.key, "uint8")
    return None


def word_call(node, op, args):
    """``op``'s arguments as a mask instruction's (the views as their masks, the count in elements), or a
    refusal where they are not all a mask's 16-bit views (see the module)."""
    tensors = [a for a in args[:-1] if isinstance(a, Tensor)]
    words = [a for a in tensors if isinstance(a, MaskWords)]
    if not words:
        if op == "Not":
            refuse(node, f"Not on {', '.join(sorted({t.dtype for t in tensors})) or 'no'} tensors",
                   "Not is read on a Compare mask's 16-bit view (mask.ReinterpretCast<uint16_t>()) only")
        return None
    if len(words) != len(tensors):
        refuse(node, f"{op} of a mask's 16-bit view with another tensor", "both operands and the destination are "
               "read as one mask's words each")
    count = args[-1]
    if isinstance(count, CNum):
        if not is_int(count) or count.value < 0:
            refuse(node, f"{op} over {render(node.args[-1])} words", "a whole number of 16-bit words")
        count = CNum(count.value * _BITS, "int")
    return list(args[:-1]) + [count]


def all_words(args) -> bool:
    """Whether every tensor of a call's ``args`` is a mask's 16-bit view (:func:`word_call` checked them)."""
    tensors = [a for a in args if isinstance(a, Tensor)]
    return bool(tensors) and all(isinstance(a, MaskWords) for a in tensors)


def is_mask_operand(op: str, index: int, dtype) -> bool:
    """Whether operand ``index`` of a recorded call (program order) is a mask: a Compare's destination, a
    Select's mask, a mask And / Or / Not's tensors."""
    if dtype != "uint8":
        return False
    return (op in ("Compare", "CompareScalar") and index == 0) or (op in ("Select", "Selects") and index == 3) \
        or op in WORD_OPS


def mask_bytes(elements: int) -> int:
    """The bytes a mask of ``elements`` bits covers."""
    return -(-elements // 8)
