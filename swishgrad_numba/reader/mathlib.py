"""AscendC's math library in class-style kernels (issue 43): a call expanded into the instructions the
A2 vector core runs for it, as asc-devkit's public implementation writes them; the rest refused by name.

Expanded (``dst``, ``src``, an optional shared temporary buffer, the count; the library's own temporary
is a float32 local the program holds, named ``<call>_tmp<line>``):

- ``Sigmoid(dst, src, [tmp,] n)``: asc-devkit ``impl/adv_api/detail/activation/sigmoid/sigmoid_impl.h``
  (the A2's, ``__NPU_ARCH__`` 2201, chosen in ``sigmoid_common_impl.h``), ``SigmoidIntrinsicsImpl``,
  lines 30-46: ``Muls(dst, src, -1)``, ``Exp(dst, dst)``, ``Adds(dst, dst, 1)``, ``Duplicate(tmp, 1)``,
  ``Div(dst, tmp, dst)``, all in the tensor's type (on a 16-bit one, each rounded once to it:
  :mod:`.to_program`).
- ``Tanh(dst, src, [tmp,] n)`` on float: asc-devkit ``impl/adv_api/detail/math/tanh/tanh_common_impl.h``,
  ``TanhFormulaImpl``, lines 44-74: ``Mins(t, src, 8.8f)``, ``Maxs(t, t, -8.8f)``, ``Muls(t, t, 2)``,
  ``Exp(t, t)``, ``Adds(dst, t, -1)``, ``Adds(t, t, 1)``, ``Div(dst, dst, t)``. On half, the
  ``TanhCompute<half>`` specialisation (lines 83-99): ``Cast(c, src, CAST_NONE)`` into a float32 ``c``
  (88-90, exact), ``TanhFormulaImpl(c, c)`` (93), ``Cast(dst, c, CAST_NONE)`` (95-97), a narrowing that
  the RoundMode page makes CAST_RINT where precision is lost (:mod:`.to_program` writes it so). On
  bfloat16 the library has no Tanh: its generic ``TanhCompute`` hands the tensors to ``TanhFormulaImpl``,
  which takes float tensors only (refused).
- ``Acosh(dst, src, [tmp,] n)`` (issue 43): asc-devkit
  ``impl/adv_api/detail/math/acosh/acosh_common_impl.h``, ``AcoshCompute``'s generic template, lines
  40-73 (instructions at 52-71): ``Mul(t, src, src)``, ``Adds(t, t, -1)``, ``Sqrt(t, t)``,
  ``Add(t, src, t)``, ``Div(dst, t, t)``, ``Mul(t, t, dst)`` (a NaN where t is 0 or infinite),
  ``Ln(dst, t)``.
- ``Asinh(dst, src, [tmp,] n)`` (issue 43): asc-devkit
  ``impl/adv_api/detail/math/asinh/asinh_common_impl.h``, ``AsinhCompute``'s generic template, lines
  133-178 (instructions at 149-176), and ``AsinhGetSign``, lines 115-131: ``Abs(a, src)``,
  ``Mul(t, a, a)``, ``Adds(t, t, 1)``, ``Sqrt(t, t)``, ``Add(t, t, a)``, ``Ln(t, t)``; the sign as
  ``Muls(s, src, 2**62)``, ``Abs(d, s)``, ``Adds(d, d, 2**-62)``, ``Div(s, s, d)``; ``Mul(dst, t, s)``.
  On half, their specialisations: Acosh's lines 75-125 (``Cast`` to a float32 ``c``, ``Mul(t, c, c)``,
  ``Adds -1``, ``Sqrt``, ``Add(t, t, c)``, ``Div(c, t, t)``, ``Mul(t, t, c)``, ``Ln(t, t)``, ``Cast(dst, t,
  CAST_NONE)``) and Asinh's lines 180-242 (``Cast(a, src)``, ``Abs(a, a)``, the float steps into ``t``, ``Cast(a,
  src)`` again, the float sign of ``a`` (AsinhGetSign with T float: 2**62 and 2**-62), ``Mul(t, t, a)``, ``Cast(dst,
  t, CAST_NONE)``); bfloat16 is refused (the library takes half and float).
  (Line numbers are those of the stored public version read for issue 43.)

Silu, Swish, Gelu, FasterGelu, FasterGeluV2, Sinh, Cosh, ClampMax, ClampMin, Log2, Log10, Sign, Erf, Atan and Atanh (issue 43):
:mod:`.mathlib_calls`, which cites their files and lines.

Round, Floor, Ceil, Trunc, Frac, Sin, Cos and Tan (issue 43, on the whole-number ``Cast<float, float>``):
:mod:`.mathlib_calls` too.

The other math-library calls (:data:`NOT_EXPANDED`) are refused naming the call and why (Power: its masks). ``Sqrt`` is not the library's: it is the basic API's instruction
(:data:`.instructions.VECTOR_CALLS`).
"""
from __future__ import annotations

from .abstract import Mode, Tensor, refuse, temporary
from .mathlib_calls import EXPANSIONS, expand_more
from .values import CNum

__all__ = ["EXPANDED", "NOT_EXPANDED", "expand"]

#: The calls :func:`expand` expands (issue 43: and :mod:`.mathlib_calls`' Silu, Swish, the Gelus, ...).
EXPANDED = ("Sigmoid", "Tanh", "Acosh", "Asinh") + EXPANSIONS
#: Why a call of :data:`NOT_EXPANDED` is not expanded, where there is more to say than that it is not.
#: Issue 43: Power's A2 implementation (power_float_impl.h, power_int_impl.h) builds its result from Compare masks
#: combined as packed uint16_t words, a scalar read back from UB and integer exponent tests (:mod:`.mathlib_calls`).
WHY = {name: "its A2 implementation (asc-devkit power_float_impl.h / power_int_impl.h, every tensor-tensor and "
       "tensor-scalar form) combines Compare masks as packed uint16_t words and tests the exponent as an integer, "
       "which the reader does not expand; write it as Ln, Muls/Mul and Exp if that is what is meant"
       for name in ("Power", "Pow")}
