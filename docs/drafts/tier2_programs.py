"""DRAFT, not imported by the package: issue 30's operators as data on the
program form of issue 28 (``swishgrad_numba.program``, branch ``program``).

Each body is the kernel's Compute, one upstream instruction per entry, in
upstream's operand order (docs/model.md, "The activation library: second
tier", cites the lines). Bodies are written on float32 tensors; ``program``
wraps a 16-bit dtype in the exact widening of every input and one narrowing
``Cast`` of the result in the kernel's mode (``CAST_ROUND`` for the 950
Softplus, ``CAST_RINT`` everywhere else; the A2 GeluGradV2's float16
``CAST_NONE`` rounds as RINT). Constants are written as the source writes them:
a number for a ``float`` literal, a string for a ``double`` expression
(``static_cast<float>(0.3989422804)`` and ``constexpr float c = 3.92;`` too).

What the form (``program/form.py`` of the ``program`` worktree, as read) does
not have yet, and these bodies use, written as plain ``Instr``:

- ``Compare(mask, src0, src1, MODE)`` and ``Compares(mask, src, scalar, MODE)``
  (CompareScalar on the A2), writing a ``uint8`` mask tensor;
- ``Select(dst, mask, src0, src1)`` (mask bit set -> src0), with scalar src0
  or src1 in the scalar modes;
- ``ShiftRight(dst_u32, src, 31)`` on the bits, ``Cast`` int32 -> float32,
  ``And`` / ``Or`` on uint32 (the Erf routine's sign transfer), and
  ``Duplicate`` of a bit pattern (``DupBits``);
- the half-precision round trip of the A2 GeluGradV2 tanh guard (a float16
  local and an int8 one).

``Maxs``, ``Mins``, ``Abs``, ``Neg``, ``Ln``, ``MulDstAdd`` and ``Axpy`` are in
``INSTRUCTIONS``. The Erf routine is a subroutine (``Call``), one per
algorithm. The float64 AICPU LeakyReluGrad and the op_api's Threshold path of
Elu (alpha or inputScale not finite) are host choices, not programs.

Run ``python docs/drafts/tier2_programs.py`` with the program branch on the
path: it builds every program and reports which are constructible today.
"""
from __future__ import annotations

import numpy as np

from swishgrad_numba.program import Instr, Program, Tensor
from swishgrad_numba.program.form import Attr, Call, V


def _i(op, *args):
    """An instruction the form does not know yet (see the module docstring)."""
    return Instr(op, args)


def DupBits(dst: str, u: int):
    """``Duplicate`` of a bit pattern (``int32_as_float(u)``): not on the form yet."""
    return _i("DuplicateBits", dst, u)


def _f32_div(a: float, b: float) -> float:
    """``constexpr float c = 1.0f / 120.0f;``: a float division, rounded once to binary32."""
    return float(np.float32(a) / np.float32(b))


# The Erf subroutines: swishgrad_numba/program/erf.py (issue 30, moved from here).


# ---------------------------------------------------------------- bodies (float32 tensors)

# GeluV2, GeluGradV2 (950 and A2): swishgrad_numba/ops/gelu_v2.py, gelu_grad_v2.py, gelu_grad_v2_a2.py.

SOFTPLUS_950 = (                                                            # softplus_v2.h:191-238
    V.Muls("bx", "x", Attr("beta")), V.Duplicate("th", Attr("threshold")),
    _i("Compare", "big", "bx", "th", "GT"), V.Duplicate("zero", 0.0), _i("Select", "bx", "big", "zero", "bx"),
    V.Exp("e", "bx"), V.Adds("u", "e", 1.0), V.Duplicate("one", 1.0), _i("Compare", "m1", "u", "one", "EQ"),
    V.Adds("v", "u", -1.0), V.Ln("lu", "u"), V.Div("r", "e", "v"), V.Mul("out", "lu", "r"),
    _i("Select", "out", "m1", "e", "out"),
    V.Adds("u", "e", 1.0), V.Duplicate("inf", "1e39"),           # +inf: a double past FLT_MAX, rounded once
    _i("Compare", "m2", "u", "inf", "EQ"),
    _i("Select", "out", "m2", "inf", "out"),
    V.Muls("out", "out", Attr("invBeta")),           # host: |beta| <= FLT_EPSILON ? inf : 1.0f / beta
    _i("Select", "y", "big", "x", "out"))

SOFTPLUS_GRAD_950 = (                                                       # softplus_v2_grad_kernel.h:97-121
    V.Muls("t1", "x", Attr("beta")), V.Neg("t2", "t1"), V.Exp("t3", "t2"), V.Adds("t4", "t3", 1.0),
    V.Div("t5", "dy", "t4"), V.Sub("t2", "t1", "t1"), V.Adds("th", "t2", Attr("threshold")),
    _i("Compare", "big", "t1", "th", "GT"), _i("Select", "y", "big", "dy", "t5"))

