"""The engine's instruction stream: its opcodes and its layout.

A stream is an ``(instructions, FIELDS)`` int64 array, one row per vector instruction:

``op``
    the opcode (below);
``dst``, ``src0``, ``src1``, ``src2``
    element offsets into the arena (the core's local buffer, one float32 array): the instruction
    reads and writes ``count`` elements from each (``count``: the block the machine runs, at most
    the stream's grain). Fields an opcode does not read are 0;
``k0``, ``k1``
    indices into the stream's float32 scalar array (constants and attributes, resolved at launch);
``mode``
    a Compare's mode (index in :data:`CMP_MODES`), a Cast's 16-bit dtype code, a Lookup's table; an AND
    or OR's 1: on 16-bit bit patterns (a row's numbers 0..65535; issue 43), 0: on float32 bits.

Every value lives in a float32 row of the arena, as a float32 holds it exactly: a float32 as itself,
16-bit bits (float16, bfloat16, and int16: its two's-complement bits) and int8 values as the numbers they
are, a mask as 0 or 1, an int32 as its bits.

The layout leaves room for what comes next (reductions, ``Brcb``, level-0 addressing with repeat
times and strides): those add columns after :data:`MODE` and opcodes after the last; a stream of
today stays valid.
"""
from __future__ import annotations

__all__ = ["OP", "DST", "SRC0", "SRC1", "SRC2", "K0", "K1", "MODE", "FIELDS", "OPCODES", "NAMES", "CMP_MODES",
           "SOURCES", "SCALARS"]

OP, DST, SRC0, SRC1, SRC2, K0, K1, MODE = range(8)
FIELDS = 8

#: Opcodes by name: the tensor sources each reads (from ``src0`` on) and the scalars (from ``k0`` on).
_TABLE = (
    # float32 -> float32, one source
    ("EXP", 2, 0), ("LN", 1, 0), ("ABS", 1, 0), ("RECIPROCAL", 1, 0), ("NEG", 1, 0),
    # float32 x float32
    ("ADD", 2, 0), ("SUB", 2, 0), ("MUL", 2, 0), ("DIV", 2, 0), ("MAX", 2, 0), ("MIN", 2, 0),
    ("AND", 2, 0), ("OR", 2, 0),
    # float32 x scalar
    ("MULS", 1, 1), ("ADDS", 1, 1), ("MAXS", 1, 1), ("MINS", 1, 1), ("SHIFT_RIGHT", 1, 1),
    ("DUPLICATE", 0, 1),
    # read-write destinations: src0 is the destination's old value
    ("MUL_DST_ADD", 3, 0), ("AXPY_FUSED", 2, 1), ("AXPY_UNFUSED", 2, 1),
    # masks: mode is the compare mode
    ("COMPARE", 2, 0), ("COMPARE_SCALAR", 1, 1),
    ("SELECT", 3, 0), ("SELECT_SCALAR", 2, 1),    # src0 where the mask (the last source) is 1
    # casts: mode is the 16-bit dtype's code
    ("CAST_NONE", 1, 0), ("CAST_RINT", 1, 0), ("CAST_ROUND", 1, 0),
    ("CAST_I32_F32", 1, 0), ("CAST_F16_I8", 1, 0), ("CAST_I8_F16", 1, 0),
    # an envelope's shift of a freed result by k0 ulps (k1: flush subnormals)
    ("ULP_SHIFT", 1, 2),
    # a 16-bit value's table entry: mode is the table, src0 holds the bits
    ("LOOKUP", 1, 0),
    # issue 43 (a read kernel's AscendC::Sqrt), appended
    ("SQRT", 1, 0),
    # Relu (issue 41): src where src > 0, NaN as is, else +0
    ("RELU", 1, 0),
    # issue 43: the directed narrowings float32 -> 16-bit, mode the 16-bit dtype's code (in the order of
    # casts.DIRECTED_MODES: the machine runs them as one)
    ("CAST_FLOOR", 1, 0), ("CAST_CEIL", 1, 0), ("CAST_TRUNC", 1, 0), ("CAST_ODD", 1, 0),
    # the same with every overflow to inf (Platform.cast_overflow "inf"; casts.INF_OVERFLOW), in that order
    ("CAST_FLOOR_INF", 1, 0), ("CAST_CEIL_INF", 1, 0), ("CAST_TRUNC_INF", 1, 0), ("CAST_ODD_INF", 1, 0),
    # float <-> integer Casts by round mode (issue 43), mode as program.int_casts.engine_mode gives it
    ("CAST_TO_INT", 1, 0), ("CAST_FROM_INT", 1, 0),
    # float32 -> a whole float32 (issue 43, Cast<float, float>), mode the index in program.isa.WHOLE_ROUND_MODES
    ("CAST_WHOLE", 1, 0),
)
#: Opcode by name.
OPCODES = {name: i for i, (name, _s, _k) in enumerate(_TABLE)}
#: Name by opcode.
NAMES = tuple(name for name, _s, _k in _TABLE)
#: Tensor sources read, by opcode (EXP's second is its scratch row for the exact redo's marks).
SOURCES = tuple(s for _n, s, _k in _TABLE)
#: Scalars read, by opcode.
SCALARS = tuple(k for _n, _s, k in _TABLE)
#: Compare modes in ``mode``'s order.
CMP_MODES = ("LT", "GT", "EQ", "LE", "GE", "NE")

globals().update(OPCODES)
__all__ += list(OPCODES)

