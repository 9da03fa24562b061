"""Level-0 addressing of a float32 vector instruction, lowered to row instructions (issue 39).

An AscendC level-0 call (``Add(dst, src0, src1, mask, repeatTimes, {dstBlkStride, src0BlkStride, src1BlkStride,
dstRepStride, src0RepStride, src1RepStride})``, normal mask mode) runs ``repeat_times`` repeats of 8 blocks of
32 bytes (8 float32 lanes each); lane ``l`` of block ``b`` of repeat ``r`` is at element
``base + r * rep_stride * 8 + b * blk_stride * 8 + l`` of each operand, and runs where bit ``8 * b + l`` of
``mask`` (64 bits) is set. :func:`lower` emits, per repeat and block, one row instruction per run of
consecutive set lanes (:mod:`.rows`), so the row machine runs the call with the semantics it already has.

Model choices (asc-devkit does not spell them out): the repeats run in order, each after the last has written
(a later repeat reads what an earlier one wrote); a repeat whose destination lanes overlap a source lane of
another lane in the same repeat is refused (the device reads a whole repeat before writing it, which
instructions over runs cannot express); a lane written in place (its destination its own source) is allowed.
"""
from __future__ import annotations

__all__ = ["LEVEL0_BINARY", "lower"]

#: The row instructions a level-0 call may name: two sources each.
LEVEL0_BINARY = ("R_ADD", "R_MUL", "R_DIV")
_MAX_REPEAT = 255


def _lanes(mask: int):
    """Per block, the runs ``(first lane, count)`` of set bits."""
    runs = []
    for b in range(8):
        bits = (mask >> (8 * b)) & 0xFF
        block, lane = [], 0
        while lane < 8:
            if bits >> lane & 1:
                start = lane
                while lane < 8 and bits >> lane & 1:
                    lane += 1
                block.append((start, lane - start))
            else:
                lane += 1
        runs.append(block)
    return runs


def _int(value, name, low, high):
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an int in {low}..{high}, got {value!r}")
    return value


def lower(stream, name: str, dst: int, src0: int, src1: int, mask: int, repeat_times: int,
          blk_strides=(1, 1, 1), rep_strides=(8, 8, 8)) -> int:
    """Emit the level-0 call into ``stream`` (anything with ``emit(name, dst, src0, src1, count)``, as the
    kernels' row streams); returns the number of row instructions emitted. ``blk_strides`` and ``rep_strides``
    are (dst, src0, src1), in 32-byte blocks. A ValueError names a bad argument or a refused overlap."""
    if name not in LEVEL0_BINARY:
        raise ValueError(f"name must be one of {', '.join(LEVEL0_BINARY)}, got {name!r}")
    _int(mask, "mask", 1, (1 << 64) - 1)
    _int(repeat_times, "repeat_times", 1, _MAX_REPEAT)
    for i, base in enumerate((dst, src0, src1)):
        _int(base, ("dst", "src0", "src1")[i], 0, 1 << 40)
    if len(blk_strides) != 3 or len(rep_strides) != 3:
        raise ValueError("blk_strides and rep_strides hold (dst, src0, src1)")
    blk = [_int(v, "blk_strides", 0, 255) for v in blk_strides]
    rep = [_int(v, "rep_strides", 0, 255) for v in rep_strides]
    runs = _lanes(mask)
    emitted = 0
    for r in range(repeat_times):
        at = [base + r * rep[i] * 8 for i, base in enumerate((dst, src0, src1))]
        writes, reads = {}, {}
        for b, block in enumerate(runs):
            for first, count in block:
                for lane in range(first, first + count):
                    key = (b, lane)
                    writes[at[0] + b * blk[0] * 8 + lane] = key
                    for i in (1, 2):
                        reads.setdefault(at[i] + b * blk[i] * 8 + lane, set()).add(key)
        for addr, key in writes.items():
            if reads.get(addr, set()) - {key}:
                raise ValueError(f"repeat {r}: destination element {addr} is a source of another lane of the "
                                 f"same repeat (not modelled: the device reads a repeat before writing it)")
        if len(writes) != sum(c for block in runs for _f, c in block):
            raise ValueError(f"repeat {r}: two lanes write the same destination element (dst block stride 0)")
        for b, block in enumerate(runs):
            for first, count in block:
                stream.emit(name, at[0] + b * blk[0] * 8 + first, at[1] + b * blk[1] * 8 + first,
                            at[2] + b * blk[2] * 8 + first, count)
                emitted += 1
    return emitted
