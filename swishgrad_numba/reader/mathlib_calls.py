"""More of AscendC's math and activation library expanded (issue 43), each into the instructions the A2 vector
core runs for it, as asc-devkit's public implementation (read at the mirror ``cannmirror/asc-devkit`` 0da921b9,
the files :mod:`.mathlib` cites too) writes them for ``__NPU_ARCH__`` 2201. ``T`` is the tensors' type; on
half an instruction in ``T`` is native 16-bit arithmetic (each result rounded once to half, :mod:`.to_program`)
and a constant ``const T c = 0.044715`` is that double rounded to half (through float32, which gives the same
half for every constant here). bfloat16 is refused for each: the A2 library takes half and float.

- ``Silu(dst, src, n)``: ``impl/adv_api/detail/activation/silu/silu_common_impl.h``, ``SiluCalcSimplified``
  36-54 (the A2 branch of ``SiluCompute``, 68-72): ``Muls(dst, src, -1)``, ``Exp(dst, dst)``,
  ``Adds(dst, dst, 1)``, ``Div(dst, src, dst)``, in ``T``.
- ``Swish(dst, src, n, beta)``: ``activation/swish/swish_common_impl.h``, ``SwishCompute`` 66 (the scalar
  ``T(-1.0f * float(beta))``) and ``SwishCalcSimplified`` 37-55: ``Muls(dst, src, -beta)``, ``Exp``,
  ``Adds 1``, ``Div(dst, src, dst)``, in ``T``.
- ``Gelu<T, highPrecision, highPerformance>(dst, src, [tmp,] n)``: ``activation/gelu/gelu_impl.h``,
  ``GeluImpl`` 391-404, ``GeluCalcSimplifiedAvoid`` 112-132 of ``GeluCalcTanhParams`` 37-62,
  ``GeluCalcYGreaterThanZero`` 65-76 and ``GeluCalcYLessThanZero`` 79-109: ``Mul(a, x, x)``, ``Mul(b, x, a)``,
  ``Muls(a, b, 0.044715)``, ``Add(b, x, a)``, ``Muls(a, b, 1.5957691216057308)``; ``Mins(b, a, 0)``,
  ``Exp(b, b)``; ``Abs(a, a)``, ``Muls(a, a, -1)``, ``Exp(a, a)``, ``Adds(a, a, 1)``, ``Div(a, x, a)`` (with
  highPerformance ``Reciprocal(a, a)``, ``Mul(a, x, a)``); ``Mul(dst, a, b)``.
- ``FasterGelu<...>(dst, src, [tmp,] n)``: ``FasterGeluImpl`` 417-428, ``FastGeluCalcSimplified`` 135-166:
  ``Muls(s, x, -1.702)``, ``Exp``, ``Adds 1``, ``Div(dst, x, s)`` (highPerformance: ``Reciprocal``, ``Mul``).
- ``FasterGeluV2<...>(dst, src, [tmp,] n)``: ``FasterGeluV2Impl`` 442-455, ``FastGeluV2ClipParams`` 169-202 and
  ``FastGeluV2CalcSimplified`` 205-246: ``Muls(a, x, 0.7071)``, ``Abs``, ``Mins 1.769``, ``Adds -1.769``,
  ``Mul(a, a, a)``, ``Muls -0.1444``, ``Adds 0.5``; ``Adds(b, x, 1e-12)`` (0 in half), ``Abs(c, b)``,
  ``Div(b, b, c)`` (highPerformance: ``Reciprocal(c, c)``, ``Mul(b, b, c)``); ``Mul(a, a, b)``, ``Adds(a, a, 0.5)``,
  ``Mul(dst, x, a)``.
  The three Gelus with highPrecision on half (``GeluFormulasHighPrecision`` 295-331, ``GeluCastIntrinsicsImpl``
  278-292): ``Cast`` to a float32 local (CAST_NONE, exact), the float formula on it, ``Cast`` back with
  CAST_NONE (CAST_RINT where precision is lost, the RoundMode page).
- ``Sinh(dst, src, [tmp,] n)``: ``math/sinh/sinh_common_impl.h``, ``SinhCompute`` on float 44-72:
  ``Muls(t, x, -1)``, ``Adds(t, t, -ln2)``, ``Exp(t, t)``, ``Adds(dst, x, -ln2)``, ``Exp(dst, dst)``,
  ``Sub(dst, dst, t)``, ``-ln2`` the float constant ``SINH_NEG_LN_TWO`` (line 36, 0xBF317218); on half the
  specialisation 78-117: ``Cast(a, x)`` to float32, ``Adds(b, a, -ln2)``, ``Exp(b, b)``, ``Muls(a, a, -1)``,
  ``Adds(a, a, -ln2)``, ``Exp(a, a)``, ``Sub(b, b, a)``, ``Cast(dst, b, CAST_NONE)``.
- ``Cosh(dst, src, [tmp,] n)``: ``math/cosh/cosh_common_impl.h``, ``CoshCompute`` on float 47-69:
  ``Adds(b, x, -ln2)``, ``Exp(a, b)``, ``Duplicate(dst, 0.25)``, ``Div(b, dst, a)``, ``Add(dst, a, b)``
  (``SCALAR_LN2``, line 39); on half 72-102: ``Cast(c, x)``, ``Adds(b, c, -ln2)``, ``Exp(a, b)``,
  ``Duplicate(c, 0.25)``, ``Div(b, c, a)``, ``Add(c, a, b)``, then the A2's ``CoshCast``
  (``cosh_v220_impl.h`` 28-34): ``Cast(dst, c, CAST_ROUND)``.
- ``ClampMax(dst, src, [tmp,] scalar, n)`` / ``ClampMin``: ``math/clamp/clamp_common_impl.h``,
  ``ClampCompute`` 34-46: ``Mins(dst, src, scalar)`` / ``Maxs(dst, src, scalar)``, ``scalar`` a ``T``.
- ``Log2(dst, src, [tmp,] n)``: ``math/log/log_common_impl.h``, ``Log2Impl`` 109-142: on float ``Log2Compute``
  45-53, ``Ln(dst, x)``, ``Muls(dst, dst, 1.4426950408889634)``; on half 58-85: ``Cast`` to float32, ``Ln``,
  ``Muls``, ``Cast`` back with CAST_NONE. ``Log10(dst, src, n)``: ``Log10Impl`` 147-167: ``Ln(dst, x)``,
  ``Muls(dst, dst, 0.43429448190325176)`` in ``T``.
- ``Sign(dst, src, [tmp,] n)``: ``math/sign/sign_common_impl.h``, ``SignComputeImpl`` 41-80:
  ``Duplicate(dst, 0)``, ``Compare(m1, x, dst, LT)``, ``Compare(m2, x, dst, GT)``, ``Select(t, dst, 1, m1)``
  and ``Select(dst, dst, -1, m2)`` (``VSEL_TENSOR_SCALAR_MODE``: the tensor where the mask bit is set, else
  the scalar ``SetCmpMask`` loaded from a ``Duplicate``d local), ``Add(dst, t, dst)``: +-1, and +0 for +-0
  and NaN.
- ``Erf(dst, src, [tmp,] n)``: ``math/erf/erf_common_impl.h``, ``ErfCompute`` on float 151-169: ``ErfClip``
  38-48 (``Mins(a, x, 3.92f)``, ``Maxs(dst, a, -3.92f)``), ``ErfComputeP`` 52-104 (``Mul(a, c, c)``,
  ``Muls(b, a, P5)``, then per coefficient P4..P0 ``Adds(q, b, Pk)`` and ``Mul(b, a, q)``, the last ``Mul(b, c,
  q)``), ``ErfComputeQ`` 107-148 (``Adds(q, a, Q4)``, then per Q3..Q0 ``Mul(c, a, q)``, ``Adds(q, c, Qk)``: the
  clipped x's tensor is its scratch), ``Div(dst, b, q)``; the float constants of lines 41, 55-60 and 110-114.
  On half the specialisation 172-204: the same on a float32 ``Cast`` of x, ``Div`` into a float32 local and
  ``Cast(dst, ., CAST_ROUND)`` (``GetErfCastType``, 28-35: CAST_ROUND on the 2201).
- ``Atan(dst, src, [tmp,] n)``: ``math/atan/atan_common_impl.h``, ``AtanFormulaImpl`` 129-204 on float: x clipped
  to [-10000, 10000] (``Mins``, ``Maxs``), ``Abs``; ``TaylorExpand`` (68-99: ``Mul(sq, a, a)``, ``Mul(d, a, a)``,
  ``Muls(d, d, f[k])``, then per i = k-1..1 ``Adds(d, d, f[i])``, ``Mul(d, d, sq)``, then ``Adds 1``, ``Mul(d, d,
  a)``, the float factors 1/(2i+1) of lines 74-80) of |x|, of ``AtanTransform`` (101-123: ``Muls tan(pi/8)``,
  ``Adds 1``, ``Adds(t, x, -tan(pi/8))``, ``Div``, ``Abs``) of it plus pi/8, and of |(|x| - 1) / (|x| + 1)| plus
  pi/4 and, transformed again (6 terms), plus pi/8 and pi/4, each kept by ``Min``; times the sign
  2^62 x / (2^-62 + |2^62 x|) (``Sign`` 51-66). On half (215-229): between a widening and a narrowing
  ``Cast`` (CAST_NONE).
- ``Atanh(dst, src, [tmp,] n)``: ``math/atanh/atanh_common_impl.h``, ``AtanhCompute`` on float 41-68:
  ``Adds(t, x, 1)``, ``Muls(dst, x, -1)``, ``Adds(dst, dst, 1)``, ``Div(dst, t, dst)``, ``Ln``, ``Muls 0.5``; on
  half 72-114 the same in float32 between a widening and a narrowing ``Cast`` (CAST_NONE).

- ``Round``, ``Floor``, ``Ceil``, ``Trunc``, ``Frac``, ``Sin``, ``Cos``, ``Tan`` (on the whole-number
  ``Cast<float, float>``): :mod:`.mathlib_round`, which cites their files and lines.

As in the library, ``dst`` may be ``src``: the instructions run in its order (Silu and Swish read ``src``
again after writing ``dst``; Sign writes ``dst`` first).
"""
from __future__ import annotations

