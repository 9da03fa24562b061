"""AscendC level-0 vector calls in an A2 kernel: a mask and repeat parameters (issue 43).

The forms read, in the basic API's argument order::

    Add(dst, src0, src1, mask, repeatTimes, {dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep});
    Muls(dst, src, scalar, mask, repeatTimes, {dstBlk, srcBlk, dstRep, srcRep});
    Exp(dst, src, mask, repeatTimes, {dstBlk, srcBlk, dstRep, srcRep});

with ``mask`` a number (the continuous mask of the normal mask mode) and the repeat parameters a braced
``BinaryRepeatParams`` / ``UnaryRepeatParams`` initialiser. A repeat is 256 bytes, 8 blocks of 32 bytes:
lane ``l`` (``l < mask``) of repeat ``r`` of an operand is its element ``r * repStride * B + (l // B) *
blkStride * B + l % B`` (``B`` = 32 bytes over the element size); the elements no lane reaches are untouched.

The program form computes a whole tile, element ``i`` of every operand together. A call is read as a step
where that is what it computes: every operand's lanes are its elements ``0 .. repeatTimes * mask`` in the
same order, that is ``blkStride`` 1 wherever a repeat spans several blocks, and ``repStride * 32`` bytes
equal to ``mask`` elements wherever there are several repeats (the contiguous defaults ``{1, .., 8, ..}``
with a full mask, 64 float32 or 128 half; or a partial mask with a repeat stride to match). The step's
count is ``repeatTimes * mask``, checked against the tile as a level-2 call's count is. Anything else
(gaps between repeats, strided blocks, overlapping repeats, a bit-mode ``uint64_t mask[2]``, the counter
mask mode after ``SetMaskCount``) is refused at its line with the reason.
"""
from __future__ import annotations

from .abstract import Tensor, refuse
from .repeat_params import RepeatParams
from .values import CNum, is_int, render

__all__ = ["LEVEL0_CALLS", "level0_call", "is_level0"]

#: The calls read in their level-0 form (operand kinds as :data:`.instructions.VECTOR_CALLS`).
LEVEL0_CALLS = frozenset("Add Sub Mul Div Max Min Muls Adds Maxs Mins Exp Ln Abs Reciprocal Sqrt".split())
_SIZES = {"float32": 4, "float16": 2, "bfloat16": 2}
_REPEAT_BYTES, _BLOCK_BYTES, _MAX_REPEAT = 256, 32, 255


def is_level0(ident, kinds, args) -> bool:
    """Whether a vector call's arguments are a level-0 form: three past the operands, the last braced."""
    return ident in LEVEL0_CALLS and len(args) == len(kinds) + 3


def level0_call(machine, node, op, kinds, args):
    """Record ``op``'s level-0 call as a step over ``repeatTimes * mask`` elements (see the module)."""
    n = len(kinds)
    mask, repeat, params = args[n], args[n + 1], args[n + 2]
    tensors = [a for a in args[:n] if isinstance(a, Tensor)]
    if getattr(machine, "mask_counter", False):
        refuse(node, f"{op} in the counter mask mode", "after SetMaskCount the mask is a total count and "
               "repeatTimes is ignored: not read")
    if isinstance(mask, tuple):
        refuse(node, f"{op} with a bit-mode mask ({render(node.args[n])})", "the uint64_t mask[2] form "
               "(lanes chosen bit by bit) is not read: pass the count of leading lanes")
    if not is_int(mask):
        refuse(node, f"{op} mask {render(node.args[n])}", "not a constant integer when the kernel is read")
    size = _SIZES.get(tensors[0].dtype if tensors else None)
    if size is None:
        refuse(node, f"{op} on {tensors[0].dtype if tensors else 'no tensor'}", "level-0 calls are read on "
               "float32, float16 and bfloat16 tensors")
    lanes, per_block = _REPEAT_BYTES // size, _BLOCK_BYTES // size
    if not 1 <= mask.value <= lanes:
        refuse(node, f"{op} mask {mask.value}", f"a continuous mask of {tensors[0].dtype} is 1..{lanes}")
    operands = sum(1 for k in kinds if k in "dDs")
    strides = _strides(node, op, params, operands, n)
    if is_int(repeat) and not 1 <= repeat.value <= _MAX_REPEAT:
        refuse(node, f"{op} repeatTimes {repeat.value}", f"a uint8_t of 1..{_MAX_REPEAT} (0 computes nothing)")
    if isinstance(repeat, CNum) and not is_int(repeat):
        refuse(node, f"{op} repeatTimes {render(node.args[n + 1])}", "not an integer")
    one_repeat = is_int(repeat) and repeat.value == 1
    for i, (blk, rep) in enumerate(strides):
        if mask.value > per_block and blk != 1:
            refuse(node, f"{op} operand {i} block stride {blk}", "lanes of a repeat in blocks apart (or on one "
                   "block) are not a tile's consecutive elements")
        if not one_repeat and rep * _BLOCK_BYTES != mask.value * size:
            refuse(node, f"{op} operand {i} repeat stride {rep}", f"{rep * _BLOCK_BYTES} bytes between repeats "
                   f"of {mask.value} lanes ({mask.value * size} bytes): the repeats are not one range of the "
                   "tile (gaps or overlaps)")
    # a repeat count known only at run time stands for the count, as a level-2 call's run-time count does
    count = CNum(repeat.value * mask.value, "int64_t") if is_int(repeat) else repeat
    return machine.vector_call(node, op, list(args[:n]) + [count], trailing=(1,), counted=True)


def _strides(node, op, params, operands, n):
    """Each tensor operand's ``(blkStride, repStride)``, destination first, from the braced parameters."""
    if isinstance(params, RepeatParams):          # a named UnaryRepeatParams / BinaryRepeatParams
        params = params.values()
    if not isinstance(params, tuple):
        refuse(node, f"{op} repeat parameters {render(node.args[n + 2])}", "read as a braced initialiser "
               "({dstBlkStride, srcBlkStride.., dstRepStride, srcRepStride..})")
    if len(params) != 2 * operands:
        refuse(node, f"{op} repeat parameters with {len(params)} values", f"{op} takes {2 * operands} "
               f"({operands} block strides, then {operands} repeat strides)")
    items = getattr(node.args[n + 2], "items", None) or [node.args[n + 2]] * len(params)
    for v, item in zip(params, items):
        if not is_int(v) or not 0 <= v.value <= 255:
            refuse(node, f"{op} repeat parameter {render(item)}", "not a constant stride of 0..255")
    return [(params[i].value, params[operands + i].value) for i in range(operands)]
