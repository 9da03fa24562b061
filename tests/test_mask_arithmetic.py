"""The mask arithmetic of the A2 MishGrad's NaN guard (swishgrad_numba.program.semantics, "mask arithmetic"):
a mask cast to half, half Adds, half cast back to a mask, on the engine, bit for bit
against plain NumPy and the interpreter of tests/program_interpreter.py; the form's checks of the new Casts."""
from __future__ import annotations

import numpy as np
import pytest

from program_interpreter import interpret
from reference import assert_bits_equal
from swishgrad_numba.engine.runner import run_program
from swishgrad_numba.program import Program, Tensor
from swishgrad_numba.program.form import V

F16 = np.float16


def _on_engine(program, arrays, saturation=False):
    """The program's output on the engine."""
    return run_program(program, arrays, {}, saturation, grain=256, pass_len=1000)


@pytest.mark.parametrize("saturation", [False, True], ids=["infnan", "saturation"])
def test_every_half_cast_to_a_mask_and_back(saturation):
    # uint8 <- float16 (CAST_RINT): to nearest even, clamped to [0, 255], NaN 0; float16 <- uint8 exact
    x = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(F16)
    program = Program("MaskRoundTrip", (Tensor("x", "float16"),), Tensor("out", "float16"),
                      (Tensor("m", "uint8"),), (V.Cast("m", "x", "CAST_RINT"), V.Cast("out", "m", "CAST_NONE")))
    got = _on_engine(program, [x], saturation)
    f = x.astype(np.float64)
    want = np.where(np.isnan(f), 0, np.clip(np.rint(np.nan_to_num(f)), 0, 255)).astype(np.uint8).astype(F16)
    assert_bits_equal(got, want)
    assert_bits_equal(got, interpret(program, {"x": x}, {}, saturation))
    assert got[x == F16(2.5)].tolist() == [2.0] and got[x == F16(3.5)].tolist() == [4.0]   # ties to even
    assert set(got[x >= F16(255)].tolist()) == {255.0} and set(got[x <= F16(0)].tolist()) == {0.0}


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_masks_cast_to_half_and_added_guard_the_nans(dtype):
    # mish_grad.h:197-202: x > 0 and x <= 0 cast to half, added, cast back: 1 exactly where x is not NaN
    rng = np.random.default_rng(41)
    x = rng.standard_normal(5000).astype(dtype)
    x[:8] = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 1e-30, -1e-30], dtype)
    wide = "x" if dtype == "float32" else "xf"
    body = ([] if dtype == "float32" else [V.Cast("xf", "x", "CAST_NONE")]) + [
        V.CompareScalar("m1", wide, 0.0, "GT"), V.CompareScalar("m2", wide, 0.0, "LE"),
        V.Cast("h1", "m1", "CAST_NONE"), V.Cast("h2", "m2", "CAST_NONE"), V.Add("h2", "h1", "h2"),
        V.Cast("m2", "h2", "CAST_RINT"), V.Select("y", wide, 7.0, "m2")]
    body.append(V.Muls("out", "y", 1.0) if dtype == "float32" else V.Cast("out", "y", "CAST_RINT"))
    local = (Tensor("m1", "uint8"), Tensor("m2", "uint8"), Tensor("h1", "float16"), Tensor("h2", "float16"),
             Tensor("y")) + (() if dtype == "float32" else (Tensor("xf"),))
    program = Program("Guard", (Tensor("x", dtype),), Tensor("out", dtype), local, tuple(body))
    got = _on_engine(program, [x])
    assert_bits_equal(got, np.where(np.isnan(x), x.dtype.type(7), x))
    assert_bits_equal(got, interpret(program, {"x": x}, {}))


def test_half_add_rounds_to_nearest_even_and_overflows_to_inf():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 65536, 20000).astype(np.uint16).view(F16)
    b = rng.integers(0, 65536, 20000).astype(np.uint16).view(F16)
    b[:4] = np.array([65504, 2 ** -24, np.inf, np.nan], F16)
    a[:4] = np.array([65504, 1.0, -np.inf, 1.0], F16)
    program = Program("HalfAdd", (Tensor("a", "float16"), Tensor("b", "float16")), Tensor("out", "float16"), (),
                      (V.Add("out", "a", "b"),))
    got = _on_engine(program, [a, b])
    with np.errstate(all="ignore"):
        assert_bits_equal(got, (a.astype(np.float64) + b.astype(np.float64)).astype(F16))   # one rounding
    assert got[0] == np.inf and got[1] == 1.0 and np.isnan(got[2]) and np.isnan(got[3])


@pytest.mark.parametrize("cast, message", [
    (V.Cast("m", "h", "CAST_ODD"), "takes CAST_RINT.*not CAST_ODD"),   # CAST_NONE too since issue 43's int Casts
    (V.Cast("h", "m", "CAST_RINT"), "is CAST_NONE"),
    (V.Cast("f", "m", "CAST_NONE"), "no Cast from uint8 to float32"),
    (V.Cast("m", "f", "CAST_RINT"), "no Cast from float32 to uint8"),
])
def test_the_mask_casts_are_checked(cast, message):
    with pytest.raises(ValueError, match=message):
        Program("Bad", (Tensor("x"),), Tensor("out"),
                (Tensor("m", "uint8"), Tensor("h", "float16"), Tensor("f")),
                (V.CompareScalar("m", "x", 0.0, "GT"), V.Duplicate("h", 1.0), cast, V.Muls("out", "x", 1.0)))
