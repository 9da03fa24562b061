"""The row machine's checks (:mod:`.rows`): a row program and its schedule refused, before anything runs, where an
instruction's opcode, count, scalar index or mode is out of range, an arena access leaves the arena, or a global
access leaves its segment for any tile that runs it.

:func:`check` vets a launch in one compiled pass (:func:`_first_fault`, its sums kept from wrapping); only where
that finds a fault do the rules run one by one in Python, exactly (:func:`check_rules`), and name the first broken.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..dtypes import BFLOAT16, FLOAT16
from . import opcodes as O

__all__ = ["MAX_SEGMENTS", "check", "check_rules"]

(GM_IN, GM_OUT, DUP, ADD, MUL, DIV, MULS, ADDS, MULS_AT, SQRT, MULS_ADDS_FUSED, CAST_RINT, REPEAT_SUM,
 BLOCK_SUM, BRCB, REDUCE_SUM, MULA, SET_IF_EQ, RSQRT_F64) = (O.ROW_OPCODES[n] for n in O.ROW_NAMES[:19])
REPEAT_EXTREME, BLOCK_EXTREME, REDUCE_EXTREME = (O.ROW_OPCODES[n] for n in ("R_REPEAT_EXTREME", "R_BLOCK_EXTREME",
                                                                          "R_REDUCE_EXTREME"))
EXP = O.ROW_OPCODES["R_EXP"]
_CODES_16 = (FLOAT16.code, BFLOAT16.code)

#: The most global segments a row program has (RmsNorm's x, gamma, y and rstd), each its own array or all one.
MAX_SEGMENTS = 4


def _extents(op, n):
    """(dst, src0, src1) arena extents an instruction touches; None: not an arena offset."""
    if op == GM_IN:
        return n, None, None
    if op == GM_OUT:
        return None, n, None
    if op == DUP:
        return n, None, None
    if op in (ADD, MUL, DIV, MULA):
        return n, n, n
    if op == MULS_AT:
        return n, n, 1
    if op in (MULS, ADDS, SQRT, MULS_ADDS_FUSED, CAST_RINT, SET_IF_EQ, RSQRT_F64, EXP):
        return n, n, None
    if op in (REPEAT_SUM, REDUCE_SUM, REPEAT_EXTREME, REDUCE_EXTREME):
        return 1, n, None
    if op in (BLOCK_SUM, BLOCK_EXTREME):
        return n, 8 * n, None
    return 8 * n, n, None   # BRCB


def _modes(op: int, k: int):
    """The modes instruction ``op`` takes with ``k`` global segments."""
    return (range(k) if op in (GM_IN, GM_OUT) else range(len(O.REDUCE_ORDERS))
            if op in (REPEAT_SUM, BLOCK_SUM, REDUCE_SUM) else _CODES_16 if op == CAST_RINT
            else (0, 1) if op in (MULA, REPEAT_EXTREME, BLOCK_EXTREME, REDUCE_EXTREME) else (0,))


_FIRST_OP = min(O.ROW_OPCODES.values())
_OPS = np.arange(_FIRST_OP, _FIRST_OP + len(O.ROW_OPCODES))
# each instruction's arena extents as mul * count + add per field (dst, src0, src1), used or not: from _extents
_EXT = np.array([[(e2 - e1, 2 * e1 - e2, 1) if e1 is not None else (0, 0, 0)
                  for e1, e2 in zip(_extents(op, 1), _extents(op, 2))] for op in _OPS], np.int64)
_MODE_LIMIT = 1 + max(max(_modes(op, MAX_SEGMENTS), default=0) for op in _OPS)


def _mode_table(k: int) -> np.ndarray:
    table = np.zeros((len(_OPS), _MODE_LIMIT), bool)
    for i, op in enumerate(_OPS):
        table[i, list(_modes(int(op), k))] = True
    return table


_MODE_TABLES = {k: _mode_table(k) for k in range(MAX_SEGMENTS + 1)}
_SMALL = 1 << 48


@njit(cache=True)
def _first_fault(code, stream_ptr, n_scalars, arena_len, segments, tiles, core_ptr, modes, ext):
    """-1 where the streams and the schedule keep every one of :func:`check`'s rules, else the first instruction
    that breaks one (-2: the schedule or a pointer array); :func:`check`'s own loop then names the rule.
    ``modes``, ``ext``: the mode table for these segments and the extents table, by opcode less ``_FIRST_OP``."""
    streams, k = stream_ptr.shape[0] - 1, segments.shape[0]
    # every offset, count and length below _SMALL, so no sum of a few of them wraps (else the loop decides)
    if not 0 <= arena_len < _SMALL:
        return -2
    for j in range(k):
        if not (0 <= segments[j, 0] < _SMALL and 0 <= segments[j, 1] < _SMALL):
            return -2
    for pc in range(code.shape[0]):
        for f in range(1, 5):
            if not 0 <= code[pc, f] < _SMALL:
                return pc
    if n_scalars < 1 or core_ptr[0] != 0 or core_ptr[-1] != tiles.shape[0] or stream_ptr[0] != 0 \
            or stream_ptr[-1] != code.shape[0]:
        return -2
    for c in range(core_ptr.shape[0] - 1):
        if core_ptr[c + 1] < core_ptr[c]:
            return -2
    for s in range(streams):
        if stream_ptr[s + 1] < stream_ptr[s]:
            return -2
    for t in range(tiles.shape[0]):
        if tiles[t, 0] < 0 or tiles[t, 0] >= streams:
            return -2
        for j in range(k):
            if tiles[t, 1 + j] < segments[j, 0] or tiles[t, 1 + j] > segments[j, 0] + segments[j, 1]:
                return -2
    big = np.iinfo(np.int64).max
    lo = np.full((streams, k), big, np.int64)          # each stream's least and greatest tile base per segment
    hi = np.full((streams, k), -big, np.int64)
    for t in range(tiles.shape[0]):
        for j in range(k):
            lo[tiles[t, 0], j] = min(lo[tiles[t, 0], j], tiles[t, 1 + j])
            hi[tiles[t, 0], j] = max(hi[tiles[t, 0], j], tiles[t, 1 + j])
    for s in range(streams):
        for pc in range(stream_ptr[s], stream_ptr[s + 1]):
            op, n, mode = code[pc, 0], code[pc, 4], code[pc, 7]
            i = op - _FIRST_OP
            if i < 0 or i >= modes.shape[0] or n < 1 or ((op == REPEAT_SUM or op == REPEAT_EXTREME) and n > 64):
                return pc
            if not (0 <= code[pc, 5] < n_scalars and 0 <= code[pc, 6] < n_scalars):
                return pc
            if mode < 0 or mode >= modes.shape[1] or not modes[i, mode]:
                return pc
            for f in range(3):
                off = code[pc, 1 + f]
                if ext[i, f, 2] and (off < 0 or off + ext[i, f, 0] * n + ext[i, f, 1] > arena_len):
                    return pc
            if (op == GM_IN or op == GM_OUT) and lo[s, mode] <= hi[s, mode]:
                rel = code[pc, 2] if op == GM_IN else code[pc, 1]
                if rel < 0 or lo[s, mode] + rel < segments[mode, 0] \
                        or hi[s, mode] + rel + n > segments[mode, 0] + segments[mode, 1]:
                    return pc
    return -1


def check(code, stream_ptr, scalars, arena_len: int, segments, tiles, core_ptr) -> None:
    """Refuse a malformed row program or schedule (ValueError) before it runs. ``segments``: ``(k, 2)`` start
    and length of each global segment; ``tiles``: ``(t, 1 + k)`` stream index and one base per segment."""
    code, tiles, segments = np.asarray(code), np.asarray(tiles), np.asarray(segments)
    if code.ndim != 2 or code.shape[1] != O.FIELDS or code.dtype != np.int64:
        raise ValueError(f"row stream: an int64 array of {O.FIELDS} fields per instruction, got {code.dtype} "
                         f"{code.shape}")
    k = segments.shape[0]
    if tiles.ndim != 2 or tiles.shape[1] != 1 + k:
        raise ValueError(f"row schedule: tiles must be (t, {1 + k}), got {tiles.shape}")
    sp, cp = np.ascontiguousarray(stream_ptr), np.ascontiguousarray(core_ptr)
    if (k <= MAX_SEGMENTS and segments.ndim == 2 and segments.shape[1] == 2 and sp.ndim == cp.ndim == 1
            and len(sp) and len(cp) and all(a.dtype == np.int64 for a in (tiles, segments, sp, cp))
            and _first_fault(np.ascontiguousarray(code), sp, len(scalars), int(arena_len),
                             np.ascontiguousarray(segments), np.ascontiguousarray(tiles), cp, _MODE_TABLES[k],
                             _EXT) == -1):
        return          # sound (vetted compiled, in one pass); else the rules, in turn, name what is wrong
    check_rules(code, stream_ptr, scalars, arena_len, segments, tiles, core_ptr)


def check_rules(code, stream_ptr, scalars, arena_len: int, segments, tiles, core_ptr) -> None:
    """:func:`check`'s rules one by one in Python (exact integers), raising at the first one broken and naming it;
    :func:`check` comes here only where its compiled pass finds a fault (``code`` and ``tiles`` int64 arrays of
    the right widths)."""
    k = segments.shape[0]
    if len(scalars) < 1:
        raise ValueError("row stream: the scalar array is empty")
    if core_ptr[0] != 0 or core_ptr[-1] != len(tiles) or (np.diff(core_ptr) < 0).any():
        raise ValueError("row schedule: core_ptr must rise from 0 to the number of tiles")
    if stream_ptr[0] != 0 or stream_ptr[-1] != len(code) or (np.diff(stream_ptr) < 0).any():
        raise ValueError("row stream: stream_ptr must rise from 0 to the number of instructions")
    streams = len(stream_ptr) - 1
    if len(tiles) and ((tiles[:, 0] < 0).any() or (tiles[:, 0] >= streams).any()):
        raise ValueError(f"row schedule: a tile's stream is not one of the {streams} streams")
    for j in range(k):   # each tile's base for segment j within the segment
        if len(tiles) and ((tiles[:, 1 + j] < segments[j, 0]).any()
                           or (tiles[:, 1 + j] > segments[j, 0] + segments[j, 1]).any()):
            raise ValueError(f"row schedule: a base of segment {j} lies outside it")
    for s in range(streams):
        mine = tiles[tiles[:, 0] == s] if len(tiles) else tiles
        for pc in range(stream_ptr[s], stream_ptr[s + 1]):
            op, d, a, b, n, k0, k1, mode = (int(v) for v in code[pc])
            if op not in O.ROW_OPCODES.values():
                raise ValueError(f"row stream instruction {pc}: unknown opcode {op}")
            name = O.NAMES[op] if op < len(O.NAMES) else O.ROW_NAMES[op - len(O.NAMES)]
            if n < 1 or (op in (REPEAT_SUM, REPEAT_EXTREME) and n > 64):
                raise ValueError(f"row stream instruction {pc} ({name}): count {n} out of range")
            if not (0 <= k0 < len(scalars) and 0 <= k1 < len(scalars)):
                raise ValueError(f"row stream instruction {pc} ({name}): scalar index out of {len(scalars)}")
            allowed = _modes(op, k)
            if mode not in allowed:
                raise ValueError(f"row stream instruction {pc} ({name}): mode {mode} is not one of {list(allowed)}")
            for off, ext in zip((d, a, b), _extents(op, n)):
                if ext is not None and not (0 <= off and off + ext <= arena_len):
                    raise ValueError(f"row stream instruction {pc} ({name}): {ext} elements at {off} leave the "
                                     f"arena of {arena_len}")
            if op in (GM_IN, GM_OUT) and len(mine):
                rel = a if op == GM_IN else d
                lo, hi = segments[mode, 0], segments[mode, 0] + segments[mode, 1]
                first = mine[:, 1 + mode] + rel
                if rel < 0 or (first < lo).any() or (first + n > hi).any():
                    raise ValueError(f"row stream instruction {pc} ({name}): {n} elements at {rel} past a tile's "
                                     f"base leave global segment {mode}")
