"""A lowered program (:mod:`swishgrad_numba.program.lower`) as an instruction stream, and its check.

:func:`streams` turns a program's SSA steps into a :class:`Stream`: each value gets an arena row
(``grain`` elements) from when it is made to its last read, rows reused once dead, a destination
never the row of one of its own sources (Exp's exact redo reads its source after writing). Rows
``0 .. inputs - 1`` are the inputs' (CopyIn fills them); scalars are listed once each and resolved
at launch (:meth:`Stream.scalars`). A 16-bit program's tabulated values
(:attr:`~swishgrad_numba.program.lower.Lowered.tables`) are each a stream of their own, run once over
the 65,536 bit patterns of their input; the main stream looks them up.

A 16-bit Duplicate, Select or Compare (:data:`swishgrad_numba.program.isa.SIXTEEN_BIT_OPS`) is its
float32 instruction between the exact widenings of its 16-bit sources and the narrowing of a 16-bit
result, as the interpreter computes it.

:func:`check` refuses a malformed stream before it runs: an unknown opcode, an offset whose
``grain`` elements leave the arena, a scalar or table index out of range, a mode its opcode has not.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..dtypes import dtype_info
from ..program.form import Attr, Const, Product
from ..program.int_casts import FROM_INT_MODES, TO_INT_MODES, engine_mode
from ..program.isa import FLOAT_DTYPES, MASK_DTYPE, SIXTEEN_BIT_OPS, WHOLE_ROUND_MODES
from ..program.lower import ULP_SHIFT, Lowered
from . import fold as _fold
from . import opcodes as O

__all__ = ["Stream", "Streams", "streams", "check", "scalar_value"]

_SIXTEEN = FLOAT_DTYPES[1:]
_CODES_16 = tuple(dtype_info(d).code for d in _SIXTEEN)
_SIMPLE = {"Muls": "MULS", "Adds": "ADDS", "Maxs": "MAXS", "Mins": "MINS", "Add": "ADD", "Sub": "SUB",
           "Mul": "MUL", "Div": "DIV", "Max": "MAX", "Min": "MIN", "Exp": "EXP", "Ln": "LN", "Abs": "ABS",
           "Reciprocal": "RECIPROCAL", "Neg": "NEG", "Duplicate": "DUPLICATE", "MulDstAdd": "MUL_DST_ADD",
           "FusedMulDstAdd": "MUL_DST_ADD", "And": "AND", "Or": "OR", "ShiftRight": "SHIFT_RIGHT",
           ULP_SHIFT: "ULP_SHIFT", "Sqrt": "SQRT", "Relu": "RELU"}
_INT_CASTS = {("float32", "int32"): "CAST_I32_F32", ("int8", "float16"): "CAST_F16_I8",
              ("float16", "int8"): "CAST_I8_F16"}


def scalar_value(k, attrs) -> np.float32:
    """A scalar operand's float32 for attribute values ``attrs`` (name -> float32)."""
    if isinstance(k, Product):
        with np.errstate(all="ignore"):
            return np.float32(scalar_value(k.a, attrs) * scalar_value(k.b, attrs))   # rounded once
    if isinstance(k, Attr):
        return np.float32(attrs[k.name])
    if isinstance(k, Const):
        return k.f32
    raise TypeError(f"not a scalar operand: {k!r}")


@dataclass(frozen=True)
class Stream:
    """``code`` (int64, ``(instructions, opcodes.FIELDS)``) over ``rows`` rows of ``grain`` elements;
    the inputs in rows ``0 ..``, the result at offset ``out``; ``scalar_ops`` the scalar operands in
    ``k`` index order."""

    code: np.ndarray
    rows: int
    out: int
    grain: int
    scalar_ops: tuple

    def scalars(self, attrs) -> np.ndarray:
        """The scalar array for attribute values ``attrs`` (never empty)."""
        vals = [scalar_value(k, attrs) for k in self.scalar_ops] or [np.float32(0.0)]
        return np.array(vals, dtype=np.float32)

    @property
    def arena_len(self) -> int:
        return self.rows * self.grain


@dataclass(frozen=True)
class Streams:
    """A program's main stream and its tables' streams (``tables[i]``: ``(stream, input index)``)."""

    main: Stream
    tables: tuple
    inputs: int


