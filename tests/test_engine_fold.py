"""The engine's constant folding (swishgrad_numba.engine.fold): which steps it rewrites, and that a folded
stream gives the bits of the unfolded one and of the interpreter (tests/program_interpreter.py) on random
and special inputs, NaN payloads included, in both overflow modes."""
from __future__ import annotations

import numpy as np
import pytest

import swishgrad_numba as sg
from program_interpreter import interpret
from reference import SPECIALS, assert_bits_equal
from swishgrad_numba.engine import fold, runner
from swishgrad_numba.engine.stream import streams
from swishgrad_numba.ops import get_operator
from swishgrad_numba.platform import ARCH_950, ARCH_A2
from swishgrad_numba.program import Attr, Const, Program, Tensor
from swishgrad_numba.program.form import V
from swishgrad_numba.program.lower import lower


def _inputs(rng, n, count):
    out = []
    for _ in range(count):
        v = rng.uniform(-6, 6, n).astype(np.float32)
        sp = rng.random(n) < 0.2
        v[sp] = rng.choice(SPECIALS, sp.sum()).astype(np.float32)
        bits = v.view(np.uint32)
        payload = rng.random(n) < 0.02   # NaNs with payloads, quiet and signalling, either sign
        bits[payload] = rng.choice(np.array([0x7FC00001, 0xFFC12345, 0x7F800001, 0xFF812345], np.uint32),
                                   payload.sum())
        out.append(v)
    return out


def _folding_program():
    t = Tensor
    body = (V.Duplicate("k", Const.of(1.5)), V.Duplicate("one", Const.of(1.0)),
            V.Duplicate("inf", Const.of(float("inf"))), V.Duplicate("a", Attr("alpha")), V.Duplicate("nz", Const.of(-0.0)),
            V.Mul("p", "x", "k"), V.Add("q", "k", "p"), V.Compare("m", "k", "q", "LT"), V.Select("s", "q", "nz", "m"),
            V.Div("r", "one", "s"), V.Mul("u", "r", "inf"), V.Max("u", "u", "a"), V.Sub("w", "k", "u"),
            V.Compare("m", "w", "nz", "GE"), V.Select("out", "w", "k", "m"))
    local = (t("k"), t("one"), t("inf"), t("a"), t("nz"), t("p"), t("q"), t("m", "uint8"), t("s"), t("r"), t("u"),
             t("w"))
    return Program("Folding", (t("x"),), t("out"), local, body, ("alpha",))


def test_fold_gives_duplicated_constants_scalar_forms_and_drops_the_duplicates():
    low = lower(_folding_program())
    steps = fold.fold(low.steps, low.values, low.output)
    ops = [(s.op, s.mode) for s in steps]
    assert ops == [("Duplicate", ""), ("Duplicate", ""), ("Duplicate", ""),   # 1.5 (Sub's first source), inf, alpha
                   ("Muls", ""), ("Adds", ""), ("CompareScalar", "GT"), ("Select", "scalar"), ("Reciprocal", ""),
                   ("Mul", ""), ("Max", ""), ("Sub", ""), ("CompareScalar", "GE"), ("Select", "scalar")]
    kept = [s.scalars[0] for s in steps if s.op == "Duplicate"]
    assert kept[0] == Const.of(1.5) and np.isinf(kept[1].f32) and kept[2] == Attr("alpha")
    assert [s.scalars for s in steps if s.op in ("Muls", "Adds")] == [(Const.of(1.5),)] * 2


def _repeating_program():
    t = Tensor
    body = (V.Abs("a", "x"), V.Cast("h", "a", "CAST_RINT"), V.Cast("b", "a", "CAST_RINT"), V.Abs("c", "x"),
            V.Cast("d", "h", "CAST_NONE"), V.Cast("e", "b", "CAST_NONE"), V.Mul("f", "d", "e"), V.Abs("a", "x"),
            V.Mul("g", "a", "c"), V.Add("out", "f", "g"),
            # x * 0 and x * -0: equal constants (0.0 == -0.0), other bits: both stay
            V.Muls("p", "x", Const.of(0.0)), V.Muls("q", "x", Const.of(-0.0)), V.Reciprocal("q", "q"),
            V.Add("p", "p", "q"), V.Add("out", "out", "p"))
    local = (t("a"), t("h", "float16"), t("b", "bfloat16"), t("c"), t("d"), t("e"), t("f"), t("g"), t("p"), t("q"))
    return Program("Repeats", (t("x"),), t("out"), local, body, ())


