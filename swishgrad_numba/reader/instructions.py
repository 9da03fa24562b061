"""The vector calls the reader turns into steps: upstream's names and operand kinds.

Kinds, destination first, as in the program form (:mod:`swishgrad_numba.program.form`):
"d" written, "D" written and read, "s" a source tensor, "k" a scalar, "m" a round mode.
An A2 call ends with the element count; a MicroAPI call with its mask (Duplicate
may omit it). Those trailing operands are not part of the step.
"""
from __future__ import annotations

__all__ = ["NO_DEFAULT_TILING", "STEP_KINDS", "VECTOR_CALLS", "SPELLINGS", "ROUND_MODES", "IGNORED_CALLS", "COMPARE_OPS"]

VECTOR_CALLS = {
    "Muls": "dsk", "Adds": "dsk", "Maxs": "dsk", "Mins": "dsk",
    "Add": "dss", "Sub": "dss", "Mul": "dss", "Div": "dss", "Max": "dss", "Min": "dss",
    "Exp": "ds", "Ln": "ds", "Abs": "ds", "Reciprocal": "ds", "Neg": "ds",
    "Duplicate": "dk",
    "MulDstAdd": "Dss",
    "Axpy": "Dsk",
    "Cast": "dsm",
    "Log": "ds",
    "Sqrt": "ds",         # issue 43: the basic API's square root
    # issue 43: comparisons into a mask ("c" a CMPMODE) and the selection by it, in the program form's
    # order (dst, src0, src1, mask); Selects is a Select whose second source is a scalar (:mod:`.compare`)
    "Compare": "dssc", "CompareScalar": "dskc", "Select": "dsss", "Selects": "dsks",
}
#: Other spellings of the form's instructions in upstream sources: the natural logarithm is the basic
#: API's ``Ln``, the math library's ``AscendC::Log``, MicroAPI ``Reg::Log`` and opbase's ``Vec::Log``
#: (the SoftplusV2 kernel calls ``AscendC::Log<float>``); a step is recorded under the form's name.
SPELLINGS = {"Log": "Ln"}
#: ``AscendC::RoundMode`` by its enum value (Vec::Cast<R, T, int> passes the int through
#: ``static_cast<AscendC::RoundMode>``); the modes the program form has.
ROUND_MODES = {0: "CAST_NONE", 1: "CAST_RINT", 4: "CAST_ROUND"}
#: Issue 43: every mode (asc-devkit docs/api/context/Cast.md, the RoundMode enum, its lines 401-409 at 0a2e47c1);
#: the program form checks which a Cast's pair takes.
ROUND_MODES.update({2: "CAST_FLOOR", 3: "CAST_CEIL", 5: "CAST_TRUNC", 6: "CAST_ODD"})
#: Calls with no effect on what an element computes: synchronisation, queue
#: book-keeping, asserts, the tiling and task-type macros.
IGNORED_CALLS = frozenset("""SetFlag WaitFlag PipeBarrier SetAtomicNone ASSERT KERNEL_TASK_TYPE_DEFAULT
    REGISTER_TILING_DEFAULT EnQue FreeTensor FetchEventID ReleaseEventID GetTPipePtr printf DumpTensor
    SetMaskNorm SetMaskCount ResetMask SetVectorMask SetSysWorkspace GetUserWorkspace
    REGISTER_TILING_FOR_TILINGKEY""".split())
#: Issue 43: ``REGISTER_NONE_TILING;`` (a statement, not a call): the entry registers no default tiling struct,
#: each ``GET_TILING_DATA_WITH_STRUCT`` naming its own; nothing runs.
NO_DEFAULT_TILING = "REGISTER_NONE_TILING"
#: The comparison family, read from the A2 basic API's own argument order (:mod:`.compare`), not as
#: a generic vector call (issue 43).
COMPARE_OPS = frozenset(("Compare", "CompareScalar", "Select", "Selects"))
# issue 43: ``Relu(dst, src)`` (AscendC::Relu, opbase's ``Vec::Relu<T>``, ops-nn ``relu_dag.h:29``), the program
# form's Relu (max(x, 0), NaN kept, -0 to +0; on half natively, :mod:`swishgrad_numba.program.isa`)
VECTOR_CALLS["Relu"] = "ds"
#: Issue 43: the A2's bitwise And and Or (on int16_t/uint16_t tensors only: a float tensor's bits through
#: ReinterpretCast, :mod:`.bitviews`).
VECTOR_CALLS.update({"And": "dss", "Or": "dss"})
#: Issue 43: ``Not`` of a Compare mask's 16-bit words (:mod:`.mask_words`).
VECTOR_CALLS["Not"] = "ds"
# issue 43: the instructions of the 950's Erf routine (.erf_inline), with the program form's kinds: MicroAPI's
# fused multiply-add into its destination (And / Or on float32 registers' bits: the kinds above)
#: Every step's operand kinds: the calls read, and the Erf routine's FusedMulDstAdd, which no call of a kernel
#: records.
STEP_KINDS = {**VECTOR_CALLS, "FusedMulDstAdd": "Dss"}
#: Issue 43: the debug build's feature switches (asc-devkit's kernel_utils_macros.h: ``ENABLE_PRINTF()`` is
#: ``ENABLE_FEATURE_FOR_COMPILE(printf, 1)``, likewise the dump sizes and ``ENABLE_ASSERT``): no element changes.
IGNORED_CALLS = IGNORED_CALLS | {"ENABLE_PRINTF", "ENABLE_PRINTF_DUMP_SIZE", "ENABLE_ASSERT", "ENABLE_ASSERT_DUMP_SIZE"}

#: Issue 43: ``ShiftRight(dst, src, n)`` on a float32 tensor's bits through ``ReinterpretCast<uint32_t>``
#: (:mod:`.bitviews`): the program form's ShiftRight (the A2 GeluGradV2's sign bit).
VECTOR_CALLS["ShiftRight"] = STEP_KINDS["ShiftRight"] = "dsk"
