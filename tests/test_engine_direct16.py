"""A 16-bit stream's head and tail on the tensors (swishgrad_numba.engine.direct16), and the tables the main
stream computes rather than looks up (engine.stream): every bit, NaN payloads included, against the
interpreter of tests/program_interpreter.py; streams of another shape are left to the machine."""
from __future__ import annotations

import numpy as np
import pytest

from program_interpreter import interpret
from reference import assert_bits_equal
from swishgrad_numba.dtypes import dtype_info
from swishgrad_numba.engine import direct16
from swishgrad_numba.engine import opcodes as O
from swishgrad_numba.engine.runner import Prepared, run_program, run_stream
from swishgrad_numba.program import Attr, Const, Program, Tensor
from swishgrad_numba.program.form import V
from swishgrad_numba.program.lower import lower
from test_engine import _stream
from test_program import DTYPES, _inputs

_SIXTEEN = [d for d in DTYPES if d != "float32"]


def _program(dtype, narrowing):
    """Two inputs, two tables (one computed: a Muls of ``x``; one looked up: ``x``'s Exp and more), ``dy``
    widened, a Compare, a Select, an Add (ties on the narrowing), the result narrowed by ``narrowing``."""
    body = (V.Cast("w", "x", "CAST_NONE"), V.Muls("s", "w", Attr("alpha")), V.Exp("e", "w"),
            V.Adds("e", "e", Const.of(-1.0)), V.Mul("e", "e", "w"), V.Cast("f", "dy", "CAST_NONE"),
            V.CompareScalar("m", "w", 0.0, "GT"), V.Mul("p", "f", "e"), V.Add("q", "f", "s"),
            V.Select("r", "p", "q", "m"), V.Cast("out", "r", narrowing))
    local = (Tensor("w"), Tensor("s"), Tensor("e"), Tensor("f"), Tensor("p"), Tensor("q"), Tensor("r"),
             Tensor("m", "uint8"))
    return Program("Direct16", (Tensor("dy", dtype), Tensor("x", dtype)), Tensor("out", dtype), local, body,
                   ("alpha",))


def _nan_pairs(rng, arrays):
    """Where ``x`` (every pattern) is a NaN, ``dy`` a NaN of the other sign and another payload in half."""
    dy, x = arrays[1], arrays[0]
    bits = dy.view(np.uint16)
    nan = np.isnan(x.astype(np.float32))
    flip = nan & (rng.random(x.size) < 0.5)
    bits[flip] = x.view(np.uint16)[flip] ^ np.uint16(0x8000) ^ (rng.integers(0, 2, flip.sum()) << 1).astype(np.uint16)
    return [dy, x]


@pytest.mark.parametrize("saturation", [False, True], ids=["infnan", "saturation"])
@pytest.mark.parametrize("narrowing", ["CAST_RINT", "CAST_ROUND"])
@pytest.mark.parametrize("dtype", _SIXTEEN)
def test_direct_streams_run_as_interpreted(dtype, narrowing, saturation):
    rng = np.random.default_rng([39, 160, _SIXTEEN.index(dtype), saturation, narrowing == "CAST_RINT"])
    program = _program(dtype, narrowing)
    m = Prepared(lower(program), saturation).main
    head, tail = direct16.split(m.code, m.out, m.grain, 2)
    # x's Muls is computed (no Lookup of it), its Exp part looked up: one Lookup, two widenings in the head
    assert (m.code[:, O.OP] == O.LOOKUP).sum() == 1 and head == 3 and tail == len(m.code) - 1
    arrays = _nan_pairs(rng, _inputs(rng, 65536, dtype, 2))   # x: every bit pattern; dy: values and specials
    for alpha in (np.float32(1.5), np.float32(-3e38), np.float32(0.0)):
        want = interpret(program, {"dy": arrays[0], "x": arrays[1]}, {"alpha": alpha}, saturation)
        want = np.asarray(want).view(np.uint16)
        for pass_len, grain in ((37, 1024), (5000, 256), (65536, 1024)):   # blocks cut short, whole, both
            got = run_program(program, arrays, {"alpha": alpha}, saturation, grain=grain, pass_len=pass_len,
                              threads=2)
            # every bit, NaNs' included (assert_bits_equal takes any NaN for any)
            raw = np.flatnonzero(got.view(np.uint16) != want)
            assert raw.size == 0, (f"{dtype} {narrowing} {alpha}, passes of {pass_len}, grain {grain}: "
                                   f"{raw.size} differ, first at {raw[:1]}")


def _direct(code16=2):
    # rows of 8: inputs 0 and 1; the Lookup of input 1 in row 2, input 0 widened in row 3, the Mul in row 4
    return _stream([("LOOKUP", 16, [8], 0), ("CAST_NONE", 24, [0], code16), ("MULS", 32, [24], 0),
                    ("MUL", 32, [16, 32], 0), ("CAST_RINT", 40, [32], code16)])


@pytest.mark.parametrize("change", [
    (3, O.SRC1, 0),                  # the body reads input 0's row, which the machine would hold as it was
    (4, O.OP, O.OPCODES["MUL"]),     # no narrowing last
    (4, O.DST, 32),                  # the narrowing into another row than the result's
    (0, O.DST, 0),                   # the head writes over input 0, which its widening then reads
    (1, O.SRC0, 4),                  # the head reads inside an input's row: the body then reads it as it was
    (0, O.DST, 4),                   # the head writes inside input 0's row, which its widening then reads
], ids=["body-reads-an-input", "no-narrowing-last", "narrowing-elsewhere", "head-overwrites-an-input",
        "head-reads-inside-a-row", "head-writes-inside-a-row"])
def test_other_streams_are_not_split(change):
    assert direct16.split(_direct(), 40, 8, 2) == (2, 4)
    code = _direct()
    row, field, value = change
    code[row, field] = value
    assert direct16.split(code, 40, 8, 2) == direct16.NOT_DIRECT


def test_a_head_that_overwrites_an_input_runs_on_the_machine():
    # the Lookup's entries land in input 0's row, which the widening then reads: the machine's order
    code = _direct(dtype_info("float16").code)
    code[0, O.DST] = 0
    code[3, O.SRC0] = 24                 # the Mul of the widened entries and their double
    assert direct16.split(code, 40, 8, 2) == direct16.NOT_DIRECT
    table = (np.float32(0x3C00) + np.arange(65536, dtype=np.float32) % 512)[None, :]   # float16 1.0 .. 1.5
    a = np.full(8, np.float16(-7.0).view(np.uint16), dtype=np.uint16)
    b = np.arange(8, dtype=np.uint16) * np.uint16(37)
    out = np.empty(8, np.uint16)
    run_stream(code, np.array([2.0], np.float32), table, (a, b), out, grain=8, arena_len=48, out_offset=40)
    entry = table[0, b].astype(np.uint16).view(np.float16).astype(np.float32)   # row 0 widened: the entries
    assert_bits_equal(out.view(np.float16), (entry * (entry * np.float32(2.0))).astype(np.float16))


def test_a_float32_stream_of_the_shape_runs_on_the_machine():
    # a float32 launch never takes the direct path (its tensors are not 16-bit): the machine's blocks
    x = np.arange(8, dtype=np.float32) - 3.5
    out = np.empty(8, np.float32)
    code = _stream([("MULS", 16, [0], 0), ("ADD", 16, [16, 8], 0), ("ABS", 24, [16], 0)])
    run_stream(code, np.array([3.0], np.float32), None, (x, x * 2), out, grain=8, arena_len=32, out_offset=24)
    assert_bits_equal(out, np.abs(x * np.float32(3.0) + x * 2))
