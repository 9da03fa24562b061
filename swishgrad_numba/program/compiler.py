"""A lowered program (:mod:`.lower`) as Python source for Numba: the walk's pass function and table entries.

The pass function (arguments :data:`swishgrad_numba.kernel.walk.PASS_ARGS`)
computes elements ``[a, b)`` of a pass in *stages*: one loop over the
elements each, in which every instruction is one call of its semantics
(:mod:`.semantics`) on a local variable, so the loop is straight-line code
that LLVM vectorises. A stage ends at each ``Exp`` (outside saturation
mode): its loop stores the fast binary64 value and keeps the running
minima of :mod:`swishgrad_numba.kernel.exp`; only when those say that some
element needs the exact path are they marked and redone, after the loop.
Values that live past their stage go to float32 rows: the inputs' rows once
the inputs are dead, the walk's ``work`` rows, the output buffer for marks;
values of no input (a Duplicate's scalar) are computed once, before the loops.
A 16-bit program's tabulated values (:attr:`.lower.Lowered.tables`) are
looked up in a stage of their own. Nothing is decided per element.

A table entry computes one tabulated value from one 16-bit input's bits,
every instruction by its semantics (Exp included, exact per value).
"""
from __future__ import annotations

import re

from ..casts import DIRECTED_MODES, INF_OVERFLOW
from ..dtypes import dtype_info
from ..kernel.walk import WORK_ROWS
from .form import Attr, Const, Product
from .isa import FLOAT_DTYPES, MASK_BIT_OPS, MASK_DTYPE, SIXTEEN_BIT_OPS, WHOLE_ROUND_MODES
from .lower import ULP_SHIFT, Lowered
from .semantics import DEFINED, FUNCTIONS
from . import int_casts

__all__ = ["pass_source", "entry_source"]


def _check_defined(low: Lowered):
    for s in low.steps:
        if s.op not in DEFINED and s.op != ULP_SHIFT:
            raise NotImplementedError(f"{low.program.name}: {s.op} has no semantics yet (semantics.DEFINED)")


def _scalar(k) -> str:
    if isinstance(k, Product):
        return f"({_scalar(k.a)} * {_scalar(k.b)})"   # float32 * float32: rounded once, as on the scalar unit
    if isinstance(k, Attr):
        return f"A_{k.name}"
    v = float(k.f32)
    if v != v:
        return "np.float32(np.nan)"
    if v in (float("inf"), float("-inf")):
        return f"np.float32({'-' if v < 0 else ''}np.inf)"
    return f"np.float32({v!r})"   # repr: the shortest text that reads back as this float32


def _call(low: Lowered, s, args: list, sat: bool) -> str:
    """The expression of step ``s`` on the variables ``args`` (its sources)."""
    dst_dtype = low.values[s.dst].dtype
    if s.op == "Cast" and int_casts.call(dst_dtype, low.values[s.srcs[0]].dtype, s.mode, args[0]) is not None:
        return int_casts.call(dst_dtype, low.values[s.srcs[0]].dtype, s.mode, args[0])   # issue 43
    if s.op == "Cast" and s.mode.endswith("_INF"):   # a directed narrowing, every overflow to inf (issue 43)
        how = DIRECTED_MODES.index(s.mode.removesuffix("_INF")) + INF_OVERFLOW
        return f"cast_directed({args[0]}, {dtype_info(dst_dtype).code}, {sat}, {how})"
    if s.op == "Cast" and dst_dtype == low.values[s.srcs[0]].dtype == "float32":   # to a whole float32 (issue 43)
        return f"cast_whole({args[0]}, {WHOLE_ROUND_MODES.index(s.mode)}, {sat})"
    if s.op == "Cast":
        integer = FUNCTIONS.get(("Cast", f"{dst_dtype}<-{low.values[s.srcs[0]].dtype}"))
        if integer is not None:
            return f"{integer}({args[0]})"
        if s.mode == "CAST_NONE":
            return f"cast_none({args[0]}, {dtype_info(low.values[s.srcs[0]].dtype).code})"
        return f"{FUNCTIONS[('Cast', s.mode)]}({args[0]}, {dtype_info(low.values[s.dst].dtype).code}, {sat})"
    if s.op == ULP_SHIFT:     # an envelope's freed result: ulp_shift(v, k, ftz), k and ftz attributes
        return f"ulp_shift({args[0]}, {_scalar(s.scalars[0])}, {_scalar(s.scalars[1])})"
    if s.op in MASK_BIT_OPS and dst_dtype == MASK_DTYPE:    # masks combined (issue 43; semantics)
        return f"{FUNCTIONS[(s.op, dst_dtype)]}({', '.join(args)})"
    if s.op == "Reinterpret" or dst_dtype == "int16":   # 16-bit bit patterns (issue 43; semantics)
        if s.op == "Duplicate":
            return f"np.uint16({int(s.scalars[0].f32)})"
        return f"{FUNCTIONS.get((s.op, dst_dtype)) or FUNCTIONS[s.op]}({', '.join(args)})"
    function = FUNCTIONS.get((s.op, s.mode)) or FUNCTIONS[s.op]   # by mode: Axpy, Compare, Select
    sixteen = [low.values[v].dtype for v in s.srcs if low.values[v].dtype in FLOAT_DTYPES[1:]]
    if s.op in SIXTEEN_BIT_OPS and (sixteen or dst_dtype in FLOAT_DTYPES[1:]):
        # a 16-bit tensor's instruction: its float32 meaning on the exact widenings, narrowed back (exact)
        code = dtype_info(sixteen[0] if sixteen else dst_dtype).code
        args = [f"cast_none({a}, {code})" if low.values[v].dtype in FLOAT_DTYPES[1:] else a
                for a, v in zip(args, s.srcs)]
        expr = f"{function}({', '.join(list(args) + [_scalar(k) for k in s.scalars] + [str(sat)])})"
        return expr if dst_dtype == MASK_DTYPE else f"cast_rint({expr}, {code}, {sat})"
    return f"{function}({', '.join(list(args) + [_scalar(k) for k in s.scalars] + [str(sat)])})"


