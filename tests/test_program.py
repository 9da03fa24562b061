"""swishgrad_numba.program: the program form and its checks; compiled programs (program.passes) launched by
their route (on the engine) bit for bit against plain NumPy written here or the interpreter of
tests/program_interpreter.py; the generator of random well-typed programs that tests/test_engine.py runs."""
from __future__ import annotations

import numpy as np
import pytest

from program_interpreter import interpret
from reference import BF16, SPECIALS, assert_bits_equal
from swishgrad_numba import kernel
from swishgrad_numba.kernel import plan as kernel_plan
from swishgrad_numba.program import Attr, Call, Const, Instr, Product, Program, Tensor
from swishgrad_numba.program.form import INSTRUCTIONS, V
from swishgrad_numba.program.passes import compile_program


DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16}
# Exp three times: its fast path and exact redo are the subtlest code
ARITH = ("Muls", "Adds", "Add", "Sub", "Mul", "Div", "Exp", "Exp", "Exp", "Reciprocal", "Neg", "Abs", "Duplicate",
         "MulDstAdd", "Axpy", "Max", "Min", "Maxs", "Mins", "Ln", "FusedMulDstAdd", "And", "Or")
MASKS = ("m0", "m1")
CMP_MODES = ("LT", "GT", "EQ", "LE", "GE", "NE")
CONSTS = (0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-40, -3e-39, 3.4e38, float("inf"), float("-inf"), float("nan"),
          "-1.595769121 * 0.044715", "1.0 / 3.0")


def _scalar(rng):
    if rng.random() < 0.1:
        return Product(Const.of(CONSTS[rng.integers(len(CONSTS))]), Attr("alpha"))
    if rng.random() < 0.3:
        return Attr("alpha")
    if rng.random() < 0.5:
        return Const.of(CONSTS[rng.integers(len(CONSTS))])
    return Const.of(float(np.float32(rng.standard_normal() * 10.0 ** rng.integers(-3, 4))))


def _body(rng, f32: list, length: int, names, subroutine=None, sixteen=(), focus=False):
    """Random instructions over the float32 tensors ``f32`` (grown as new ones are written), and masks
    (Compare, CompareScalar) that Selects read."""
    body, masks = [], []
    for _ in range(length):
        recent = f32[-4:] if rng.random() < 0.7 else f32

        def pick():
            return recent[rng.integers(len(recent))]
        choice = rng.integers(len(ARITH) + 4)
        if focus and rng.random() < 0.5:          # Axpy, Compare, Select more often
            choice = (ARITH.index("Axpy"), len(ARITH) + 2, len(ARITH) + 3)[rng.integers(3)]
        dst = next(names) if rng.random() < 0.6 or len(f32) < 3 else f32[rng.integers(len(f32))]
        if choice == len(ARITH) + 2:              # a mask: NaN guards compare a value with itself
            m = MASKS[rng.integers(len(MASKS))]
            a = pick()
            mode = CMP_MODES[rng.integers(len(CMP_MODES))]
            if rng.random() < 0.5:
                body.append(V.Compare(m, a, a if rng.random() < 0.3 else pick(), mode))
            else:
                body.append(V.CompareScalar(m, a, _scalar(rng), mode))
            masks.append(m)
            continue
        if choice == len(ARITH) + 3:              # a Select of two tensors or a tensor and a scalar
            if not masks:
                continue
            other = pick() if rng.random() < 0.5 else _scalar(rng)
            body.append(V.Select(dst, pick(), other, masks[rng.integers(len(masks))]))
        elif choice == len(ARITH):                # a 16-bit round trip through a local
            h = sixteen[rng.integers(len(sixteen))]
            body += [V.Cast(h, pick(), ("CAST_RINT", "CAST_ROUND")[rng.integers(2)]), V.Cast(dst, h, "CAST_NONE")]
        elif choice == len(ARITH) + 1 and subroutine is not None:
            body.append(Call(subroutine, dst, tuple(pick() for _ in subroutine.inputs)))
        else:
            op = ARITH[min(choice, len(ARITH) - 1)]
            if op in ("MulDstAdd", "Axpy", "FusedMulDstAdd"):      # read-write destinations
                dst = pick()
            kinds = INSTRUCTIONS[op]
            args = [dst] + [pick() if k in "sD" else _scalar(rng) for k in kinds[1:]]
            body.append(Instr(op, tuple(args)))
        if dst not in f32:
            f32.append(dst)
    return body


