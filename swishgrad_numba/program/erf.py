"""The library routine ``AscendC::Erf`` of the Ascend 950 as subroutine programs (:class:`.form.Call`).

asc-devkit's ``impl/adv_api/detail/math/erf/erf_3510_impl.h`` (arch 3510 = the 950) builds Erf from
basic instructions, in one of two algorithms chosen by ``ErfConfig.algo`` (docs/model.md, "Erf
(asc-devkit, arch 3510 = the 950)", cites the lines):

- :data:`SUBSECTION` (``ErfSubsectionCompute`` then ``ErfSpecialCaseCompute``): a piecewise polynomial
  in ``FusedMulDstAdd`` steps on bit-pattern coefficients, the large-|x| branch finished as
  ``1 - 2^f`` with ``2^f = Exp(f * Ln(2))`` and the sign transferred by ``And``/``Or``. opbase's
  ``Vec::Erf`` (float32 DAGs) asks for it.
- :data:`PADE` (``ErfPadeCompute``, the default config): x clipped to [-3.92, 3.92], then ``P(x) / Q(x)``
  by Horner. The GeluV2 / GeluGradV2 kernels' own ``ErfFast`` (16-bit DAGs, on widened data) gets it.

Both run on float32 tensors (the kernels always call Erf on float32 data). Each instruction is one
upstream instruction, in upstream's operand order.

``Ln(2)``: the source takes it from the ``Log`` instruction on a duplicated 2.0. The model's ``Ln`` is
correctly rounded (docs/model.md, "New instructions"), so that value is ln 2 rounded once to float32,
``0x3F317218``; the program duplicates that constant (:data:`LN2_BITS`), the same bits per element.
"""
from __future__ import annotations

import numpy as np

from .form import Const, Program, Tensor, V

__all__ = ["SUBSECTION", "PADE", "ALGORITHMS", "THRESHOLD_BITS", "P1_BITS", "P2_BITS", "LN2_BITS", "CLIP",
           "PADE_P", "PADE_Q", "erf_program"]

SUBSECTION, PADE = "subsection", "pade"
#: The two algorithms (``ErfAlgo::SUBSECTION_POLYNOMIAL_APPROXIMATION``, ``ErfAlgo::PADE_APPROXIMATION``).
ALGORITHMS = (SUBSECTION, PADE)

#: ``|x| >= 0x3F8060FE`` (about 1.0029) takes the large-|x| branch (lines 37-39).
THRESHOLD_BITS = 0x3F8060FE
#: The large-|x| coefficients P1 and the small-|x| P2, highest order first. The comment above the code
#: gives P2's first as ``0x28B1E96A``; the code (followed here) uses ``0x38B1E96A``.
P1_BITS = (0x38EB4C3A, 0xBAAE005B, 0x3C09919F, 0xBD24D99A, 0x3E235519, 0x3F69B4F9, 0x3F210A14)
P2_BITS = (0x38B1E96A, 0xBA574D20, 0x3BAAD5EA, 0xBCDC1BE7, 0x3DE718AF, 0xBEC093AC, 0x3E0375D3)
#: ``Log(2.0)`` under the model's correctly rounded Ln.
LN2_BITS = 0x3F317218
_SIGN_BITS, _ONE_BITS = 0x80000000, 0x3F800000

#: Pade: ``constexpr float`` clip and coefficients, double literals rounded to float once (lines 45-107).
CLIP = "3.92"
PADE_P = ("0.29639384698e5", "0.50637915060e4", "0.13938061484e4", "0.10162808918e3", "0.75517016694e1",
          "0.053443748819")
PADE_Q = ("0.26267224157e5", "0.13243365831e5", "0.30231248150e4", "0.39856963806e3", "0.31212858877e2")


def _bits(u: int) -> Const:
    """A ``Duplicate`` of a bit pattern: the float32 with those bits."""
    return Const(float(np.uint32(u).view(np.float32)))


def _subsection_body() -> tuple:
    body = [V.Abs("a", "x"), V.Duplicate("c", _bits(THRESHOLD_BITS)), V.Compare("big", "a", "c", "GE"),
            V.Mul("sq", "x", "x"), V.Select("f7", "a", "sq", "big")]
    for k in range(7):                      # each coefficient: Duplicate both, Select by the branch
        body += [V.Duplicate("p1", _bits(P1_BITS[k])), V.Duplicate("p2", _bits(P2_BITS[k])),
                 V.Select(f"k{k}", "p1", "p2", "big")]
    body.append(V.FusedMulDstAdd("k0", "f7", "k1"))            # f10 = fma(k0, f7, k1)
    for k in range(2, 7):
        body.append(V.FusedMulDstAdd("k0", "f7", f"k{k}"))     # f12 .. f20
    body += [V.Neg("na", "a"), V.Select("f22", "na", "x", "big"),
             V.FusedMulDstAdd("k0", "f22", "f22"),              # f26 = fma(f, f22, f22)
             # ErfSpecialCaseCompute (118-134)
             V.Abs("a", "x"), V.Duplicate("c", _bits(THRESHOLD_BITS)), V.Compare("small", "a", "c", "LT"),
             V.Duplicate("l2", _bits(LN2_BITS)), V.Mul("t", "k0", "l2"), V.Exp("t", "t"),
             V.Duplicate("one", _bits(_ONE_BITS)), V.Sub("t", "one", "t"),
             V.Duplicate("sgn", _bits(_SIGN_BITS)), V.And("sgn", "x", "sgn"), V.Or("sgn", "sgn", "t"),
             V.Select("y", "k0", "sgn", "small")]
    return tuple(body)


def _pade_body() -> tuple:
    p, q = PADE_P, PADE_Q
    body = [V.Mins("c", "x", CLIP), V.Maxs("c", "c", "-" + CLIP), V.Mul("sq", "c", "c"), V.Muls("p", "sq", p[5])]
    for k in (4, 3, 2, 1):
        body += [V.Adds("p", "p", p[k]), V.Mul("p", "p", "sq")]
    body += [V.Adds("p", "p", p[0]), V.Mul("p", "p", "c"), V.Mul("sq", "c", "c"), V.Adds("q", "sq", q[4])]
    for k in (3, 2, 1, 0):
        body += [V.Mul("q", "q", "sq"), V.Adds("q", "q", q[k])]
    body.append(V.Div("y", "p", "q"))
    return tuple(body)


def erf_program(algo: str) -> Program:
    """The Erf subroutine of algorithm ``algo`` (:data:`ALGORITHMS`): float32 ``x`` -> float32 ``y``."""
    if algo == SUBSECTION:
        name, body, masks = "ErfSubsection", _subsection_body(), ("big", "small")
    elif algo == PADE:
        name, body, masks = "ErfPade", _pade_body(), ()
    else:
        raise ValueError(f"algo must be one of {ALGORITHMS}, got {algo!r}")
    written = sorted({s.dst for s in body} - {"y"} - set(masks))
    return Program(name, (Tensor("x"),), Tensor("y"),
                   tuple(Tensor(n) for n in written) + tuple(Tensor(m, "uint8") for m in masks), body)
