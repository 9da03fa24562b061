"""DRAFT, not imported by the package: issue 29's six operators as data on the
program form of issue 28 (``swishgrad_numba.program``, branch ``program``).

Each body is the kernel's Compute, one upstream instruction per entry, in
upstream's operand order (docs/model.md, "The activation library: first
tier", cites the lines). Bodies are written on float32 tensors; ``program``
wraps a 16-bit dtype in the exact widening ``Cast(CAST_NONE)`` of every
input and one ``Cast(CAST_RINT)`` of the result, as every one of these
kernels does. Constants are written as the source writes them: a number for
a ``float`` literal, a string for a ``double`` expression.

Not expressible yet on the form as read (``program/form.py`` of the
``program`` worktree): the 950 GeluBackward's ``Compare``/``Select`` NaN
guard (no mask dtype, no Compare/Select in ``INSTRUCTIONS``), and the
semantics of ``Axpy`` (declared "Dsk" but not in ``semantics.DEFINED``); the
AICPU SigmoidBackward (float64/complex) is host code, not a program.

Run ``python docs/drafts/tier1_programs.py`` with the program branch on the
path to check each constructible program against tests/reference_activations.py
through the program branch's test interpreter.
"""
from __future__ import annotations

from swishgrad_numba.program import Instr, Program, Tensor
from swishgrad_numba.program.form import V

# ---------------------------------------------------------------- bodies (float32 tensors)
# Names: inputs "x" (and "dy"), output "y"; everything else a float32 local.

SIGMOID = (                                        # A2 sigmoid.h:113-124; 950 sigmoid_f*.h:100-108
    V.Muls("t", "x", -1.0), V.Exp("t", "t"), V.Adds("t", "t", 1.0),
    V.Duplicate("one", 1.0), V.Div("y", "one", "t"),
)

SIGMOID_BACKWARD = {                               # inputs (y_fwd, dy): the operator's order
    "a2": (V.Duplicate("t", 1.0), V.Sub("t", "t", "yf"), V.Mul("t", "t", "yf"),
           V.Mul("y", "dy", "t")),                 # sigmoid_grad.h:121-127 / 132-135
    "arch35": (V.Duplicate("one", 1.0), V.Sub("t", "one", "yf"), V.Mul("t", "dy", "t"),
               V.Mul("y", "t", "yf")),             # sigmoid_grad_f*.h:121-123 / 126-128
}

GELU = {
    "a2": (V.Mul("t", "x", "x"), V.Mul("t", "t", "x"), V.Muls("t", "t", 0.0455399241),
           V.Add("t", "t", "x"), V.Muls("t", "t", -1.595769122), V.Exp("e", "t"),
           V.Adds("e", "e", 1.0), V.Div("y", "x", "e")),                      # gelu.h:120-127 / 139-146
    "arch35": (V.Mul("sq", "x", "x"), V.Mul("cub", "sq", "x"),
               V.Axpy("cub", "x", "1 / 0.044715"),
               V.Muls("cub", "cub", "-1.595769121 * 0.044715"),
               V.Exp("cub", "cub"), V.Adds("cub", "cub", 1.0), V.Div("y", "x", "cub")),   # gelu_dag.h:56-62
}

_C0, _C1, _C2, _C3 = -0.0713548162726002527220, -1.595769121605730711759, 0.2140644488178007, 1.595769121605730711759
GELU_BACKWARD = {
    "a2": (                                                                   # gelu_grad.h:127-148 / 152-173
        V.Mul("e", "x", "x"), V.Muls("e", "e", _C0), V.Adds("e", "e", _C1), V.Mul("e", "e", "x"), V.Exp("e", "e"),
        V.Mul("p", "x", "x"), V.Muls("p", "p", _C2), V.Adds("p", "p", _C3), V.Mul("p", "p", "x"),
        V.Adds("s", "e", 1.0), V.Duplicate("one", 1.0), V.Div("s", "one", "s"),
        V.Mul("e", "e", "s"), V.Mul("e", "e", "p"), V.Mul("e", "e", "s"), V.Add("e", "e", "s"),
        V.Mul("y", "e", "dy")),
    "a2_310b": (                                                              # gelu_grad.h:190-209 / 214-233
        V.Mul("s", "x", "x"), V.Muls("s", "s", _C0), V.Adds("s", "s", -1.5957691216057308),
        V.Mul("s", "s", "x"), V.Exp("s", "s"), V.Adds("s", "s", 1.0), V.Duplicate("one", 1.0),
        V.Div("s", "one", "s"),
        V.Adds("t", "s", -1.0), V.Mul("t", "t", "x"),
        V.Mul("g", "x", "x"), V.Muls("g", "g", -0.21406444881780074632901625683959062),
        V.Adds("g", "g", -1.5957691216057307117597842397375274738),
        V.Mul("t", "t", "g"), V.Adds("t", "t", 1.0), V.Mul("t", "t", "s"), V.Mul("y", "t", "dy")),
}


def _gelu_backward_950():
    """gelu_grad_dag.h:78-96. Needs Compare (EQ, a uint8 mask) and Select on the form."""
    return (
        V.Duplicate("one", 1.0), V.Duplicate("zero", 0.0),
        V.Mul("sq", "x", "x"),
        V.Duplicate("px", _C1), V.Axpy("px", "sq", _C0), V.Mul("px", "px", "x"), V.Exp("px", "px"),
        V.Duplicate("res0", _C3), V.Axpy("res0", "sq", _C2), V.Mul("res0", "res0", "x"),
        V.Adds("t", "px", 1.0), V.Div("div", "one", "t"),
        V.Mul("resp", "px", "div"), V.Mul("resp", "resp", "res0"), V.Mul("resp", "resp", "div"),
        Instr("Compare", ("keep", "resp", "resp", "EQ")),      # keep: uint8 mask, false only for NaN
        Instr("Select", ("sel", "resp", "zero", "keep")),      # mask bit 1 -> src0
        V.Add("resp", "sel", "div"), V.Mul("y", "dy", "resp"),
    )


