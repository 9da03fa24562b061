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
from ..dtypes import BFLOAT16, FLOAT16, dtype_info
from ..program import reductions as R
from ..program import semantics as S
from . import opcodes as O
from .row_check import (ADD, ADDS, BLOCK_EXTREME, BLOCK_SUM, BRCB, CAST_RINT, DIV, DUP, EXP, GM_IN, GM_OUT,
                        MAX_SEGMENTS, MUL, MULA, MULS, MULS_ADDS_FUSED, MULS_AT, REDUCE_EXTREME, REDUCE_SUM,
                        REPEAT_EXTREME, REPEAT_SUM, RSQRT_F64, SET_IF_EQ, SQRT, check)
from .shared import Shared

__all__ = ["RowProgram", "check", "run", "compute_rows", "made_once", "scheduled_once", "segment"]

_F16_CODE, _BF16_CODE = FLOAT16.code, BFLOAT16.code


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
    pc = lo
    while pc < hi:
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
            q = pc + 1
            if n == 64 and mode == R.ORDER_TREE and q < hi and code[q, 0] == REPEAT_SUM and code[q, 4] == 64 \
                    and code[q, 7] == R.ORDER_TREE and not code[q, 2] <= d < code[q, 2] + 64:
                # the next instruction a whole repeat that does not read this one's sum: both trees at once (one
                # at a time, each waited for its tree's latency: 14 ns a repeat, 5 in pairs; bench/RESULTS.md)
                first, second = R.repeat_sum(arena, a, 64, mode), R.repeat_sum(arena, code[q, 2], 64, mode)
                arena[d] = first
                arena[code[q, 1]] = second
                pc += 1
            else:
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
                x, y, acc = arena[au + np.uint64(i)], arena[bu + np.uint64(i)], arena[du + np.uint64(i)]
                if mode == 0:
                    arena[du + np.uint64(i)] = R.fused_mul_add(x, y, acc)
                else:
                    arena[du + np.uint64(i)] = S.add(S.mul(x, y, False), acc, False)
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
        pc += 1


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


@njit(cache=True, error_model="numpy", inline="always")
def _run_core(code, stream_ptr, scalars, arena_len, gms, bits, codes, tiles, core_ptr, c):
    """Core ``c``'s tiles in order, in an arena of its own."""
    arena = np.zeros(arena_len, dtype=np.float32)
    for t in range(core_ptr[c], core_ptr[c + 1]):
        s = tiles[t, 0]
        run_rows(code, stream_ptr[s], stream_ptr[s + 1], scalars, arena, gms, bits, codes, tiles, t)


@njit(cache=True, error_model="numpy", parallel=True)
def _run(code, stream_ptr, scalars, arena_len, gms, bits, codes, tiles, core_ptr):
    for c in prange(core_ptr.shape[0] - 1):
        _run_core(code, stream_ptr, scalars, arena_len, gms, bits, codes, tiles, core_ptr, c)


@njit(cache=True, error_model="numpy")
def _run_one(code, stream_ptr, scalars, arena_len, gms, bits, codes, tiles, core_ptr):
    """:func:`_run` for a schedule of one core: no parallel region to start (a small call's 4-5 us)."""
    for c in range(core_ptr.shape[0] - 1):
        _run_core(code, stream_ptr, scalars, arena_len, gms, bits, codes, tiles, core_ptr, c)


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


class RowProgram:
    """Row streams and their scalars: ``streams`` a list of ``(instructions, 8)`` int64 arrays (read-only once
    made: a program is shared, and a schedule it has passed :func:`check` with is not checked again)."""

    def __init__(self, streams, scalars, arena_len: int):
        self.stream_ptr = _read_only(np.cumsum([0] + [len(s) for s in streams]).astype(np.int64))
        self.code = _read_only(np.concatenate(streams).astype(np.int64) if streams else
                               np.zeros((0, O.FIELDS), np.int64))
        self.scalars = _read_only(np.asarray(scalars if len(scalars) else [0.0], dtype=np.float32).copy())
        self.arena_len = int(arena_len)

    def run(self, gm, segments, tiles, core_ptr):
        """Run the schedule over ``gm`` (written in place) after :func:`check`: one float32 array holding every
        segment, or a sequence of them, segment ``k`` in the ``k``-th (no copy of a tensor into one array). A
        read-only schedule (:func:`scheduled_once`'s) passes the check once per program and segments."""
        seg = np.asarray(segments, np.int64)
        key = self._checked_key(seg, tiles, core_ptr)
        if key is None or key not in _CHECKED:
            run(self.code, self.stream_ptr, self.scalars, self.arena_len, gm, seg, tiles, core_ptr)
            if key is not None:
                if len(_CHECKED) >= _CHECKED_KEPT:
                    _CHECKED.clear()
                _CHECKED[key] = (self.code, self.stream_ptr, self.scalars, tiles, core_ptr)  # their ids stay theirs
            return gm
        _launch(self.code, self.stream_ptr, self.scalars, self.arena_len, gm, seg, tiles, core_ptr)
        return gm

    def _checked_key(self, seg, tiles, core_ptr):
        """What a passed check is kept under: every array it read by identity, each read-only (else None: checked
        at every run), and the segments' values."""
        arrays = (self.code, self.stream_ptr, self.scalars, tiles, core_ptr)
        if not all(isinstance(a, np.ndarray) and not a.flags.writeable and a.flags.c_contiguous for a in arrays) \
                or tiles.dtype != np.int64 or core_ptr.dtype != np.int64 or seg.ndim != 2 or seg.shape[1] != 2 \
                or tiles.ndim != 2 or tiles.shape[1] != 1 + seg.shape[0] or core_ptr.ndim != 1:
            return None     # (run() reshapes such a tiles array for the check: the shape it passed is kept)
        return tuple(id(a) for a in arrays) + (self.arena_len, seg.shape[0], seg.tobytes())


