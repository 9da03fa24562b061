"""Cast float32 -> float32 (``Cast<float, float>``, issue 43): each element rounded to a whole float32 by CAST_RINT,
CAST_FLOOR, CAST_CEIL, CAST_ROUND (ties away from zero) or CAST_TRUNC, bit for bit against a plain per-element
reference in Python's own arithmetic (a float32 is exact in a Python float): every float16 value widened, a
float32 sweep with the specials, +-0, subnormals, huge values, .5 ties and their neighbours; saturation mode;
on the engine against the interpreter; the form's refusals."""
import math

import numpy as np
import pytest
from numba import njit

from reference import assert_bits_equal

from swishgrad_numba.program import semantics as S
from swishgrad_numba.program.isa import WHOLE_ROUND_MODES

MODES = ("CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC")
_FMAX = float(np.finfo(np.float32).max)


def _reference(x: float, mode: str, saturation: bool) -> float:
    """One element, in Python floats: NaN and +-inf as they are, a whole number's sign that of ``x``."""
    if x != x:
        r = x
    elif math.isinf(x):
        r = x
    else:
        a = abs(x)
        down = float(math.floor(a))
        if mode == "CAST_TRUNC":
            m = down
        elif mode == "CAST_FLOOR":
            m = down if (x >= 0 or a == down) else down + 1.0
        elif mode == "CAST_CEIL":
            m = down if (x <= 0 or a == down) else down + 1.0
        elif mode == "CAST_ROUND":
            m = down + 1.0 if a - down >= 0.5 else down
        else:                         # CAST_RINT: the nearer, a tie to the even one
            frac = a - down
            m = down + 1.0 if (frac > 0.5 or (frac == 0.5 and down % 2 == 1)) else down
        r = math.copysign(m, x)
    if saturation:
        r = 0.0 if r != r else max(-_FMAX, min(_FMAX, r))
    return r


def _expected(src: np.ndarray, mode: str, saturation: bool) -> np.ndarray:
    return np.array([_reference(float(v), mode, saturation) for v in src], np.float32)


@njit(cache=True)
def _run(src, how, sat, out):
    for i in range(src.size):
        out[i] = S.cast_whole(src[i], how, sat)


def _f32_sweep():
    rng = np.random.default_rng(4343)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 1.1754942e-38, -1.1754942e-38,
               3.4028235e38, -3.4028235e38, 0.49999997, -0.49999997, 0.50000006, 2.0 ** 23, 2.0 ** 23 - 0.5,
               -(2.0 ** 23 - 0.5), 2.0 ** 23 + 1, 2.0 ** 24, 2.0 ** 31, -(2.0 ** 31) - 256, 1e30, -1e30]
    ties = [k + 0.5 for k in range(-40, 40)] + [k + d for k in range(-6, 7) for d in (0.25, 0.75, 0.4999, 0.5001)]
    ties += [2.0 ** e + 0.5 for e in range(1, 23)] + [-(2.0 ** e) - 0.5 for e in range(1, 23)]
    patterns = rng.integers(0, 1 << 32, 100000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    moderate = (rng.standard_normal(20000) * 100).astype(np.float32)
    return np.concatenate([np.array(special + ties, np.float32), patterns, moderate])


def _sources():
    yield "float16", np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float32)
    yield "float32", _f32_sweep()


@pytest.mark.parametrize("saturation", [False, True], ids=["infnan", "saturation"])
@pytest.mark.parametrize("mode", MODES)
def test_every_half_and_a_float32_sweep(mode, saturation):
    how = WHOLE_ROUND_MODES.index(mode)
    for name, src in _sources():
        out = np.empty_like(src)
        _run(src, how, saturation, out)
        assert_bits_equal(out, _expected(src, mode, saturation), f"{name} {mode} sat {saturation}")


def test_the_modes_differ_where_they_should():
    x = np.float32([2.5, -2.5, -0.3, 0.5, -0.5])
    got = {}
    for mode in MODES:
        out = np.empty_like(x)
        _run(x, WHOLE_ROUND_MODES.index(mode), False, out)
        got[mode] = out.tolist()
    assert got["CAST_RINT"] == [2.0, -2.0, -0.0, 0.0, -0.0]
    assert got["CAST_ROUND"] == [3.0, -3.0, -0.0, 1.0, -1.0]
    assert got["CAST_FLOOR"] == [2.0, -3.0, -1.0, 0.0, -1.0]
    assert got["CAST_CEIL"] == [3.0, -2.0, -0.0, 1.0, -0.0]
    assert got["CAST_TRUNC"] == [2.0, -2.0, -0.0, 0.0, -0.0]
    assert math.copysign(1.0, got["CAST_CEIL"][2]) == -1.0       # the sign kept: -0.0


def _programs():
    from swishgrad_numba.program import Attr, Program, Tensor
    from swishgrad_numba.program.form import V

    for mode in MODES:     # float32: scale, round, shift
        yield "float32", Program(f"Whole_{mode}", (Tensor("x", "float32"),), Tensor("out", "float32"),
                                 (Tensor("t"),), (V.Muls("t", "x", Attr("alpha")), V.Cast("t", "t", mode),
                                                  V.Adds("out", "t", Attr("alpha"))), ("alpha",))
    for mode in MODES:     # half: widened, rounded, narrowed (the library's Round / Floor on half)
        yield "float16", Program(f"WholeHalf_{mode}", (Tensor("x", "float16"),), Tensor("out", "float16"),
                                 (Tensor("t"),), (V.Cast("t", "x", "CAST_NONE"), V.Muls("t", "t", Attr("alpha")),
                                                  V.Cast("t", "t", mode), V.Cast("out", "t", "CAST_RINT")),
                                 ("alpha",))


@pytest.mark.parametrize("saturation", [False, True], ids=["infnan", "saturation"])
def test_the_engine_runs_it_as_interpreted(saturation):
    from program_interpreter import interpret
    from swishgrad_numba.engine.runner import run_program

    f32 = _f32_sweep()[:30000]
    for i, (dtype, program) in enumerate(_programs()):
        x = f32 if dtype == "float32" else np.arange(65536, dtype=np.uint16).view(np.float16)
        for alpha in (np.float32(1.0), np.float32(-0.75)):
            got = run_program(program, [x], {"alpha": alpha}, saturation, grain=512)
            with np.errstate(all="ignore"):
                want = interpret(program, {"x": x}, {"alpha": alpha}, saturation)
            assert_bits_equal(got, want, f"{program.name} {alpha}")


def test_the_interpreter_agrees_with_the_plain_reference():
    from program_interpreter import interpret
    from swishgrad_numba.program import Program, Tensor
    from swishgrad_numba.program.form import V

    x = _f32_sweep()[:5000]
    for mode in MODES:
        p = Program("W", (Tensor("x", "float32"),), Tensor("out", "float32"), (), (V.Cast("out", "x", mode),), ())
        assert_bits_equal(interpret(p, {"x": x}, {}, False), _expected(x, mode, False), mode)


@pytest.mark.parametrize("dst, src, mode, says", [
    ("float32", "float32", "CAST_NONE", "rounds to a whole number"),
    ("float32", "float32", "CAST_ODD", "rounds to a whole number"),
    ("float16", "float16", "CAST_RINT", "a Cast widens 16-bit to float32"),
])
def test_the_form_refuses_what_the_a2_lacks(dst, src, mode, says):
    from swishgrad_numba.program import Program, Tensor
    from swishgrad_numba.program.form import V

    with pytest.raises(ValueError, match=says):
        Program("W", (Tensor("x", src),), Tensor("out", dst), (), (V.Cast("out", "x", mode),), ())