import numpy as np

from .abstract import Mode, Tensor, refuse, temporary
from .description import AttrRef, Constant, ScalarProduct
from .values import CNum, negate

__all__ = ["EXPANSIONS", "expand_more"]

_NEG_LN2 = float(np.float32(-0.69314718055994530941723212145818))      # SINH_NEG_LN_TWO, SCALAR_LN2
#: Each call's operands after (dst, src): "n" the count, "s" a scalar; "t" where a uint8 shared temporary
#: buffer may come before them.
_OPERANDS = {
    "Silu": "n", "Swish": "ns", "Gelu": "tn", "FasterGelu": "tn", "FasterGeluV2": "tn", "Sinh": "tn",
    "Cosh": "tn", "ClampMax": "tsn", "ClampMin": "tsn", "Log2": "tn", "Log10": "n", "Sign": "tn", "Erf": "tn",
    "Atan": "tn", "Atanh": "tn",
    "Round": "tn", "Floor": "tn", "Ceil": "tn", "Trunc": "tn", "Frac": "tn", "Sin": "tn", "Cos": "tn", "Tan": "tn",
}
#: The calls :func:`expand_more` expands.
EXPANSIONS = tuple(_OPERANDS)


class _Emit:
    """Records one expanded call's instructions: its temporaries ``<call>_tmp<part><line>``."""

    def __init__(self, machine, node, ident, count):
        self.machine, self.node, self.ident, self.count = machine, node, ident, count

    def temp(self, dtype, part=""):
        return temporary(self.machine, f"{self.ident.lower()}_tmp{part}{self.node.at[1]}", dtype)

    def __call__(self, op, *operands):
        self.machine.vector_call(self.node, op, list(operands) + [self.count], trailing=(1,), counted=True)

    def cast(self, dst, src, mode="CAST_NONE"):
        self("Cast", dst, src, Mode(mode))


