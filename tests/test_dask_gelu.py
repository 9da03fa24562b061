"""swishgrad_numba.dask.gelu and gelu_backward: block by block, bit for bit the plain references."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import swishgrad_numba as sg  # noqa: E402
import swishgrad_numba.dask as sgd  # noqa: E402
from reference import assert_bits_equal  # noqa: E402
from reference_activations import ref_gelu, ref_gelu_backward  # noqa: E402

PLATFORMS = {"a2": sg.REFERENCE_PLATFORM, "arch35": sg.ASCEND950_PLATFORM}


@pytest.mark.parametrize("kernel", list(PLATFORMS))
def test_gelu_and_backward_block_by_block(kernel):
    rng = np.random.default_rng(8)
    x = rng.uniform(-9, 9, (120, 21)).astype(np.float16)
    g = rng.uniform(-2, 2, (120, 21)).astype(np.float16)
    lazy = sgd.gelu(da.from_array(x, chunks=(50, 7)), platform=PLATFORMS[kernel])
    assert_bits_equal(lazy.compute(scheduler="synchronous"), ref_gelu(x, kernel))
    lazy = sgd.gelu_backward(da.from_array(g, chunks=(40, 21)), da.from_array(x, chunks=(50, 7)),
                             platform=PLATFORMS[kernel])
    assert_bits_equal(lazy.compute(scheduler="synchronous"), ref_gelu_backward(g, x, kernel))
    assert {"gelu", "gelu_backward"} <= set(sgd.__all__)