class _Emitter:
    def __init__(self, inputs: int, grain: int):
        self.grain, self.code, self.scalar_ops = grain, [], []
        self.busy = set(range(inputs))
        self.rows = inputs

    def take(self) -> int:
        row = next((r for r in range(self.rows) if r not in self.busy), self.rows)
        self.rows = max(self.rows, row + 1)
        self.busy.add(row)
        return row

    def scalar(self, k) -> int:
        keys = [_fold.scalar_key(o) for o in self.scalar_ops]   # by bits: Const(0.0) == Const(-0.0)
        if _fold.scalar_key(k) not in keys:
            self.scalar_ops.append(k)
            return len(keys)
        return keys.index(_fold.scalar_key(k))

    def emit(self, name, dst, srcs=(), scalars=(), mode=0):
        g = self.grain
        row = [O.OPCODES[name], dst * g] + [s * g for s in srcs] + [0] * (3 - len(srcs))
        row += [self.scalar(k) for k in scalars] + [0] * (2 - len(scalars)) + [mode]
        self.code.append(row)


def _lower_step(e: _Emitter, low: Lowered, s, dst: int, src_rows: list):
    dtype = {v: low.values[v].dtype for v in (s.dst,) + tuple(s.srcs)}
    if s.op == "Cast" and engine_mode(dtype[s.dst], dtype[s.srcs[0]], s.mode) is not None:   # issue 43
        name, mode = engine_mode(dtype[s.dst], dtype[s.srcs[0]], s.mode)
        return e.emit(name, dst, src_rows, mode=mode)
    if _lower_mask_arithmetic(e, s, dtype, dst, src_rows):
        return None
    if s.op == "Cast" and dtype[s.dst] == dtype[s.srcs[0]] == "float32":     # to a whole float32 (issue 43)
        return e.emit("CAST_WHOLE", dst, src_rows, mode=WHOLE_ROUND_MODES.index(s.mode))
    if s.op == "Cast":
        pair = (dtype[s.dst], dtype[s.srcs[0]])
        if pair in _INT_CASTS:
            return e.emit(_INT_CASTS[pair], dst, src_rows)
        if s.mode == "CAST_NONE":
            return e.emit("CAST_NONE", dst, src_rows, mode=dtype_info(pair[1]).code)
        return e.emit(s.mode, dst, src_rows, mode=dtype_info(pair[0]).code)
    if s.op in ("Compare", "CompareScalar", "Select") or (s.op in ("Duplicate", "Relu") and dtype[s.dst] in _SIXTEEN):
        sixteen = [dtype[v] for v in s.srcs if dtype[v] in _SIXTEEN] + ([dtype[s.dst]] if dtype[s.dst] in _SIXTEEN
                                                                          else [])
        temps, rows = [], []
        for v, r in zip(s.srcs, src_rows):   # 16-bit sources: widened exactly into rows of their own
            if dtype[v] in _SIXTEEN:
                t = e.take()
                temps.append(t)
                e.emit("CAST_NONE", t, [r], mode=dtype_info(dtype[v]).code)
                r = t
            rows.append(r)
        narrow = dtype[s.dst] in _SIXTEEN
        out = e.take() if narrow else dst
        if s.op == "Compare":
            e.emit("COMPARE", out, rows, mode=O.CMP_MODES.index(s.mode))
        elif s.op == "CompareScalar":
            e.emit("COMPARE_SCALAR", out, rows, s.scalars, mode=O.CMP_MODES.index(s.mode))
        elif s.op == "Duplicate":
            e.emit("DUPLICATE", out, (), s.scalars)
        elif s.op == "Relu":
            e.emit("RELU", out, rows)
        elif s.mode == "tensor":
            e.emit("SELECT", out, rows)
        else:
            e.emit("SELECT_SCALAR", out, rows, s.scalars)
        if narrow:   # exact: a picked element or a scalar the dtype holds
            e.emit("CAST_RINT", dst, [out], mode=dtype_info(sixteen[0]).code)
            temps.append(out)
        e.busy.difference_update(temps)
        return None
    if s.op == "Axpy":
        return e.emit(f"AXPY_{s.mode.upper()}", dst, src_rows, s.scalars)
    if s.op == "Not":      # a mask (issue 43): a mask row holds 0 or 1, and Not is its equality with 0
        return e.emit("COMPARE_SCALAR", dst, src_rows, (Const(0.0),), mode=O.CMP_MODES.index("EQ"))
    if s.op == "Reinterpret" or (s.op in ("And", "Or") and dtype[s.dst] in ("int16", MASK_DTYPE)):
        # issue 43: 16-bit bit patterns (a Reinterpret keeps them: OR of a row with itself)
        return e.emit("AND" if s.op == "And" else "OR", dst, src_rows * (2 if s.op == "Reinterpret" else 1),
                      mode=1)
    if s.op not in _SIMPLE:
        raise NotImplementedError(f"{low.program.name}: the engine has no {s.op} yet")
    if s.op == "Exp":   # a scratch row for the redo's marks
        scratch = e.take()
        e.emit("EXP", dst, src_rows + [scratch])
        e.busy.discard(scratch)
        return None
    return e.emit(_SIMPLE[s.op], dst, src_rows, s.scalars)


