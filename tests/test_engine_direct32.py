"""A float32 stream's reads of its inputs and write of its result where they lie
(swishgrad_numba.engine.direct32): random float32 programs, every bit (NaN payloads included) against the
interpreter of tests/program_interpreter.py, both overflow modes; the streams its split must refuse."""
from __future__ import annotations

import numpy as np
import pytest

from program_interpreter import interpret
from reference import SPECIALS, assert_bits_equal
from swishgrad_numba.engine import direct32
from swishgrad_numba.engine import opcodes as O
from swishgrad_numba.engine.runner import Prepared, run_program, run_stream
from swishgrad_numba.program import Attr, Const, Program, Tensor
from swishgrad_numba.program.form import V
from swishgrad_numba.program.lower import lower
from test_engine import _stream

_UNARY = ("Abs", "Neg", "Reciprocal", "Exp")
_BINARY = ("Add", "Sub", "Mul", "Div", "Max")
_SCALAR = ("Muls", "Adds")


def _random_program(rng, length):
    """Two float32 inputs, ``length`` steps of the direct opcodes and of others (Exp, Max: the machine's),
    masks by Compare / CompareScalar read by Select / SelectScalar, the last step writing ``out``."""
    values, masks, body, local = ["dy", "x"], [], [], []
    for t in range(length):
        dst = "out" if t == length - 1 else f"t{t}"
        kind = rng.integers(0, 6)
        a, b = (str(v) for v in rng.choice(values, 2))
        if kind == 4 and not masks:
            kind = 5
        if kind == 0:
            body.append(getattr(V, str(rng.choice(_UNARY)))(dst, a))
        elif kind == 1:
            body.append(getattr(V, str(rng.choice(_BINARY)))(dst, a, b))
        elif kind == 2:
            k = Attr("alpha") if rng.random() < 0.5 else Const.of(float(rng.choice([-1.5, 0.25, 3e38, 1e-40])))
            body.append(getattr(V, str(rng.choice(_SCALAR)))(dst, a, k))
        elif kind == 3:
            m = f"m{t}"
            mode = str(rng.choice(O.CMP_MODES))
            body.append(V.CompareScalar(m, a, 0.0, mode) if rng.random() < 0.5 else V.Compare(m, a, b, mode))
            local.append(Tensor(m, "uint8"))
            masks.append(m)
            body.append(V.Mul(dst, a, b))
        elif kind == 4:
            m = str(rng.choice(masks))
            body.append(V.Select(dst, a, b, m) if rng.random() < 0.5
                        else V.Select(dst, a, Const.of(-2.5), m))
        else:
            body.append(V.Mul(dst, a, b))
        if dst != "out":
            local.append(Tensor(dst))
            values.append(dst)
    return Program("Direct32", (Tensor("dy"), Tensor("x")), Tensor("out"), tuple(local), tuple(body), ("alpha",))


def _inputs(rng, n):
    """Values over the whole range, SPECIALS (NaN, inf, subnormals, -0), NaNs of both signs and payloads."""
    out = []
    for _ in range(2):
        v = rng.standard_normal(n) * 10.0 ** rng.integers(-42, 38, n)
        sp = rng.random(n) < 0.2
        v[sp] = rng.choice(SPECIALS, sp.sum())
        with np.errstate(over="ignore"):
            a = v.astype(np.float32)
        nan = rng.random(n) < 0.05
        a.view(np.uint32)[nan] = (rng.integers(0x7F800001, 0x80000000, nan.sum()) |
                                  (rng.integers(0, 2, nan.sum()) << 31)).astype(np.uint32)
        out.append(a)
    return out


@pytest.mark.parametrize("saturation", [False, True], ids=["infnan", "saturation"])
@pytest.mark.parametrize("seed", range(12))
def test_random_streams_run_as_interpreted(seed, saturation):
    rng = np.random.default_rng([39, 32, seed, saturation])
    program = _random_program(rng, int(rng.integers(2, 9)))
    m = Prepared(lower(program), saturation).main
    plan = direct32.split(m.code, m.out, m.grain, 2)
    arrays = _inputs(rng, 5000)
    for alpha in (np.float32(1.5), np.float32(-3e38)):
        want = interpret(program, {"dy": arrays[0], "x": arrays[1]}, {"alpha": alpha}, saturation)
        for pass_len, grain in ((37, 1024), (5000, 256)):   # blocks cut short, and whole blocks
            got = run_program(program, arrays, {"alpha": alpha}, saturation, grain=grain, pass_len=pass_len,
                              threads=2)
            assert_bits_equal(got, np.asarray(want, np.float32), f"{program.body} plan {plan.tolist()}")


def test_the_random_streams_take_the_direct_path():
    # most of the random programs above are planned (the test would else check only the machine)
    planned = 0
    for seed in range(12):
        rng = np.random.default_rng([39, 32, seed, False])
        program = _random_program(rng, int(rng.integers(2, 9)))
        m = Prepared(lower(program), False).main
        planned += int(direct32.split(m.code, m.out, m.grain, 2)[-1, 0])
    assert planned >= 8


