"""swishgrad_numba.dask.elu and elu_backward: block by block, bit for bit the plain references (the A2's
near-one skip: each block a launch of its own)."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import swishgrad_numba as sg  # noqa: E402
import swishgrad_numba.dask as sgd  # noqa: E402
from reference import assert_bits_equal  # noqa: E402
from reference_activations_tier2 import ref_elu, ref_elu_backward  # noqa: E402


def test_elu_and_backward_block_by_block():
    rng = np.random.default_rng(8)
    x = rng.uniform(-9, 9, (120, 21)).astype(np.float16)
    g = rng.uniform(-2, 2, (120, 21)).astype(np.float16)
    lazy = sgd.elu(da.from_array(x, chunks=(50, 7)), 0.5, 2.0, 0.7)
    assert_bits_equal(lazy.compute(scheduler="synchronous"), ref_elu(x, 0.5, 2.0, 0.7))
    for platform, kernel in ((sg.ASCEND950_PLATFORM, "arch35"), (sg.REFERENCE_PLATFORM, "a2")):
        lazy = sgd.elu_backward(da.from_array(g, chunks=(40, 21)), da.from_array(x, chunks=(50, 7)), 0.5, 2.0,
                                0.7, True, platform=platform)
        assert_bits_equal(lazy.compute(scheduler="synchronous"), ref_elu_backward(g, x, 0.5, 2.0, 0.7, True,
                                                                                  kernel=kernel))
    assert {"elu", "elu_backward"} <= set(sgd.__all__)


def test_a2_near_one_blocks_are_launches_of_their_own():
    rng = np.random.default_rng(9)
    x = rng.uniform(-5, 5, 6000).astype(np.float32)
    g = rng.uniform(-2, 2, 6000).astype(np.float32)
    got = sgd.elu_backward(da.from_array(g, chunks=1000), da.from_array(x, chunks=1000), 1.0005, 1.0, 1.0005)
    want = np.concatenate([sg.elu_backward(g[i:i + 1000], x[i:i + 1000], 1.0005, 1.0, 1.0005)
                           for i in range(0, 6000, 1000)])
    assert_bits_equal(got.compute(scheduler="synchronous"), want)
    # 1,000-element launches are SINGLE_TILE (every near-one Muls left out)
    assert_bits_equal(want, ref_elu_backward(g, x, 1.0005, 1.0, 1.0005, kernel="a2", a2_skips="all"))