def random_program(rng, dtype: str, length: int, focus: bool = False) -> Program:
    names = (f"t{i}" for i in range(10 ** 6))
    sub_names = (f"u{i}" for i in range(10 ** 6))
    sixteen = ("h16", "hb16")
    sub_in = (Tensor("p"), Tensor("q"))
    sub_f32 = ["p", "q"]
    sub_body = _body(rng, sub_f32, 3, sub_names, sixteen=sixteen) + [V.Mul("r", sub_f32[-1], sub_f32[-2])]
    masks = tuple(Tensor(m, "uint8") for m in MASKS)
    sub = Program("Helper", sub_in, Tensor("r"), tuple(Tensor(n) for n in sub_f32[2:])
                  + (Tensor("h16", "float16"), Tensor("hb16", "bfloat16")) + masks, tuple(sub_body), ("alpha",))
    n_in = int(rng.integers(1, 4))
    inputs = tuple(Tensor(f"in{i}", dtype) for i in range(n_in))
    if dtype == "float32":
        f32, body = [t.name for t in inputs], []
    else:
        f32 = [f"w{i}" for i in range(n_in)]
        body = [V.Cast(f"w{i}", f"in{i}", "CAST_NONE") for i in range(n_in)]
    body += _body(rng, f32, length, names, sub, sixteen, focus)
    last = next(step.dst for step in reversed(body) if step.dst not in MASKS)
    if dtype == "float32":
        body.append(V.Add("out", last, f32[rng.integers(len(f32))]))
    else:
        body.append(V.Cast("out", last, ("CAST_RINT", "CAST_ROUND")[rng.integers(2)]))
    local = [n for n in dict.fromkeys(f32) if n not in {t.name for t in inputs}]
    return Program("Fuzz", inputs, Tensor("out", dtype), tuple(Tensor(n) for n in local)
                   + (Tensor("h16", "float16"), Tensor("hb16", "bfloat16")) + masks, tuple(body), ("alpha",))


def _inputs(rng, n, dtype, count):
    out = []
    for i in range(count):
        v = rng.uniform(-110, 100, n)
        wide = rng.random(n) < 0.3
        v[wide] = rng.standard_normal(wide.sum()) * 10.0 ** rng.integers(-45, 39, wide.sum())
        sp = rng.random(n) < 0.1
        v[sp] = rng.choice(SPECIALS, sp.sum())
        with np.errstate(over="ignore"):
            arr = v.astype(np.float32).astype(DTYPES[dtype])
        if dtype != "float32" and i == 0:   # the first 16-bit input: every bit pattern
            arr = np.arange(65536, dtype=np.uint16).view(DTYPES[dtype])
        out.append(arr)
    return out


