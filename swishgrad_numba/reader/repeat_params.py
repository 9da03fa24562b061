"""Level-0 repeat parameters as named structs (issue 43): ``UnaryRepeatParams unary;`` filled field by
field, or ``BinaryRepeatParams binary{1, 1, 1, 8, 8, 8};``, then passed to a level-0 call
(:mod:`.level0`), as kernels outside ops-nn write them.

A default-constructed struct holds the basic API's defaults: block stride 1 and repeat stride 8 for every
operand (``DEFAULT_BLK_STRIDE``, ``DEFAULT_REPEAT_STRIDE``); a braced or constructor initialiser gives
every field in declaration order, destination first, the block strides then the repeat strides. The
struct reaches :func:`.level0.level0_call` as the tuple a braced argument gives.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .abstract import refuse
from .values import CNum

__all__ = ["REPEAT_PARAMS", "RepeatParams", "construct", "set_member"]

#: The structs by name: their fields in declaration order.
REPEAT_PARAMS = {
    "UnaryRepeatParams": ("dstBlkStride", "srcBlkStride", "dstRepStride", "srcRepStride"),
    "BinaryRepeatParams": ("dstBlkStride", "src0BlkStride", "src1BlkStride", "dstRepStride", "src0RepStride",
                           "src1RepStride"),
}
_DEFAULT_BLK, _DEFAULT_REP = 1, 8


@dataclass(eq=False)
class RepeatParams:
    """One repeat-parameters struct being filled: ``members`` field -> value."""
    kind: str
    members: dict = field(default_factory=dict)

    def values(self) -> tuple:
        return tuple(self.members[f] for f in REPEAT_PARAMS[self.kind])


def construct(node, kind, args) -> RepeatParams:
    fields = REPEAT_PARAMS[kind]
    if args and len(args) != len(fields):
        refuse(node, f"{kind} with {len(args)} values", f"it has {len(fields)} fields: {', '.join(fields)}")
    if not args:
        args = [CNum(_DEFAULT_BLK if "Blk" in f else _DEFAULT_REP, "uint8_t") for f in fields]
    return RepeatParams(kind, dict(zip(fields, args)))


def set_member(machine, target, value, node) -> bool:
    """``params.field = value`` on a repeat-parameters struct: True where done."""
    if type(target).__name__ != "Member":
        return False
    obj = machine.eval(target.obj)
    if not isinstance(obj, RepeatParams):
        return False
    if target.name not in obj.members:
        refuse(node, f"{obj.kind}.{target.name}", f"not a field of {obj.kind}")
    obj.members[target.name] = value
    return True
