"""The instruction set a program is written in: each instruction's operands, in upstream's order.

What each computes is :mod:`.semantics`'; the program form is :mod:`.form`.
"""
from __future__ import annotations

# How an Axpy rounds is not an operand: the platform's option, which the compiler takes
from ..platform import AXPY_ROUNDINGS

__all__ = ["DTYPES", "FLOAT_DTYPES", "INT_DTYPES", "MASK_DTYPE", "SIXTEEN_BIT_OPS", "ROUNDED_SIXTEEN_BIT_OPS", "ROUND_MODES", "CMP_MODES", "AXPY_ROUNDINGS", "INSTRUCTIONS", "V"]

#: The dtype of a Compare's mask: one value per element, 1 where the comparison holds, else 0. The device
#: packs a mask one bit per element (``MaskReg``, or a uint8 tensor of bits); element by element that is
#: the same 0 or 1, so the program form keeps one uint8 per element and never packs.
MASK_DTYPE = "uint8"
#: Tensor dtypes that hold numbers (a program's inputs and output are of these).
FLOAT_DTYPES = ("float32", "float16", "bfloat16")
#: Integer locals: the A2 GeluGradV2's sign bit as int32 (``ShiftRight`` then ``Cast`` to float) and its
#: NaN guard's int8 round trip.
INT_DTYPES = ("int32", "int8")
#: Issue 43: int16 too: an ``int16_t`` / ``uint16_t`` local, held as its 16 bits (two's complement: see
#: :data:`BITS_DTYPE`), Cast to and from floats by its value (:mod:`.int_casts`).
INT_DTYPES += ("int16",)
#: Tensor dtypes a program may hold.
DTYPES = FLOAT_DTYPES + (MASK_DTYPE,) + INT_DTYPES
#: ``AscendC::RoundMode`` values a Cast may name (CAST_NONE: the exact widening).
ROUND_MODES = ("CAST_NONE", "CAST_RINT", "CAST_ROUND")
#: Issue 43: the directed narrowings float32 -> 16-bit (:data:`swishgrad_numba.casts.DIRECTED_MODES`).
ROUND_MODES += ("CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC", "CAST_ODD")
#: ``CMPMODE`` values a Compare may name.
CMP_MODES = ("LT", "GT", "EQ", "LE", "GE", "NE")

# Operand kinds: "d" the destination (written), "D" a destination also read
# (MulDstAdd, Axpy), "s" a source tensor, "k" a scalar, "x" a source tensor
# or a scalar (Select's second source), "m" a round mode, "c" a compare mode.
#: Every instruction the form knows, by upstream name: its operand kinds in
#: argument order (each one's semantics: :mod:`.semantics`).
INSTRUCTIONS = {
    "Muls": "dsk", "Adds": "dsk", "Maxs": "dsk", "Mins": "dsk",
    "Add": "dss", "Sub": "dss", "Mul": "dss", "Div": "dss", "Max": "dss", "Min": "dss",
    "Exp": "ds", "Ln": "ds", "Abs": "ds", "Reciprocal": "ds", "Neg": "ds",
    "Duplicate": "dk",
    "MulDstAdd": "Dss",
    "Axpy": "Dsk",
    "Cast": "dsm",
    # Compare(dst, src0, src1, mode): dst (a mask) = src0 <mode> src1; CompareScalar with a scalar src1.
    "Compare": "dssc", "CompareScalar": "dskc",
    # Select(dst, src0, src1, mask) (MicroAPI order): src0 where the mask is 1, else src1 (a tensor or a scalar).
    "Select": "dsxs",
    # FusedMulDstAdd(dst, src0, src1): MicroAPI's fused dst * src0 + src1 (the Erf routine's fmaf).
    "FusedMulDstAdd": "Dss",
    # And / Or (dst, src0, src1): bitwise on the registers reinterpreted as uint32 (the Erf routine's sign
    # transfer); the form keeps the float32 tensors and acts on their bits, as Abs does.
    "And": "dss", "Or": "dss",
    # ShiftRight(dst, src, n): dst (int32) = the float32 src's bits, as uint32, shifted right by n (logical).
    "ShiftRight": "dsk",
    # Sqrt(dst, src): the basic API's square root (issue 43: AscendC::Sqrt and the math library's Acosh)
    "Sqrt": "ds",
}
#: The instructions that may also act on 16-bit float tensors (all of one dtype): their results are
#: exact there (a duplicated scalar exact in the dtype, a picked element, a comparison), so each is its
#: float32 meaning on the exact widenings (the A2 GeluGradV2's half-precision NaN guard).
SIXTEEN_BIT_OPS = ("Duplicate", "Select", "Compare")

