"""swishgrad_numba.dask.softplus and softplus_backward: block by block, bit for bit the plain references."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import swishgrad_numba as sg  # noqa: E402
import swishgrad_numba.dask as sgd  # noqa: E402
from reference import assert_bits_equal  # noqa: E402
from reference_activations_tier2 import ref_softplus, ref_softplus_backward  # noqa: E402

PLATFORMS = {"a2": sg.REFERENCE_PLATFORM, "arch35": sg.ASCEND950_PLATFORM}


@pytest.mark.parametrize("kernel", list(PLATFORMS))
def test_softplus_and_backward_block_by_block(kernel):
    rng = np.random.default_rng(8)
    x = rng.uniform(-30, 30, (120, 21)).astype(np.float16)
    g = rng.uniform(-2, 2, (120, 21)).astype(np.float16)
    if kernel == "arch35":
        lazy = sgd.softplus(da.from_array(x, chunks=(50, 7)), 0.5, 4.0)
        assert_bits_equal(lazy.compute(scheduler="synchronous"), ref_softplus(x, 0.5, 4.0))
    else:
        with pytest.raises(ValueError, match="ascend910b"):
            sgd.softplus(da.from_array(x, chunks=(50, 7)), platform=PLATFORMS[kernel])
    lazy = sgd.softplus_backward(da.from_array(g, chunks=(40, 21)), da.from_array(x, chunks=(50, 7)), 0.5, 4.0,
                                 platform=PLATFORMS[kernel])
    assert_bits_equal(lazy.compute(scheduler="synchronous"), ref_softplus_backward(g, x, 0.5, 4.0, kernel))
    assert {"softplus", "softplus_backward"} <= set(sgd.__all__)
