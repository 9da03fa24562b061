"""A program lowered for compiling: subroutines inlined, in SSA form, its 16-bit tables chosen.

Each instruction's result is a new *value*; a tensor name denotes its latest
value. :func:`lower` returns the values the output needs (dead code
dropped) and, for 16-bit inputs, the *tabulated* values: each is a value
that depends on one 16-bit input only and is read by the rest of the
program, so it is computed once for all 65,536 bit patterns of that input
and looked up per element (SwishGrad's s'(x), the forward's whole output).
A bare widening Cast is not worth a table and is never tabulated.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from .form import Attr, Call, Program
from ..platform import CAST_INT_OVERFLOWS, CAST_OVERFLOWS
from .isa import AXPY_ROUNDINGS

#: The directed Casts whose overflow :func:`lower`'s ``cast_overflow`` decides ("inf": the mode + "_INF").
_DIRECTED = ("CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC", "CAST_ODD")
#: The integer dtypes whose Casts from floats ``cast_int_overflow`` "wrap" names with ``_WRAP``.
_INTS = ("int32", "int16", "int8", "uint8")

__all__ = ["Value", "Step", "Lowered", "lower", "ULP_SHIFT", "ENVELOPE_FREE", "FTZ_ATTR", "SHIFT_PREFIX", "shift_attr"]

#: The step :func:`lower` puts after each freed instruction (an envelope's, not an instruction of the
#: form): ``v = ulp_shift(v, k, ftz)``, ``k`` steps along the binary32 line (:func:`.envelope.ulp_shift`).
ULP_SHIFT = "UlpShift"
#: The instructions an envelope lets err (each by its own ulp budget): the transcendental and the
#: division, whose device rounding is not public (docs/model.md section 10).
ENVELOPE_FREE = ("Exp", "Div", "Ln")
#: The attribute of a freed program that says whether shifted results flush subnormals (0 or 1).
FTZ_ATTR = "envelope_ftz"


#: The attributes holding the ulp offsets of freed results are this and the result's index.
SHIFT_PREFIX = "envelope_ulp"


def shift_attr(i: int) -> str:
    """The attribute holding the ulp offset of the ``i``-th freed result, in program order."""
    return f"{SHIFT_PREFIX}{i}"


@dataclass(frozen=True)
class Value:
    """An SSA value: its id, dtype, and the input index it is (or -1)."""

    id: int
    dtype: str
    input: int = -1


@dataclass(frozen=True)
class Step:
    """``dst = op(srcs, scalars, mode)`` on values (``srcs`` of MulDstAdd and Axpy start with the old
    ``dst``). ``mode``: a Cast's round mode, a Compare's compare mode, an Axpy's rounding, ``"tensor"`` or
    ``"scalar"`` for a Select's second source."""

    op: str
    dst: int
    srcs: tuple
    scalars: tuple
    mode: str = ""


@dataclass(frozen=True)
class Lowered:
    """``steps`` in order; ``values`` by id; ``output`` the output's value;
    ``deps[v]`` the inputs value ``v`` depends on; ``tables`` the tabulated
    values (empty for float32 programs); ``per_element`` the steps the pass
    runs per element (the rest feed the tables only); ``freed`` the instructions an envelope's
    shifts follow, in the order of their attributes."""

    program: Program
    steps: tuple
    values: dict
    output: int
    deps: dict
    tables: tuple
    per_element: tuple
    freed: tuple = ()


def _emit(program: Program, env: dict, values: dict, steps: list, axpy_rounding: str, free: tuple, freed: list,
          cast_overflow: str = "ieee", cast_int_overflow: str = "saturate"):
    """Append ``program``'s steps on values; ``env`` maps its tensor names to their current values.
    A subroutine gets its inputs' values (writes to them stay its own) and returns its output's.
    Each result of an instruction in ``free`` is followed by a :data:`ULP_SHIFT` of it (its op noted in
    ``freed``)."""
    for step in program.body:
        if isinstance(step, Call):
            sub = step.program
            inner = {t.name: env[a] for t, a in zip(sub.inputs, step.srcs)}
            _emit(sub, inner, values, steps, axpy_rounding, free, freed, cast_overflow, cast_int_overflow)
            if sub.output.name not in inner:
                raise ValueError(f"{sub.name}: the output {sub.output.name!r} is never written")
            env[step.dst] = inner[sub.output.name]
            continue
        missing = [n for n in step.sources() if n not in env]
        if missing:
            raise ValueError(f"{program.name}: {step} reads {missing[0]!r} before it is written")
        vid = len(values)
        values[vid] = Value(vid, program.tensors[step.dst].dtype)
        mode = axpy_rounding if step.op == "Axpy" else step.mode
        if step.op == "Cast" and mode in _DIRECTED and cast_overflow == "inf" \
                and program.tensors[step.args[1]].dtype == "float32" and values[vid].dtype in ("float16", "bfloat16"):
            mode += "_INF"
        if step.op == "Cast" and cast_int_overflow == "wrap" and values[vid].dtype in _INTS \
                and program.tensors[step.args[1]].dtype not in _INTS:
            mode += "_WRAP"      # a float -> integer Cast keeps the low bits (.int_casts)
        steps.append(Step(step.op, vid, tuple(env[n] for n in step.sources()), step.scalars(), mode))
        env[step.dst] = vid
        if step.op in free:
            shifted = len(values)
            values[shifted] = Value(shifted, values[vid].dtype)
            steps.append(Step(ULP_SHIFT, shifted, (vid,), (Attr(shift_attr(len(freed))), Attr(FTZ_ATTR))))
            freed.append(step.op)
            env[step.dst] = shifted