def _c(value) -> CNum:
    return CNum(value, "double")


def _operands(node, ident, args):
    """(dst, src, scalar or None, count) of ``ident``'s call, else a refusal saying what is read."""
    form = _OPERANDS[ident]
    rest = args[2:]
    if "t" in form and len(rest) == len(form) and isinstance(rest[0], Tensor):
        rest = rest[1:]          # the shared temporary buffer: the library's scratch, which the program holds
    wanted = form.replace("t", "")
    names = {"n": "count", "s": "scalar"}
    shape = ", ".join(["dst", "src"] + (["[sharedTmpBuffer]"] if "t" in form else []) + [names[k] for k in wanted])
    if len(args) < 2 or not all(isinstance(a, Tensor) for a in args[:2]) or len(rest) != len(wanted) \
            or any(isinstance(a, Tensor) for a in rest):
        refuse(node, f"AscendC::{ident} with {len(args)} arguments", f"the reader knows ({shape})")
    dst, src = args[0], args[1]
    if dst.dtype != src.dtype:
        refuse(node, f"AscendC::{ident} from {src.dtype} to {dst.dtype}", "the library keeps the type")
    if dst.dtype not in ("float32", "float16"):
        refuse(node, f"AscendC::{ident} on {dst.dtype}", f"asc-devkit's A2 {ident} takes half or float")
    values = dict(zip(wanted, rest))
    return dst, src, values.get("s"), values["n"]


