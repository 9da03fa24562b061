"""swishgrad_numba.dask.hardswish and hardswish_backward: block by block, bit for bit the plain references
(tests/reference_hardswish.py)."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import swishgrad_numba as sg  # noqa: E402
import swishgrad_numba.dask as sgd  # noqa: E402
from reference import assert_bits_equal  # noqa: E402
from reference_hardswish import ref_hardswish, ref_hardswish_backward  # noqa: E402


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_hardswish_and_backward_block_by_block(dtype):
    rng = np.random.default_rng(43)
    x = rng.uniform(-5, 5, (70, 13)).astype(dtype)
    x[0, :5] = [3.0, -3.0, -np.inf, np.nan, -0.0]
    g = rng.uniform(-2, 2, (70, 13)).astype(dtype)
    lazy = sgd.hardswish(da.from_array(x, chunks=(30, 5)))
    assert_bits_equal(lazy.compute(scheduler="synchronous"), ref_hardswish(x))
    for platform, kernel in ((sg.REFERENCE_PLATFORM, "a2"), (sg.ASCEND950_PLATFORM, "arch35")):
        lazy = sgd.hardswish_backward(da.from_array(g, chunks=(20, 13)), x, platform=platform)
        assert_bits_equal(lazy.compute(scheduler="synchronous"), ref_hardswish_backward(g, x, kernel))
    assert {"hardswish", "hardswish_backward"} <= set(sgd.__all__)


def test_refusals_when_the_graph_is_built():
    with pytest.raises(ValueError, match="cannot run hardswish"):
        sgd.hardswish(da.ones(4, chunks=2, dtype=np.float32), platform=sg.REFERENCE_PLATFORM)
    with pytest.raises(ValueError, match="same shape"):
        sgd.hardswish_backward(da.ones(4, chunks=2, dtype=np.float32), da.ones(5, chunks=2, dtype=np.float32))