SOFTPLUS_GRAD_A2 = (                                                        # softplus_v2_grad.cpp:172-184
    V.Muls("bx", "x", Attr("beta")), _i("Compares", "big", "bx", Attr("threshold"), "GT"),
    V.Muls("bx", "bx", -1.0), V.Exp("e", "bx"), V.Adds("t2", "e", 1.0), V.Duplicate("one", 1.0),
    V.Div("s", "one", "t2"), _i("Select", "s", "big", "one", "s"), V.Mul("y", "dy", "s"))

LEAKY_RELU = (V.Muls("neg", "x", Attr("negative_slope")), V.Duplicate("zero", 0.0),
              _i("Compare", "pos", "x", "zero", "GT"), _i("Select", "y", "pos", "x", "neg"))   # leaky_relu_dag.h:43-50

LEAKY_RELU_GRAD = (V.Duplicate("zero", 0.0), _i("Compare", "pos", "x", "zero", "GT"),      # on x's own dtype
                   V.Muls("dm", "dy", Attr("negative_slope")), _i("Select", "y", "pos", "dy", "dm"))   # leaky_relu_grad_dag.h:31-42


def _elu_950(wide: bool):                                                   # elu_dag.h:77-104 / 119-145
    head = (V.Muls("z", "x", Attr("input_scale")),)
    if wide:
        poly = (V.Muls("t", "z", _f32_div(1, 120)), V.Adds("t", "t", _f32_div(1, 24)), V.Mul("t", "t", "z"))
    else:
        poly = (V.Muls("t", "z", _f32_div(1, 24)),)
    return head + poly + (
        V.Adds("t", "t", _f32_div(1, 6)), V.Mul("t", "t", "z"), V.Adds("t", "t", 0.5), V.Mul("t", "t", "z"),
        V.Adds("t", "t", 1.0), V.Mul("poly", "t", "z"),
        V.Exp("em", "z"), V.Adds("em", "em", -1.0),
        V.Abs("az", "z"), _i("Compares", "small", "az", 0.1, "LT"), _i("Select", "r", "small", "poly", "em"),
        V.Muls("r", "r", Attr("alpha")), _i("Compares", "pos", "x", 0.0, "GT"), _i("Select", "o", "pos", "x", "r"),
        V.Muls("y", "o", Attr("scale")))


ELU_GRAD_950 = {                                                            # elu_grad_v2_dag.h:25-84
    True: (V.Adds("ad", "a", Attr("negcoef")), V.Muls("m1", "g", Attr("input_scale")), V.Mul("neg", "m1", "ad"),
           V.Muls("pos", "g", Attr("scale")), V.Duplicate("zero", 0.0), _i("Compare", "le", "a", "zero", "LE"),
           _i("Select", "y", "le", "neg", "pos")),
    False: (V.Muls("m1", "a", Attr("input_scale")), V.Exp("e", "m1"), V.Muls("m2", "g", Attr("input_scale")),
            V.Muls("m3", "m2", Attr("negcoef")), V.Mul("neg", "m3", "e"), V.Muls("pos", "g", Attr("scale")),
            V.Duplicate("zero", 0.0), _i("Compare", "le", "a", "zero", "LE"), _i("Select", "y", "le", "neg", "pos")),
}

ELU_GRAD_A2 = {                                  # elu_grad_v2.h, the variant that skips nothing (factorNeg, bias: host-side Products)
    True: (_i("Compares", "le", "a", 0.0, "LE"), V.Adds("t", "a", Attr("bias")), V.Muls("t", "t", Attr("input_scale")),
           V.Mul("t", "t", "g"), V.Muls("p", "g", Attr("scale")), _i("Select", "y", "le", "t", "p")),
    False: (_i("Compares", "le", "a", 0.0, "LE"), V.Muls("t", "a", Attr("input_scale")), V.Exp("t", "t"),
            V.Muls("t", "t", Attr("factor_neg")), V.Mul("t", "t", "g"), V.Muls("p", "g", Attr("scale")),
            _i("Select", "y", "le", "t", "p")),
}


# ---------------------------------------------------------------- programs per operator, kernel, variant, dtype


def body(op: str, kernel: str, variant, dtype: str) -> tuple:
    """``variant``: approximate for the GELUs, is_result for EluBackward, None otherwise."""
    table = {
        ("softplus", "arch35"): lambda: SOFTPLUS_950,
        ("softplus_backward", "arch35"): lambda: SOFTPLUS_GRAD_950,
        ("softplus_backward", "a2"): lambda: SOFTPLUS_GRAD_A2,
        ("leaky_relu", "arch35"): lambda: LEAKY_RELU,
        ("leaky_relu_backward", "arch35"): lambda: LEAKY_RELU_GRAD,
        ("elu", "arch35"): lambda: _elu_950(dtype == "float32"),
        ("elu_backward", "arch35"): lambda: ELU_GRAD_950[bool(variant)],
        ("elu_backward", "a2"): lambda: ELU_GRAD_A2[bool(variant)],
    }
    if (op, kernel) not in table:
        raise ValueError(f"{op} has no public {kernel} kernel")
    return table[(op, kernel)]()