def _flags(machine, node, ident, targs):
    """(highPrecision, highPerformance) of a Gelu call's template arguments (both false by default)."""
    flags = []
    for i in (1, 2):
        if targs is None or len(targs) <= i:
            flags.append(False)
            continue
        v = machine.type_or_value(targs[i])
        if not isinstance(v, CNum):
            refuse(node, f"AscendC::{ident}'s template argument {i + 1}", "not a compile-time bool")
        flags.append(bool(v.value))
    return flags


def _negated(node, ident, scalar):
    """Swish's ``-1.0f * beta``: exact, as the scalar the kernel passes (a constant or a float tiling field)."""
    if isinstance(scalar, CNum):
        return negate(CNum(float(np.float32(scalar.value)), "float"))
    if isinstance(scalar, (AttrRef, ScalarProduct)):
        return ScalarProduct(scalar, Constant(-1.0))
    refuse(node, f"AscendC::{ident}'s scalar", "neither a constant nor a float tiling field")


def expand_more(machine, node, ident, args, targs) -> None:
    """Record the instructions of ``ident`` (one of :data:`EXPANSIONS`) called with ``args`` at ``node``."""
    dst, src, scalar, count = _operands(node, ident, args)
    e = _Emit(machine, node, ident, count)
    dt = dst.dtype
    if ident in ("Silu", "Swish"):
        e("Muls", dst, src, _c(-1.0) if ident == "Silu" else _negated(node, ident, scalar))
        e("Exp", dst, dst)
        e("Adds", dst, dst, _c(1.0))
        e("Div", dst, src, dst)
    elif ident in ("Gelu", "FasterGelu", "FasterGeluV2"):
        precise, fast = _flags(machine, node, ident, targs)
        formula = {"Gelu": _gelu, "FasterGelu": _faster_gelu, "FasterGeluV2": _faster_gelu_v2}[ident]
        if precise and dt == "float16":
            conv = e.temp("float32", "conv")
            e.cast(conv, src)
            formula(e, conv, conv, "float32", fast)
            e.cast(dst, conv)
        else:
            formula(e, dst, src, dt, fast)
    elif ident == "Sinh":
        _sinh(e, dst, src, dt)
    elif ident == "Cosh":
        _cosh(e, dst, src, dt)
    elif ident in ("ClampMax", "ClampMin"):
        e("Mins" if ident == "ClampMax" else "Maxs", dst, src, scalar)
    elif ident == "Log2":
        ratio = _c(1.4426950408889634)
        if dt == "float16":
            t = e.temp("float32")
            e.cast(t, src)
            e("Ln", t, t)
            e("Muls", t, t, ratio)
            e.cast(dst, t)
        else:
            e("Ln", dst, src)
            e("Muls", dst, dst, ratio)
    elif ident == "Log10":
        e("Ln", dst, src)
        e("Muls", dst, dst, _c(0.43429448190325176))
    elif ident == "Erf":
        _erf(e, dst, src, dt)
    elif ident == "Atan" and dt == "float16":      # atan_common_impl.h, AtanCompute<half>, 215-229
        conv = e.temp("float32", "conv")
        e.cast(conv, src)
        _atan(e, conv, conv)
        e.cast(dst, conv)
    elif ident == "Atan":
        _atan(e, dst, src)
    elif ident == "Atanh":
        _atanh(e, dst, src, dt)
    elif ident in ("Round", "Floor", "Ceil", "Trunc", "Frac", "Sin", "Cos", "Tan"):
        from .mathlib_round import expand_round      # built on this module's _Emit and _f
        expand_round(e, machine, node, ident, dst, src, targs)
    elif ident == "Sign":
        below, above, t = e.temp("uint8", "lt"), e.temp("uint8", "gt"), e.temp(dt)
        e("Duplicate", dst, _c(0.0))
        e("Compare", below, src, dst, "LT")
        e("Compare", above, src, dst, "GT")
        e("Selects", t, dst, _c(1.0), below)
        e("Selects", dst, dst, _c(-1.0), above)
        e("Add", dst, t, dst)


