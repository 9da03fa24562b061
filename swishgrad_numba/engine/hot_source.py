"""The hot tier's source: a flat element-wise stream as one loop over the tensors (issue 39).

:func:`block_source` turns a stream (:mod:`.opcodes`) into the Python source of one function that runs a
block of a flat launch with each element's whole stream in local variables: each input read straight
from its tensor (16-bit bits as the number they are, as CopyIn puts them in a row), every instruction the
call of its function in :mod:`swishgrad_numba.program.semantics` that :func:`.machine.execute` makes
(with the same modes, masks, scalars ``scalars[k]`` and the overflow mode as a constant), the result
stored straight into the output (as CopyOut stores its row). Nothing of the arithmetic is restated: the
loop is a cache of the stream, never a second semantics.

Where the loop's bits could differ from the machine's, it flags the block and the caller runs that block
on the machine (:mod:`.hot`):

- Exp and Ln: the fast binary64 path only; a block in which the machine would take the exact path for
  some element (the same tests as :func:`swishgrad_numba.kernel.exp.exp_block`'s and the machine's Ln)
  is flagged (an Exp in a loop of its own by :func:`swishgrad_numba.kernel.exp_vector.exp_rows` where
  asked: its own value's guard band, as wide);
- an instruction with two NaN operands (a Mul, an Add, a Max, a Muls of a NaN scalar, ...): the compiler
  may swap a commutative operation's operands (measured, :mod:`.fused16`), which changes which NaN
  propagates.

In Inf/NaN mode the 16-bit Casts are the CPU's alone (:func:`.semantics.cast_none_quieting`: a float16
signalling NaN may come back quieted; :func:`.semantics.cast_rint_not_nan`: no NaN test), and the flags
are NaN tests on as few values as cover them (:func:`_flags`): a narrowing's operand, and a value whose NaN
payload may be wrong (a widened float16, a commutative result) where it reaches anything that is not
an instruction passing a NaN on (arithmetic, an Exp, a float32 Or: checked further down) or a Compare
(which reads no payload).
A sigmoid_grad stream then tests one value an element, where it tested eight (issue 39: the loop at the
copy's speed, bench/RESULTS.md, rows16). A block with a NaN in a result runs on the machine.
Saturation mode keeps the exact Casts and the two-NaN terms.

A block of more than one loop asks for its output's lines early (:func:`.hot.prefetch_lines`), a part
before each of its first loops (:data:`PREFETCH_PARTS`), so that the write misses overlap its arithmetic.

The body is an inner function of the block (:func:`block_and_rows`), called with ``n`` a constant for a whole
block (:func:`block_elements`: nearly every block of a launch) and as a variable for a block cut short: Numba
inlines both calls, and LLVM compiles the first with its loops' trip counts known (not in a block that gathers
a Lookup, which that made slower). A one-loop block whose inputs are read only by a widening of bfloat16 has a
function over 32-bit words instead of the first call (:func:`_in_words`), which the launch runs for a whole
block at an even offset.

A Lookup of an input's bits is gathered first into a scratch row for the block
(:func:`.direct16.lookup_bits`: vector gathers), which the loop then reads. :func:`block_source` refuses
(:class:`NotHot`) a stream it does not take: the launch then runs on the machine as before.
"""
from __future__ import annotations

import numpy as np

from ..casts import HARDWARE_F16
from ..dtypes import BFLOAT16, FLOAT16
from . import opcodes as O
from .hot_loops import EXP_LOOP_MIN, EXP_PREP, int_masks, split_loops

__all__ = ["NotHot", "block_and_rows", "block_elements", "block_source", "scratch_rows", "HOT_BLOCK",
           "HOT_BLOCK_NO_SCRATCH", "VERSION"]