def _attrs(low: Lowered, source: str) -> list:
    return [f"    A_{n} = {source}.{n}" for n in low.program.attrs]


def entry_source(low: Lowered, table: int, name: str, sat: bool) -> str:
    """``def name(tparams, bits)``: the tabulated value ``table`` for one 16-bit bit pattern."""
    _check_defined(low)
    by_dst = {s.dst: s for s in low.steps}
    need, todo = [], [table]
    while todo:
        v = todo.pop()
        if v in by_dst and v not in need:
            need.append(v)
            todo.extend(by_dst[v].srcs)
    lines = [f"def {name}(tparams, bits):"] + _attrs(low, "tparams")
    for s in low.steps:
        if s.dst in need:
            args = ["bits" if low.values[v].input >= 0 else f"v{v}" for v in s.srcs]
            lines.append(f"    v{s.dst} = {_call(low, s, args, sat)}")
    lines.append(f"    return v{table}")
    return "\n".join(lines) + "\n"


class _Rows:
    """Float32 rows given to values by their lifetimes ``(first, last)`` in stage time:
    stage ``k``'s loop is time ``2k``, its Exp's redo ``2k + 1``."""

    def __init__(self, names):
        self.spans = {name: [] for name in names}

    def free(self, name, first, last) -> bool:
        for f, l in self.spans[name]:
            # a row read and written in the same loop is safe: each element is loaded before it is stored
            if not (first > l or (first == l and first % 2 == 0) or last < f):
                return False
        return True

    def take(self, first, last, where) -> str:
        for name in self.spans:
            if self.free(name, first, last):
                self.spans[name].append((first, last))
                return name
        raise RowsExhausted(f"{where}: needs more float32 rows than the walk's {WORK_ROWS} work rows "
                                  f"and its dead float32 inputs")


class RowsExhausted(NotImplementedError):
    """The staged pass would need more float32 rows than the walk has."""


def pass_source(low: Lowered, name: str, sat: bool, broadcast: bool = False) -> str:
    """``def name(params, in_bufs, o_buf, work, a, b)``: one pass of the program.

    ``broadcast``: for the broadcast walk (:mod:`swishgrad_numba.kernel.broadcast`), whose ``in_bufs`` is a
    tuple of buffers (their dtypes may differ) that the pass must not write (a later loop may reuse them).

    Where the stages would need more rows than there are, every Exp is
    computed inline instead, then the lookups too (one loop; the same bits,
    not vectorised)."""
    _check_defined(low)
    # The widest registers pay where a pass computes an Exp per element. On the broadcast walk, whose
    # passes are whole UB loops between copies, a pass of lookups and conversions ran 5-9 % slower
    # with them (measured, bench/RESULTS.md): there it keeps the default width.
    exp = any(s.op == "Exp" for s in low.per_element)
    for split, lookups_apart in ((not sat, True), (False, True), (False, False)):
        try:
            source = _pass_source(low, name, sat, split, lookups_apart, writable_inputs=not broadcast,
                                  full_width=not broadcast or exp)
            # a tuple of buffers is indexed buffer first
            return re.sub(r"in_bufs\[(\d+), j\]", r"in_bufs[\1][j]", source) if broadcast else source
        except RowsExhausted:
            continue
    raise AssertionError("one loop needs no rows")