def _gelu(e, dst, x, dt, fast):
    a, b = e.temp(dt, "a"), e.temp(dt, "b")
    e("Mul", a, x, x)
    e("Mul", b, x, a)
    e("Muls", a, b, _c(0.044715))
    e("Add", b, x, a)
    e("Muls", a, b, _c(1.5957691216057308))
    e("Mins", b, a, _c(0.0))
    e("Exp", b, b)
    e("Abs", a, a)
    e("Muls", a, a, _c(-1.0))
    e("Exp", a, a)
    e("Adds", a, a, _c(1.0))
    _divide(e, a, x, a, fast)
    e("Mul", dst, a, b)


def _faster_gelu(e, dst, x, dt, fast):
    s = e.temp(dt)
    e("Muls", s, x, _c(-1.702))
    e("Exp", s, s)
    e("Adds", s, s, _c(1.0))
    _divide(e, dst, x, s, fast)


def _faster_gelu_v2(e, dst, x, dt, fast):
    a, b, c = e.temp(dt, "a"), e.temp(dt, "b"), e.temp(dt, "c")
    e("Muls", a, x, _c(0.7071))
    e("Abs", a, a)
    e("Mins", a, a, _c(1.769))
    e("Adds", a, a, _c(-1.769))
    e("Mul", a, a, a)
    e("Muls", a, a, _c(-0.1444))
    e("Adds", a, a, _c(0.5))
    e("Adds", b, x, _c(0.000000000001))
    e("Abs", c, b)
    if fast:
        e("Reciprocal", c, c)
        e("Mul", b, b, c)
    else:
        e("Div", b, b, c)
    e("Mul", a, a, b)
    e("Adds", a, a, _c(0.5))
    e("Mul", dst, x, a)