#: Part of every hot function's key: a change of what the generator writes bumps it.
VERSION = 12
#: Elements of a hot block: the unit a flag sends back to the machine (at most the stream's grain).
HOT_BLOCK = 512
#: The same for a block that keeps nothing in scratch rows (one loop, no gathered Lookup): its per-block cost
#: is spread over more elements (sigmoid_grad bfloat16 at 2^22, 2 threads, min of 25: arch35 561 us against
#: 594 at 512, a2 618 against 632: bench/RESULTS.md, the lead's measurements of 2026-12-06, second session).
HOT_BLOCK_NO_SCRATCH = 1024

#: A block of several loops asks for its output's lines in this many parts, one before each of its first loops
#: (the split rows at 2^22, 2 threads: 10-30% faster in processes where the output's write misses were slow,
#: within -4..+3% where they were not; thirds ahead of halves and of all at once: bench/RESULTS.md, gelu35c).
PREFETCH_PARTS = 3
#: The instructions the compiler may swap the operands of: Mul, Add, Max, Min, their scalar forms, MulDstAdd and
#: the Axpys.
_SWAPPABLE = frozenset((O.MUL, O.ADD, O.MAX, O.MIN, O.MULS, O.ADDS, O.MAXS, O.MINS, O.MUL_DST_ADD, O.AXPY_FUSED,
                        O.AXPY_UNFUSED))
#: Instructions whose result is a NaN wherever an operand (one of the values, not a mask) is (Inf/NaN mode):
#: a NaN operand's payload can only reach the result as a NaN. Exp too: e**NaN is a NaN on the machine and in
#: both hot paths (their clamp ``min(t, EXP_T_HI)`` keeps a NaN ``t``: Python's ``min`` returns its first
#: argument where the comparison fails). A float32 Or as well (:func:`_passes_nan`).
_PASS_NAN = frozenset((O.ADD, O.SUB, O.MUL, O.DIV, O.MAX, O.MIN, O.MULS, O.ADDS, O.MAXS, O.MINS, O.RECIPROCAL,
                       O.NEG, O.ABS, O.SQRT, O.RELU, O.MUL_DST_ADD, O.AXPY_FUSED, O.AXPY_UNFUSED, O.SELECT,
                       O.SELECT_SCALAR, O.EXP))
#: Instructions that read of an operand only whether it is a NaN, never its payload.
_NAN_BLIND = frozenset((O.COMPARE, O.COMPARE_SCALAR))
_COMPARES = tuple(f"compare_{m.lower()}" for m in O.CMP_MODES)   # a Compare's mode -> its semantics function
_DIRECTED = range(O.CAST_FLOOR, O.CAST_ODD_INF + 1)


def block_elements(rows: int, grain: int) -> int:
    """The elements of a launch's hot block for a stream whose block keeps ``rows`` scratch rows:
    :data:`HOT_BLOCK`, :data:`HOT_BLOCK_NO_SCRATCH` where it keeps none; at most the stream's ``grain``."""
    return min(HOT_BLOCK if rows else HOT_BLOCK_NO_SCRATCH, grain)


class NotHot(ValueError):
    """A stream the hot tier does not take (it runs on the machine)."""


def _nan2(*names) -> str:
    """Whether two of the operands are NaN (a bool: an or of bools vectorises, measured; one of integers did
    not)."""
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    return " | ".join(f"(({a} != {a}) & ({b} != {b}))" for a, b in pairs)


def block_source(code: np.ndarray, grain: int, inputs: int, out_row: int, sat: bool, name: str = "hot_block",
                 inline: dict | None = None, vector_exp: bool = False) -> str:
    """The source of ``name(params, in0, in1, in2, out, at, n, scalars, tables, scratch)`` (and, where the block has
    one, of ``{name}_words(...)`` with the same arguments: :func:`_in_words`): elements ``at .. at + n``
    of the flat tensors through the stream ``code`` (checked: :func:`.stream.check`), ``n`` at most
    ``scratch.shape[1]``; it returns whether the block is flagged (its outputs are then to be recomputed
    by the machine). ``inline``: table ``mode`` -> ``(code, grain, input row, result row, first scalar)`` of
    the table streams whose Lookups are computed in the loop instead (their scalars in ``scalars`` from
    ``first scalar`` on): the table's entry is its stream run on the bits' number, which the input's value
    is. ``vector_exp``: each Exp's loop of its own (:data:`EXP_LOOP_MIN`) as a call of
    :func:`swishgrad_numba.kernel.exp_vector.exp_rows` (Inf/NaN mode; only where that compiles: the caller
    decides)."""
    return block_and_rows(code, grain, inputs, out_row, sat, name, inline, vector_exp)[0]