FAST_GELU = (V.Muls("d", "x", -1.702), V.Exp("d", "d"), V.Adds("d", "d", 1.0),
             V.Div("y", "x", "d"))                                            # fast_gelu_dag.h:47-51
FAST_GELU_BACKWARD = (                                                        # fast_gelu_grad_dag.h:56-67
    V.Duplicate("one", 1.0),
    V.Muls("m", "x", -1.702), V.Exp("t", "m"), V.Adds("t", "t", 1.0), V.Div("s", "one", "t"),
    V.Adds("u", "s", -1.0), V.Mul("u", "u", "m"), V.Adds("u", "u", 1.0), V.Mul("s", "u", "s"),
    V.Mul("y", "dy", "s"))

# ---------------------------------------------------------------- programs per operator, kernel, dtype

#: (inputs in the operator's order, body per kernel)
OPERATORS = {
    "sigmoid": (("x",), {"a2": SIGMOID, "arch35": SIGMOID}),
    "sigmoid_backward": (("yf", "dy"), SIGMOID_BACKWARD),
    "gelu": (("x",), GELU),
    "gelu_backward": (("dy", "x"), dict(GELU_BACKWARD, arch35=None)),
    "fast_gelu": (("x",), {"arch35": FAST_GELU}),
    "fast_gelu_backward": (("dy", "x"), {"arch35": FAST_GELU_BACKWARD}),
}


def _rename(step, names):
    return Instr(step.op, tuple(names.get(a, a) if isinstance(a, str) else a for a in step.args))


def body(op: str, kernel: str) -> tuple:
    inputs, bodies = OPERATORS[op]
    if kernel not in bodies:
        raise ValueError(f"{op} has no public {kernel} kernel")
    return _gelu_backward_950() if bodies[kernel] is None else bodies[kernel]


def program(op: str, kernel: str, dtype: str) -> Program:
    inputs, _ = OPERATORS[op]
    steps = body(op, kernel)
    name = "".join(w.title() for w in op.split("_")) + ("Arch35" if kernel == "arch35" else "") \
        + ("V1" if kernel == "a2_310b" else "")
    written = {s.args[0] for s in steps if isinstance(s.args[0], str)}
    if dtype == "float32":
        locals_ = sorted(written - {"y"})
        return Program(name, tuple(Tensor(n) for n in inputs), Tensor("y"), tuple(Tensor(n) for n in locals_), steps)
    wide = {n: n + "_f" for n in inputs}
    steps = tuple(_rename(s, wide) for s in steps)
    widen = tuple(V.Cast(wide[n], n, "CAST_NONE") for n in inputs)
    narrow = (V.Cast("out", "y", "CAST_RINT"),)
    locals_ = sorted(written | set(wide.values()))
    return Program(name, tuple(Tensor(n, dtype) for n in inputs), Tensor("out", dtype),
                   tuple(Tensor(n) for n in locals_), widen + steps + narrow)


if __name__ == "__main__":      # a check against the plain references, through the program branch's interpreter
    import sys

    import numpy as np

    sys.path[:0] = ["tests"]
    import reference_activations as ra
    from program_interpreter import interpret

    refs = {
        "sigmoid": lambda a, k: ra.ref_sigmoid(a["x"], k),
        "sigmoid_backward": lambda a, k: ra.ref_sigmoid_backward(a["dy"], a["yf"], k),
        "gelu": lambda a, k: ra.ref_gelu(a["x"], k),
        "gelu_backward": lambda a, k: ra.ref_gelu_backward(a["dy"], a["x"], k),
        "fast_gelu": lambda a, k: ra.ref_fast_gelu(a["x"]),
        "fast_gelu_backward": lambda a, k: ra.ref_fast_gelu_backward(a["dy"], a["x"]),
    }
    rng = np.random.default_rng(0)
    for op, (inputs, bodies) in OPERATORS.items():
        for kernel in bodies:
            for dtype in ("float32", "float16", "bfloat16"):
                try:
                    prog = program(op, kernel, dtype)
                except ValueError as e:
                    print(f"{op:20s} {kernel:8s} {dtype:9s} not on the form yet: {e}")
                    continue
                dt = ra.BF16 if dtype == "bfloat16" else np.dtype(dtype)
                args = {n: (rng.uniform(0, 1, 5000) if n == "yf" else rng.uniform(-12, 12, 5000)).astype(np.float32).astype(dt)
                        for n in inputs}
                try:
                    got = interpret(prog, args, {})
                except Exception as e:   # noqa: BLE001 (an instruction without semantics yet)
                    print(f"{op:20s} {kernel:8s} {dtype:9s} built; not interpretable yet: {e!r}")
                    continue
                want = refs[op](args, kernel)
                same = np.array_equal(np.asarray(got).view(np.uint16 if dtype != "float32" else np.uint32),
                                      np.asarray(want).view(np.uint16 if dtype != "float32" else np.uint32))
                print(f"{op:20s} {kernel:8s} {dtype:9s} {'bit-equal' if same else 'DIFFERS'}")
