"""AscendC's Round, Floor, Ceil, Trunc, Frac, Sin, Cos and Tan expanded (issue 43), each into the instructions the A2
vector core runs for it, as asc-devkit's public implementation writes them for ``__NPU_ARCH__`` 2201 (read at the
mirror ``cannmirror/asc-devkit`` 0da921b9; paths under ``impl/adv_api/detail/``), on the whole-number Cast
``Cast<float, float>`` (:data:`swishgrad_numba.program.isa.WHOLE_ROUND_MODES`). Called from
:func:`.mathlib_calls.expand_more`, which reads the operands ``(dst, src, [sharedTmpBuffer,] count)``; half and
float, bfloat16 refused there.

- ``Round``, ``Floor``, ``Ceil``, ``Trunc`` ``(dst, src, [tmp,] n)``: on float one ``Cast<float, float>`` (a whole
  float32, :data:`swishgrad_numba.program.isa.WHOLE_ROUND_MODES`) with CAST_RINT (``math/round/round_v220_impl.h``,
  ``RoundComputeCount<float>`` 39-48: Round is ties to even), CAST_FLOOR (``floor/floor_v220_impl.h``, ``FloorImpl``
  103-119), CAST_CEIL (``ceil/ceil_v220_impl.h``, ``CeilProcess`` 30-38), CAST_TRUNC (``trunc/trunc_v220_impl.h``,
  ``TruncCastForTrunc`` 23-30); on half the same between ``Cast`` to a float32 local (CAST_NONE) and ``Cast`` back
  (CAST_NONE, exact: a whole number of a half's magnitude is a half): round_v220_impl.h 50-99, floor_v220_impl.h
  ``FloorProcess<half>`` 44-62, ``ceil/ceil_common_impl.h`` ``CeilProcess<half>`` 45-60,
  ``trunc/trunc_common_impl.h`` ``TruncCompute<half>`` 33-50.
- ``Frac(dst, src, [tmp,] n)``: ``math/frac/frac_common_impl.h``, ``FracCompute`` 33-45: ``Cast(dst, src,
  CAST_TRUNC)`` (``TruncCastForFrac``, ``frac_v220_impl.h`` 23-30), ``Sub(dst, src, dst)`` (so Frac in place gives
  0, as the library's order does); on half 47-72 the same on float32 locals between two Casts.
- ``Sin(dst, src, [tmp,] n)``: ``math/sin/sin_common_impl.h`` (constants 43-56), ``SinCompute`` 187-201:
  ``SinRound`` 162-185 (``Muls(k, x, 1/pi)``, ``Cast(k, k, CAST_ROUND)`` (``SinCast``, ``sin_v220_impl.h``
  28-34), ``SinKpi`` 129-159: ``x0 = x - k*pi_0 - k*pi_1 - k*pi_2 - k*pi_3``, one ``Muls`` and one ``Sub`` each),
  ``SinPolynomialApproximation`` 89-127 with ``SinSignCompute`` 58-86 (``Mul(x2, x0, x0)``, ``Muls(s, k, 0.5)``,
  ``Cast(s, s, CAST_FLOOR)``, ``Muls(s, s, 4)``, ``Muls(k, k, -2)``, ``Add(s, s, k)``, ``Adds(s, s, 1)``: the
  sign), then ``((x2*R0 + R1)*x2 + R2)*x2 + R3)*x2 + 1`` times x0 times the sign. With ``isReuseSource`` (the
  second template argument) on float, x0 is written into ``src`` (line 196), as the library does. On half
  (204-228) the same on a float32 ``Cast`` of x, ``Cast`` back with CAST_NONE.
- ``Cos(dst, src, [tmp,] n)``: ``math/cos/cos_common_impl.h`` (constants 45-63), ``CosCompute`` 221-235:
  ``CosRound`` 110-140 (``Muls(k, x, 1/pi)``, ``Adds(k, k, 0.5)``, ``Cast(k, k, CAST_RINT)`` (``CosCast``,
  ``cos_v220_impl.h`` 28-34), ``KPI`` 65-108: ``x0 = x - k*pi_0 - k*pi_1``, ``+ pi/2``, ``- k*pi_2 - k*pi_3 -
  k*pi_4``, ``+ COS_PI_RESDOWN_ADDS_NEG``), ``CosPolynomialApproximation`` 176-219 (``SignCompute`` 142-173 as
  Sin's, the same polynomial, then ``Mins 1``, ``Maxs -1``); isReuseSource as Sin's (228-231); half 237-260.
- ``Tan(dst, src, [tmp,] n)``: ``math/tan/tan_common_impl.h`` (constants 42-61), ``TanCompute`` 249-265:
  ``Adds(x, src, 0)`` into a local, ``TanRound`` 163-199 (``Muls(k, x, 1/pi)``, ``Cast(k, k, CAST_RINT)``
  (``TanCast``, ``tan_v220_impl.h`` 28-34), ``KPI_0`` .. ``KPI_4`` 63-160: x0 and x0 +- pi/2 reduced by k*pi_0 ..
  k*pi_4 with ``dst`` as the product's scratch), ``TanPolynomialApproximation`` 201-247 (``x0 P(x0^2) /
  (Q(x0^2) (x0 + pi/2) (x0 - pi/2))``, one ``Div``); on half 267-291 the same on float32 locals between two Casts.
- ``Power`` / ``Pow`` stay refused (:mod:`.mathlib`): the A2's ``power_float_impl.h`` and ``power_int_impl.h``
  build their result from Compare masks combined as packed ``uint16_t`` words, a scalar read back from UB and
  integer exponent tests, which this expansion does not follow.
"""
from __future__ import annotations

