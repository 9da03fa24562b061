"""16-bit bit patterns in the program form (issue 43): int16 tensors, Reinterpret between them and float16 or
bfloat16 (the same bits), And / Or on the bits and Duplicate of a constant's bits, on the engine,
bit for bit against plain NumPy on the bits (every 16-bit pattern); the form's checks."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from reference import assert_bits_equal
from swishgrad_numba.engine.runner import run_program
from swishgrad_numba.program import Program, Tensor
from swishgrad_numba.program.form import V

NUMPY = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}


def _on_engine(program, arrays):
    """The program's output on the engine."""
    return run_program(program, arrays, {}, False, grain=256, pass_len=1000)


def _every(dtype):
    return np.arange(65536, dtype=np.uint32).astype(np.uint16).view(NUMPY[dtype])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_abs_by_and_with_a_mask_is_the_bits_and(dtype):
    # one input: tabulated whole (the table's entry computes on the bits)
    x = _every(dtype)
    program = Program("BitAbs", (Tensor("x", dtype),), Tensor("out", dtype), (Tensor("xi", "int16"),
                      Tensor("m", "int16")), (V.Reinterpret("xi", "x"), V.Duplicate("m", 32767.0),
                                              V.And("xi", "xi", "m"), V.Reinterpret("out", "xi")))
    got = _on_engine(program, [x])
    assert_bits_equal(got, (x.view(np.uint16) & np.uint16(0x7FFF)).view(NUMPY[dtype]))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_copysign_by_and_and_or_is_the_bits_and_or(dtype):
    # two inputs: computed step by step (no table); y a permutation of every pattern
    x = _every(dtype)
    y = np.random.default_rng(43).permutation(x.view(np.uint16)).view(NUMPY[dtype])
    program = Program("BitCopysign", (Tensor("x", dtype), Tensor("y", dtype)), Tensor("out", dtype),
                      (Tensor("xi", "int16"), Tensor("yi", "int16"), Tensor("m", "int16")),
                      (V.Reinterpret("xi", "x"), V.Reinterpret("yi", "y"), V.Duplicate("m", 32767.0),
                       V.And("xi", "xi", "m"), V.Duplicate("m", 32768.0), V.And("yi", "yi", "m"),
                       V.Or("xi", "xi", "yi"), V.Reinterpret("out", "xi")))
    got = _on_engine(program, [x, y])
    want = (x.view(np.uint16) & np.uint16(0x7FFF)) | (y.view(np.uint16) & np.uint16(0x8000))
    assert_bits_equal(got, want.view(NUMPY[dtype]))


@pytest.mark.parametrize("body, words", [
    ((V.Reinterpret("xi", "w"),), "between int16 and float16 or bfloat16"),
    ((V.Reinterpret("xi", "x"), V.Duplicate("m", 65536.0)), "a whole number 0..65535"),
    ((V.Reinterpret("xi", "x"), V.Duplicate("m", 1.5)), "a whole number 0..65535"),
    ((V.Reinterpret("xi", "x"), V.Muls("xi", "xi", 2.0)), "on int16 tensors only"),
    ((V.And("xi", "x", "x"),), "on int16 tensors only"),
])
def test_the_form_checks_bit_patterns(body, words):
    with pytest.raises(ValueError, match=words):
        Program("Bad", (Tensor("x", "float16"),), Tensor("out", "float16"),
                (Tensor("xi", "int16"), Tensor("m", "int16"), Tensor("w", "float32")), body)


def _ref_cast_int16(x, mode):
    """half -> int16 by ``mode`` (rint or trunc) on the exact value, saturated, NaN 0: the value's bits."""
    f = x.astype(np.float64)
    r = np.rint(f) if mode == "CAST_RINT" else np.trunc(f)
    r = np.where(np.isnan(f), 0.0, np.clip(np.nan_to_num(r), -32768, 32767))
    return r.astype(np.int16).view(np.uint16)


@pytest.mark.parametrize("back", ["Reinterpret", "Cast"])
def test_an_int16_local_cast_into_then_anded_holds_its_values_bits(back):
    # one int16 local is a Cast's destination, an And's operand and a Reinterpret's (or a Cast's) source:
    # the Casts write and read the value of the two's-complement bits that And acts on; two inputs, so the
    # engine computes step by step (no table); x every pattern, y a permutation of them
    x = _every("float16")
    y = np.random.default_rng(16).permutation(x.view(np.uint16)).view(np.float16)
    last = V.Reinterpret("out", "xi") if back == "Reinterpret" else V.Cast("out", "xi", "CAST_RINT")
    program = Program("CastAnd", (Tensor("x", "float16"), Tensor("y", "float16")), Tensor("out", "float16"),
                      (Tensor("xi", "int16"), Tensor("yi", "int16"), Tensor("m", "int16")),
                      (V.Cast("xi", "x", "CAST_RINT"), V.Cast("yi", "y", "CAST_TRUNC"), V.Duplicate("m", 65520.0),
                       V.Or("yi", "yi", "m"), V.And("xi", "xi", "yi"), last))
    with np.errstate(invalid="ignore", over="ignore"):
        bits = _ref_cast_int16(x, "CAST_RINT") & (_ref_cast_int16(y, "CAST_TRUNC") | np.uint16(0xFFF0))
        want = bits.view(np.float16) if back == "Reinterpret" else bits.view(np.int16).astype(np.float16)
    got = _on_engine(program, [x, y])
    assert_bits_equal(got, want)