def run_compiled(compiled, arrays, alpha, pass_len):
    """The compiled program over ``arrays`` by its route (:func:`swishgrad_numba.kernel.run_walk`): one core,
    passes of ``pass_len``."""
    params = compiled.params(alpha=alpha)
    n = arrays[0].size
    raw = [a.view(np.uint16) if a.dtype.itemsize == 2 else a for a in arrays]
    out = np.empty(n, dtype=arrays[0].dtype)
    passes = -(-n // pass_len)
    launch_plan = kernel_plan.plan([kernel_plan.CoreRun(0, 1, 0, passes, pass_len, n - (passes - 1) * pass_len, n)],
                                   n, 1)
    kernel.run_walk(params, tuple(raw), out.view(np.uint16) if out.dtype.itemsize == 2 else out, launch_plan)
    return out


def _one_pass(program, arrays, axpy_rounding="fused"):
    return run_compiled(compile_program(program, "float32", module=__name__, axpy_rounding=axpy_rounding),
                        arrays, np.float32(1.0), 64)


def test_compare_modes_follow_ieee_and_select_picks_src0_where_the_mask_is_one():
    a = np.array([1.0, 2.0, np.nan, 0.0, -0.0, np.inf, 3.0, np.nan], dtype=np.float32)
    b = np.array([2.0, 2.0, 1.0, -0.0, 0.0, np.inf, np.nan, np.nan], dtype=np.float32)
    expect = {"LT": a < b, "GT": a > b, "EQ": a == b, "LE": a <= b, "GE": a >= b, "NE": a != b}
    assert list(expect["NE"][[2, 6, 7]]) == [True] * 3 and not expect["EQ"][[2, 6, 7]].any()
    # one program: mode k's mask selects 2^k into a sum (exact), so every mode's bits are read back
    body = [V.Duplicate("acc", 0.0)]
    for k, mode in enumerate(expect):
        body += [V.Compare("m", "a", "b", mode), V.Duplicate("p", float(2 ** k)), V.Select("t", "p", 0.0, "m"),
                 V.Add("acc", "acc", "t")]
    p = Program("Cmp", (Tensor("a"), Tensor("b")), Tensor("acc"), (Tensor("m", "uint8"), Tensor("p"), Tensor("t")),
                tuple(body))
    want = sum(np.float32(2 ** k) * m for k, m in enumerate(expect.values())).astype(np.float32)
    assert_bits_equal(_one_pass(p, [a, b]), want, "modes")
    # Select's first source where the mask is 1, NaNs and signed zeros passed unchanged
    p = Program("Sel", (Tensor("a"), Tensor("b")), Tensor("y"), (Tensor("m", "uint8"),),
                (V.Compare("m", "a", "a", "EQ"), V.Select("y", "a", "b", "m")))
    assert_bits_equal(_one_pass(p, [a, b]), np.where(a == a, a, b), "select")


def test_not_flips_a_mask_and_acts_on_masks_only():
    # issue 43: Not of a Compare mask (the A2's Not on its 16-bit words): 1 where the comparison fails, NaN too
    a = np.array([1.0, 2.0, np.nan, 0.0, -0.0, np.inf, 3.0, -np.inf], dtype=np.float32)
    b = np.array([2.0, 2.0, 1.0, -0.0, 0.0, np.inf, np.nan, 5.0], dtype=np.float32)
    p = Program("NotLt", (Tensor("a"), Tensor("b")), Tensor("y"), (Tensor("m", "uint8"), Tensor("n", "uint8")),
                (V.Compare("m", "a", "b", "LT"), V.Not("n", "m"), V.Select("y", "a", "b", "n")))
    want = np.where(~(a < b), a, b)
    assert_bits_equal(_one_pass(p, [a, b]), want, "not")
    with pytest.raises(ValueError, match="Not acts on masks"):
        Program("NotF", (Tensor("a"),), Tensor("y"), (), (V.Not("y", "a"),))


def test_max_and_min_propagate_nan_and_keep_the_first_of_equal_operands():
    # written out: NaN in either operand is a NaN (the first's bits if both are), equal operands (+-0) the first
    x = np.array([1.0, -2.0, np.nan, 3.0, -0.0, 0.0, np.inf, -np.inf], dtype=np.float32)
    y = np.array([2.0, -3.0, 5.0, np.nan, 0.0, -0.0, 1.0, -1.0], dtype=np.float32)
    x[2] = np.uint32(0x7FC00001).view(np.float32)          # a NaN with a payload, to see whose bits pass
    want_max = [2.0, -2.0, x[2], y[3], -0.0, 0.0, np.inf, -1.0]
    want_min = [1.0, -3.0, x[2], y[3], -0.0, 0.0, 1.0, -np.inf]
    for op, want in (("Max", want_max), ("Min", want_min)):
        prog = Program(f"Test{op}", (Tensor("x"), Tensor("y")), Tensor("out"), (), (Instr(op, ("out", "x", "y")),))
        got = run_compiled(compile_program(prog, "float32", False, module=__name__), [x, y], 0.0, 8)
        assert_bits_equal(got, np.array(want, dtype=np.float32), op)
    prog = Program("TestMins", (Tensor("x"),), Tensor("out"), (), (V.Mins("out", "x", 30.0),))
    got = run_compiled(compile_program(prog, "float32", False, module=__name__), [x], 0.0, 8)
    assert_bits_equal(got, np.array([1.0, -2.0, x[2], 3.0, -0.0, 0.0, 30.0, -np.inf], dtype=np.float32), "Mins")


def test_the_two_axpy_roundings_differ_where_the_product_is_inexact():
    # src * scalar + dst with src * scalar = 1 + 2^-23 + 2^-46 exactly: the fused result keeps the
    # 2^-46, the unfused one drops it before adding -1
    src = np.array([1.0 + 2.0 ** -23], dtype=np.float32)
    dst = np.array([-1.0], dtype=np.float32)
    p = Program("Ax", (Tensor("s"), Tensor("d")), Tensor("y"), (), (V.Axpy("d", "s", 1.0 + 2.0 ** -23),
                                                                   V.Add("y", "d", "d")))
    fused, unfused = _one_pass(p, [src, dst], "fused"), _one_pass(p, [src, dst], "unfused")
    assert fused[0] == np.float32(2 * (2.0 ** -22 + 2.0 ** -46)) and unfused[0] == np.float32(2 * 2.0 ** -22)


def test_program_prints_one_instruction_per_line_as_upstream_writes_it():
    p = Program("P", (Tensor("x", "float16"),), Tensor("y", "float16"), (Tensor("xf"), Tensor("t")),
                (V.Cast("xf", "x", "CAST_NONE"), V.Muls("t", "xf", Attr("beta")),
                 V.Muls("t", "t", "-1.595769121 * 0.044715"), V.Cast("y", "t", "CAST_RINT")), ("beta",))
    assert str(p).splitlines()[1:] == ["    Cast(xf, x, CAST_NONE);", "    Muls(t, xf, beta);",
                                       "    Muls(t, t, (float)(-1.595769121 * 0.044715));",
                                       "    Cast(y, t, CAST_RINT);"]
    # the double expression is rounded to float once
    assert Const.of("-1.595769121 * 0.044715").f32 == np.float32(-1.595769121 * 0.044715)


def test_an_infinite_constant_prints_as_a_c_constant_expression():
    # issue 38: +inf printed as `inff`, which no C compiler (nor the reader) takes; an overflowing
    # float literal is the same infinity
    p = Program("P", (Tensor("x"),), Tensor("y"), (Tensor("t"),),
                (V.Duplicate("t", float("inf")), V.Maxs("y", "x", float("-inf")), V.Mins("y", "y", 1e39),
                 V.Adds("y", "y", 1.5)))
    assert str(p).splitlines()[1:] == ["    Duplicate(t, (1.0f / 0.0f));", "    Maxs(y, x, (-1.0f / 0.0f));",
                                       "    Mins(y, y, (1.0f / 0.0f));", "    Adds(y, y, 1.5f);"]
    assert "inff" not in str(p)


@pytest.mark.parametrize("bad, message", [
    ((V.Muls("t", "x", 2.0),), "float32 tensors only"),
    ((V.Cast("t", "x", "CAST_RINT"),), "CAST_NONE"),
    ((V.Muls("t", "nope", 2.0),), "not a declared tensor"),
    ((V.Muls("t", "t", Attr("gamma")),), "attribute 'gamma'"),
    ((Instr("Muls", ("t", "t")),), "takes 3 operands"),
    ((V.Compare("t", "t", "t", "EQ"),), "its mask: uint8"),
    ((V.Compare("m", "t", "t", "LTE"),), "compare mode 'LTE'"),
    ((V.Select("t", "t", "t", "t"),), "its mask: uint8"),
    ((V.Add("t", "m", "t"),), "float32 tensors only"),
])
def test_ill_typed_programs_are_refused(bad, message):
    with pytest.raises(ValueError, match=message):
        Program("Bad", (Tensor("x", "float16"),), Tensor("y", "float16"), (Tensor("t"), Tensor("m", "uint8")), bad,
                ("beta",))


def test_launch_parameters_find_their_class_by_name():
    # a pickled launch's parameters name their class; another process rebuilds it from the name alone
    import pickle

    from swishgrad_numba.program import compiled, passes

    c = compiled("swish_grad", "a2", "float16", saturation=True)
    assert getattr(passes, c.params_class.__name__) is c.params_class
    assert c.params_class.__module__ == passes.__name__ and c.params_class._fields == ("beta",)
    params = c.params(beta=1.5)
    assert pickle.loads(pickle.dumps(params)) == params and type(params.beta) is np.float32
    with pytest.raises(AttributeError):
        getattr(passes, "Pass__swish_grad__a2__float16")


# Exp overflows in float32 and in the narrowing to float16: both modes there; bfloat16 in one. The alpha
# sweep needs the attribute; the constant's program once
@pytest.mark.parametrize("dtype, saturation", [("float32", False), ("float32", True), ("float16", True),
                                               ("bfloat16", False)], ids=["float32-infnan", "float32-saturation",
                                                                          "float16-saturation", "bfloat16-infnan"])
def test_an_output_of_no_input_compiles_as_interpreted(dtype, saturation):
    # Issue 38.2: the output an Exp of a Duplicate's scalar passed the form's checks, then the Exp's
    # redo looked up a row for the constant (KeyError)
    narrow = [] if dtype == "float32" else [V.Cast("out", "e", "CAST_RINT")]
    exp_dst = "out" if dtype == "float32" else "e"
    local = (Tensor("c"),) + (() if dtype == "float32" else (Tensor("e"),))
    (x,) = _inputs(np.random.default_rng(38), 300, dtype, 1)
    for scalar in (Const.of(1.5), Attr("alpha")) if (dtype, saturation) == ("float32", False) else (Attr("alpha"),):
        program = Program("NoInput", (Tensor("x", dtype),), Tensor("out", dtype), local,
                          (V.Duplicate("c", scalar), V.Exp(exp_dst, "c"), *narrow), ("alpha",))
        compiled = compile_program(program, dtype, saturation, module=__name__)
        # alphas on the exact path's edges: exp's overflow, its subnormal results, NaN
        for alpha in map(np.float32, (1.5, 88.72283, 89.0, -87.33655, -103.5, np.nan)):
            got = run_compiled(compiled, [x], alpha, 64)
            assert_bits_equal(got, interpret(program, {"x": x}, {"alpha": alpha}, saturation), f"{scalar} {alpha}")


@pytest.mark.parametrize("text", ["2 ** 3", "9**9", "2 ** -1", "abs(-1)", "x", "1 +", "1 / 0", "1" * 201])
def test_a_constant_expression_holds_numbers_and_four_operations_only(text):
    # Issue 38.2: ** was evaluated, so Const.of("9**9**9") never returned
    with pytest.raises(ValueError, match="constant expression"):
        Const.of(text)
    assert Const.of(" (1.5 - -2) * 3 / 4e0 ").f32 == np.float32((1.5 - -2) * 3 / 4e0)


def test_a_product_of_a_name_is_refused_naming_the_operand():
    # Issue 38.2: Product("alpha", 2.0) passed the checks, then failed with an AttributeError when compiled
    with pytest.raises(ValueError, match=r"Product's a = 'alpha' must be a scalar"):
        Program("P", (Tensor("x"),), Tensor("out"), (), (V.Muls("out", "x", Product("alpha", 2.0)),), ("alpha",))
    with pytest.raises(ValueError, match=r"Product's b = None must be a scalar"):
        Program("P", (Tensor("x"),), Tensor("out"), (), (V.Muls("out", "x", Product(2.0, None)),), ("alpha",))
