"""The walks' shared parts (swishgrad_numba.kernel.walk) and the planned flat launch (kernel.run_walk).

The walks know no operator: a compiled program's launches go by the route registered for its parameters'
class (on the engine), and the broadcast walk calls the pass function registered for its parameters'. These
tests compile two toy programs here (a one-input and a two-input one) and check, against plain NumPy, that
every launch plan (the cores of random core classes, over 1, 2 and 5 host threads) computes every element
inside the tensor once, leaves the inputs alone and writes nothing outside the output; and what the
registries refuse.
"""
from typing import NamedTuple

import numpy as np
import pytest
from numba import njit

from swishgrad_numba import kernel
from swishgrad_numba.kernel import plan as kplan
from swishgrad_numba.kernel import walk
from swishgrad_numba.program import Attr, Program, Tensor
from swishgrad_numba.program.form import V
from swishgrad_numba.program.passes import compile_program
from swishgrad_numba.spec.arith import CoreClass

#: Toy one-input program: ``out = x * scale + 1`` (float32).
AFFINE = compile_program(Program("Affine", (Tensor("x"),), Tensor("out"), (Tensor("t"),),
                                 (V.Muls("t", "x", Attr("scale")), V.Adds("out", "t", 1.0)), ("scale",)),
                         "float32", module=__name__)
#: Toy two-input program: ``out = a - 2 b`` with a local in between.
DIFFERENCE = compile_program(Program("Difference", (Tensor("a"), Tensor("b")), Tensor("out"), (Tensor("t"),),
                                     (V.Muls("t", "b", 2.0), V.Sub("out", "a", "t"))), "float32", module=__name__)


class AffinePass(NamedTuple):
    """A pass function's parameters of the tests' own (no compiled program)."""

    scale: np.float32


@walk.register_pass(AffinePass)
@njit(cache=True, inline="always")
def _affine_pass(params, in_bufs, o_buf, work, a, b):
    for j in range(a, b):
        o_buf[j] = in_bufs[0][j] * params.scale + np.float32(1.0)


@njit(cache=True, inline="always")
def _difference_pass(params, in_bufs, o_buf, work, a, b):
    for j in range(a, b):
        o_buf[j] = in_bufs[0][j] - in_bufs[1][j]


def _random_launch(rng, numel):
    """Core classes of a well-formed walk over ``numel`` elements (abutting cores, the last one's
    last pass possibly running past the tensor), as the generic plan takes them."""
    classes, start, first = [], 0, 0
    while start < numel:
        pass_len = int(rng.integers(1, 300))
        passes = int(rng.integers(1, 6))
        tail = int(rng.integers(1, pass_len + 1))
        length = (passes - 1) * pass_len + tail
        cores = int(rng.integers(1, 6))
        classes.append(CoreClass(first, cores, start, length, passes, pass_len, tail))
        start += cores * length
        first += cores
    return classes


@pytest.mark.parametrize("threads", [1, 2, 5])
def test_every_element_once_whatever_the_plan(threads):
    rng = np.random.default_rng(threads)
    for trial in range(40):
        numel = int(rng.integers(1, 5000))
        runs = kplan.core_runs(_random_launch(rng, numel), numel)
        launch_plan = kplan.plan(runs, numel, threads)
        x = rng.standard_normal(numel).astype(np.float32)
        y = rng.standard_normal(numel).astype(np.float32)
        guard = np.full(numel + 64, np.nan, np.float32)   # out is the middle; the rest must stay NaN
        out = guard[32:32 + numel]
        kernel.run_walk(AFFINE.params(scale=3.0), (x,), out, launch_plan)
        np.testing.assert_array_equal(out, x * np.float32(3.0) + np.float32(1.0), err_msg=str(trial))
        kernel.run_walk(DIFFERENCE.params(), (x, y), out, launch_plan)
        np.testing.assert_array_equal(out, x - y * np.float32(2.0), err_msg=str(trial))
        assert np.isnan(guard[:32]).all() and np.isnan(guard[32 + numel:]).all()


def test_a_pass_past_the_tensor_leaves_the_inputs_alone():
    # One core whose single pass runs 10 elements past a 7-element tensor
    # (A2 block padding): only the 7 come back, and the inputs are unchanged.
    numel = 7
    runs = kplan.core_runs([CoreClass(0, 1, 0, 17, 1, 17, 17)], numel)
    launch_plan = kplan.plan(runs, numel, 1)
    assert launch_plan.capacity >= 17
    x = np.arange(1, 8, dtype=np.float32)
    before = x.copy()
    out = np.zeros(numel, np.float32)
    kernel.run_walk(AFFINE.params(scale=0.5), (x,), out, launch_plan)
    np.testing.assert_array_equal(x, before)
    np.testing.assert_array_equal(out, x * np.float32(0.5) + 1)


def test_run_walk_refuses_parameters_of_no_compiled_program():
    # a pass function's parameters of the tests' own have no route: the flat launch is the engine's
    n = 64
    launch_plan = kplan.plan([kplan.CoreRun(0, 1, 0, 1, n, n, n)], n, 1)
    out = np.zeros(n, np.float32)
    with pytest.raises(TypeError, match="compiled program's launch parameters.*AffinePass"):
        kernel.run_walk(AffinePass(np.float32(1)), (np.ones(n, np.float32),), out, launch_plan)
    assert (out == 0).all()


def test_register_pass_checks_what_it_is_given():
    class Other(NamedTuple):
        v: float

    with pytest.raises(TypeError, match="NamedTuple"):
        walk.register_pass(tuple)
    with pytest.raises(TypeError, match="jitted"):
        walk.register_pass(Other)(lambda params, in_bufs, o_buf, work, a, b: None)

    @njit(cache=False)
    def wrong_names(params, ins, out, work, a, b):
        pass

    with pytest.raises(TypeError, match="takes"):
        walk.register_pass(Other)(wrong_names)
    with pytest.raises(ValueError, match="registered already"):
        walk.register_pass(AffinePass)(_difference_pass)
