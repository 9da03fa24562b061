"""The engine's fused loop for 16-bit two-input streams of one table (swishgrad_numba.engine.fused16): the
streams it takes run as the interpreter computes them; streams of any other shape are left to the machine."""
from __future__ import annotations

import numpy as np
import pytest

from program_interpreter import interpret
from reference import assert_bits_equal
from swishgrad_numba.dtypes import dtype_info
from swishgrad_numba.engine import fused16
from swishgrad_numba.engine import opcodes as O
from swishgrad_numba.engine.runner import Prepared, run_program, run_stream
from swishgrad_numba.program import Attr, Const, Program, Tensor
from swishgrad_numba.program.form import V
from swishgrad_numba.program.lower import lower
from test_engine import _stream
from test_program import DTYPES, _inputs

_SIXTEEN = [d for d in DTYPES if d != "float32"]
F16 = dtype_info("float16").code


def _program(dtype, tabulated, table_first):
    """``out = CAST_RINT(t * f)`` (or ``f * t``): ``t`` a function of input ``tabulated`` alone, ``f`` the
    other input widened."""
    x, dy = f"in{tabulated}", f"in{1 - tabulated}"
    body = (V.Cast("w", x, "CAST_NONE"), V.Muls("a", "w", Attr("alpha")), V.Adds("t", "a", Const.of(0.5)),
            V.Mul("t", "t", "w"), V.Cast("f", dy, "CAST_NONE"),
            V.Mul("p", "t", "f") if table_first else V.Mul("p", "f", "t"), V.Cast("out", "p", "CAST_RINT"))
    local = tuple(Tensor(n) for n in ("w", "a", "t", "f", "p"))
    return Program("Fused16", (Tensor("in0", dtype), Tensor("in1", dtype)), Tensor("out", dtype), local, body,
                   ("alpha",))


@pytest.mark.parametrize("saturation", [False, True], ids=["infnan", "saturation"])
@pytest.mark.parametrize("dtype", _SIXTEEN)
def test_fused_streams_run_as_interpreted(dtype, saturation):
    rng = np.random.default_rng([39, 16, _SIXTEEN.index(dtype), saturation])
    for tabulated in (0, 1):
        for table_first in (True, False):
            program = _program(dtype, tabulated, table_first)
            prepared = Prepared(lower(program), saturation)
            m = prepared.main
            fused = fused16.shape(m.code, m.out, m.grain, prepared.inputs)
            # the lowering gives the fused shape: the table of input `tabulated`, the Mul's operands in order
            assert fused == (0, tabulated, 1 - tabulated, 0 if table_first else 1, dtype_info(dtype).code)
            # every bit pattern against random values and specials (NaN times NaN: the first operand's sign)
            arrays = _inputs(rng, 65536, dtype, 2)
            bits = arrays[1].view(np.uint16)     # where x (every pattern) is a NaN, a NaN of the other sign in
            nan = np.isnan(arrays[0].astype(np.float32))   # half of them, with another payload in some
            flip = nan & (rng.random(65536) < 0.5)
            bits[flip] = arrays[0].view(np.uint16)[flip] ^ np.uint16(0x8000) ^ (rng.integers(0, 2, flip.sum()) << 1)
            if tabulated == 1:
                arrays = arrays[::-1]
            for alpha in (np.float32(1.5), np.float32(-3e38)):
                want = interpret(program, {"in0": arrays[0], "in1": arrays[1]}, {"alpha": alpha}, saturation)
                for pass_len in (37, 5000):   # passes mostly in the vector loop's tail, mostly in its body
                    got = run_program(program, arrays, {"alpha": alpha}, saturation, pass_len=pass_len, threads=2)
                    # every bit, NaNs' included (assert_bits_equal takes any NaN for any): the first operand's
                    raw = np.flatnonzero(got.view(np.uint16) != np.asarray(want).view(np.uint16))
                    assert raw.size == 0, (f"{dtype} in{tabulated} tabulated, first {table_first}, {alpha}, passes of "
                                           f"{pass_len}: {raw.size} differ, first at {raw[:1]}")


def _fusable(code=2):
    # rows of 8: inputs 0 and 1, t in row 2, f in row 3, p in row 4, the result in row 5
    return _stream([("LOOKUP", 16, [8], 0), ("CAST_NONE", 24, [0], code), ("MUL", 32, [16, 24], 0),
                    ("CAST_RINT", 40, [32], code)])


def _changed(row, field, value, *more):
    code = _fusable()
    code[row, field] = value
    if more:
        return _changed_also(code, *more)
    return code


def _changed_also(code, row, field, value):
    code[row, field] = value
    return code


@pytest.mark.parametrize("code", [
    _fusable()[:3], _changed(2, O.OP, O.OPCODES["ADD"]), _changed(0, O.SRC0, 16),  # three; an Add; not an input
    _changed(0, O.SRC0, 4),                                 # inside an input's row
    _changed(0, O.DST, 0, 2, O.SRC0, 0),                    # the Lookup overwrites the widened input's row
    _changed(2, O.SRC1, 0),                                 # the Mul reads an input, not the widened one
    _changed(3, O.SRC0, 16), _changed(3, O.DST, 32),        # the narrowing of another row, into another
    _changed(3, O.MODE, 1), _fusable(code=0),               # two dtypes; a dtype that is not 16-bit
], ids=["short", "add", "lookup-of-a-local", "inside-a-row", "overwritten-input", "mul-of-input",
        "narrow-other", "result-elsewhere", "two-dtypes", "not-16-bit"])
def test_other_streams_are_not_fused(code):
    assert fused16.shape(_fusable(), 40, 8, 2) == (0, 1, 0, 0, 2)
    assert fused16.shape(code, 40, 8, 2) == fused16.NOT_FUSED


def test_a_lookup_over_the_widened_input_runs_on_the_machine():
    # the Lookup writes its entries over input 0's row, which CAST_NONE then widens: not the fused shape
    code = _changed(0, O.DST, 0, 2, O.SRC0, 24)     # the widened entry squared
    code[:, O.MODE] = (0, F16, 0, F16)
    assert fused16.shape(code, 40, 8, 2) == fused16.NOT_FUSED
    table = np.arange(65536, dtype=np.float32)[::-1].copy()[None, :]
    a = np.full(8, np.float16(1.5).view(np.uint16), dtype=np.uint16)
    b = np.arange(8, dtype=np.uint16) + np.uint16(0x4000)
    out = np.empty(8, np.uint16)
    run_stream(code, np.zeros(1, np.float32), table, (a, b), out, grain=8, arena_len=48, out_offset=40)
    entries = table[0, b].astype(np.uint16).view(np.float16).astype(np.float32)
    widened = np.float16(1.5).astype(np.float32)    # input 0's value: the machine never reads it
    assert_bits_equal(out.view(np.float16), (entries * entries).astype(np.float16))
    assert not (entries == widened).any()
