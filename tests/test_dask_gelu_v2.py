"""swishgrad_numba.dask.gelu_v2 and gelu_backward_v2: block by block, bit for bit the plain references."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import reference_activations_tier2 as rb  # noqa: E402
import swishgrad_numba as sg  # noqa: E402
import swishgrad_numba.dask as sgd  # noqa: E402
from reference import assert_bits_equal  # noqa: E402


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_v2_and_backward_block_by_block(approximate):
    rng = np.random.default_rng(8)
    x = rng.uniform(-9, 9, (120, 21)).astype(np.float16)
    g = rng.uniform(-2, 2, (120, 21)).astype(np.float16)
    lazy = sgd.gelu_v2(da.from_array(x, chunks=(50, 7)), approximate)
    assert_bits_equal(lazy.compute(scheduler="synchronous"), rb.ref_gelu_v2(x, approximate))
    for kernel, platform in (("a2", sg.REFERENCE_PLATFORM), ("arch35", sg.ASCEND950_PLATFORM)):
        lazy = sgd.gelu_backward_v2(da.from_array(g, chunks=(40, 21)), da.from_array(x, chunks=(50, 7)),
                                    approximate, platform=platform)
        assert_bits_equal(lazy.compute(scheduler="synchronous"), rb.ref_gelu_backward_v2(g, x, approximate, kernel))
    assert {"gelu_v2", "gelu_backward_v2"} <= set(sgd.__all__)


def test_gelu_v2_refuses_the_a2_at_once():
    with pytest.raises(ValueError, match="Ascend 950"):
        sgd.gelu_v2(da.zeros((4,), dtype=np.float32), platform=sg.REFERENCE_PLATFORM)
