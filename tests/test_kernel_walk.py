"""The generic pass walk (swishgrad_numba.kernel.walk), with pass functions of the tests' own.

The walk knows no operator: what a pass computes is registered per
parameter class. These tests register two toy operators here (a one-input
and a two-input one) and check, against plain NumPy, that every launch plan
(the cores of random core classes, over 1, 2 and 5 host threads) computes
every element inside the tensor once, leaves the inputs alone and writes
nothing outside the output.
"""
from typing import NamedTuple

import numpy as np
import pytest
from numba import njit

from swishgrad_numba import kernel
from swishgrad_numba.kernel import plan as kplan
from swishgrad_numba.kernel import walk
from swishgrad_numba.spec.arith import CoreClass


class AffinePass(NamedTuple):
    """Toy one-input operator: ``out = x * scale + 1`` (float32)."""

    scale: np.float32


class DifferencePass(NamedTuple):
    """Toy two-input operator: ``out = a - 2 b`` with ``work`` used in between."""

    two: np.float32


@walk.register_pass(AffinePass)
@njit(cache=True, inline="always")
def _affine_pass(params, in_bufs, o_buf, work, a, b):
    for j in range(a, b):
        o_buf[j] = in_bufs[0][j] * params.scale + np.float32(1.0)


@walk.register_pass(DifferencePass)
@njit(cache=True, inline="always")
def _difference_pass(params, in_bufs, o_buf, work, a, b):
    for j in range(a, b):
        work[1][j] = in_bufs[1][j] * params.two
    for j in range(a, b):
        o_buf[j] = in_bufs[0][j] - work[1][j]


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
        kernel.run_walk(AffinePass(np.float32(3.0)), (x,), out, launch_plan)
        np.testing.assert_array_equal(out, x * np.float32(3.0) + np.float32(1.0), err_msg=str(trial))
        kernel.run_walk(DifferencePass(np.float32(2.0)), (x, y), out, launch_plan)
        np.testing.assert_array_equal(out, x - y * np.float32(2.0), err_msg=str(trial))
        assert np.isnan(guard[:32]).all() and np.isnan(guard[32 + numel:]).all()


def test_a_pass_past_the_tensor_leaves_the_inputs_alone():
    # One core whose single pass runs 10 elements past a 7-element tensor
    # (A2 block padding): only the 7 come back, and the inputs are unchanged
    # (a pass function may overwrite its local buffers, never the inputs).
    numel = 7
    runs = kplan.core_runs([CoreClass(0, 1, 0, 17, 1, 17, 17)], numel)
    launch_plan = kplan.plan(runs, numel, 1)
    assert launch_plan.capacity >= 17
    x = np.arange(1, 8, dtype=np.float32)
    before = x.copy()
    out = np.zeros(numel, np.float32)
    kernel.run_walk(AffinePass(np.float32(0.5)), (x,), out, launch_plan)
    np.testing.assert_array_equal(x, before)
    np.testing.assert_array_equal(out, x * np.float32(0.5) + 1)


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


def test_only_the_packages_own_passes_are_cached_on_disk():
    # A cached launch is keyed by the params' class; a class from outside
    # the package (these tests' toys) would put its name into the package's
    # on-disk index, where another process cannot import it, and its pass
    # is not covered by the package's source stamp. So those compile per process.
    from swishgrad_numba.program import compiled
    from swishgrad_numba.spec import a2 as spec_a2

    package_params = compiled("swish_grad", "a2", "float32").params(beta=1.0)
    assert walk.launchers(package_params) == (walk.launch_serial, walk.launch_bins)
    serial, bins = walk.launchers(AffinePass(np.float32(1.0)))
    assert type(serial._cache).__name__ == type(bins._cache).__name__ == "NullCache"
    n = 1 << 16   # 8 cores of 8 tiles of 1024: parallel bins
    fields = spec_a2.TilingFields(smallCoreDataNum=n // 8, bigCoreDataNum=n // 8, finalBigTileNum=8,
                                  finalSmallTileNum=8, tileDataNum=1024, smallTailDataNum=1024,
                                  bigTailDataNum=1024, tailBlockNum=0)
    launch_plan = kernel.plan_launch(fields, 8, kernel.ARCH_A2, n, threads=2)
    assert len(launch_plan.bins) == 3
    out = np.empty(n, np.float32)
    kernel.run_walk(AffinePass(np.float32(2.0)), (np.ones(n, np.float32),), out, launch_plan)
    assert (out == 3).all()
    for dispatcher in (walk.launch_bins, walk.launch_serial):
        try:
            with open(dispatcher._cache._cache_file._index_path, "rb") as f:
                index = f.read()
        except FileNotFoundError:
            continue
        assert b"AffinePass" not in index and b"DifferencePass" not in index