def _divide(e, dst, x, d, fast):
    """``x / d`` into ``dst``: Div, or with highPerformance ``Reciprocal(d, d)`` then ``Mul(dst, x, d)``."""
    if fast:
        e("Reciprocal", d, d)
        e("Mul", dst, x, d)
    else:
        e("Div", dst, x, d)


def _sinh(e, dst, x, dt):
    ln2 = CNum(_NEG_LN2, "float")
    if dt == "float16":
        a, b = e.temp("float32", "a"), e.temp("float32", "b")
        e.cast(a, x)
        e("Adds", b, a, ln2)
        e("Exp", b, b)
        e("Muls", a, a, _c(-1.0))
        e("Adds", a, a, ln2)
        e("Exp", a, a)
        e("Sub", b, b, a)
        e.cast(dst, b)
        return
    t = e.temp(dt)
    e("Muls", t, x, _c(-1.0))
    e("Adds", t, t, ln2)
    e("Exp", t, t)
    e("Adds", dst, x, ln2)
    e("Exp", dst, dst)
    e("Sub", dst, dst, t)


def _cosh(e, dst, x, dt):
    ln2 = CNum(_NEG_LN2, "float")
    a, b = e.temp("float32", "a"), e.temp("float32", "b")
    if dt == "float16":
        c = e.temp("float32", "c")
        e.cast(c, x)
        e("Adds", b, c, ln2)
        e("Exp", a, b)
        e("Duplicate", c, _c(0.25))
        e("Div", b, c, a)
        e("Add", c, a, b)
        e.cast(dst, c, "CAST_ROUND")
        return
    e("Adds", b, x, ln2)
    e("Exp", a, b)
    e("Duplicate", dst, _c(0.25))
    e("Div", b, dst, a)
    e("Add", dst, a, b)


#: erf_common_impl.h's P (lines 55-60) and Q (110-114) coefficients, highest first: float constants.
_ERF_P = (0.053443748819, 0.75517016694e1, 0.10162808918e3, 0.13938061484e4, 0.50637915060e4, 0.29639384698e5)
_ERF_Q = (0.31212858877e2, 0.39856963806e3, 0.30231248150e4, 0.13243365831e5, 0.26267224157e5)


def _erf(e, dst, x, dt):
    """ErfCompute: the clip into ``c`` (dst on float, a float32 local on half), P into ``b``, Q into ``q``
    (using ``c`` as its scratch), then their quotient."""
    a, b, q = e.temp("float32", "a"), e.temp("float32", "b"), e.temp("float32", "q")
    c = e.temp("float32", "c") if dt == "float16" else dst
    if dt == "float16":
        e.cast(c, x)
        x = c
    e("Mins", a, x, CNum(float(np.float32(3.92)), "float"))
    e("Maxs", c, a, CNum(-float(np.float32(3.92)), "float"))
    e("Mul", a, c, c)
    e("Muls", b, a, CNum(float(np.float32(_ERF_P[0])), "float"))
    for k in _ERF_P[1:]:
        e("Adds", q, b, CNum(float(np.float32(k)), "float"))
        e("Mul", b, c if k == _ERF_P[-1] else a, q)      # the last Mul takes x, not x^2 (P is odd)
    e("Adds", q, a, CNum(float(np.float32(_ERF_Q[0])), "float"))
    for k in _ERF_Q[1:]:
        e("Mul", c, a, q)
        e("Adds", q, c, CNum(float(np.float32(k)), "float"))
    if dt == "float16":
        e("Div", a, b, q)
        e.cast(dst, a, "CAST_ROUND")       # GetErfCastType: CAST_ROUND on the A2 (lines 28-35)
    else:
        e("Div", dst, b, q)