def lower(program: Program, sixteen_bit_tables: bool = True, axpy_rounding: str = "fused",
          free: tuple = (), cast_overflow: str = "ieee", cast_int_overflow: str = "saturate") -> Lowered:
    """The program in SSA form, its dead steps dropped and (if ``sixteen_bit_tables``) its tables chosen;
    each Axpy's step carries ``axpy_rounding`` (:data:`.isa.AXPY_ROUNDINGS`) as its mode; with ``cast_overflow``
    ``"inf"`` (:data:`swishgrad_numba.platform.CAST_OVERFLOWS`) a directed Cast's mode gets ``_INF``
    (:func:`.semantics.cast_directed` with the mode + 4: every overflow to inf); with ``cast_int_overflow``
    ``"wrap"`` a float -> integer Cast's mode gets ``_WRAP`` (:mod:`.int_casts`: the low bits).

    ``free`` names instructions whose results an envelope lets err (``("Exp", "Div")``): each result
    is shifted by an attribute of its own (:func:`shift_attr`, in program order), and the lowered
    program's ``attrs`` gain those and :data:`FTZ_ATTR`; its ``freed`` lists the instructions."""
    if axpy_rounding not in AXPY_ROUNDINGS:
        raise ValueError(f"axpy_rounding must be one of {AXPY_ROUNDINGS}, got {axpy_rounding!r}")
    if cast_overflow not in CAST_OVERFLOWS:
        raise ValueError(f"cast_overflow must be one of {CAST_OVERFLOWS}, got {cast_overflow!r}")
    if cast_int_overflow not in CAST_INT_OVERFLOWS:
        raise ValueError(f"cast_int_overflow must be one of {CAST_INT_OVERFLOWS}, got {cast_int_overflow!r}")
    values, env, steps = {}, {}, []
    for i, t in enumerate(program.inputs):
        values[i] = Value(i, t.dtype, i)
        env[t.name] = i
    freed = []
    _emit(program, env, values, steps, axpy_rounding, tuple(free), freed, cast_overflow, cast_int_overflow)
    if free:
        program = replace(program, attrs=program.attrs + tuple(shift_attr(i) for i in range(len(freed)))
                          + (FTZ_ATTR,))
    if env.get(program.output.name, 0) < len(program.inputs):
        raise ValueError(f"{program.name}: the output {program.output.name!r} is never written")
    output = env[program.output.name]
    live = _live(steps, output)
    steps = tuple(s for s in steps if s.dst in live)
    deps = {v: frozenset((v,)) for v in range(len(program.inputs))}
    for s in steps:
        deps[s.dst] = frozenset().union(*(deps[v] for v in s.srcs))
    tables = _tables(steps, values, deps, output) if sixteen_bit_tables else ()
    per_element = tuple(s for s in steps if s.dst in _live(steps, output, stop=set(tables)) and s.dst not in tables)
    return Lowered(program, steps, values, output, deps, tables, per_element, tuple(freed))


def _live(steps, output, stop=frozenset()) -> set:
    """The values ``output`` needs (values in ``stop`` are leaves)."""
    by_dst = {s.dst: s for s in steps}
    live, todo = set(), [output]
    while todo:
        v = todo.pop()
        if v in live:
            continue
        live.add(v)
        if v in by_dst and v not in stop:
            todo.extend(by_dst[v].srcs)
    return live


def _tables(steps, values, deps, output) -> tuple:
    """The values to tabulate: each depends on one 16-bit input only, and is the output or read by a step
    that depends on more; bare widenings of an input are not."""
    def on_one_16(v):
        d = deps[v]
        return len(d) == 1 and values[next(iter(d))].dtype != "float32"
    by_dst = {s.dst: s for s in steps}
    frontier = set()
    for s in steps:
        if not on_one_16(s.dst):
            frontier.update(v for v in s.srcs if v in by_dst and on_one_16(v))
    if on_one_16(output):
        frontier.add(output)
    cheap = {v for v in frontier if by_dst[v].op == "Cast" and values[by_dst[v].srcs[0]].input >= 0}
    return tuple(sorted(frontier - cheap))
