"""The SwiGlu kernel (both architectures) as row streams on the engine's row machine (issue 41).

Written from ops-nn ``activation/swi_glu/op_kernel``: ``glu_tiling_kernel.hpp`` (the split walk: tile
``tileIdx`` of ``totalTileNum`` runs on core ``tileIdx % blockDim``, in order; its a rows start at
``row * 2 * colLen + col``, its b rows ``colLen`` later, its out rows at ``row * colLen + col``; four tile
kinds: base/tail rows by base/tail columns; unaligned columns padded to 32 bytes in UB), and the Compute
of ``swi_glu_impl.hpp`` (float32) and ``swi_glu_bf16.hpp`` (16-bit), the same in ``arch35/``:

- float32: ``Muls(c, a, -1)``, ``Exp``, ``Adds(c, 1)``, ``Div(c, ones, c)``, ``Mul(c, c, a)``, ``Mul(c, c, b)``;
- float16 / bfloat16: a and b widened (CAST_NONE), ``Muls(c, a, -1)``, ``Exp``, ``Adds(c, 1)``,
  ``Div(c, a, c)``, ``Mul(c, c, b)``, narrowed with CAST_RINT (the A2's ``__CCE_AICORE__ == 220`` branch
  and the 950's alike).

Compute runs over the whole padded tile; the pad columns are never copied out. A 16-bit x's segment is widened
exactly as R_GM_IN reads it, so the widening is no instruction of the stream.
"""
from __future__ import annotations

import functools

import numpy as np

from ...dtypes import dtype_info
from ...engine import hot, hot_rows, opcodes as O
from ...engine.rows import RowProgram, compute_rows, made_once, scheduled_once, segment
from ...engine.runner import Prepared
from ...program.elementwise import elementwise
from ...program.form import V
from ...program.lower import lower
from .host import SwiGluTiling

__all__ = ["COMPUTE", "SCALARS", "as_bits", "compute", "dtype_kind", "prepared", "elementwise_program", "row_program",
           "schedule", "run"]

X, Y = range(2)                  # global segments
SCALARS = (-1.0, 1.0)            # the row streams' scalars, by index

#: The Compute over float32 ``a`` and ``b`` into ``c``, by the kind of dtype (16-bit: after the widenings, then
#: narrowed with CAST_RINT), in upstream's vocabulary: what the row streams run and the hot tier compiles.
COMPUTE = {
    "float32": (V.Muls("c", "a", -1.0), V.Exp("c", "c"), V.Adds("c", "c", 1.0),
                V.Duplicate("ones", 1.0),                     # InitUbBuffer's Duplicate(1.0), still intact
                V.Div("c", "ones", "c"), V.Mul("c", "c", "a"), V.Mul("c", "c", "b")),
    "16-bit": (V.Muls("c", "a", -1.0), V.Exp("c", "c"), V.Adds("c", "c", 1.0), V.Div("c", "a", "c"),
               V.Mul("c", "c", "b")),
}


def as_bits(a: np.ndarray) -> np.ndarray:
    """A tensor as the hot tier reads it: float32 as it is, 16-bit values' bits as uint16."""
    return a if a.dtype == np.float32 else a.view(np.uint16)


def dtype_kind(dtype: str) -> str:
    """The key of a Compute table (:data:`COMPUTE`, the grads' ``COMPUTE``) for ``dtype``: float32, or 16-bit."""
    return "float32" if dtype == "float32" else "16-bit"


def compute(dtype: str) -> tuple:
    """:data:`COMPUTE` for ``dtype``."""
    return COMPUTE[dtype_kind(dtype)]


def elementwise_program(dtype: str):
    """The Compute as an element-wise program of the halves ``a`` and ``b`` (what the hot tier runs)."""
    return elementwise("SwiGlu", (("a_in", "a"), ("b_in", "b")), compute(dtype), "c", dtype, "CAST_RINT")


def _programs(dtype: str) -> tuple:
    return (elementwise_program(dtype),)


@functools.lru_cache(maxsize=None)
def prepared(programs, dtype: str) -> tuple:
    """The :class:`swishgrad_numba.engine.runner.Prepared` of each of ``programs(dtype)``, in the row machine's
    Inf/NaN mode, made once."""
    return tuple(Prepared(lower(p), False) for p in programs(dtype))