def scratch_rows(code: np.ndarray, grain: int, inputs: int, out_row: int, sat: bool, inline: dict | None = None) -> int:
    """The scratch rows the stream's hot block uses: one per Lookup gathered, one per value
    kept from one of its loops for another (:func:`.hot_loops.split_loops`)."""
    return block_and_rows(code, grain, inputs, out_row, sat, "hot_block", inline)[1]


def block_and_rows(code, grain: int, inputs: int, out_row: int, sat: bool, name: str = "hot_block",
                   inline: dict | None = None, vector_exp: bool = False) -> tuple:
    """``(block_source(...), scratch_rows(...))`` from one generation."""
    code = np.asarray(code)
    if code.ndim != 2 or code.shape[1] != O.FIELDS or code.shape[0] == 0:
        raise NotHot("not a stream of instructions")
    inline = inline or {}
    sat_c = "True" if sat else "False"
    pre: list = []           # before the block's loop (scalars, Duplicates, gathers)
    body: list = []          # one element's stream
    post: list = []          # after the loop: the block's flags
    flags: list = []         # per-element flag terms
    lookups = [0]
    kvars: dict = {}
    units: list = []         # each instruction as (result variable, its lines in ``body``, the variables it reads)
    reading: list = []       # the variables the instruction being emitted reads
    input_names = {f"x{r}" for r in range(inputs)}
    input_reads: set = set()  # (opcode, mode) of every instruction that reads an input
    # Compare results (variable -> its call), and the variables read as a value (not as a Select's mask): a
    # Compare read only as a mask is kept as an int32 -1 / 0 (:func:`.hot_loops.int_masks`)
    compares: dict = {}
    as_value: set = set()
    # Inf/NaN mode's flags (sat: the two-NaN terms in ``flags``): each instruction as (opcode, result, value
    # operands); the values whose NaN payload may differ from the machine's (``suspect``); the values that
    # must not be NaN (a narrowing's operand); the loop's invariants (scalars, Duplicates)
    steps: list = []
    suspect: set = set()
    not_nan: list = []
    invariant: set = set()

    def emit(code, grain, sources, prefix, kbase, out_row):
        """The instructions of ``code`` into ``body``; ``sources``: the rows it reads before writing them
        (row -> variable); the variable of ``out_row`` at the end."""
        rows: dict = {}          # arena row -> the local variable holding its value

        def row_of(offset: int) -> int:
            if offset % grain:
                raise NotHot(f"offset {offset} is not at a row's start")
            return offset // grain

        def read(offset: int, mask: bool = False) -> str:
            r = row_of(offset)
            name = rows[r] if r in rows else sources.get(r)
            if name is None:
                raise NotHot(f"row {r} is read before it is written")
            reading.append(name)
            if name in input_names and op != O.LOOKUP:    # (an inlined table's stream records its own reads)
                input_reads.add((op, mode))
            if not mask:
                as_value.add(name)
            return name

        def scalar(k: int) -> str:
            k += kbase
            if k not in kvars:
                kvars[k] = f"k{k}"
                pre.append(f"k{k} = scalars[{k}]")
                invariant.add(kvars[k])
            return kvars[k]

        def operands(*names):      # a commutative instruction's operands: see _flags
            if sat:
                flags.append((_nan2(*names), names))
            return names

        for i, ins in enumerate(code):
            op, dst, s0, s1, s2, k0, k1, mode = (int(v) for v in ins)
            v = f"{prefix}v{i}"
            args: tuple = ()           # the instruction's value operands
            first = len(body)
            reading.clear()
            if op in O.REGULAR:            # its function of its form's operands (in the form's order)
                form, f = O.REGULAR[op]
                names = tuple(scalar(int(ins[field])) if field == O.K0 else read(int(ins[field]))
                              for field in O.FORMS[form])
                body.append(f"{v} = S.{f}({', '.join(names)}, {sat_c})")
                args = operands(*names) if op in _SWAPPABLE else names
            elif op == O.EXP:
                a = read(s0)
                args = (a,)
                body.append(f"exp_bits = max(exp_bits, np.float32({a}).view(np.uint32))")   # EXP_PREP lines on
                body.append(f"{v}c = min({a}, EXP_T_HI)")                                   # the argument, then
                body.append(f"{v}e, {v}key, _{v} = exp_fast({v}c)")                         # those on {v}c
                body.append(f"exp_key = min(exp_key, {v}key)")
                body.append(f"{v} = np.float32({v}e)" if not sat else f"{v} = S.saturate(np.float32({v}e), True)")
                if "exp_key = NO_KEY" not in pre:
                    pre.append("exp_key = NO_KEY")
                    pre.append("exp_bits = np.uint32(0)")
                    post.append("if (exp_key <= EXP_GUARD_LIM) | (exp_bits > EXP_LOW_BITS):\n        flagged = True")
            elif op == O.LN:
                a = read(s0)
                args = (a,)
                body.append(f"{v}r, {v}key = ln_fast({a})")
                body.append(f"ln_key = min(ln_key, {v}key)")
                body.append(f"{v} = {v}r" if not sat else f"{v} = S.saturate({v}r, True)")
                if "ln_key = NO_KEY" not in pre:
                    pre.append("ln_key = NO_KEY")
                    post.append("if ln_flagged(ln_key):\n        flagged = True")
            elif op == O.CAST_NONE and not sat:     # the CPU's widening: a float16 NaN is set apart
                body.append(f"{v} = S.cast_none_quieting(np.uint16({read(s0)}), {mode})")
                if mode == FLOAT16.code and HARDWARE_F16:
                    suspect.add(v)
            elif op == O.CAST_NONE:
                body.append(f"{v} = S.cast_none(np.uint16({read(s0)}), {mode})")
            elif op == O.CAST_RINT and not sat:     # the narrowing without its NaN test: a NaN is set apart
                args = (read(s0),)
                not_nan.append(args[0])
                body.append(f"{v} = np.float32(S.cast_rint_not_nan({args[0]}, {mode}))")
            elif op == O.CAST_RINT:
                args = (read(s0),)
                body.append(f"{v} = np.float32(S.cast_rint({args[0]}, {mode}, {sat_c}))")
            elif op == O.CAST_ROUND:
                args = (read(s0),)
                body.append(f"{v} = np.float32(S.cast_round({args[0]}, {mode}, {sat_c}))")
            elif op == O.LOOKUP:
                r = row_of(s0)
                if prefix or r >= inputs or r in rows:
                    raise NotHot("a Lookup of a computed value")
                if mode in inline:         # the table's stream on the input's bits' number
                    t_code, t_grain, t_in, t_out, t_k = inline[mode]
                    v = emit(t_code, t_grain, {t_in: read(s0)}, f"t{mode}_{i}_", t_k, t_out * t_grain)
                else:
                    pre.append(f"lookup_bits(tables[{mode}], in{r}, at, scratch[{lookups[0]}], 0, n)")
                    body.append(f"{v} = scratch[{lookups[0]}, i]")
                    lookups[0] += 1
            elif op in (O.AND, O.OR):
                a, b = read(s0), read(s1)
                on_bits, on_patterns = O.BITWISE[op]
                args = (a, b)
                body.append(f"{v} = np.float32(S.{on_patterns}({a}, {b}))" if mode == 1
                            else f"{v} = S.{on_bits}({a}, {b}, {sat_c})")
            elif op == O.DUPLICATE:
                pre.append(f"{v} = S.duplicate({scalar(k0)}, {sat_c})")
                invariant.add(v)
            elif op in (O.COMPARE, O.COMPARE_SCALAR):
                if not 0 <= mode < len(_COMPARES):
                    raise NotHot(f"compare mode {mode}")
                b = scalar(k0) if op == O.COMPARE_SCALAR else read(s1)
                args = (read(s0), b)
                compares[v] = f"S.{_COMPARES[mode]}({args[0]}, {b}, False)"
                body.append(f"{v} = np.float32({compares[v]})")
            elif op == O.SELECT:            # (the mask is not a value)
                args = (read(s0), read(s1))
                body.append(f"{v} = S.select({args[0]}, {args[1]}, np.uint8({read(s2, True)}), {sat_c})")
            elif op == O.SELECT_SCALAR:
                args = (read(s0), scalar(k0))
                body.append(f"{v} = S.select_scalar({args[0]}, np.uint8({read(s1, True)}), {args[1]}, {sat_c})")
            elif op == O.SHIFT_RIGHT:
                args = (read(s0),)
                body.append(f"{v} = np.int32(S.shift_right({args[0]}, {scalar(k0)}, False)).view(np.float32)")
            elif op == O.CAST_I32_F32:
                args = (read(s0),)
                body.append(f"{v} = S.cast_i32_f32(np.float32({args[0]}).view(np.int32))")
            elif op == O.CAST_F16_I8:
                body.append(f"{v} = np.float32(S.cast_f16_i8(np.uint16({read(s0)})))")
            elif op == O.CAST_I8_F16:
                body.append(f"{v} = np.float32(S.cast_i8_f16(np.int8({read(s0)})))")
            elif op in _DIRECTED:
                args = (read(s0),)
                body.append(f"{v} = np.float32(S.cast_directed({args[0]}, {mode}, {sat_c}, {op - O.CAST_FLOOR}))")
            elif op == O.CAST_WHOLE:
                args = (read(s0),)
                body.append(f"{v} = S.cast_whole({args[0]}, {mode}, {sat_c})")
            elif op == O.ULP_SHIFT:
                args = (read(s0),)
                body.append(f"{v} = ulp_shift({args[0]}, {scalar(k0)}, {scalar(k1)})")
            elif op == O.CAST_TO_INT:      # the mode's fields as the machine's _to_int reads them, constants here
                how, dk, src, wrap = mode % 8, (mode // 8) % 8, (mode // 64) % 4, mode >= 256
                if dk >= 4 or src >= 3:
                    raise NotHot(f"CAST_TO_INT mode {mode}")
                args = (read(s0),)
                r = f"IC.cast_to_int({args[0]}, SRC_CODES[{src}], {how}, INT_LO[{dk}], INT_HI[{dk}], {wrap})"
                body.append(f"{v} = np.int32({r}).view(np.float32)" if dk == 0 else
                            f"{v} = np.float32(IC.int16_bits({r}))" if dk == 1 else f"{v} = np.float32({r})")
            elif op == O.CAST_FROM_INT:
                how, kind, a = mode % 8, mode // 8, read(s0)
                args = (a,)
                body.append(f"{v} = IC.cast_int_to_f32(np.float32({a}).view(np.int32), {how})" if kind == 0 else
                            f"{v} = np.float32(IC.cast_int_to_16(IC.int16_value({a}), {how}))" if kind == 1 else
                            f"{v} = np.float32(IC.int16_value({a}))")
            else:
                raise NotHot(f"opcode {O.NAMES[op] if 0 <= op < len(O.NAMES) else op}")
            steps.append((op, mode, v, args))
            if op != O.DUPLICATE and not (op == O.LOOKUP and mode in inline):
                own = EXP_PREP if op == O.EXP else 0 if op == O.LN and reading[0] not in invariant else None
                units.append((v, body[first:], tuple(reading), own))
            rows[row_of(dst)] = v
        return read(out_row)

    result = emit(code, grain, {r: f"x{r}" for r in range(inputs)}, "", 0, out_row)
    masks = set(compares) - as_value - {result}
    units = [(v, int_masks(lines, masks, compares), reads, own) for v, lines, reads, own in units]
    if not sat:
        checks, invariant_checks = _flags(steps, suspect, not_nan, invariant, result)
        pre += [f"if {k} != {k}:\n        flagged = True" for k in invariant_checks]
        flags += [(f"({c} != {c})", (c,)) for c in checks]
    passes, rows = split_loops(units, flags, invariant, result, lookups[0], masks, vector_exp and not sat)
    lines = ["    at = np.uint64(at)",
             "    flagged = False"]
    lines += [f"    {p}" for p in pre]
    if flags:
        lines.append("    two_nans = False")
    parts = min(len(passes), PREFETCH_PARTS)
    if parts > 1:           # the output's lines asked for early, a part before each of the first passes
        ends = ["np.int64(at)"] + [f"np.int64(at) + {k} * n // {parts}" for k in range(1, parts)] + ["np.int64(at) + n"]
        passes[:parts] = [x for k, p in enumerate(passes[:parts])
                          for x in (f"prefetch_lines(out, {ends[k]}, {ends[k + 1]})", p)]
    for p in passes:
        if isinstance(p, str):          # a statement (a vector Exp's call, a prefetch), not a loop
            lines.append(f"    {p}")
            continue
        lines.append("    for i in range(n):")
        lines += [f"        {s}" for s in p]
    if flags:
        lines.append("    if two_nans:\n        flagged = True")
    lines += [f"    {p}" for p in post]
    lines.append("    return flagged")
    # The body as an inner function (Numba inlines it at each call), called with a whole block's length as a
    # constant where that is ``n`` (nearly every block of a launch): its loops' trip counts known, LLVM drops
    # their remainders (the float32 rows 0-20% faster). Not where the block gathers a Lookup: those 16-bit
    # rows ran 10-20% slower with it (bench/RESULTS.md, fullblock)
    args = "params, in0, in1, in2, out, at, n, scalars, tables, scratch"
    full = block_elements(rows, grain)
    words = _in_words(passes, pre, post, flags, input_reads, result, full) if not lookups[0] else None
    lines = ([f"def {name}({args}):",
              f"    def block_rows({args}):",
              "        vectorise_full_width()"] + [f"    {s}" for s in "\n".join(lines).split("\n")])
    if not lookups[0] and words is None:
        lines += [f"    if n == {full}:", f"        return block_rows({args.replace(' n,', f' {full},')})"]
    lines.append(f"    return block_rows({args})")
    if words is not None:
        lines += [f"def {name}_words({args}):"] + [f"    {s}" for s in "\n".join(words).split("\n")]
    return "\n".join(lines) + "\n", rows


def _in_words(passes: list, pre: list, post: list, flags: list, input_reads: set, result: str, full: int):
    """The body of a block's function over 32-bit words (issue 39, pairwords), or None where the block does not
    have one: one loop (no scratch row, no Exp or Ln, nothing gathered) whose inputs are read only by a widening
    of bfloat16. Its arrays are ``uint32`` views of the 16-bit tensors (``at`` and ``n`` still count elements):
    a word's low element is its bits & 0xffff, its high one its bits >> 16, the element's lines run once for
    each (the same instructions on the same numbers: the same bits), and the two results are stored as one
    word. It runs a whole block at an even ``at`` and returns whether it flagged the block, else -1 (the caller
    then runs :func:`block_source`'s function). LLVM widens the inputs with a shift or a mask, narrows the two
    results with one permute and tests both halves' NaNs with one compare: sigmoid_grad bfloat16's block in L1
    0.20 -> 0.13 ns an element (bench/RESULTS.md, pairwords). float16's widening wants the halves packed again:
    slower there, so not taken."""
    if len(passes) != 1 or isinstance(passes[0], str) or post or input_reads != {(O.CAST_NONE, BFLOAT16.code)}:
        return None
    loop = passes[0]
    store = f"out[j] = {result}"
    loads = {line: line.split(" = ")[0] for line in loop if line.startswith("x") and line.endswith("[j])")}
    if loop[0] != "j = at + np.uint64(i)" or loop[-1] != store or loop.count(store) != 1 \
            or any(line != f"{x} = np.float32(in{x[1:]}[j])" for line, x in loads.items()):
        return None

    def half(part: str) -> list:
        return [f"{loads[line]} = np.float32(np.uint16(w{loads[line][1:]} {part}))" if line in loads else line
                for line in loop[1:-1]]
    body = ["j = (at >> np.uint64(1)) + np.uint64(i)"] + [f"w{x[1:]} = in{x[1:]}[j]" for x in loads.values()]
    body += half("& np.uint32(0xffff)") + [f"low = np.uint32(np.uint16({result}))"]
    body += half(">> np.uint32(16)") + [f"out[j] = low | (np.uint32(np.uint16({result})) << np.uint32(16))"]
    lines = [f"if n != {full} or at & 1:",
             "    return -1",
             "vectorise_full_width()",
             "at = np.uint64(at)",
             "flagged = False"] + pre
    if flags:
        lines.append("two_nans = False")
    lines.append(f"for i in range({full // 2}):")
    lines += [f"    {s}" for s in body]
    if flags:
        lines.append("if two_nans:\n    flagged = True")
    lines.append("return np.int64(flagged)")
    return lines


def _passes_nan(op: int, mode: int) -> bool:
    """Whether the instruction's result is a NaN wherever a value operand is (:data:`_PASS_NAN`), or it is a
    float32 Or (mode 0: a NaN's exponent and mantissa bits stay set; a 16-bit Or's operands are bit patterns)."""
    return op in _PASS_NAN or (op == O.OR and mode != 1)


def _flags(steps, suspect: set, not_nan: list, invariant: set, result: str):
    """Inf/NaN mode's flags: ``(values, invariants)``, the values that flag their element's block where they
    are NaN, the invariants that flag every block where they are.

    A value is *tainted* where its NaN payload may differ from the machine's: a ``suspect`` (the CPU's
    widening of a float16 NaN), the result of a commutative instruction with two operands that vary along
    the loop (the compiler may swap them), the result of an instruction that passes a NaN on
    (:func:`_passes_nan`) with a tainted operand (then a NaN itself). A tainted value is checked where it
    reaches anything else (the result, a Select's mask, a bit operation other than a float32 Or, a Cast): a
    pass-on instruction's result carries the check on as a NaN, a Compare reads no payload. Every ``not_nan``
    value is checked. An invariant operand of a commutative instruction (a scalar, a Duplicate) is checked
    once per block (NaN there: every block flagged)."""
    tainted = set(suspect)
    uses: dict = {}
    invariant_checks: list = []
    for op, mode, v, args in steps:
        varying = [a for a in args if a not in invariant]
        if op in _SWAPPABLE:
            invariant_checks += [a for a in args if a in invariant and a not in invariant_checks]
            if len(varying) >= 2:
                tainted.add(v)
        passes = _passes_nan(op, mode)
        if passes and any(a in tainted for a in args):
            tainted.add(v)
        for a in args:
            uses.setdefault(a, []).append(passes or op in _NAN_BLIND)
    uses.setdefault(result, []).append(False)           # the store: reads the payload
    checks = list(dict.fromkeys(not_nan))
    for v in tainted:
        if v not in checks and not all(uses.get(v, ())):
            checks.append(v)
    return sorted(checks), invariant_checks