def _pass_source(low: Lowered, name: str, sat: bool, split: bool, lookups_apart: bool,
                 writable_inputs: bool, full_width: bool = True) -> str:
    where = low.program.name
    inputs = [v for v in low.values.values() if v.input >= 0]
    tables = {v: i for i, v in enumerate(low.tables)}
    head = [f"def {name}(params, in_bufs, o_buf, work, a, b):"] + (["    vectorise_full_width()"] if full_width else [])
    head += _attrs(low, "params")
    # rows are indexed in two dimensions: a row view per slice would cost its reference counting
    head += [f"    table{i} = params.table{i}" for i in range(len(low.tables))]
    if low.output in tables:   # the whole program is one table: a lookup
        (src,) = low.deps[low.output]
        return "\n".join(head + _loop([f"o_buf[j] = table{tables[low.output]}[{_at(f'in{src}')}]"])) + "\n"

    # values of no input (a Duplicate's scalar, what follows from it alone): computed once, before the
    # loops, never kept in a row (a row would cost a store and a load per element)
    constants = [s for s in low.per_element if not low.deps[s.dst]]
    constant = {s.dst for s in constants}
    head += [f"    v{s.dst} = {_call(low, s, [f'v{v}' for v in s.srcs], sat)}" for s in constants]
    if low.output in constant:   # an output of no input (an Exp of a Duplicate's scalar): stored
        return "\n".join(head + _loop([f"o_buf[j] = v{low.output}"])) + "\n"

    # stages: lookups (if any, and apart) first, then one per fast Exp
    if not lookups_apart:
        tables = {}
    stage, first, steps_at = {}, 1 if tables else 0, {}
    k = first
    for s in low.per_element:
        if s.dst in constant:
            continue
        stage[s.dst] = k
        steps_at.setdefault(k, []).append(s)
        if s.op == "Exp" and split:
            k += 1
    last_stage = stage[low.output]
    redo_from = _redo_sources(low, stage) if split else {}
    uses = {}
    for s in low.per_element:
        if s.dst in constant:
            continue
        for v in s.srcs:
            if v not in constant:
                uses.setdefault(v, []).append(2 * stage[s.dst])
        if s.op == "Exp" and split:
            uses.setdefault(redo_from[s.dst][0], []).append(2 * stage[s.dst] + 1)
            uses.setdefault(s.dst, []).append(2 * stage[s.dst] + 1)
    defined = {v: 2 * stage[v] for v in stage}
    defined.update({v: 0 for v in tables})
    defined.update({v.id: -1 for v in inputs})

    rows = _Rows([f"in{v.input}" for v in inputs if v.dtype == "float32" and writable_inputs]
                 + [f"w{i}" for i in range(WORK_ROWS)])
    row = {}
    for v in inputs:
        row[v.id] = f"in{v.input}"
        if row[v.id] in rows.spans:
            rows.spans[row[v.id]].append((-1, max(uses.get(v.id, [-1]))))
    for v in sorted(defined):
        if v in row or v == low.output:
            continue
        if max(uses.get(v, [defined[v]])) > defined[v]:
            row[v] = rows.take(defined[v], max(uses[v]), where)

    body = []
    if tables:
        body += _loop([_store(low, v, row[v], f"table{i}[{_at(f'in{next(iter(low.deps[v]))}')}]")
                       for v, i in tables.items()])
    for k in range(first, last_stage + 1):
        steps = steps_at.get(k, [])
        made = {s.dst for s in steps}
        read = sorted({v for s in steps for v in s.srcs if v not in made and v not in constant})
        inner = [_load(low, v, row[v]) if v in row else _lookup(low, v) for v in read]
        exp_step = steps[-1] if steps and steps[-1].op == "Exp" and split else None
        for s in steps:
            if s is exp_step:
                inner += [f"e_d, e_key, e_sub = exp_fast(clamp_exp_arg(v{s.srcs[0]}))",
                          "key_min = min(key_min, e_key)", "sub_min = min(sub_min, e_sub)",
                          f"v{s.dst} = np.float32(e_d)"]
            else:
                inner.append(f"v{s.dst} = {_call(low, s, [f'v{v}' for v in s.srcs], sat)}")
        inner += [_store(low, v, row[v], f"v{v}") for v in sorted(made) if v in row]
        if low.output in made:
            inner.append(f"o_buf[j] = v{low.output}")
        if exp_step is not None:
            body.append("    key_min, sub_min = no_exact_flags()")
        body += _loop(inner)
        if exp_step is not None:
            t = 2 * k + 1
            to_out = exp_step.dst == low.output
            marks = "o_buf" if low.values[low.output].dtype == "float32" and not to_out else rows.take(t, t, where)
            (base, sign), dst = redo_from[exp_step.dst], "o_buf" if to_out else row[exp_step.dst]
            src = f"{_at(row[base])} * np.float32({sign})"
            body += ["    if exact_exp_flags(key_min, sub_min):"]
            body += ["    " + line for line in _loop([f"{_at(marks)} = exact_exp_mark(clamp_exp_arg({src}))"])]
            body += [f"        redo_marked({_whole(dst)}, {_whole(row[base])}, np.float32({sign}), "
                     f"{_whole(marks)}, a, b)"]
    return "\n".join(head + body) + "\n"


