"""swishgrad_numba/engine/runner.py: a :class:`Prepared` program's launch arguments, kept per attribute values.

The kept ``(scalars, tables)`` are keyed by the attribute values' float32 bits: values that compare equal but
differ in their bits (0.0 and -0.0, NaNs of other payloads) get their own, so a launch never runs with another
value's scalars. Results are compared bit for bit against plain NumPy float32 arithmetic.
"""
from __future__ import annotations

import numpy as np

from reference import assert_bits_equal
from swishgrad_numba.engine.runner import Prepared
from swishgrad_numba.kernel import plan as kernel_plan
from swishgrad_numba.program import Attr, Program, Tensor
from swishgrad_numba.program.form import V
from swishgrad_numba.program.lower import lower

N = 3000


def _prepared() -> Prepared:
    # out = x * alpha + beta: the sign of a zero product and a NaN's payload pass through to the bits
    program = Program("Scaled", (Tensor("x"),), Tensor("out"), (Tensor("t"),),
                      (V.Muls("t", "x", Attr("alpha")), V.Adds("out", "t", Attr("beta"))), ("alpha", "beta"))
    return Prepared(lower(program), False)


def _run(prepared: Prepared, x: np.ndarray, alpha, beta) -> np.ndarray:
    out = np.empty_like(x)
    runs = [kernel_plan.CoreRun(0, 1, 0, 1, N, N, N)]
    prepared.run((x,), out, kernel_plan.plan(runs, N, 1), {"alpha": alpha, "beta": beta})
    return out


def _reference(x: np.ndarray, alpha, beta) -> np.ndarray:
    with np.errstate(all="ignore"):
        return (x * np.float32(alpha)).astype(np.float32) + np.float32(beta)


def _nan(payload: int) -> np.float32:
    return np.array([0x7FC00000 + payload], np.uint32).view(np.float32)[0]


def test_attribute_values_of_other_bits_get_their_own_launch_arguments():
    prepared = _prepared()
    x = np.linspace(0.0, 4.0, N).astype(np.float32)   # x * 0.0 is +0.0 or -0.0 by alpha's sign alone
    cases = [(0.0, 0.0), (-0.0, 0.0), (0.0, -0.0), (-0.0, -0.0), (0.0, 0.0), (-0.0, -0.0), (-0.0, 0.0)]
    for alpha, beta in cases:   # each value again later: then served from what was kept
        got = _run(prepared, x, np.float32(alpha), np.float32(beta))
        assert_bits_equal(got, _reference(x, alpha, beta), f"alpha {alpha!r} beta {beta!r}")
    for payload in (1, 5, 1, 5):   # NaNs never compare equal; their bits pick their own arguments
        assert_bits_equal(_run(prepared, x, np.float32(1.5), _nan(payload)),
                          _run(_prepared(), x, np.float32(1.5), _nan(payload)), f"payload {payload}")
    assert len(prepared._args) == 6


def test_a_kept_launch_gives_the_bits_of_a_fresh_one():
    x = np.random.default_rng(3).uniform(-8, 8, N).astype(np.float32)
    kept = _prepared()
    first = _run(kept, x, np.float32(0.75), np.float32(-2.0))
    again = _run(kept, x, np.float32(0.75), np.float32(-2.0))
    fresh = _run(_prepared(), x, np.float32(0.75), np.float32(-2.0))
    assert_bits_equal(again, first)
    assert_bits_equal(fresh, first)
    assert_bits_equal(first, _reference(x, 0.75, -2.0))


def test_the_kept_launch_arguments_are_bounded():
    prepared = _prepared()
    x = np.ones(N, np.float32)
    for k in range(40):
        got = _run(prepared, x, np.float32(k), np.float32(1.0))
        assert_bits_equal(got, _reference(x, k, 1.0), str(k))
        assert len(prepared._args) <= 16