def _leaky():
    # rows of 8: inputs 0 and 1; MULS of input 0 in row 2, input 1 > 0 in row 3, the Select into row 4
    return _stream([("MULS", 16, [0], 0), ("COMPARE_SCALAR", 24, [8], 1), ("SELECT", 32, [0, 16, 24], 0)])


def test_a_stream_read_and_written_where_they_lie():
    plan = direct32.split(_leaky(), 32, 8, 2)
    assert plan[:3, 0].tolist() == [1, 1, 1] and plan[2, 4] == 1          # every instruction here; the Select out
    assert plan[3, :3].tolist() == [1, 0, 0]                               # nothing copied in or out
    dy = np.array([1.0, -2.0, np.nan, 4.0, -0.0, 1e-45, np.inf, 3.0], np.float32)
    x = np.array([1.0, -1.0, 2.0, np.nan, 0.0, -1e-45, -np.inf, 1e-40], np.float32)
    out = np.empty(8, np.float32)
    code = _leaky()
    code[1, O.K0] = 1
    run_stream(code, np.array([0.5, 0.0], np.float32), None, (dy, x), out, grain=8, arena_len=40, out_offset=32)
    assert_bits_equal(out, np.where(x > 0, dy, dy * np.float32(0.5)).astype(np.float32))


@pytest.mark.parametrize("change", [
    (0, O.SRC0, 4),                  # a source inside an input's row: rows overlap
    (1, O.DST, 20),                  # a destination inside a row
    (0, O.OP, O.OPCODES["EXP"]),     # then no instruction here reads an input or writes the result...
], ids=["source-inside-a-row", "destination-inside-a-row", "exp-first"])
def test_streams_split_refuses(change):
    code = _leaky()
    row, field, value = change
    code[row, field] = value
    if value == O.OPCODES["EXP"]:    # ... once the Compare and the Select are the machine's too
        code[0, O.SRC1] = 40
        code[1, O.OP] = O.OPCODES["MAX"]
        code[2, O.OP] = O.OPCODES["MIN"]
    assert direct32.split(code, 32, 8, 2)[-1, 0] == 0


def test_an_input_row_written_before_it_is_read_again():
    # row 0 (input 0) is overwritten by the Muls; the Add then reads the arena's row, not the tensor; the Max
    # reads input 1 on the machine (copied in), the Mul writes the result where it lies
    code = _stream([("MULS", 0, [0], 0), ("MAX", 16, [8, 8], 0), ("ADD", 32, [0, 8], 0), ("MUL", 40, [32, 16], 0)])
    plan = direct32.split(code, 40, 8, 2)
    assert plan[:4, 0].tolist() == [1, 0, 1, 1] and plan[2, 1:3].tolist() == [-1, 1] and plan[4, :3].tolist() == [1, 2, 0]
    dy = np.array([1.0, -2.0, np.nan, 4.0, -0.0, 1e-45, np.inf, 3.0], np.float32)
    x = np.array([1.0, -1.0, 2.0, 0.5, 0.0, -1e-45, -np.inf, 1e-40], np.float32)
    out = np.empty(8, np.float32)
    run_stream(code, np.array([2.0], np.float32), None, (dy, x), out, grain=8, arena_len=48, out_offset=40)
    with np.errstate(all="ignore"):
        want = ((dy * np.float32(2.0)) + x) * x
    assert_bits_equal(out, want.astype(np.float32))


def _leaky_program():
    body = (V.Muls("t", "dy", Attr("alpha")), V.CompareScalar("m", "x", 0.0, "GT"), V.Select("out", "dy", "t", "m"))
    return Program("Leaky32", (Tensor("dy"), Tensor("x")), Tensor("out"), (Tensor("t"), Tensor("m", "uint8")), body,
                   ("alpha",))


def test_a_process_that_reads_the_launch_back_from_the_cache_runs_it():
    # the launches call the pass by its symbol: a process that reads them back (the parallel one too) registers
    # it before the first launch (a 2-thread launch read back crashed where only the machine was registered)
    import os
    import subprocess
    import sys

    x = np.arange(20000, dtype=np.float32) - 3.5
    run_program(_leaky_program(), [x, x], {"alpha": np.float32(0.5)}, threads=2)   # into the cache
    script = ("import numpy as np\n"
              "from swishgrad_numba.engine.runner import run_program\n"
              "from test_engine_direct32 import _leaky_program\n"
              "x = np.arange(20000, dtype=np.float32) - 3.5\n"
              "out = run_program(_leaky_program(), [x, x], {'alpha': np.float32(0.5)}, threads=2)\n"
              "print(out.tobytes().hex())\n")
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([here, os.path.dirname(here), os.environ.get("PYTHONPATH", "")]))
    got = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=900)
    assert got.returncode == 0, got.stderr[-2000:]
    assert got.stdout.split()[-1] == np.where(x > 0, x, x * np.float32(0.5)).astype(np.float32).tobytes().hex()