def _redo_sources(low: Lowered, stage: dict) -> dict:
    """For each Exp's result, ``(value, sign)`` such that its argument is ``value * sign`` exactly: the
    redo of the rare exact path reads ``value`` from its row. Where the argument is ``Muls(v, +-1)``
    or ``Neg(v)`` of the same stage, ``v`` (already kept, as SwishGrad's ``beta * x`` is) spares
    storing the argument; otherwise the argument itself."""
    by_dst = {s.dst: s for s in low.per_element}
    out = {}
    for s in low.per_element:
        if s.op != "Exp" or s.dst not in stage:   # not in a stage: an Exp of no input, computed once
            continue
        arg = by_dst.get(s.srcs[0])
        out[s.dst] = (s.srcs[0], 1.0)
        if arg is not None and stage[arg.dst] == stage[s.dst]:
            if arg.op == "Neg":
                out[s.dst] = (arg.srcs[0], -1.0)
            elif arg.op == "Muls" and isinstance(arg.scalars[0], Const) and float(arg.scalars[0].f32) in (1.0, -1.0):
                out[s.dst] = (arg.srcs[0], float(arg.scalars[0].f32))
    return out


def _whole(row: str) -> str:
    """A row's array: ``in<i>`` an input's buffer, ``w<k>`` a work row, or ``o_buf``."""
    if row.startswith("in"):
        return f"in_bufs[{row[2:]}]"
    if row.startswith("w"):
        return f"work[{row[1:]}]"
    return row


def _at(row: str) -> str:
    """A row's element ``j``."""
    if row == "o_buf":
        return "o_buf[j]"
    return f"{_whole(row)[:-1]}, j]"


def _lookup(low: Lowered, v: int) -> str:
    return f"v{v} = table{low.tables.index(v)}[{_at(f'in{next(iter(low.deps[v]))}')}]"


def _load(low: Lowered, v: int, row: str) -> str:
    # a mask element (0 or 1) or a 16-bit value (bits) kept in a float32 row is stored as the number it
    # reads as: exact
    if low.values[v].dtype == MASK_DTYPE:
        return f"v{v} = np.uint8({_at(row)})"
    if low.values[v].dtype == "int32":   # kept as its bits: exact for every int32
        return f"v{v} = np.float32({_at(row)}).view(np.int32)"
    if low.values[v].dtype == "int8":
        return f"v{v} = np.int8({_at(row)})"
    if low.values[v].dtype == "int16":   # held as its 16 bits (isa.BITS_DTYPE), as a float16 is
        return f"v{v} = np.uint16({_at(row)})"
    if low.values[v].dtype != "float32" and low.values[v].input < 0:
        return f"v{v} = np.uint16({_at(row)})"
    return f"v{v} = {_at(row)}"


def _store(low: Lowered, v: int, row: str, expr: str) -> str:
    if low.values[v].dtype == "int32":
        return f"{_at(row)} = np.int32({expr}).view(np.float32)"
    if low.values[v].dtype != "float32":
        return f"{_at(row)} = np.float32({expr})"
    return f"{_at(row)} = {expr}"


def _loop(inner: list) -> list:
    return ["    for i in range(b - a):", "        j = np.uint64(a + i)"] + ["        " + line for line in inner]