#: Launches whose check passed (:meth:`RowProgram.run`), the arrays it read held so that their ids stay theirs.
_CHECKED: dict = {}
_CHECKED_KEPT = 256


def run(code, stream_ptr, scalars, arena_len, gm, segments, tiles, core_ptr):
    """Check, then run (one emulated core per schedule entry of ``core_ptr``, in a ``prange``). ``gm``: one flat
    C-contiguous float32 array holding every segment, or one such array per segment (:meth:`RowProgram.run`)."""
    tiles = np.ascontiguousarray(tiles, dtype=np.int64).reshape(-1, 1 + len(segments))
    core_ptr = np.ascontiguousarray(core_ptr, dtype=np.int64)
    stream_ptr = np.ascontiguousarray(stream_ptr, dtype=np.int64)
    seg = np.asarray(segments, np.int64)
    check(code, stream_ptr, scalars, arena_len, seg, tiles, core_ptr)
    _launch(code, stream_ptr, scalars, arena_len, gm, seg.reshape(-1, 2), tiles, core_ptr)


def _launch(code, stream_ptr, scalars, arena_len, gm, seg, tiles, core_ptr):
    """Run a checked launch: ``gm``'s arrays checked against the segments ``seg`` (``(k, 2)`` int64)."""
    arrays = (gm,) * max(len(seg), 1) if isinstance(gm, np.ndarray) else tuple(gm)
    if len(seg) > MAX_SEGMENTS or len(arrays) != max(len(seg), 1):
        raise ValueError(f"row machine: {len(seg)} segments (at most {MAX_SEGMENTS}) need one array for all or one "
                         f"each, got {len(arrays)}")
    gms, bits, codes = [], [], []
    for k, a in enumerate(arrays):
        sixteen = _CODE_16.get(a.dtype, 0) if isinstance(a, np.ndarray) else 0
        if not isinstance(a, np.ndarray) or (a.dtype != np.float32 and not sixteen) or a.ndim != 1 \
                or not a.flags.c_contiguous or not a.flags.writeable:
            raise ValueError("row machine: gm must be a flat, C-contiguous float32 array (or one per segment, "
                             "float32, float16 or bfloat16), writeable")
        if k < len(seg) and seg[k, 0] + seg[k, 1] > a.size:
            raise ValueError("row machine: a segment leaves gm" if isinstance(gm, np.ndarray) else
                             f"row machine: segment {k} leaves its array")
        gms.append(_NO_F32 if sixteen else a)
        bits.append(a.view(np.uint16) if sixteen else _NO_U16)
        codes.append(sixteen)
    pad = MAX_SEGMENTS - len(arrays)
    codes = tuple(codes) + (0,) * pad
    codes_array = _CODES.get(codes)
    if codes_array is None:
        codes_array = _CODES.setdefault(codes, _read_only(np.array(codes, np.int64)))
    ROW_MACHINE.ensure()
    (_run_one if core_ptr.shape[0] <= 2 else _run)(
        np.ascontiguousarray(code, np.int64), stream_ptr, np.ascontiguousarray(scalars, np.float32), int(arena_len),
        tuple(gms) + (_NO_F32,) * pad, tuple(bits) + (_NO_U16,) * pad, codes_array, tiles, core_ptr)


_CODES: dict = {}      # the segments' dtype codes -> their array (read-only)
_NO_F32, _NO_U16 = np.zeros(1, np.float32), np.zeros(1, np.uint16)     # an unused segment's slot
_CODE_16 = {np.dtype(d): dtype_info(d).code for d in ("float16", "bfloat16")}   # a 16-bit segment's dtype code


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


def scheduled_once(schedule):
    """``schedule(t, segments, *rest) -> (tiles, core_ptr)`` (a kernel's, which reads only where each segment
    starts), made once per tiling and the rest of its (hashable) arguments where every segment starts at 0 (each
    its own array: the operators' launches), the 64 most recent kept; the arrays are shared, read-only (so
    :meth:`RowProgram.run` checks them once)."""
    @functools.lru_cache(maxsize=64)
    def at_zero(t, k, *rest):
        return tuple(_read_only(a) for a in schedule(t, np.zeros((k, 2), np.int64), *rest))

    def scheduled(t, segments, *rest):
        segments = np.asarray(segments)
        return at_zero(t, len(segments), *rest) if not segments[:, 0].any() else schedule(t, segments, *rest)
    return scheduled


def segment(a: np.ndarray) -> np.ndarray:
    """``a`` as a global segment of its own: flat, C-contiguous and writeable, ``a`` itself where it is one (the
    machine only reads an input's segment), else a copy; float32, float16 or bfloat16 (widened as read)."""
    return a.reshape(-1) if a.flags.c_contiguous and a.flags.writeable else np.array(a, order="C").reshape(-1)
