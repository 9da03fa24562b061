"""Whether an envelope's extremes are its shifts' extremes: :func:`monotone_in_shifts`.

An envelope (:mod:`.envelope`) shifts each freed result by ``k`` in ``[-K, K]`` ulps. Each shift is
monotone in ``k`` and in the value it shifts (:func:`swishgrad_numba.kernel.envelope.ulp_shift` clamps
at the line's ends), so the reachable values of a shifted result form an interval of the ordered
line, reached at its ends by ``k = -K`` and ``k = +K``. Where the program's output depends on the
shifted results through one chain of steps, each weakly monotone in the chain's value for fixed
other operands (none of which depends on a shift), the output's least and greatest values are
reached where every shift is at an end of its range: ``2^m`` combinations instead of ``(2K+1)^m``.

The chain is checked on the lowered program: every shifted value is read by one step only, each
step reads one shifted value at most, and the step is one of the monotone instructions below, with
the conditions that keep it monotone over the whole interval (a Div's divisor and a Ln's operand
strictly positive; a product's shifted factor of a known sign, so that no ``0 * inf`` NaN arises
inside the interval). A NaN can still arise at an end (``inf / inf``) and hide its neighbour:
:func:`swishgrad_numba.program.envelope.program_envelope` enumerates every combination for an element
whose ends give a NaN.
"""
from __future__ import annotations

import numpy as np

from .form import Attr, Const, Product
from .lower import ULP_SHIFT

__all__ = ["monotone_in_shifts"]

_FLOATS = ("float32", "float16", "bfloat16")
# steps monotone in any one operand for fixed others (a NaN from non-NaN operands only at inf or 0)
_ANY = {"Add", "Sub", "Max", "Min", "Maxs", "Mins", "Adds", "Exp", "Cast"}
# products: monotone for a fixed other factor, but a shifted factor that crosses 0 may meet an inf there
_PRODUCTS = {"Mul", "Muls", "Axpy", "MulDstAdd"}


def _scalar(s, attrs):
    """The float32 of a scalar operand, or None where it is not known."""
    if isinstance(s, Const):
        return s.f32
    if isinstance(s, Attr):
        v = attrs.get(s.name)
        return None if v is None else np.float32(v)
    if isinstance(s, Product):
        a, b = _scalar(s.a, attrs), _scalar(s.b, attrs)
        if a is None or b is None:
            return None
        with np.errstate(all="ignore"):
            return np.float32(a * b)
    return None


def monotone_in_shifts(lowered, attrs: dict) -> bool:
    """True where ``lowered``'s output (an envelope's program, :func:`.lower.lower` with ``free``) is a
    chain of monotone steps of its shifted results, as the module docstring says; ``attrs`` the
    program's attributes (float32), for the signs of scalar operands."""
    # per shifted (or shift-dependent) value: its side of zero, +1 (>= +0), -1 (<= -0) or 0 (unknown),
    # and whether it is strictly away from zero
    side, strict, read = {}, {}, set()
    producer = {s.dst: s for s in lowered.steps}
    chains = 0
    for s in lowered.steps:
        tainted = [v for v in s.srcs if v in side]
        if s.op == ULP_SHIFT and not tainted:
            chains += 1
            if chains > 1:
                return False       # a second shifted result not on the chain of the first
            src = producer.get(s.srcs[0])
            side[s.dst], strict[s.dst] = (1 if src is not None and src.op == "Exp" else 0), False
            continue
        if not tainted:
            continue
        if len(tainted) > 1 or s.srcs.count(tainted[0]) > 1 or tainted[0] in read:
            return False
        v = tainted[0]
        read.add(v)
        if lowered.values[s.dst].dtype not in _FLOATS:
            return False
        pos = s.srcs.index(v)
        sd, st = side[v], strict[v]
        scalars = [_scalar(a, attrs) for a in s.scalars]
        if s.op == ULP_SHIFT:
            new = (sd, st)
        elif s.op == "Exp":
            new = (1, False)
        elif s.op == "Cast":
            new = (sd, False)
        elif s.op == "Adds":
            c = scalars[0]
            new = (1, True) if (c is not None and c > 0 and sd == 1) else (0, False)
        elif s.op == "Muls":
            c = scalars[0]
            if c is None or not np.isfinite(c):
                if sd == 0:
                    return False
            new = (sd * int(np.sign(c)), st) if (c is not None and np.isfinite(c) and c != 0) else (0, False)
        elif s.op in _ANY:
            new = (0, False)
        elif s.op in _PRODUCTS:
            if sd == 0:
                return False
            new = (0, False)
        elif s.op == "Div":
            if pos == 1 and not (sd == 1 and st):
                return False       # the divisor must stay > 0 over the interval
            if pos == 0 and sd == 0:
                return False       # 0 / 0 inside the interval
            new = (0, False)
        elif s.op == "Ln":
            if not (sd == 1 and st):
                return False
            new = (0, False)
        else:
            return False           # Select, Compare, Abs, bit operations, ...: not monotone
        side[s.dst], strict[s.dst] = new
    return chains == 0 or lowered.output in side
