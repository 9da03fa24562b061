"""swishgrad_numba.dask.leaky_relu and leaky_relu_backward: block by block, bit for bit the plain references."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import swishgrad_numba as sg  # noqa: E402
import swishgrad_numba.dask as sgd  # noqa: E402
from reference import assert_bits_equal  # noqa: E402
from reference_activations_tier2 import ref_leaky_relu, ref_leaky_relu_backward  # noqa: E402


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_leaky_relu_and_backward_block_by_block(dtype):
    rng = np.random.default_rng(9)
    x = rng.uniform(-9, 9, (120, 21)).astype(dtype)
    g = rng.uniform(-2, 2, (120, 21)).astype(dtype)
    lazy = sgd.leaky_relu(da.from_array(x, chunks=(50, 7)), -0.3)
    assert_bits_equal(lazy.compute(scheduler="synchronous"), ref_leaky_relu(x, np.float32(-0.3)))
    lazy = sgd.leaky_relu_backward(da.from_array(g, chunks=(40, 21)), da.from_array(x, chunks=(50, 7)), 0.2,
                                   platform=sg.ASCEND950_PLATFORM)
    assert_bits_equal(lazy.compute(scheduler="synchronous"), ref_leaky_relu_backward(g, x, np.float32(0.2)))
    assert {"leaky_relu", "leaky_relu_backward"} <= set(sgd.__all__)


def test_a2_refused_at_once_and_float64():
    with pytest.raises(ValueError, match="cannot run leaky_relu"):
        sgd.leaky_relu(da.ones(4, chunks=2, dtype=np.float32), platform=sg.REFERENCE_PLATFORM)
    x = np.linspace(-2, 2, 9)
    got = sgd.leaky_relu(da.from_array(x, chunks=4), 0.5).compute(scheduler="synchronous")
    assert np.array_equal(got, ref_leaky_relu(x, 0.5, kernel="aicpu"))
