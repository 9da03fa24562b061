"""The row machine: instruction streams that reduce, broadcast and copy, run per core over a schedule (issue 42).

A kernel with reductions (RmsNorm; RmsNormGrad, AddRmsNorm and Softmax next) is a few **row streams**
(``(instructions, 8)`` int64 arrays of :data:`.opcodes.ROW_NAMES`, fields ``op, dst, src0, src1, count, k0,
k1, mode``) over one core's local buffer (a float32 arena), and a **schedule** computed in Python at launch as
the kernel's scalar code would: per core, the tiles it runs in order, each tile a stream and the global
offsets it starts at. Global memory is one float32 array cut into segments (inputs and outputs; 16-bit
values as the numbers they are, exactly); ``R_GM_IN``/``R_GM_OUT`` copy ``count`` elements between the arena
and segment ``mode`` at the tile's base plus ``src0``/``dst``.

The row machine (:func:`_exec`) is compiled once for one signature (:data:`ROW_MACHINE`, :mod:`.shared`);
the parallel launch calls it by its symbol.

What each instruction computes is :mod:`swishgrad_numba.program.reductions` and
:mod:`swishgrad_numba.program.semantics` (Inf/NaN mode). :func:`check` refuses, before anything runs, an
unknown opcode, an arena access outside the arena, a global access outside its segment for any tile, a
scalar index or a mode out of range.
"""
from __future__ import annotations

import functools

import numpy as np
from numba import njit, prange, types
from numba.extending import intrinsic

from ..casts import rint_16_widened, widen_16
from ..dtypes import dtype_info
from ..program import reductions as R
from ..program import semantics as S
from . import opcodes as O
from .shared import Shared

__all__ = ["RowProgram", "check", "run", "compute_rows", "made_once", "segment"]

(GM_IN, GM_OUT, DUP, ADD, MUL, DIV, MULS, ADDS, MULS_AT, SQRT, MULS_ADDS_FUSED, CAST_RINT, REPEAT_SUM,
 BLOCK_SUM, BRCB, REDUCE_SUM, MULA, SET_IF_EQ, RSQRT_F64) = (O.ROW_OPCODES[n] for n in O.ROW_NAMES[:19])
REPEAT_EXTREME, BLOCK_EXTREME, REDUCE_EXTREME = (O.ROW_OPCODES[n] for n in ("R_REPEAT_EXTREME", "R_BLOCK_EXTREME",
                                                                          "R_REDUCE_EXTREME"))
EXP = O.ROW_OPCODES["R_EXP"]
_CODES_16 = tuple(dtype_info(d).code for d in ("float16", "bfloat16"))
_F16_CODE, _BF16_CODE = _CODES_16


@njit(cache=True, error_model="numpy", inline="always")
def _read16(arena, at, src, g, n, code):
    """``n`` 16-bit values of dtype ``code`` from ``src[g:]``, widened exactly, into the arena at ``at``."""
    for i in range(n):
        arena[at + np.uint64(i)] = widen_16(src[g + np.uint64(i)], code)


@njit(cache=True, error_model="numpy", inline="always")
def _write16(dst, g, arena, at, n, code):
    """``n`` arena values from ``at`` into ``dst[g:]`` as 16-bit values of dtype ``code`` (to nearest even: exact
    for the values an R_CAST_RINT leaves)."""
    for i in range(n):
        dst[g + np.uint64(i)] = S.cast_rint(arena[at + np.uint64(i)], code, False)


# Each element-wise instruction's lane, one small function each (given to :func:`_binary` and :func:`_unary`).
@njit(cache=True, error_model="numpy", inline="always")
def _add(x, y, k):
    return S.add(x, y, False)


@njit(cache=True, error_model="numpy", inline="always")
def _mul(x, y, k):
    return S.mul(x, y, False)


@njit(cache=True, error_model="numpy", inline="always")
def _div(x, y, k):
    return S.div(x, y, False)


@njit(cache=True, error_model="numpy", inline="always")
def _muls(x, k):
    return S.muls(x, k, False)


@njit(cache=True, error_model="numpy", inline="always")
def _adds(x, k):
    return S.adds(x, k, False)


@njit(cache=True, error_model="numpy", inline="always")
def _sqrt(x, k):
    return R.sqrt_(x)


@njit(cache=True, error_model="numpy", inline="always")
def _exp(x, k):
    return S.exp(x, False)


@njit(cache=True, error_model="numpy", inline="always")
def _rint_f16(x, k):    # S.cast_none(S.cast_rint(x, float16, False), float16): the same bits
    return rint_16_widened(x, _F16_CODE)


@njit(cache=True, error_model="numpy", inline="always")
def _rint_bf16(x, k):
    return rint_16_widened(x, _BF16_CODE)