# ---------------------------------------------------------------- the regular instructions (issue 39)
#: The regular instructions' operand forms: the fields whose operands each element's function takes, in order (a
#: source's element, or the scalar), then the overflow mode.
FORMS = {"unary": (SRC0,), "binary": (SRC0, SRC1), "scalar": (SRC0, K0), "ternary": (SRC0, SRC1, SRC2),
         "axpy": (SRC0, SRC1, K0)}
#: The regular instructions: opcode -> (its form in :data:`FORMS`, the name of the function of
#: :mod:`swishgrad_numba.program.semantics` that computes each element). The machine (:mod:`.machine`) and the hot
#: tier (:mod:`.hot_source`) both run them from this table. The others (Exp, Ln, Lookup, the Casts, Compare,
#: Select, And / Or, Duplicate, ShiftRight, UlpShift) each have code of their own there: a guard band, a mode
#: that picks the function, a mask, a 16-bit or integer operand, a value set once per block.
REGULAR = {
    RECIPROCAL: ("unary", "reciprocal"), NEG: ("unary", "neg"), ABS: ("unary", "abs_"), SQRT: ("unary", "sqrt_"),
    RELU: ("unary", "relu"),
    MUL: ("binary", "mul"), ADD: ("binary", "add"), SUB: ("binary", "sub"), DIV: ("binary", "div"),
    MAX: ("binary", "max_"), MIN: ("binary", "min_"),
    MULS: ("scalar", "muls"), ADDS: ("scalar", "adds"), MAXS: ("scalar", "max_"), MINS: ("scalar", "min_"),
    MUL_DST_ADD: ("ternary", "mul_dst_add"),
    AXPY_FUSED: ("axpy", "axpy_fused"), AXPY_UNFUSED: ("axpy", "axpy_unfused"),
}
#: And and Or: the function of :mod:`swishgrad_numba.program.semantics` of each element, by the instruction's
#: MODE: 0 a float32's bits (with the overflow mode), 1 a 16-bit bit pattern held as the number it is (issue 43).
#: The machine and the hot tier both run them from this table.
BITWISE = {AND: ("and_", "and16"), OR: ("or_", "or16")}
# each form reads what its opcodes read (_TABLE)
assert all((SOURCES[op], SCALARS[op]) == (len(FORMS[form]) - FORMS[form].count(K0), FORMS[form].count(K0))
           for op, (form, _f) in REGULAR.items())
__all__ += ["BITWISE", "FORMS", "REGULAR"]

# ---------------------------------------------------------------- row instructions (issue 42)
#: The row machine's instructions (:mod:`.rows`), numbered after the elementwise ones so that neither stream
#: kind accepts the other's. A row stream has the same 8 fields, read as ``op, dst, src0, src1, count, k0,
#: k1, mode``: ``count`` elements (a repeat's lanes, blocks), ``mode`` a reduction order
#: (:data:`REDUCE_ORDERS`), a 16-bit dtype's code, a global buffer's index, or R_MULA's rounding (0: once,
#: 1: twice).
ROW_COUNT = 4
ROW_NAMES = ("R_GM_IN", "R_GM_OUT", "R_DUP", "R_ADD", "R_MUL", "R_DIV", "R_MULS", "R_ADDS", "R_MULS_AT",
             "R_SQRT", "R_MULS_ADDS_FUSED", "R_CAST_RINT", "R_REPEAT_SUM", "R_BLOCK_SUM", "R_BRCB", "R_REDUCE_SUM",
             "R_MULA", "R_SET_IF_EQ", "R_RSQRT_F64")
ROW_OPCODES = {name: len(NAMES) + i for i, name in enumerate(ROW_NAMES)}
#: The order inside one 64-lane repeat, by ``mode``: the model's tree (neighbouring pairs, each level
#: rounded), lane 0 to 63 left to right, or each 8-lane block left to right then the block sums.
REDUCE_ORDERS = ("tree", "sequential", "block8")
globals().update(ROW_OPCODES)
__all__ += ["ROW_COUNT", "ROW_NAMES", "ROW_OPCODES", "REDUCE_ORDERS"] + list(ROW_OPCODES)

# ---------------------------------------------------------------- row max / min reductions (issue 39)
#: WholeReduceMax/Min (one repeat of ``count`` lanes, 1..64), BlockReduceMax/Min (``count`` 8-lane blocks, one
#: result each) and ReduceMax/Min (level 2, ``count`` elements, value only), ``mode`` 0 the max, 1 the min
#: (:data:`EXTREMES`); what they compute: :mod:`swishgrad_numba.program.reductions`.
ROW_NAMES += ("R_REPEAT_EXTREME", "R_BLOCK_EXTREME", "R_REDUCE_EXTREME")
ROW_OPCODES = {name: len(NAMES) + i for i, name in enumerate(ROW_NAMES)}
EXTREMES = ("max", "min")
globals().update(ROW_OPCODES)
__all__ += ["EXTREMES", "R_REPEAT_EXTREME", "R_BLOCK_EXTREME", "R_REDUCE_EXTREME"]

# ---------------------------------------------------------------- SwiGlu's row instructions (issue 41)
#: Appended after the row instructions above (numbers after theirs; a stream of before stays valid):
#: ``R_EXP`` (dst = Exp(src0) over ``count`` elements, :func:`swishgrad_numba.program.semantics.exp`).
SWIGLU_ROW_NAMES = ("R_EXP",)
ROW_OPCODES.update({name: len(NAMES) + len(ROW_NAMES) + i for i, name in enumerate(SWIGLU_ROW_NAMES)})
ROW_NAMES = ROW_NAMES + SWIGLU_ROW_NAMES
globals().update({name: ROW_OPCODES[name] for name in SWIGLU_ROW_NAMES})
__all__ += ["SWIGLU_ROW_NAMES"] + list(SWIGLU_ROW_NAMES)