from .abstract import refuse
from .mathlib_calls import float_constant as _f
from .values import CNum

__all__ = ["expand_round"]


def expand_round(e, machine, node, ident, dst, src, targs) -> None:
    """Record ``ident``'s instructions through ``e`` (the recorder :func:`.mathlib_calls.expand_more` makes)."""
    if ident in _WHOLE_MODES:
        _whole(e, dst, src, dst.dtype, ident)
    else:
        _periodic(e, dst, src, dst.dtype, ident, _reuses_source(machine, node, ident, targs))


#: The round mode of each call that rounds to a whole number (its ``Cast<float, float>``).
_WHOLE_MODES = {"Round": "CAST_RINT", "Floor": "CAST_FLOOR", "Ceil": "CAST_CEIL", "Trunc": "CAST_TRUNC",
                "Frac": "CAST_TRUNC"}


def _whole(e, dst, x, dt, ident):
    """Round / Floor / Ceil / Trunc: one whole-number Cast; Frac: ``x - trunc(x)``; on half in float32 locals."""
    mode = _WHOLE_MODES[ident]
    if dt == "float16":
        src32 = e.temp("float32", "conv")
        e.cast(src32, x)
        out32 = e.temp("float32", "frac") if ident == "Frac" else src32     # frac_common_impl.h 52-53: two locals
        e.cast(out32, src32, mode)
        if ident == "Frac":
            e("Sub", out32, src32, out32)
        e.cast(dst, out32)
        return
    e.cast(dst, x, mode)
    if ident == "Frac":
        e("Sub", dst, x, dst)


def _reuses_source(machine, node, ident, targs) -> bool:
    """Sin's and Cos's ``isReuseSource`` (their second template argument, false by default)."""
    if targs is None or len(targs) < 2:
        return False
    v = machine.type_or_value(targs[1])
    if not isinstance(v, CNum):
        refuse(node, f"AscendC::{ident}'s template argument 2", "not a compile-time bool")
    return bool(v.value)


#: sin_common_impl.h 43-56 and cos_common_impl.h 45-63 (the same values where both have them): 1/pi, pi split in
#: parts (pi_0 .. pi_3, Cos also pi_4), the polynomial's R0..R3.
_INV_PI = 0.3183098733425140380859375
_PI_PARTS = (3.140625, 0.0009670257568359375, 6.2771141529083251953125e-7, 1.21644916362129151821136474609375e-10)
_COS_PI_4 = -1.0290623200529979163359041220560e-13
_COS_PI_DOWN, _COS_RESDOWN = 1.57079637050628662109375, -0.00000004371139000189375
_SIN_POLY = (2.604926501e-6, -0.0001980894471, 0.008333049340, -0.1666665792)
#: tan_common_impl.h 42-61: its pi_4 (a different value from Cos's), pi/2's two parts, P and Q's R0..R3.
_TAN_PI_4 = -1.0291767438275201129727065563201904296875e-13
_TAN_PI_DOWN, _TAN_RESDOWN = 1.57079637050628662109375, 0.00000004371139000189375
_TAN_POLY = (0.0698520831551998762793, -6.8711573651634203789, 61.20362572811089435388, -24.8048928861126769186219)