# In place (dst at a source), the load and the store take the one offset variable: a loop whose store may
# overlap a load is vectorised only behind a test at run time that they do not overlap, which an exact in-place
# instruction fails, and it then ran a lane at a time (7 times slower for a Mul, 9 for a float16 Cast).
@njit(cache=True, error_model="numpy", inline="always")
def _binary(arena, du, au, bu, n, k, lane):
    if du == au:
        for i in range(n):
            arena[du + np.uint64(i)] = lane(arena[du + np.uint64(i)], arena[bu + np.uint64(i)], k)
    elif du == bu:
        for i in range(n):
            arena[du + np.uint64(i)] = lane(arena[au + np.uint64(i)], arena[du + np.uint64(i)], k)
    else:
        for i in range(n):
            arena[du + np.uint64(i)] = lane(arena[au + np.uint64(i)], arena[bu + np.uint64(i)], k)


@njit(cache=True, error_model="numpy", inline="always")
def _unary(arena, du, au, n, k, lane):
    if du == au:
        for i in range(n):
            arena[du + np.uint64(i)] = lane(arena[du + np.uint64(i)], k)
    else:
        for i in range(n):
            arena[du + np.uint64(i)] = lane(arena[au + np.uint64(i)], k)


@njit(cache=True, error_model="numpy")
def _exec(code, lo, hi, scalars, arena, gms, bits, codes, tiles, t):
    """Instructions ``lo`` to ``hi`` of ``code`` for tile ``t`` (its global bases: ``tiles[t, 1:]``): segment ``k`` in
    the float32 array ``gms[k]`` where ``codes[k]`` is 0, else the 16-bit values of that dtype code in ``bits[k]``
    (widened exactly as they are read, narrowed as written: the values an R_CAST_RINT leaves)."""
    for pc in range(lo, hi):
        op, d, a, b, n = code[pc, 0], code[pc, 1], code[pc, 2], code[pc, 3], code[pc, 4]
        k0, k1, mode = scalars[code[pc, 5]], scalars[code[pc, 6]], code[pc, 7]
        # unsigned offsets (check() keeps every one inside the arena): no negative-index test per element, so
        # the element loops vectorise
        du, au, bu = np.uint64(d), np.uint64(a), np.uint64(b)
        if op == GM_IN:
            g = np.uint64(tiles[t, 1 + mode] + a)
            if codes[mode] == 0:
                src = gms[mode]
                for i in range(n):
                    arena[du + np.uint64(i)] = src[g + np.uint64(i)]
            elif codes[mode] == _F16_CODE:     # the dtype a constant in each loop, so that it vectorises
                _read16(arena, du, bits[mode], g, n, _F16_CODE)
            else:
                _read16(arena, du, bits[mode], g, n, _BF16_CODE)
        elif op == GM_OUT:
            g = np.uint64(tiles[t, 1 + mode] + d)
            if codes[mode] == 0:
                dst = gms[mode]
                for i in range(n):
                    dst[g + np.uint64(i)] = arena[au + np.uint64(i)]
            elif codes[mode] == _F16_CODE:
                _write16(bits[mode], g, arena, au, n, _F16_CODE)
            else:
                _write16(bits[mode], g, arena, au, n, _BF16_CODE)
        elif op == DUP:
            for i in range(n):
                arena[du + np.uint64(i)] = S.duplicate(k0, False)
        elif op == ADD:
            _binary(arena, du, au, bu, n, k0, _add)
        elif op == MUL:
            _binary(arena, du, au, bu, n, k0, _mul)
        elif op == DIV:
            _binary(arena, du, au, bu, n, k0, _div)
        elif op == MULS:
            _unary(arena, du, au, n, k0, _muls)
        elif op == ADDS:
            _unary(arena, du, au, n, k0, _adds)
        elif op == MULS_AT:        # Muls by the arena's element at src1, read before anything is written
            _unary(arena, du, au, n, arena[b], _muls)
        elif op == SQRT:
            _unary(arena, du, au, n, k0, _sqrt)
        elif op == MULS_ADDS_FUSED:
            for i in range(n):
                arena[du + np.uint64(i)] = R.fused_mul_add(arena[au + np.uint64(i)], k0, k1)
        elif op == CAST_RINT:     # the dtype a constant in each loop, so that it vectorises
            if mode == _F16_CODE:
                _unary(arena, du, au, n, k0, _rint_f16)
            else:
                _unary(arena, du, au, n, k0, _rint_bf16)
        elif op == REPEAT_SUM:
            arena[d] = R.repeat_sum(arena, a, n, mode)
        elif op == BLOCK_SUM:
            for i in range(n):
                arena[du + np.uint64(i)] = R.block_sum(arena, a + 8 * i, mode)
        elif op == BRCB:
            for i in range(n - 1, -1, -1):   # from the last, so that dst may start at src
                v = arena[au + np.uint64(i)]
                for j in range(8):
                    arena[d + 8 * i + j] = v
        elif op == REDUCE_SUM:
            arena[d] = R.reduce_sum(arena, a, n, mode)
        elif op == MULA:   # Mula(dst, src0, src1): src0 * src1 + dst, rounded once (mode 0) or twice
            for i in range(n):
                if mode == 0:
                    arena[du + np.uint64(i)] = R.fused_mul_add(arena[au + np.uint64(i)], arena[bu + np.uint64(i)], arena[du + np.uint64(i)])
                else:
                    arena[du + np.uint64(i)] = S.add(S.mul(arena[au + np.uint64(i)], arena[bu + np.uint64(i)], False), arena[du + np.uint64(i)], False)
        elif op == RSQRT_F64:   # a scalar unit's 1 / sqrt(t) in double, rounded once to float32
            for i in range(n):
                arena[du + np.uint64(i)] = R.rsqrt_f64(arena[au + np.uint64(i)])
        elif op == SET_IF_EQ:   # CompareScalar(EQ) then Select: k1 where src0 == k0
            for i in range(n):
                if arena[au + np.uint64(i)] == k0:
                    arena[du + np.uint64(i)] = k1
        elif op == EXP:
            _unary(arena, du, au, n, k0, _exp)
        elif op == REPEAT_EXTREME:   # WholeReduceMax/Min of one repeat (mode 0 max, 1 min)
            arena[d] = R.lanes_extreme(arena, a, n, mode)
        elif op == BLOCK_EXTREME:    # BlockReduceMax/Min: one result per 8-lane block
            for i in range(n):
                arena[du + np.uint64(i)] = R.lanes_extreme(arena, a + 8 * i, 8, mode)
        elif op == REDUCE_EXTREME:   # ReduceMax/Min, value only
            arena[d] = R.reduce_extreme(arena, a, n, mode)


