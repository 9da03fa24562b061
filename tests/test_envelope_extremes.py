"""The envelope's bounds from the shifts' extremes (issue 38, 6h): where an operator's output is a
monotone chain of its shifted Exp / Div results, 2^m combinations give the same bounds as the
(2K+1)^m of the full enumeration; elsewhere every combination is run."""
from __future__ import annotations

import numpy as np
import pytest

from reference import BF16, SPECIALS
from swishgrad_numba.program import Const, Program, Tensor
from swishgrad_numba.program.envelope import program_envelope
from swishgrad_numba.program.form import V
from swishgrad_numba.program.lower import ENVELOPE_FREE, lower
from swishgrad_numba.program.monotone import monotone_in_shifts

DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16}


def _same(a, b):
    u = f"u{a.dtype.itemsize}"
    return a.dtype == b.dtype and np.array_equal(a.view(u), b.view(u))


def _both(op, inputs, attrs, arch, budget, variant="main"):
    budgets = {"exp_ulp": budget, "div_ulp": budget, "ln_ulp": budget}
    full = program_envelope(op, inputs, attrs, arch, variant, budgets=budgets, extremes=False)
    fast = program_envelope(op, inputs, attrs, arch, variant, budgets=budgets)
    assert _same(fast.lo, full.lo) and _same(fast.hi, full.hi)
    assert np.array_equal(fast.nan_reachable, full.nan_reachable)
    assert full.bounds_combinations == full.combinations == fast.combinations
    return fast, full


def _f32_sample(n, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 3, n)).astype(np.float32)
    x[:len(SPECIALS)] = np.asarray(SPECIALS, dtype=np.float32)
    m = min(200, n - len(SPECIALS))
    x[len(SPECIALS):len(SPECIALS) + m] = np.linspace(-120, 120, m, dtype=np.float32)
    # where Exp(-x * s) is within a few ulps of overflowing (s = 1, 1.7): a shift runs past inf there
    edges = np.array([-88.72283935546875, -88.72283935546875 / 1.7], dtype=np.float32).view(np.int32)
    near = (edges[:, None] + np.arange(-8, 9, dtype=np.int32)).ravel().view(np.float32)
    x[-near.size:] = near
    return x


@pytest.mark.parametrize("arch", ["a2", "arch35"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_sigmoid_bounds_from_the_extremes_over_every_16_bit_input(dtype, arch):
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(DTYPES[dtype])
    fast, full = _both("sigmoid", (x,), {}, arch, 6)
    assert fast.freed == ("Exp", "Div") and fast.bounds_combinations == 4 and full.combinations == 13 ** 2


@pytest.mark.parametrize("op, attrs, arch", [("sigmoid", {}, "a2"), ("swish", {"scale": np.float32(1.7)}, "a2"),
                                             ("silu", {"scale": np.float32(1.0)}, "arch35"),
                                             ("gelu", {}, "a2"), ("gelu", {}, "arch35")])
def test_float32_bounds_from_the_extremes_at_the_largest_budget(op, attrs, arch):
    from swishgrad_numba.ops import get_operator
    from swishgrad_numba.platform import ASCEND950_PLATFORM, REFERENCE_PLATFORM

    platform = ASCEND950_PLATFORM if arch == "arch35" else REFERENCE_PLATFORM
    variant = get_operator(op).variant(platform, attrs.get("scale", 1.0))
    x = _f32_sample(1500, len(op))
    fast, full = _both(op, (x,), attrs, arch, 64, variant)
    roundings = len(full.axpy_roundings)
    assert full.combinations == roundings * 129 ** 2 == 16_641 * roundings
    assert fast.bounds_combinations == 4 * roundings


def test_a_program_not_monotone_in_its_shifts_runs_every_combination():
    g = np.linspace(-3, 3, 64, dtype=np.float32)
    x = _f32_sample(64, 3)
    fast, full = _both("swish_grad", (g, x), {"beta": np.float32(1.0)}, "a2", 2)
    assert fast.bounds_combinations == fast.combinations == 25


def _program(*body):
    return lower(Program("P", (Tensor("x"),), Tensor("out"), (Tensor("t"), Tensor("s"), Tensor("m", "uint8")),
                         body), free=ENVELOPE_FREE)


@pytest.mark.parametrize("body, monotone", [
    ((V.Exp("t", "x"), V.Adds("t", "t", 1.0), V.Duplicate("s", 1.0), V.Div("out", "s", "t")), True),
    # the divisor may reach 0 inside the interval: 1 / (e - 1)
    ((V.Exp("t", "x"), V.Adds("t", "t", -1.0), V.Duplicate("s", 1.0), V.Div("out", "s", "t")), False),
    # s (1 - s): the shifted value read twice
    ((V.Exp("t", "x"), V.Adds("t", "t", 1.0), V.Duplicate("s", 1.0), V.Div("t", "s", "t"), V.Muls("s", "t", -1.0),
      V.Adds("s", "s", 1.0), V.Mul("out", "t", "s")), False),
    # a Select on a mask of the shifted value
    ((V.Exp("t", "x"), V.CompareScalar("m", "t", 2.0, "GT"), V.Select("out", "t", "x", "m")), False),
    # two shifted results meeting: e^x + e^-x
    ((V.Exp("t", "x"), V.Muls("s", "x", -1.0), V.Exp("s", "s"), V.Add("out", "t", "s")), False),
    # Ln of a value known > 0, then a product by an input
    ((V.Exp("t", "x"), V.Adds("t", "t", 1.0), V.Ln("t", "t"), V.Mul("out", "t", "x")), False),
    ((V.Exp("t", "x"), V.Adds("t", "t", 1.0), V.Ln("t", "t"), V.Add("out", "t", "x")), True),
    ((V.Muls("t", "x", Const.of(2.0)), V.Exp("t", "t"), V.Mul("out", "t", "x")), True),
])
def test_the_chain_rule_of_monotone_in_shifts(body, monotone):
    assert monotone_in_shifts(_program(*body), {}) is monotone


def _shift_by_hand(c: np.float32, k: int) -> int:
    """The binary32 bits ``k`` steps from ``c`` on the ordered line (both zeros one point), stopped at
    the end it runs into: +-inf, or the zero of ``c``'s sign (a step never crosses zero)."""
    b = int(np.float32(c).view(np.uint32))
    neg, mag = b >> 31, b & 0x7FFFFFFF
    if mag > 0x7F800000:
        return b
    o = (-mag if neg else mag) + k
    o = max(-0x7F800000, min(o, 0)) if neg else max(0, min(o, 0x7F800000))
    return (neg << 31) | abs(o)


def test_the_ulp_shift_stops_at_the_end_it_runs_into_and_is_monotone():
    from swishgrad_numba.kernel.envelope import ulp_shift

    f = np.float32
    cs = [f(3.4028235e38), np.nextafter(f(3.4028235e38), f(0)), f(np.inf), f(-np.inf), f(0.0), f(-0.0),
          f(3e-45), f(-4e-45), f(1.0), f(-2.5), f(np.nan), f(1.2e-38)]
    for c in cs:
        got = [int(np.float32(ulp_shift(c, f(k), f(0))).view(np.uint32)) for k in range(-8, 9)]
        assert got == [_shift_by_hand(c, k) for k in range(-8, 9)], c
        if c == c:   # monotone in k on the ordered line
            line = [-(g & 0x7FFFFFFF) if g >> 31 else g for g in got]
            assert line == sorted(line), c
