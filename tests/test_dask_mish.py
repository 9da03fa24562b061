"""swishgrad_numba.dask.mish and mish_backward: block by block, bit for bit the plain references
(tests/reference_mish.py); mish_backward's broadcast and promotion as the in-memory function's."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import swishgrad_numba as sg  # noqa: E402
import swishgrad_numba.dask as sgd  # noqa: E402
from reference import assert_bits_equal  # noqa: E402
from reference_mish import ref_mish, ref_mish_backward  # noqa: E402

P950 = sg.ASCEND950_PLATFORM


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_mish_and_backward_block_by_block(dtype):
    rng = np.random.default_rng(41)
    x = rng.uniform(-12, 12, (90, 17)).astype(dtype)
    x[0, :4] = [np.inf, -np.inf, np.nan, -0.0]
    g = rng.uniform(-2, 2, (90, 17)).astype(dtype)
    lazy = sgd.mish(da.from_array(x, chunks=(40, 6)))
    assert_bits_equal(lazy.compute(scheduler="synchronous"), ref_mish(x, "a2"))
    lazy = sgd.mish(da.from_array(x, chunks=(40, 6)), platform=P950)
    assert_bits_equal(lazy.compute(scheduler="synchronous"), ref_mish(x, "arch35"))
    lazy = sgd.mish_backward(da.from_array(g, chunks=(30, 17)), da.from_array(x, chunks=(40, 6)), platform=P950)
    assert_bits_equal(lazy.compute(scheduler="synchronous"), ref_mish_backward(g, x))
    assert {"mish", "mish_backward"} <= set(sgd.__all__)


def test_mish_backward_broadcasts_and_promotes():
    rng = np.random.default_rng(42)
    g = rng.uniform(-2, 2, (12, 1)).astype(np.float16)
    x = rng.uniform(-5, 5, (1, 9)).astype(np.float32)
    lazy = sgd.mish_backward(da.from_array(g, chunks=(5, 1)), da.from_array(x, chunks=(1, 4)), platform=P950)
    gb, xb = np.broadcast_arrays(g.astype(np.float32), x)
    assert_bits_equal(lazy.compute(scheduler="synchronous"), ref_mish_backward(gb.copy(), xb.copy()))
    with pytest.raises(ValueError, match="grad_output and x must broadcast"):
        sgd.mish_backward(da.ones((3, 2), chunks=1, dtype=np.float32), da.ones(3, chunks=1, dtype=np.float32),
                          platform=P950)
    with pytest.raises(ValueError, match="x.dtype must be one of"):
        sgd.mish(da.ones(4, chunks=2, dtype=np.int32))