#: The most global segments a row program has (RmsNorm's x, gamma, y and rstd), each its own array or all one.
MAX_SEGMENTS = 4
_I64_1D = types.Array(types.int64, 1, "C")
_I64_2D = types.Array(types.int64, 2, "C")
_F32_1D = types.Array(types.float32, 1, "C")
_U16_1D = types.Array(types.uint16, 1, "C")
#: The row machine, compiled once for its one signature (:class:`.shared.Shared`).
ROW_MACHINE = Shared(_exec, types.void(_I64_2D, types.int64, types.int64, _F32_1D, _F32_1D,
                                       types.UniTuple(_F32_1D, MAX_SEGMENTS), types.UniTuple(_U16_1D, MAX_SEGMENTS),
                                       _I64_1D, _I64_2D, types.int64),
                     "swishgrad_engine_row_machine_v3", (__name__, "ROW_MACHINE"))


@intrinsic
def run_rows(typingctx, code, lo, hi, scalars, arena, gms, bits, codes, tiles, t):
    """:func:`_exec` from jitted code, by a call of :data:`ROW_MACHINE` (C-contiguous arrays)."""
    ROW_MACHINE.check_types((code, lo, hi, scalars, arena, gms, bits, codes, tiles, t))
    return types.void(code, lo, hi, scalars, arena, gms, bits, codes, tiles, t), ROW_MACHINE.lower_call


@njit(cache=True, error_model="numpy", parallel=True)
def _run(code, stream_ptr, scalars, arena_len, gms, bits, codes, tiles, core_ptr):
    for c in prange(core_ptr.shape[0] - 1):
        arena = np.zeros(arena_len, dtype=np.float32)
        for t in range(core_ptr[c], core_ptr[c + 1]):
            s = tiles[t, 0]
            run_rows(code, stream_ptr[s], stream_ptr[s + 1], scalars, arena, gms, bits, codes, tiles, t)


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


class RowProgram:
    """Row streams and their scalars: ``streams`` a list of ``(instructions, 8)`` int64 arrays."""

    def __init__(self, streams, scalars, arena_len: int):
        self.stream_ptr = np.cumsum([0] + [len(s) for s in streams]).astype(np.int64)
        self.code = (np.concatenate(streams).astype(np.int64) if streams else
                     np.zeros((0, O.FIELDS), np.int64))
        self.scalars = np.asarray(scalars if len(scalars) else [0.0], dtype=np.float32)
        self.arena_len = int(arena_len)

    def run(self, gm, segments, tiles, core_ptr):
        """Run the schedule over ``gm`` (written in place) after :func:`check`: one float32 array holding every
        segment, or a sequence of them, segment ``k`` in the ``k``-th (no copy of a tensor into one array)."""
        run(self.code, self.stream_ptr, self.scalars, self.arena_len, gm, segments, tiles, core_ptr)
        return gm