def _stream(low: Lowered, steps: tuple, output: int, lookups: dict, grain: int) -> Stream:
    """The stream computing ``output`` by ``steps``; ``lookups``: value -> (table, input) looked up."""
    inputs = len(low.program.inputs)
    if _fold.ENABLED:   # constants folded into the instructions that read them (.fold: the same bits)
        steps = _fold.fold(steps, low.values, output)
    # the inputs' widenings first, after the Lookups (each reads an input only): the head .direct16 runs on
    # the tensors
    steps = tuple(sorted(steps, key=lambda s: not (s.op == "Cast" and s.mode == "CAST_NONE"
                                                   and s.srcs[0] < inputs)))
    e = _Emitter(inputs, grain)
    last = {}
    for t, s in enumerate(steps):
        for v in s.srcs:
            last[v] = t
    last[output] = len(steps)   # never released
    row = {i: i for i in range(inputs)}
    for v, (table, inp) in sorted(lookups.items()):
        if v in last:
            row[v] = e.take()
            e.emit("LOOKUP", row[v], [row[inp]], mode=table)
    for i in range(inputs):   # an input no step reads: its row is free once the lookups have read it
        if i not in last:
            e.busy.discard(i)
    for t, s in enumerate(steps):
        dst = e.take()
        _lower_step(e, low, s, dst, [row[v] for v in s.srcs])
        row[s.dst] = dst
        for v in set(s.srcs):
            if last[v] == t:
                e.busy.discard(row[v])
    code = np.array(e.code, dtype=np.int64).reshape(-1, O.FIELDS)
    return Stream(code, max(e.rows, 1), row[output] * grain, grain, tuple(e.scalar_ops))


#: A table of one of these over its widened input (and constants) is computed in the main stream, not
#: looked up: a Lookup is a gather per element (about 0.3 ns scalar, 0.2 as the head's vector gathers,
#: direct16.lookup_bits), one vector instruction and the widening cost less (issue 39; bench/RESULTS.md,
#: engine-16, engine-16c).
_COMPUTED_NOT_LOOKED_UP = frozenset({"Muls", "Adds", "Maxs", "Mins", "Add", "Sub", "Mul", "Max", "Min", "Abs",
                                     "Neg", "Relu", "Compare", "CompareScalar"})


def _computed(low: Lowered, v, steps: tuple) -> bool:
    """Whether the main stream computes table value ``v`` (its ``steps``) rather than looks it up: one
    cheap instruction over the widened input (the whole program's table is always looked up)."""
    ops = [s.op for s in steps if s.op != "Duplicate"]
    return (v != low.output and len(ops) == 2 and ops[0] == "Cast" and ops[1] in _COMPUTED_NOT_LOOKED_UP
            and all(s.mode == "CAST_NONE" for s in steps if s.op == "Cast"))


def streams(low: Lowered, grain: int) -> Streams:
    """The program's streams for blocks of ``grain`` elements. A table value the main stream computes
    (:func:`_computed`) runs there by the same steps, so its values are the table's."""
    tables, lookups, computed = [], {}, set()
    by_dst = {s.dst: s for s in low.steps}
    for v in low.tables:
        need, todo = set(), [v]
        while todo:
            u = todo.pop()
            if u in by_dst and u not in need:
                need.add(u)
                todo.extend(by_dst[u].srcs)
        steps = tuple(s for s in low.steps if s.dst in need)
        (inp,) = low.deps[v]
        if _computed(low, v, steps):
            computed |= need
            continue
        lookups[v] = (len(tables), inp)
        tables.append((_stream(low, steps, v, {}, 65536), inp))
    main_steps = {s.dst for s in low.per_element if s.dst not in lookups} | computed
    steps = tuple(s for s in low.steps if s.dst in main_steps)
    main = _stream(low, steps, low.output, lookups, grain)
    return Streams(main, tuple(tables), len(low.program.inputs))