def float_constant(value) -> CNum:
    """A ``constexpr float`` / ``const float`` constant: the literal rounded to float32 once."""
    return CNum(float(np.float32(value)), "float")


_f = float_constant


#: TaylorExpand's factorList (atan_common_impl.h 74-80): 1 / (2k + 1) with alternating signs.
_ATAN_FACTORS = (1, -0.3333333333333333, 0.2, -0.14285714285714285, 0.1111111111111111, -0.09090909090909091,
                 0.07692307692307693)
_TAN_PI_8, _PI_8, _PI_4 = 0.4142135623730950, 0.39269908169872415480783042290994, 0.78539816339744830961566084581988


def _taylor(e, dst, x, square, level):
    """TaylorExpand (68-99): x * (1 + x^2 * (f1 + x^2 * (... f_level)))."""
    e("Mul", square, x, x)
    e("Mul", dst, x, x)
    e("Muls", dst, dst, _f(_ATAN_FACTORS[level]))
    for i in range(level - 1, 0, -1):
        e("Adds", dst, dst, _f(_ATAN_FACTORS[i]))
        e("Mul", dst, dst, square)
    e("Adds", dst, dst, _f(_ATAN_FACTORS[0]))
    e("Mul", dst, dst, x)


def _atan_transform(e, dst, x, tmp):
    """AtanTransform (101-123): |(x - tan(pi/8)) / (1 + x tan(pi/8))|."""
    e("Muls", dst, x, _f(_TAN_PI_8))
    e("Adds", dst, dst, _f(1.0))
    e("Adds", tmp, x, _f(-float(np.float32(_TAN_PI_8))))
    e("Div", dst, tmp, dst)
    e("Abs", dst, dst)


def _atan(e, dst, x):
    """AtanFormulaImpl (129-204) on float32 tensors; ``dst`` may be ``x``."""
    t, clip, a, t2, sq = (e.temp("float32", p) for p in ("t", "clip", "abs", "t2", "sq"))
    e("Mins", clip, x, _f(10000))
    e("Maxs", clip, clip, _f(-10000))
    e("Abs", a, clip)
    _taylor(e, dst, a, sq, 4)
    _atan_transform(e, t, a, t2)
    _taylor(e, t2, t, sq, 4)
    e("Adds", t2, t2, _f(_PI_8))
    e("Min", dst, dst, t2)
    e("Adds", t2, a, _f(1.0))
    e("Adds", t, a, _f(-1.0))
    e("Div", t, t, t2)
    e("Abs", t, t)
    _taylor(e, t2, t, sq, 4)
    e("Adds", t2, t2, _f(_PI_4))
    e("Min", dst, dst, t2)
    _atan_transform(e, t2, t, sq)
    _taylor(e, t, t2, sq, 6)
    e("Adds", t, t, _f(_PI_8))
    e("Adds", t, t, _f(_PI_4))
    e("Min", dst, dst, t)
    e("Muls", t, clip, _f(2.0 ** 62))        # Sign (51-66) with T float: 2^62 x / (2^-62 + |2^62 x|)
    e("Abs", t2, t)
    e("Adds", t2, t2, _f(2.0 ** -62))
    e("Div", t, t, t2)
    e("Mul", dst, dst, t)


def _atanh(e, dst, x, dt):
    """AtanhCompute: 0.5 * ln((x + 1) / (x * -1 + 1)), in float32 (on half between two Casts)."""
    t = e.temp("float32")
    d = e.temp("float32", "conv") if dt == "float16" else dst
    if dt == "float16":
        e.cast(d, x)
        x = d
    e("Adds", t, x, _f(1.0))
    e("Muls", d, x, _f(-1.0))
    e("Adds", d, d, _f(1.0))
    e("Div", d, t, d)
    e("Ln", d, d)
    e("Muls", d, d, _f(0.5))
    if dt == "float16":
        e.cast(dst, d)