def run(code, stream_ptr, scalars, arena_len, gm, segments, tiles, core_ptr):
    """Check, then run (one emulated core per schedule entry of ``core_ptr``, in a ``prange``). ``gm``: one flat
    C-contiguous float32 array holding every segment, or one such array per segment (:meth:`RowProgram.run`)."""
    tiles = np.ascontiguousarray(tiles, dtype=np.int64).reshape(-1, 1 + len(segments))
    core_ptr = np.ascontiguousarray(core_ptr, dtype=np.int64)
    stream_ptr = np.ascontiguousarray(stream_ptr, dtype=np.int64)
    check(code, stream_ptr, scalars, arena_len, np.asarray(segments, np.int64), tiles, core_ptr)
    seg = np.asarray(segments, np.int64).reshape(-1, 2)
    arrays = (gm,) * max(len(seg), 1) if isinstance(gm, np.ndarray) else tuple(gm)
    if len(seg) > MAX_SEGMENTS or len(arrays) != max(len(seg), 1):
        raise ValueError(f"row machine: {len(seg)} segments (at most {MAX_SEGMENTS}) need one array for all or one "
                         f"each, got {len(arrays)}")
    gms, bits, codes = [], [], []
    for k, a in enumerate(arrays):
        sixteen = isinstance(a, np.ndarray) and a.dtype.itemsize == 2 and a.dtype.name in ("float16", "bfloat16")
        if not isinstance(a, np.ndarray) or (a.dtype != np.float32 and not sixteen) or a.ndim != 1 \
                or not a.flags.c_contiguous or not a.flags.writeable:
            raise ValueError("row machine: gm must be a flat, C-contiguous float32 array (or one per segment, "
                             "float32, float16 or bfloat16), writeable")
        if k < len(seg) and seg[k, 0] + seg[k, 1] > a.size:
            raise ValueError("row machine: a segment leaves gm" if isinstance(gm, np.ndarray) else
                             f"row machine: segment {k} leaves its array")
        gms.append(_NO_F32 if sixteen else a)
        bits.append(a.view(np.uint16) if sixteen else _NO_U16)
        codes.append(dtype_info(a.dtype).code if sixteen else 0)
    pad = MAX_SEGMENTS - len(arrays)
    ROW_MACHINE.ensure()
    _run(np.ascontiguousarray(code, np.int64), stream_ptr, np.ascontiguousarray(scalars, np.float32),
         int(arena_len), tuple(gms) + (_NO_F32,) * pad, tuple(bits) + (_NO_U16,) * pad,
         np.array(codes + [0] * pad, np.int64), tiles, core_ptr)


_NO_F32, _NO_U16 = np.zeros(1, np.float32), np.zeros(1, np.uint16)     # an unused segment's slot


#: The row instruction of each element-wise step :func:`compute_rows` lowers.
_ROW_OF = {"Muls": "R_MULS", "Adds": "R_ADDS", "Exp": "R_EXP", "Duplicate": "R_DUP", "Div": "R_DIV", "Mul": "R_MUL",
           "Add": "R_ADD"}


def compute_rows(steps, at: dict, scalars, count: int) -> list:
    """Element-wise program steps (:class:`swishgrad_numba.program.form.Instr`: Muls, Adds, Exp, Duplicate, Div,
    Mul, Add) as row instructions over ``count`` elements: ``at`` each name's arena offset, ``scalars`` the row
    stream's scalar values (a step's scalar by its index there)."""
    index = {float(np.float32(v)): i for i, v in enumerate(scalars)}
    rows = []
    for step in steps:
        if step.op not in _ROW_OF:
            raise ValueError(f"no row instruction for {step.op}")
        names = [at[a] for a in step.args if isinstance(a, str)] + [0, 0]
        ks = [index[float(k.f32)] for k in step.scalars()] + [0]
        rows.append([O.ROW_OPCODES[_ROW_OF[step.op]], names[0], names[1], names[2], count, ks[0], 0, 0])
    return rows



def made_once(builder):
    """``builder`` of a launch's :class:`RowProgram` (its arguments hashable: a frozen tiling, a dtype, the
    options), run once per distinct arguments (the 64 most recent kept): the same tiling has the same streams,
    and building them in Python costs a small call more than running them. The programs are shared: never
    written to."""
    return functools.lru_cache(maxsize=64)(builder)


def segment(a: np.ndarray) -> np.ndarray:
    """``a`` as a global segment of its own: flat, C-contiguous and writeable, ``a`` itself where it is one (the
    machine only reads an input's segment), else a copy; float32, float16 or bfloat16 (widened as read)."""
    return a.reshape(-1) if a.flags.c_contiguous and a.flags.writeable else np.array(a, order="C").reshape(-1)
