"""The registered operators' programs, through the public functions, in the saturation overflow mode:
bit for bit against the interpreter of tests/program_interpreter.py (its saturation rules are model
section 2's). The Inf/NaN mode of each operator is checked against its own reference elsewhere."""
from __future__ import annotations

import numpy as np
import pytest

import swishgrad_numba as sg
from program_interpreter import interpret
from reference import BF16, SPECIALS, assert_bits_equal
from swishgrad_numba.ops import get_operator

DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16}
SATURATED = sg.Platform(overflow_mode="saturation")


def _values(rng, n, dtype, exhaustive):
    if exhaustive and dtype != "float32":
        return np.arange(65536, dtype=np.uint16).view(DTYPES[dtype])
    v = rng.uniform(-100, 100, n)
    sp = rng.random(n) < 0.2
    v[sp] = rng.choice(SPECIALS, sp.sum())
    with np.errstate(over="ignore"):
        return v.astype(np.float32).astype(DTYPES[dtype])


@pytest.mark.parametrize("beta", [1.0, -1.0, 0.0, 3.5, float("nan")])
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_swish_saturated(dtype, beta):
    x = _values(np.random.default_rng(1), 4099, dtype, exhaustive=True)
    want = interpret(get_operator("swish").program(dtype, SATURATED, beta=beta), {"x": x}, {"scale": beta}, True)
    assert_bits_equal(sg.swish(x, beta, platform=SATURATED), want)
    if beta == 1.0:
        assert_bits_equal(sg.silu(x, platform=SATURATED), want)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_silu_backward_saturated(dtype):
    rng = np.random.default_rng(2)
    x = _values(rng, 4099, dtype, exhaustive=True)
    dy = _values(rng, x.size, dtype, exhaustive=False)
    want = interpret(get_operator("silu_grad").program(dtype, SATURATED), {"dy": dy, "x": x}, {}, True)
    assert_bits_equal(sg.silu_backward(dy, x, platform=SATURATED), want)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_swish_backward_saturated(dtype):
    rng = np.random.default_rng(3)
    x = _values(rng, 4099, dtype, exhaustive=True)
    g = _values(rng, x.size, dtype, exhaustive=False)
    program = get_operator("swish_grad").program(dtype, SATURATED)
    want = interpret(program, {"grad": g, "x": x}, {"beta": 1.5}, True)
    assert_bits_equal(sg.swish_backward(g, x, beta=1.5, platform=SATURATED), want)