# ---------------------------------------------------------------- Relu (issue 41)
#: ``Relu(dst, src)`` (``AscendC::Relu``, ``Vec::Relu``, MicroAPI ``Relu``): the A2 and 950 Relu kernels'
#: one instruction. On float16 tensors too (their ``KernelRelu<half>`` and ``GraphRelu<half, half>``): its
#: result is exact there (an element or +0).
INSTRUCTIONS["Relu"] = "ds"
SIXTEEN_BIT_OPS = SIXTEEN_BIT_OPS + ("Relu",)


class _Vocabulary:
    """``V.Muls("xb", "x", Attr("beta"))`` is ``Instr("Muls", ("xb", "x", Attr("beta")))``."""

    def __getattr__(self, op):
        if op not in INSTRUCTIONS:
            raise AttributeError(f"no instruction {op!r}")
        from .form import Instr   # the form's instruction type

        return lambda *args: Instr(op, args)


#: The instructions as constructors, for writing programs.
V = _Vocabulary()

# ---------------------------------------------------------------- mask arithmetic (issue 41)
#: ``Add`` may also act on float16 tensors (the A2 MishGrad's masks cast to half and added): the correctly
#: rounded half sum, which is the float32 sum of the widenings narrowed to nearest even (exact for the
#: guard's 0 and 1). Its mask Casts (float16 <- uint8 CAST_NONE, uint8 <- float16 CAST_RINT) are
#: :data:`.form.Program.MASK_CASTS`.
SIXTEEN_BIT_OPS = SIXTEEN_BIT_OPS + ("Add",)
#: Those of :data:`SIXTEEN_BIT_OPS` whose 16-bit result is rounded, not exact: a kernel read from source
#: computes them by its own 16-bit model (``read_kernel(sixteen_bit=)``), not as the form's native Add.
ROUNDED_SIXTEEN_BIT_OPS = ("Add",)

# ---------------------------------------------------------------- 16-bit bit patterns (issue 43)
#: ``int16`` (one of :data:`INT_DTYPES`, not a second registration): an ``int16_t`` or ``uint16_t`` local holds
#: 16-bit two's-complement values, and the form holds each as its 16 bits (0..65535, as it holds a float16
#: or bfloat16 value): a Cast reads or writes the value those bits stand for (:mod:`.int_casts`), And and Or
#: act on the bits alone, whatever the signedness, and ``Reinterpret(dst, src)``, a ``ReinterpretCast``
#: between it and float16 or bfloat16, keeps them: the same 16 bits read as the other type. On int16 tensors
#: ``Duplicate`` writes its constant's bits (a whole number 0..65535: :data:`BIT_OPS`).
BITS_DTYPE = "int16"
INSTRUCTIONS["Reinterpret"] = "ds"
BIT_OPS = ("And", "Or", "Duplicate")
__all__ += ["BITS_DTYPE", "BIT_OPS"]

# ---------------------------------------------------------------- masks combined (issue 43)
#: ``And`` and ``Or`` may also act on masks (all three tensors :data:`MASK_DTYPE`): opbase's DAG
#: ``Vec::And<uint8_t>`` / ``Vec::Or<uint8_t>`` of two Compare masks (ops-nn ``relu6_grad_dag.h``'s
#: ``0 < x`` and ``x < 6``). The device combines the packed bits; element by element that is the logical
#: and / or of the two 0-or-1 elements, which is what the form computes on its one-per-element masks.
MASK_BIT_OPS = ("And", "Or")
__all__ += ["MASK_BIT_OPS"]
#: ``Not(dst, src)`` of a mask (issue 43): the A2's ``Not`` on a Compare mask's 16-bit words
#: (:mod:`swishgrad_numba.reader.mask_words`); each element's bit flipped, 1 - the element.
INSTRUCTIONS["Not"] = "ds"
MASK_BIT_OPS = MASK_BIT_OPS + ("Not",)

# ---------------------------------------------------------------- whole-number Casts (issue 43)
#: ``Cast(dst, src, mode)`` with float32 ``dst`` and ``src``: ``Cast<float, float>``, each element rounded to a
#: whole float32 by the mode (what the math library's Round, Floor, Ceil, Trunc, Frac and the range reductions
#: of Sin, Cos and Tan run on the A2). The modes are the A2's row "float float" of asc-devkit's Cast page
#: (``docs/zh/api/SIMD-API/基础API/Memory矢量计算/类型转换/Cast.md`` line 274, 0da921b9), in
#: :data:`swishgrad_numba.program.int_casts.INT_ROUNDINGS`' order (the engine's mode is the index); no CAST_NONE, no CAST_ODD,
#: and no ``Cast<half, half>`` (the page lists none: the library widens half to float first).
from .int_casts import INT_ROUNDINGS as WHOLE_ROUND_MODES  # noqa: E402
__all__ += ["WHOLE_ROUND_MODES"]