INPUTS = {"gelu_v2": ("x",), "gelu_backward_v2": ("dy", "x"), "softplus": ("x",),
          "softplus_backward": ("dy", "x"), "leaky_relu": ("x",), "leaky_relu_backward": ("dy", "x"),
          "elu": ("x",), "elu_backward": ("g", "a")}


def _attrs(steps) -> tuple:
    """The operator attributes a body reads, in first-use order."""
    names = []
    for s in steps:
        for a in (() if isinstance(s, Call) else s.args):
            if isinstance(a, Attr) and a.name not in names:
                names.append(a.name)
    return tuple(names)


def _float_program(name, inputs, steps):
    written = set()
    for s in steps:
        written.add(s.dst if isinstance(s, Call) else s.args[0])
    locals_ = sorted(w for w in written if isinstance(w, str) and w != "y")
    return Program(name, tuple(Tensor(n) for n in inputs), Tensor("y"), tuple(Tensor(n) for n in locals_), steps,
                   _attrs(steps))


def program(op: str, kernel: str, variant, dtype: str) -> Program:
    inputs = INPUTS[op]
    steps = body(op, kernel, variant, dtype)
    name = "".join(w.title() for w in op.split("_")) + ("Arch35" if kernel == "arch35" else "A2")
    if dtype == "float32":
        return _float_program(name, inputs, steps)
    wide = {n: n + "_f" for n in inputs}

    def rename(step):
        if isinstance(step, Call):
            return Call(step.program, wide.get(step.dst, step.dst), tuple(wide.get(a, a) for a in step.srcs))
        return Instr(step.op, tuple(wide.get(a, a) if isinstance(a, str) else a for a in step.args))

    narrow_mode = "CAST_ROUND" if (op, kernel) == ("softplus", "arch35") else "CAST_RINT"
    steps = tuple(V.Cast(wide[n], n, "CAST_NONE") for n in inputs) + tuple(rename(s) for s in steps) \
        + (V.Cast("out", "y", narrow_mode),)
    written = {s.dst if isinstance(s, Call) else s.args[0] for s in steps} - {"out"}
    return Program(name, tuple(Tensor(n, dtype) for n in inputs), Tensor("out", dtype),
                   tuple(Tensor(n) for n in sorted(w for w in written if isinstance(w, str))), steps, _attrs(steps))


CASES = [("softplus", "arch35", None), ("softplus_backward", "arch35", None), ("softplus_backward", "a2", None),
         ("leaky_relu", "arch35", None), ("leaky_relu_backward", "arch35", None), ("elu", "arch35", None),
         ("elu_backward", "arch35", False), ("elu_backward", "arch35", True),
         ("elu_backward", "a2", False), ("elu_backward", "a2", True)]


if __name__ == "__main__":      # build every program; check the ones the program branch can interpret
    import sys

    sys.path[:0] = ["tests"]
    import reference_activations_tier2 as rb
    from reference_activations import BF16

    refs = {
        "gelu_v2": lambda a, v: rb.ref_gelu_v2(a["x"], v),
        "gelu_backward_v2": lambda a, v, k: rb.ref_gelu_backward_v2(a["dy"], a["x"], v, k),
    }
    try:
        from program_interpreter import interpret
    except ImportError:
        interpret = None
    rng = np.random.default_rng(0)
    for op, kernel, variant in CASES:
        for dtype in ("float32", "float16", "bfloat16"):
            where = f"{op:20s} {kernel:7s} {str(variant):6s} {dtype:8s}"
            try:
                prog = program(op, kernel, variant, dtype)
            except (ValueError, KeyError, TypeError) as e:
                print(f"{where} not on the form yet: {str(e)[:70]}")
                continue
            if interpret is None or op not in refs:
                print(f"{where} built")
                continue
            dt = BF16 if dtype == "bfloat16" else np.dtype(dtype)
            args = {n: rng.uniform(-8, 8, 4000).astype(np.float32).astype(dt) for n in INPUTS[op]}
            try:
                got = np.asarray(interpret(prog, args, {}))
            except Exception as e:   # noqa: BLE001 (an instruction without semantics yet)
                print(f"{where} built; not interpretable yet: {e!r}"[:150])
                continue
            want = refs[op](args, variant) if op == "gelu_v2" else refs[op](args, variant, kernel)
            width = np.uint16 if dtype != "float32" else np.uint32
            same = np.array_equal(got.view(width), np.asarray(want).view(width))
            print(f"{where} {'bit-equal' if same else 'DIFFERS'}")
