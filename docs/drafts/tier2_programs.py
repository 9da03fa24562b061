"""DRAFT, not imported by the package: issue 30's operators as data on the
program form of issue 28 (``swishgrad_numba.program``, branch ``program``).

Each body is the kernel's Compute, one upstream instruction per entry, in
upstream's operand order (docs/model.md, "The activation library: second
tier", cites the lines). Bodies are written on float32 tensors; ``program``
wraps a 16-bit dtype in the exact widening of every input and one narrowing
``Cast`` of the result in the kernel's mode (``CAST_RINT``; the A2 GeluGradV2's
float16 ``CAST_NONE`` rounds as RINT). Constants are written as the source writes them:
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
algorithm. The float64 AICPU LeakyReluGrad is a host choice, not a program.

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


# ---------------------------------------------------------------- Erf subroutines (asc-devkit erf_3510_impl.h)

_P1 = (0x38EB4C3A, 0xBAAE005B, 0x3C09919F, 0xBD24D99A, 0x3E235519, 0x3F69B4F9, 0x3F210A14)
_P2 = (0x38B1E96A, 0xBA574D20, 0x3BAAD5EA, 0xBCDC1BE7, 0x3DE718AF, 0xBEC093AC, 0x3E0375D3)


def _erf_subsection_body():
    """ErfSubsectionCompute (136-225) then ErfSpecialCaseCompute (118-134); in "x", out "y"."""
    body = [V.Abs("a", "x"), DupBits("c", 0x3F8060FE), _i("Compare", "big", "a", "c", "GE"),
            V.Mul("sq", "x", "x"), _i("Select", "f7", "big", "a", "sq")]
    for k in range(7):
        body += [DupBits("p1", _P1[k]), DupBits("p2", _P2[k]),
                 _i("Select", "c%d" % k, "big", "p1", "p2")]
    body += [V.Muls("acc", "c0", 1.0), V.MulDstAdd("acc", "f7", "c1")]          # FMaf copies, then fused
    for k in range(2, 7):
        body += [V.MulDstAdd("acc", "f7", "c%d" % k)]
    body += [V.Neg("na", "a"), _i("Select", "f22", "big", "na", "x"),
             V.MulDstAdd("acc", "f22", "f22"),                                   # f26
             _i("Compare", "small", "a", "c", "LT"),
             V.Duplicate("l2", 2.0), V.Ln("l2", "l2"), V.Mul("t", "acc", "l2"), V.Exp("t", "t"),
             DupBits("one", 0x3F800000), V.Sub("t", "one", "t"),
             DupBits("sgn", 0x80000000), _i("And", "sgn", "x", "sgn"), _i("Or", "sgn", "sgn", "t"),
             _i("Select", "y", "small", "acc", "sgn")]
    return tuple(body)


_PADE_P = ("0.29639384698e5", "0.50637915060e4", "0.13938061484e4", "0.10162808918e3", "0.75517016694e1",
           "0.053443748819")
_PADE_Q = ("0.26267224157e5", "0.13243365831e5", "0.30231248150e4", "0.39856963806e3", "0.31212858877e2")


def _erf_pade_body():
    """ErfPadeCompute (45-107): Mins/Maxs clip, two Horner polynomials, Div."""
    p, q = _PADE_P, _PADE_Q
    return (V.Mins("c", "x", "3.92"), V.Maxs("c", "c", "-3.92"),
            V.Mul("sq", "c", "c"), V.Muls("p", "sq", p[5]),
            V.Adds("p", "p", p[4]), V.Mul("p", "p", "sq"), V.Adds("p", "p", p[3]), V.Mul("p", "p", "sq"),
            V.Adds("p", "p", p[2]), V.Mul("p", "p", "sq"), V.Adds("p", "p", p[1]), V.Mul("p", "p", "sq"),
            V.Adds("p", "p", p[0]), V.Mul("p", "p", "c"),
            V.Mul("sq", "c", "c"), V.Adds("q", "sq", q[4]),
            V.Mul("q", "q", "sq"), V.Adds("q", "q", q[3]), V.Mul("q", "q", "sq"), V.Adds("q", "q", q[2]),
            V.Mul("q", "q", "sq"), V.Adds("q", "q", q[1]), V.Mul("q", "q", "sq"), V.Adds("q", "q", q[0]),
            V.Div("y", "p", "q"))


def erf_program(algo: str) -> Program:
    steps = _erf_subsection_body() if algo == "subsection" else _erf_pade_body()
    return _float_program("ErfSubsection" if algo == "subsection" else "ErfPade", ("x",), steps)


# ---------------------------------------------------------------- bodies (float32 tensors)

def _gelu_v2_none(algo):                             # gelu_v2_dag.h:120-153, GeluV2ErfPost 41-77
    return (V.Muls("t", "x", "0.707106781"), Call(erf_program(algo), "e", ("t",)),
            V.Adds("a", "e", 1.0), V.Muls("m", "x", 0.5), V.Mul("y", "a", "m"))


GELU_V2_TANH = (V.Mul("sq", "x", "x"), V.Mul("cub", "sq", "x"), V.Axpy("cub", "x", "1 / 0.044715"),
                V.Muls("cub", "cub", "-1.595769121 * 0.044715"), V.Exp("cub", "cub"),
                V.Adds("cub", "cub", 1.0), V.Div("y", "x", "cub"))          # gelu_v2_dag.h:103-109


def _gelu_grad_v2_none_950(algo):                    # gelu_grad_v2_dag.h:170-204, ErfPost 81-91
    return (V.Muls("t", "x", "0.707106781"), Call(erf_program(algo), "e", ("t",)),
            V.Muls("cdf", "e", 0.5), V.Adds("cdf", "cdf", 0.5),
            V.Mul("pdf", "x", "x"), V.Muls("pdf", "pdf", -0.5), V.Exp("pdf", "pdf"),
            V.Muls("pdf", "pdf", "0.3989422804"),
            V.Mul("mr", "pdf", "x"), V.Add("ar", "cdf", "mr"), V.Mul("y", "ar", "dy"))


_C0, _C1, _C2, _C3 = -0.0713548162726002527220, -1.595769121605730711759, 0.2140644488178007, 1.595769121605730711759
GELU_GRAD_V2_TANH_950 = (                                                   # gelu_grad_v2_dag.h:132-159
    V.Duplicate("one", 1.0), V.Duplicate("zero", 0.0), V.Mul("sq", "x", "x"),
    V.Duplicate("px", _C1), V.Axpy("px", "sq", _C0), V.Mul("px", "px", "x"), V.Exp("px", "px"),
    V.Duplicate("res0", _C3), V.Axpy("res0", "sq", _C2), V.Mul("res0", "res0", "x"),
    V.Adds("t", "px", 1.0), V.Div("div", "one", "t"),
    V.Mul("resp", "px", "div"), V.Mul("resp", "resp", "res0"), V.Mul("resp", "resp", "div"),
    _i("Compare", "keep", "resp", "resp", "EQ"), _i("Select", "sel", "keep", "resp", "zero"),
    V.Add("resp", "sel", "div"), V.Mul("y", "dy", "resp"))

_N = ("-0.7978849236182753", "-6.223065142195392", "-20.451359645895863", "-29.633095101286557",
      "-4.474629239730099", "30.9817411426")
_D = ("7.79950327625", "26.6304065815", "44.965039885", "30.9817411527")
GELU_GRAD_V2_NONE_A2 = (                                                    # gelu_grad_v2.h:130-166
    _i("ShiftRight", "s_u32", "x", 31), _i("Cast", "s", "s_u32", "CAST_NONE"), V.Adds("s", "s", -0.5),
    V.Abs("a", "x"), V.Mins("a", "a", 30.0),
    V.Muls("z", "a", _N[0]), V.Adds("z", "z", _N[1]), V.Mul("z", "z", "a"), V.Adds("z", "z", _N[2]),
    V.Mul("z", "z", "a"), V.Adds("z", "z", _N[3]), V.Mul("z", "z", "a"), V.Adds("z", "z", _N[4]),
    V.Mul("z", "z", "a"), V.Adds("z", "z", _N[5]),
    V.Adds("d", "a", _D[0]), V.Mul("d", "d", "a"), V.Adds("d", "d", _D[1]), V.Mul("d", "d", "a"),
    V.Adds("d", "d", _D[2]), V.Mul("d", "d", "a"), V.Adds("d", "d", _D[3]),
    V.Div("z", "z", "d"), V.Mul("a", "a", "a"), V.Muls("a", "a", -0.5), V.Exp("a", "a"), V.Mul("z", "z", "a"),
    V.Mul("z", "s", "z"), V.Adds("d", "s", -0.5), V.Sub("z", "z", "d"), V.Mul("y", "z", "dy"))

GELU_GRAD_V2_TANH_A2 = (                                                    # gelu_grad_v2.h:364-395
    V.Mul("t0", "x", "x"), V.Muls("z", "t0", "-0.0713548162726002527220"),
    V.Adds("z", "z", "-1.595769121605730711759"), V.Mul("z", "z", "x"), V.Exp("z", "z"),
    V.Adds("t1", "z", 1.0), V.Duplicate("t2", 1.0), V.Div("t1", "t2", "t1"), V.Mul("z", "z", "t1"),
    V.Muls("t0", "t0", "0.2140644488178007"), V.Adds("t0", "t0", "1.595769121605730711759"),
    V.Mul("t0", "t0", "x"), V.Mul("z", "z", "t0"), V.Mul("z", "z", "t1"),
    _i("Compare", "m", "z", "z", "EQ"),
    _i("DuplicateHalf", "h", 1.0), _i("Select", "h", "m", "h", 0.0),     # h, h0: float16 locals
    _i("Cast", "i8", "h", "CAST_NONE"), _i("Cast", "h", "i8", "CAST_NONE"),
    _i("DuplicateHalf", "h0", 0.0), _i("Compare", "m", "h", "h0", "GT"),
    _i("Select", "z", "m", "z", 0.0), V.Add("z", "z", "t1"), V.Mul("y", "z", "dy"))

# Softplus and SoftplusBackward: moved into the package (swishgrad_numba/ops/softplus.py, softplus_grad.py).

# LeakyRelu and LeakyReluGrad: moved into the package (swishgrad_numba/ops/leaky_relu.py, leaky_relu_grad.py).


# Elu and EluGradV2 (both kernels) are in the package: swishgrad_numba/ops/elu.py, elu_grad.py, elu_grad_a2.py.


# ---------------------------------------------------------------- programs per operator, kernel, variant, dtype


def body(op: str, kernel: str, variant, dtype: str) -> tuple:
    """``variant``: approximate for the GELUs, None otherwise."""
    algo = "subsection" if dtype == "float32" else "pade"
    table = {
        ("gelu_v2", "arch35"): lambda: _gelu_v2_none(algo) if variant == "none" else GELU_V2_TANH,
        ("gelu_backward_v2", "arch35"): lambda: _gelu_grad_v2_none_950(algo) if variant == "none" else GELU_GRAD_V2_TANH_950,
        ("gelu_backward_v2", "a2"): lambda: GELU_GRAD_V2_NONE_A2 if variant == "none" else GELU_GRAD_V2_TANH_A2,
    }
    if (op, kernel) not in table:
        raise ValueError(f"{op} has no public {kernel} kernel")
    return table[(op, kernel)]()


INPUTS = {"gelu_v2": ("x",), "gelu_backward_v2": ("dy", "x")}


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

    narrow_mode = "CAST_RINT"
    steps = tuple(V.Cast(wide[n], n, "CAST_NONE") for n in inputs) + tuple(rename(s) for s in steps) \
        + (V.Cast("out", "y", narrow_mode),)
    written = {s.dst if isinstance(s, Call) else s.args[0] for s in steps} - {"out"}
    return Program(name, tuple(Tensor(n, dtype) for n in inputs), Tensor("out", dtype),
                   tuple(Tensor(n) for n in sorted(w for w in written if isinstance(w, str))), steps, _attrs(steps))


CASES = [("gelu_v2", "arch35", "none"), ("gelu_v2", "arch35", "tanh"),
         ("gelu_backward_v2", "arch35", "none"), ("gelu_backward_v2", "arch35", "tanh"),
         ("gelu_backward_v2", "a2", "none"), ("gelu_backward_v2", "a2", "tanh"),
         ("elu", "arch35", None),
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