#: AscendC math-library and activation calls the reader knows by name and does not expand.
NOT_EXPANDED = frozenset("""Rsqrt Asin Acos Erfc Power Pow
    Digamma Lgamma Fmod Xor SwiGLU GeGLU ReGLU Softmax LogSoftmax Clamp Exp2 Expm1 Log1p""".split())


def expand(machine, node, ident, args, targs=None) -> None:
    """Record the instructions of math-library call ``ident`` (``args`` evaluated; ``targs`` its template
    arguments' nodes) at ``node``'s line."""
    if ident in NOT_EXPANDED:
        refuse(node, f"AscendC::{ident}", "a math-library call the reader does not expand into the vector "
               f"instructions it runs (it expands {', '.join(EXPANDED)})" + (f": {WHY[ident]}" if ident in WHY else ""))
    if ident in EXPANSIONS:
        return expand_more(machine, node, ident, args, targs)
    if len(args) not in (3, 4) or not all(isinstance(a, Tensor) for a in args[:len(args) - 1]):
        refuse(node, f"AscendC::{ident} with {len(args)} arguments", "expected (dst, src, count) or "
               "(dst, src, sharedTmpBuffer, count)")
    dst, src, count = args[0], args[1], args[-1]
    if dst.dtype != src.dtype:
        refuse(node, f"AscendC::{ident} from {src.dtype} to {dst.dtype}", "the library keeps the type")
    line = node.at[1]

    def temp(dtype, part=""):
        return temporary(machine, f"{ident.lower()}_tmp{part}{line}", dtype)

    def step(op, *operands):
        machine.vector_call(node, op, list(operands) + [count], trailing=(1,), counted=True)

    def cast(to, source, mode):
        step("Cast", to, source, Mode(mode))

    if ident == "Sigmoid":
        tmp = temp(dst.dtype)
        step("Muls", dst, src, CNum(-1.0, "double"))
        step("Exp", dst, dst)
        step("Adds", dst, dst, CNum(1.0, "double"))
        step("Duplicate", tmp, CNum(1.0, "double"))
        step("Div", dst, tmp, dst)
        return
    if ident == "Tanh" and dst.dtype == "float16":    # tanh_common_impl.h, TanhCompute<half>, lines 83-99
        conv = temp("float32", "conv")
        machine.vector_call(node, "Cast", [conv, src, Mode("CAST_NONE"), count], trailing=(1,), counted=True)
        _tanh_formula(temp, step, conv, conv)
        machine.vector_call(node, "Cast", [dst, conv, Mode("CAST_NONE"), count], trailing=(1,), counted=True)
        return
    if ident == "Tanh" and dst.dtype == "bfloat16":
        refuse(node, f"AscendC::{ident} on {dst.dtype}", "asc-devkit's A2 Tanh has no bfloat16 form "
               "(tanh_common_impl.h: only float and the half specialisation)")
    if dst.dtype == "bfloat16":
        refuse(node, f"AscendC::{ident} on {dst.dtype}", f"asc-devkit's A2 {ident} takes half or float")
    half = dst.dtype == "float16"
    if ident == "Acosh":      # acosh_common_impl.h, AcoshCompute: generic 52-71, half 89-123
        c = temp("float32", "c") if half else src
        t = temp("float32")
        if half:
            cast(c, src, "CAST_NONE")
        step("Mul", t, c, c)
        step("Adds", t, t, CNum(-1.0, "double"))
        step("Sqrt", t, t)
        step("Add", *((t, t, c) if half else (t, c, t)))
        out = c if half else dst
        step("Div", out, t, t)
        step("Mul", t, t, out)
        if half:
            step("Ln", t, t)
            cast(dst, t, "CAST_NONE")
        else:
            step("Ln", dst, t)
        return
    if ident == "Asinh":      # asinh_common_impl.h, AsinhCompute: generic 149-176, half 195-240; AsinhGetSign 123-129
        a, t, d = temp("float32", "a"), temp("float32", "t"), temp("float32", "d")
        if half:
            cast(a, src, "CAST_NONE")
        step("Abs", a, a if half else src)
        step("Mul", t, a, a)
        step("Adds", t, t, CNum(1.0, "double"))
        step("Sqrt", t, t)
        step("Add", t, t, a)
        step("Ln", t, t)
        if half:
            cast(a, src, "CAST_NONE")
        step("Muls", a, a if half else src, CNum(2.0 ** 62, "double"))
        step("Abs", d, a)
        step("Adds", d, d, CNum(2.0 ** -62, "double"))
        step("Div", a, a, d)
        if half:
            step("Mul", t, t, a)
            cast(dst, t, "CAST_NONE")
        else:
            step("Mul", dst, t, a)
        return
    _tanh_formula(temp, step, dst, src)


def _tanh_formula(temp, step, dst, src) -> None:
    """tanh_common_impl.h, TanhFormulaImpl, lines 44-74: on float32 tensors."""
    t = temp("float32")
    step("Mins", t, src, CNum(8.8, "double"))
    step("Maxs", t, t, CNum(-8.8, "double"))
    step("Muls", t, t, CNum(2.0, "double"))
    step("Exp", t, t)
    step("Adds", dst, t, CNum(-1.0, "double"))
    step("Adds", t, t, CNum(1.0, "double"))
    step("Div", dst, dst, t)