def _stream(t: SwiGluTiling, rows: int, cols: int, code16: int) -> np.ndarray:
    """One tile of ``rows x cols``: the split copy-in, Compute, the copy-out."""
    out = []

    def emit(name, dst=0, src0=0, src1=0, count=1, k0=0, k1=0, mode=0):
        out.append([O.ROW_OPCODES[name], dst, src0, src1, count, k0, k1, mode])

    length = t.tile_length
    a, b, c, ones = 0, length, 2 * length, 3 * length
    stride = -(-cols // t.ub_min_block) * t.ub_min_block     # UB row pitch (padded when unaligned)
    n = rows * stride                                        # curCalLen
    for r in range(rows):                                    # CopyIn: a, then b, row by row
        emit("R_GM_IN", a + r * stride, r * 2 * t.col_len, count=cols, mode=X)
    for r in range(rows):
        emit("R_GM_IN", b + r * stride, r * 2 * t.col_len + t.col_len, count=cols, mode=X)
    out += compute_rows(compute(t.dtype), {"a": a, "b": b, "c": c, "ones": ones}, SCALARS, n)
    if code16:
        emit("R_CAST_RINT", c, c, count=n, mode=code16)
    for r in range(rows):                                    # CopyOut
        emit("R_GM_OUT", r * t.col_len, c + r * stride, count=cols, mode=Y)
    return np.array(out, dtype=np.int64).reshape(-1, O.FIELDS)


def tile_kinds(t: SwiGluTiling):
    """The tile kinds that occur, as (rows, cols)."""
    rows = [t.base_row_len] * (t.row_len // t.base_row_len > 0) + [t.row_len % t.base_row_len] * bool(
        t.row_len % t.base_row_len)
    cols = [t.base_col_len] * (t.col_len // t.base_col_len > 0) + [t.col_len % t.base_col_len] * bool(
        t.col_len % t.base_col_len)
    return [(r, c) for r in rows for c in cols]


def row_program(t: SwiGluTiling) -> RowProgram:
    code16 = 0 if t.dtype == "float32" else dtype_info(t.dtype).code
    kinds = tile_kinds(t)
    streams = [_stream(t, r, c, code16) for r, c in kinds]
    return RowProgram(streams, np.array(SCALARS, np.float32), 4 * t.tile_length)


_row_program = made_once(row_program)


def schedule(t: SwiGluTiling, segments: np.ndarray):
    """Each core's tiles in ``SWIGLU_SINGLE_PROCESS``'s order: tileIdx = core, core + blockDim, ..."""
    kinds = {k: i for i, k in enumerate(tile_kinds(t))}
    col_tiles = -(-t.col_len // t.base_col_len)
    xs, ys = int(segments[X, 0]), int(segments[Y, 0])
    tiles, core_ptr = [], [0]
    for core in range(t.block_dim):
        for idx in range(core, t.total_tiles, t.block_dim):
            ri, ci = divmod(idx, col_tiles)
            row0, col0 = ri * t.base_row_len, ci * t.base_col_len
            rows = min(t.base_row_len, t.row_len - row0)
            cols = min(t.base_col_len, t.col_len - col0)
            tiles.append((kinds[rows, cols], xs + row0 * 2 * t.col_len + col0, ys + row0 * t.col_len + col0))
        core_ptr.append(len(tiles))
    return np.array(tiles, dtype=np.int64).reshape(-1, 3), np.array(core_ptr, dtype=np.int64)


_schedule = scheduled_once(schedule)


def run(x: np.ndarray, t: SwiGluTiling, out: np.ndarray | None = None) -> np.ndarray:
    """out (``(rowLen, colLen)``, x's dtype) of x's flat values, into ``out`` where given (flat, C-contiguous, of
    x's dtype, sharing no memory with x): on the hot tier where it takes the launch
    (:func:`swishgrad_numba.engine.hot_rows.run_rows`), else on the row machine."""
    shape = (t.row_len, t.col_len)
    out = np.empty(shape, dtype=x.dtype) if out is None else out.reshape(shape)
    c = t.col_len
    if not hot.too_small(t.row_len * c):
        flat = as_bits(np.ascontiguousarray(x).reshape(-1))
        halves = ((flat, 2 * c, 0), (flat, 2 * c, c))
        ran = hot_rows.run_rows(prepared(_programs, t.dtype)[0], halves, (as_bits(out.reshape(-1)), c, 0), t.row_len, c)
        if ran:
            return out
    # the row machine reads x and writes out where they lie (a 16-bit segment widened as read, narrowed as written)
    segments = np.array([[0, 2 * t.row_len * c], [0, t.row_len * c]], dtype=np.int64)
    tiles, core_ptr = _schedule(t, segments)
    _row_program(t).run((segment(x), out.reshape(-1)), segments, tiles, core_ptr)
    return out