def _periodic(e, dst, x, dt, ident, reuse):
    """Sin, Cos, Tan: on half in float32 locals between two Casts (the result in the widened copy, as the
    library's half specialisations write it); on float directly (Sin and Cos reduce into ``src`` with
    ``isReuseSource``)."""
    if ident == "Tan":      # TanCompute: on float Adds(x0, src, 0) (260), on half Cast(x0, src) (278-280)
        x0 = e.temp("float32", "x0")
        if dt == "float16":
            e.cast(x0, x)
            conv = e.temp("float32", "conv")
            _tan(e, conv, x0)
            e.cast(dst, conv)
        else:
            e("Adds", x0, x, _f(0.0))
            _tan(e, dst, x0)
        return
    if dt == "float16":
        conv = e.temp("float32", "conv")
        e.cast(conv, x)
        (_sin if ident == "Sin" else _cos)(e, conv, conv, e.temp("float32", "x0"))
        e.cast(dst, conv)
        return
    reduced = x if reuse else e.temp("float32", "x0")
    (_sin if ident == "Sin" else _cos)(e, dst, x, reduced)


def _sign_and_polynomial(e, dst, x0, k, sq):
    """SinSignCompute / Cos's SignCompute, then the polynomial (sin 89-127, cos 176-219) into ``dst``."""
    e("Mul", sq, x0, x0)
    e("Muls", dst, k, _f(0.5))
    e.cast(dst, dst, "CAST_FLOOR")
    e("Muls", dst, dst, _f(4.0))
    e("Muls", k, k, _f(-2.0))
    e("Add", dst, dst, k)
    e("Adds", dst, dst, _f(1.0))
    e("Muls", k, sq, _f(_SIN_POLY[0]))
    for c in _SIN_POLY[1:] + (1.0,):
        e("Adds", k, k, _f(c))
        if c != 1.0:
            e("Mul", k, k, sq)
    e("Mul", k, k, x0)
    e("Mul", dst, k, dst)


def _sin(e, dst, x, x0):
    k, sq = e.temp("float32", "k"), e.temp("float32", "kpi")
    e("Muls", k, x, _f(_INV_PI))
    e.cast(k, k, "CAST_ROUND")
    for i, part in enumerate(_PI_PARTS):
        e("Muls", sq, k, _f(part))
        e("Sub", x0, x if i == 0 else x0, sq)
    _sign_and_polynomial(e, dst, x0, k, sq)


def _cos(e, dst, x, x0):
    k, sq = e.temp("float32", "k"), e.temp("float32", "kpi")
    e("Muls", k, x, _f(_INV_PI))
    e("Adds", k, k, _f(0.5))
    e.cast(k, k, "CAST_RINT")
    for i, part in enumerate(_PI_PARTS + (_COS_PI_4,)):
        e("Muls", sq, k, _f(part))
        e("Sub", x0, x if i == 0 else x0, sq)
        if i == 1:
            e("Adds", x0, x0, _f(_COS_PI_DOWN))
    e("Adds", x0, x0, _f(_COS_RESDOWN))
    _sign_and_polynomial(e, dst, x0, k, sq)
    e("Mins", dst, dst, _f(1.0))
    e("Maxs", dst, dst, _f(-1.0))


def _tan(e, dst, x0):
    """TanRound and TanPolynomialApproximation on the float32 local ``x0`` (reduced in place), ``dst`` the
    products' scratch and then the result."""
    k, down, up = e.temp("float32", "k"), e.temp("float32", "down"), e.temp("float32", "up")
    e("Muls", k, x0, _f(_INV_PI))
    e.cast(k, k, "CAST_RINT")
    for i, part in enumerate(_PI_PARTS + (_TAN_PI_4,)):
        e("Muls", dst, k, _f(part))
        e("Sub", x0, x0, dst)
        if i == 1:
            e("Adds", down, x0, _f(_TAN_PI_DOWN))
            e("Adds", up, x0, _f(-_TAN_PI_DOWN))
        elif i > 1:
            e("Sub", down, down, dst)
            e("Sub", up, up, dst)
            if i == 2:
                e("Adds", down, down, _f(-_TAN_RESDOWN))
                e("Adds", up, up, _f(_TAN_RESDOWN))
    e("Mul", k, x0, x0)
    e("Muls", dst, k, _f(_TAN_POLY[0]))
    e("Adds", dst, dst, _f(_TAN_POLY[1]))
    e("Mul", dst, dst, k)
    e("Adds", dst, dst, _f(_TAN_POLY[2]))
    e("Mul", dst, dst, x0)
    e("Adds", k, k, _f(_TAN_POLY[3]))
    e("Mul", k, k, down)
    e("Mul", k, k, up)
    e("Div", dst, dst, k)
