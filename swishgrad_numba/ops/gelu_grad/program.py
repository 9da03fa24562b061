"""GeluGrad's Compute as programs (inputs dy, x), one per kernel: the A2's two formulas (``versionNum`` 0 and
1, :data:`VARIANT_310B`) and the 950's DAG with its NaN guard (:mod:`.kernel`: the structs, hosts and launches;
docs/model.md, "GeluBackward (aclnnGeluBackward)", gives the sources)."""
from __future__ import annotations

import numpy as np

from ...platform import ARCH_950, ARCH_A2
from ...program import Program, Tensor
from ...program.form import V

__all__ = ["VARIANT_310B", "programs", "sigmoid_argument"]

#: The A2 program variant of ``versionNum`` 1 (ascend310b).
VARIANT_310B = "v1"

_C0, _C1, _C2, _C3 = -0.0713548162726002527220, -1.595769121605730711759, 0.2140644488178007, 1.595769121605730711759
_BODIES = {
    (ARCH_A2, "main"): (                                                  # gelu_grad.h:152-173, versionNum 0
        V.Mul("e", "x", "x"), V.Muls("e", "e", _C0), V.Adds("e", "e", _C1), V.Mul("e", "e", "x"), V.Exp("e", "e"),
        V.Mul("p", "x", "x"), V.Muls("p", "p", _C2), V.Adds("p", "p", _C3), V.Mul("p", "p", "x"),
        V.Adds("s", "e", 1.0), V.Duplicate("one", 1.0), V.Div("s", "one", "s"),
        V.Mul("e", "e", "s"), V.Mul("e", "e", "p"), V.Mul("e", "e", "s"), V.Add("e", "e", "s"),
        V.Mul("y", "e", "dy")),
    (ARCH_A2, VARIANT_310B): (                                            # gelu_grad.h:213-233, versionNum 1
        V.Mul("s", "x", "x"), V.Muls("s", "s", _C0), V.Adds("s", "s", -1.5957691216057308), V.Mul("s", "s", "x"),
        V.Exp("s", "s"), V.Adds("s", "s", 1.0), V.Duplicate("one", 1.0), V.Div("s", "one", "s"),
        V.Adds("e", "s", -1.0), V.Mul("e", "e", "x"),
        V.Mul("p", "x", "x"), V.Muls("p", "p", -0.21406444881780074632901625683959062),
        V.Adds("p", "p", -1.5957691216057307117597842397375274738),
        V.Mul("e", "e", "p"), V.Adds("e", "e", 1.0), V.Mul("e", "e", "s"), V.Mul("y", "e", "dy")),
    (ARCH_950, "main"): (                                                 # gelu_grad_dag.h:78-96
        V.Duplicate("one", 1.0), V.Duplicate("zero", 0.0), V.Mul("sq", "x", "x"),
        V.Duplicate("e", _C1), V.Axpy("e", "sq", _C0), V.Mul("e", "e", "x"), V.Exp("e", "e"),
        V.Duplicate("p", _C3), V.Axpy("p", "sq", _C2), V.Mul("p", "p", "x"),
        V.Adds("s", "e", 1.0), V.Div("s", "one", "s"),
        V.Mul("e", "e", "s"), V.Mul("e", "e", "p"), V.Mul("e", "e", "s"),
        V.Compare("keep", "e", "e", "EQ"), V.Select("e", "e", "zero", "keep"),   # the NaN guard
        V.Add("e", "e", "s"), V.Mul("y", "dy", "e")),
}
_LOCALS = ("e", "p", "s", "one", "zero", "sq")


def sigmoid_argument() -> tuple:
    """``(a, b)``, float64 of the float32 constants, such that every kernel's gradient is that of
    ``x * sigmoid(a x + b x^3)``, the tanh GELU (``u = (c0 x^2 + c1) x = -(a x + b x^3)``; the A2's
    versionNum 1 writes the same polynomial): for the torch layer's second order. Not the A2 Gelu
    forward's own function, whose cubic coefficient is 0.0455399241."""
    return -float(np.float32(_C1)), -float(np.float32(_C0))


def _renamed(body, names: dict) -> tuple:
    return tuple(type(i)(i.op, tuple(names.get(a, a) if isinstance(a, str) else a for a in i.args)) for i in body)


def programs(architecture: str, dtype: str, variant: str = "main") -> Program:
    """The Compute for ``dtype`` (``variant``: the A2's ``main`` or :data:`VARIANT_310B`)."""
    body = _BODIES.get((architecture, variant))
    if body is None:
        raise ValueError(f"no GeluGrad variant {variant!r} on kernel {architecture!r}")
    name = "GeluGrad" + ("Arch35" if architecture == ARCH_950 else "V1" if variant == VARIANT_310B else "")
    written = {i.dst for i in body}
    local = tuple(Tensor(n) for n in _LOCALS if n in written) \
        + ((Tensor("keep", "uint8"),) if "keep" in written else ())
    if dtype == "float32":
        return Program(name, (Tensor("dy"), Tensor("x")), Tensor("out"), local, _renamed(body, {"y": "out"}))
    return Program(name, (Tensor("dy", dtype), Tensor("x", dtype)), Tensor("out", dtype),
                   local + (Tensor("dyf"), Tensor("xf"), Tensor("y")),
                   (V.Cast("dyf", "dy", "CAST_NONE"), V.Cast("xf", "x", "CAST_NONE"))
                   + _renamed(body, {"x": "xf", "dy": "dyf"}) + (V.Cast("out", "y", "CAST_RINT"),))