def test_a_repeated_step_is_computed_once():
    low = lower(_repeating_program())
    steps = fold.fold(low.steps, low.values, low.output)
    # the second and third Abs read the first; the two narrowings to different dtypes both stay
    assert [s.op for s in steps] == ["Abs", "Cast", "Cast", "Cast", "Cast", "Mul", "Mul", "Add", "Muls", "Muls",
                                     "Reciprocal", "Add", "Add"]
    assert steps[6].srcs == (steps[0].dst, steps[0].dst)
    rng = np.random.default_rng([39, 8])
    (x,) = _inputs(rng, 3000, 1)
    for saturation in (False, True):
        got = runner.run_program(_repeating_program(), [x], {}, saturation, grain=256)
        assert_bits_equal(got, interpret(_repeating_program(), {"x": x}, {}, saturation), f"saturation={saturation}")


@pytest.mark.parametrize("saturation", [False, True], ids=["infnan", "saturation"])
def test_a_folded_stream_gives_the_unfolded_bits(saturation, monkeypatch):
    program = _folding_program()
    rng = np.random.default_rng([39, 7, saturation])
    (x,) = _inputs(rng, 5000, 1)
    for alpha in (np.float32(0.25), np.float32(-np.inf), np.float32(np.nan)):
        folded = runner.run_program(program, [x], {"alpha": alpha}, saturation, grain=512)
        monkeypatch.setattr(fold, "ENABLED", False)
        unfolded = runner.run_program(program, [x], {"alpha": alpha}, saturation, grain=512)
        monkeypatch.setattr(fold, "ENABLED", True)
        assert_bits_equal(folded, unfolded, f"alpha {alpha}")
        assert_bits_equal(folded, interpret(program, {"x": x}, {"alpha": alpha}, saturation), f"alpha {alpha}")


def _float32_programs():
    for name, arch, variant in (("gelu_v2", ARCH_950, None), ("gelu_v2", ARCH_950, "tanh"),
                                ("leaky_relu", ARCH_950, None), ("swish_grad", ARCH_A2, None),
                                ("sigmoid", ARCH_A2, None), ("silu_grad", ARCH_A2, None),
                                ("softplus_grad", ARCH_A2, None), ("gelu_grad_v2", ARCH_A2, None)):
        yield pytest.param(name, arch, variant, id=f"{name}-{arch}-{variant}")


@pytest.mark.parametrize("name, arch, variant", list(_float32_programs()))
def test_operators_folded_give_the_unfolded_bits(name, arch, variant, monkeypatch):
    op = get_operator(name)
    platform = sg.REFERENCE_PLATFORM if arch == ARCH_A2 else sg.ASCEND950_PLATFORM
    program = op.kernels[arch].programs("float32", variant or op.variant(platform))
    rng = np.random.default_rng([39, len(name), len(arch)])
    arrays = _inputs(rng, 3000, len(program.inputs))
    low = lower(program)
    monkeypatch.setattr(fold, "ENABLED", False)
    before = streams(low, 256).main.code.shape[0]
    monkeypatch.setattr(fold, "ENABLED", True)
    assert streams(low, 256).main.code.shape[0] <= before
    for saturation in (False, True):
        attrs = {a: np.float32(v) for a, v in zip(program.attrs, (0.01, 20.0, 1.0))}
        folded = runner.run_program(program, arrays, attrs, saturation, grain=256)
        monkeypatch.setattr(fold, "ENABLED", False)
        unfolded = runner.run_program(program, arrays, attrs, saturation, grain=256)
        monkeypatch.setattr(fold, "ENABLED", True)
        assert_bits_equal(folded, unfolded, f"{name} saturation={saturation}")
        want = interpret(program, {t.name: a for t, a in zip(program.inputs, arrays)}, attrs, saturation)
        assert_bits_equal(folded, want, f"{name} saturation={saturation}")


def test_a_constant_is_foldable_where_the_compiled_duplicate_keeps_its_bits():
    """fold._foldable (plain Python) agrees with the compiled Duplicate (program.semantics.duplicate) in both
    overflow modes: on infinities, NaN payloads, zeros, subnormals and FLT_MAX a Duplicate in saturation mode
    changes the bits (fold refuses), elsewhere it keeps them."""
    from swishgrad_numba.program.semantics import duplicate

    bits = np.array([0x7F800000, 0xFF800000, 0x7FC00001, 0xFF812345, 0, 0x80000000, 1, 0x807FFFFF, 0x7F7FFFFF,
                     0x3FC00000, 0xBF800000], np.uint32)
    for k in bits.view(np.float32):
        keeps = all(np.float32(duplicate(k, sat)).view(np.uint32) == k.view(np.uint32) for sat in (False, True))
        assert fold._foldable(Const.of(float(k))) == keeps, hex(k.view(np.uint32))
    assert not fold._foldable(Const.of(float("inf"))) and fold._foldable(Const.of(1.5))