def check(code, scalars, tables, arena_len: int, grain: int, out: int, inputs: int) -> None:
    """Refuse a malformed stream (ValueError): what :func:`.machine.execute` trusts."""
    code = np.asarray(code)
    if code.ndim != 2 or code.shape[1] != O.FIELDS or code.dtype != np.int64:
        raise ValueError(f"stream: an int64 array of {O.FIELDS} fields per instruction, got {code.dtype} "
                         f"{code.shape}")
    if grain < 1 or inputs * grain > arena_len:
        raise ValueError(f"stream: grain {grain} and {inputs} input rows do not fit an arena of {arena_len}")
    if not (0 <= out and out + grain <= arena_len):
        raise ValueError(f"stream: the output offset {out} leaves the arena of {arena_len} elements")
    if len(scalars) < 1:
        raise ValueError("stream: the scalar array is empty")
    if tables.ndim != 2 or tables.shape[1] != 65536:
        raise ValueError(f"stream: tables must be (k, 65536), got {tables.shape}")
    for i, row in enumerate(code):
        op = int(row[O.OP])
        if not 0 <= op < len(O.NAMES):
            raise ValueError(f"stream instruction {i}: unknown opcode {op}")
        offsets = row[O.DST:O.SRC2 + 1]
        if (offsets < 0).any() or (offsets > arena_len - grain).any():
            raise ValueError(f"stream instruction {i} ({O.NAMES[op]}): an offset of {list(offsets)} with "
                             f"{grain} elements leaves the arena of {arena_len}")
        ks = row[O.K0:O.K1 + 1]
        if (ks < 0).any() or (ks >= len(scalars)).any():
            raise ValueError(f"stream instruction {i} ({O.NAMES[op]}): scalar index {list(ks)} out of "
                             f"{len(scalars)}")
        mode = int(row[O.MODE])
        name = O.NAMES[op]
        allowed = (range(tables.shape[0]) if name == "LOOKUP" else range(len(O.CMP_MODES)) if "COMPARE" in name
                   else (0, 1) if name in ("AND", "OR")
                   else _CODES_16 if name in ("CAST_NONE", "CAST_RINT", "CAST_ROUND", "CAST_FLOOR", "CAST_CEIL",
                                                 "CAST_TRUNC", "CAST_ODD")
                   or name.endswith("_INF") else TO_INT_MODES if name == "CAST_TO_INT"
                   else FROM_INT_MODES if name == "CAST_FROM_INT"
                   else range(len(WHOLE_ROUND_MODES)) if name == "CAST_WHOLE" else (0,))
        if mode not in allowed:
            raise ValueError(f"stream instruction {i} ({name}): mode {mode} is not one of {list(allowed)}")


# ---------------------------------------------------------------- mask arithmetic (issue 41)
_F16_CODE = dtype_info("float16").code
#: 2^23: ``(v + 2^23) - 2^23`` is ``v`` rounded to nearest even for 0 <= v <= 255 (the float32 ulp there is 1).
_RINT_SHIFT = Const(8388608.0)


def _lower_mask_arithmetic(e: _Emitter, s, dtype: dict, dst: int, src_rows: list) -> bool:
    """The A2 MishGrad's mask arithmetic (:mod:`swishgrad_numba.program.semantics`, "mask arithmetic") on the
    machine's opcodes, where ``s`` is one of its steps (True: emitted). A mask row holds its element's number,
    so float16 <- uint8 is the exact narrowing of that number (CAST_RINT); a 16-bit Add is ADD between the
    widenings, narrowed; uint8 <- float16 (CAST_RINT) widens, puts 0 for NaN, clamps to [0, 255] and rounds
    to nearest even by adding and taking away 2^23 (each step exact, so the value is the rounded one)."""
    if s.op == "Cast" and (dtype[s.dst], dtype[s.srcs[0]]) == ("float16", "uint8"):
        e.emit("CAST_RINT", dst, src_rows, mode=_F16_CODE)
        return True
    if s.op == "Cast" and (dtype[s.dst], dtype[s.srcs[0]]) == ("uint8", "float16"):
        t, m = e.take(), e.take()
        e.emit("CAST_NONE", t, src_rows, mode=_F16_CODE)
        e.emit("COMPARE", m, [t, t], mode=O.CMP_MODES.index("EQ"))
        e.emit("SELECT_SCALAR", t, [t, m], (Const(0.0),))
        e.emit("MAXS", t, [t], (Const(0.0),))
        e.emit("MINS", t, [t], (Const(255.0),))
        e.emit("ADDS", t, [t], (_RINT_SHIFT,))
        e.emit("ADDS", dst, [t], (Const(-8388608.0),))
        e.busy.difference_update((t, m))
        return True
    if s.op == "Add" and dtype[s.dst] in _SIXTEEN:
        code = dtype_info(dtype[s.dst]).code
        a, b, t = e.take(), e.take(), e.take()
        e.emit("CAST_NONE", a, [src_rows[0]], mode=code)
        e.emit("CAST_NONE", b, [src_rows[1]], mode=code)
        e.emit("ADD", t, [a, b])
        e.emit("CAST_RINT", dst, [t], mode=code)
        e.busy.difference_update((a, b, t))
        return True
    return False
