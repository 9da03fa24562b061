"""The emulated kernel against the step-by-step NumPy reference, bit for bit."""
import numpy as np
import pytest

import swishgrad_numba as sg
from swishgrad_numba.engine.runner import DEFAULT_GRAIN
from reference import (DTYPES, assert_bits_equal, near_rounding_boundary, random_inputs, ref_swish_grad,
                       ref_swish_grad_950)

BETAS = [1.0, 1.1, 0.0, -0.0, -1.0, -842.45, 878.97, 300.0, 1e-3, 2.5, np.inf, np.nan]


def test_seed_example():
    g = np.ones(6, np.float32)
    x = np.arange(1, 7, dtype=np.float32)
    out = sg.swish_backward(g, x, 1.1)
    assert_bits_equal(out, ref_swish_grad(g, x, 1.1))
    np.testing.assert_allclose(out, [0.95636696, 1.0978101, 1.0776381, 1.0405896, 1.0182244, 1.0075958], rtol=1e-7)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("beta", BETAS, ids=str)
def test_random_against_reference(dtype, beta):
    rng = np.random.default_rng(abs(hash((dtype, str(beta)))) % 2**32)
    n = int(rng.integers(1, 40000))
    g, x = random_inputs(rng, n, dtype)
    assert_bits_equal(sg.swish_backward(g, x, beta), ref_swish_grad(g, x, beta), f"{dtype} beta={beta} n={n}")


@pytest.mark.parametrize("platform", [sg.Platform(), sg.ASCEND950_PLATFORM], ids=["a2", "950"])
def test_exact_exp_elements_scattered_among_fast_ones(platform):
    # Elements whose e**-x lies near a binary32 rounding boundary take the
    # Exp's exact path; the kernel finds and redoes only those, so they are
    # placed singly and in runs, at the starts and ends of the engine's blocks, among ordinary ones.
    rng = np.random.default_rng(7)
    pool = rng.uniform(-12, 12, 1 << 22).astype(np.float32)
    near = pool[near_rounding_boundary(np.exp(-pool.astype(np.float64)), rel=2.0**-36)]
    assert near.size > 100
    n = 3 * 7016 + 517
    x = rng.uniform(-12, 12, n).astype(np.float32)
    block = DEFAULT_GRAIN
    spots = [0, 1, block - 1, block, 5 * block + 7, 7015, 7016, n - 1] + list(range(900, 940))
    spots += list(rng.integers(0, n, 60))
    x[spots] = rng.choice(near, len(spots))
    g = rng.standard_normal(n).astype(np.float32)
    ref = ref_swish_grad_950 if platform.architecture == "arch35" else ref_swish_grad
    assert_bits_equal(sg.swish_backward(g, x, 1.0, platform=platform), ref(g, x, 1.0))


def _boundary_sizes(itemsize):
    sizes = set()
    block_elems = 32 // itemsize
    tile = 7016 if itemsize == 4 else 8192
    # The engine computes a pass in blocks of its grain: sizes around one and a few blocks too.
    block = DEFAULT_GRAIN
    for base in (block_elems, block, 3 * block, tile, 2 * tile, 48 * block_elems, 48 * tile, 48 * tile + tile,
                 3 * 48 * tile):
        for d in (-block_elems - 1, -1, 0, 1, block_elems - 1, block_elems + 1):
            if base + d > 0:
                sizes.add(base + d)
    return sorted(sizes)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_sizes_around_tile_and_block_boundaries(dtype):
    rng = np.random.default_rng(7)
    for n in _boundary_sizes(DTYPES[dtype].itemsize):
        g, x = random_inputs(rng, n, dtype, special_fraction=0.01)
        assert_bits_equal(sg.swish_backward(g, x, 1.1), ref_swish_grad(g, x, 1.1), f"n={n}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_every_16bit_x(dtype):
    """All 65536 x patterns, several grads and betas."""
    dt = DTYPES[dtype]
    x = np.arange(65536, dtype=np.uint16).view(dt)
    rng = np.random.default_rng(3)
    for beta in (1.0, -1.5, 878.97):
        g = rng.uniform(-5, 5, 65536).astype(np.float32).astype(dt)
        assert_bits_equal(sg.swish_backward(g, x, beta), ref_swish_grad(g, x, beta), f"beta={beta}")


from hypothesis import given, settings, strategies as st  # noqa: E402

_f32 = st.floats(width=32, allow_nan=True, allow_infinity=True, allow_subnormal=True)


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from(list(DTYPES)), beta=_f32,
       values=st.lists(st.tuples(_f32, _f32), min_size=1, max_size=300))
def test_property_any_float_inputs(dtype, beta, values):
    g = np.array([v[0] for v in values], np.float32)
    x = np.array([v[1] for v in values], np.float32)
    with np.errstate(over="ignore"):
        g, x = g.astype(DTYPES[dtype]), x.astype(DTYPES[dtype])
    assert_bits_equal(sg.swish_backward(g, x, beta), ref_swish_grad(g, x, beta))


def _passes_by_hand(classes, numel):
    """Every pass a launch runs inside the tensor, core by core in order, from the classes' fields:
    (offset, length) of each pass that starts inside the tensor."""
    out = []
    for c in classes:
        for k in range(c.cores):
            start = c.base + c.count * k
            for p in range(c.passes):
                offset = start + p * c.pass_len
                length = c.tail if p == c.passes - 1 else c.pass_len
                if offset < numel and length:
                    out.append((offset, length))
    return out


def _passes_of_plan(pieces, numel):
    out = []
    for start, cores, stride, passes, pass_len, last_len in pieces.tolist():
        for c in range(cores):
            for p in range(passes):
                offset = start + c * stride + p * pass_len
                length = last_len if p == passes - 1 else pass_len
                if offset < numel and length:
                    out.append((offset, length))
    return out


def test_plan_runs_every_pass_once_in_balanced_bins_without_listing_cores():
    """Issue 22 item 4: the plan groups a class's cores (at most three pieces per class and bin),
    runs exactly the passes that start inside the tensor, and balances the bins to a pass."""
    from swishgrad_numba.kernel import plan as kplan
    from swishgrad_numba.spec.arith import CoreClass

    rng = np.random.default_rng(22)
    for trial in range(300):
        numel = int(rng.integers(1, 3000))
        classes = []
        first = 0
        for _ in range(int(rng.integers(1, 4))):
            cores = int(rng.integers(0, 40))
            classes.append(CoreClass(first, cores, int(rng.integers(0, numel + 50)), int(rng.integers(0, 300)),
                                     int(rng.integers(0, 12)), int(rng.integers(0, 200)), int(rng.integers(0, 250))))
            first += cores
        threads = int(rng.integers(1, 9))
        pl = kplan.plan(kplan.core_runs(classes, numel), numel, threads)
        got = _passes_of_plan(pl.pieces, numel)
        assert sorted(got) == sorted(_passes_by_hand(classes, numel)), trial
        assert len(pl.bins) == threads + 1 and len(pl.pieces) <= 3 * len(classes) * threads
        inside = [sum(min(length, numel - off) for off, length in
                      _passes_of_plan(pl.pieces[pl.bins[i]:pl.bins[i + 1]], numel)) for i in range(threads)]
        assert sum(inside) == pl.elements
        longest = max((length for _, length in got), default=0)
        for work in inside:
            assert abs(work - pl.elements / threads) <= longest + 1, (trial, inside)
