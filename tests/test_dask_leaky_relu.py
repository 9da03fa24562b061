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


@pytest.mark.parametrize("shapes,chunks", [
    (((30, 1, 14), (9, 14)), ((7, 1, 5), (4, 14))),
    (((1,), (6, 40)), ((1,), (5, 16))),
    (((50, 13), ()), ((17, 6), ())),
    (((33, 1), (1, 21)), ((10, 1), (1, 8))),
], ids=str)
@pytest.mark.parametrize("dtypes", [(np.float16, np.float16), (np.float16, np.float32)], ids=str)
def test_leaky_relu_backward_broadcasts_as_in_memory(shapes, chunks, dtypes):
    # issue 38: the Dask LeakyReluBackward refused shapes the in-memory one broadcasts (and promotes, as the
    # op_api does); chunked arrays of broadcastable shapes give the reference of the broadcast inputs, bit for bit
    rng = np.random.default_rng(39)
    g = rng.uniform(-4, 4, shapes[0]).astype(np.float32).astype(dtypes[0])
    x = rng.uniform(-4, 4, shapes[1]).astype(np.float32).astype(dtypes[1])
    x.reshape(-1)[: x.size // 3] = 0   # x = 0 takes the slope branch
    promoted = np.result_type(*dtypes)
    d, b = (np.ascontiguousarray(a).astype(promoted).reshape(-1) for a in np.broadcast_arrays(g, x))
    want = ref_leaky_relu_backward(d, b, np.float32(-0.25)).reshape(np.broadcast_shapes(*shapes))
    lazy = sgd.leaky_relu_backward(da.from_array(g, chunks=chunks[0]), da.from_array(x, chunks=chunks[1]), -0.25)
    assert lazy.shape == want.shape and lazy.dtype == want.dtype
    assert_bits_equal(lazy.compute(scheduler="synchronous"), want)
    assert_bits_equal(sg.leaky_relu_backward(g, x, -0.25), want)
    # a NumPy input beside a Dask one
    assert_bits_equal(sgd.leaky_relu_backward(g, da.from_array(x, chunks=chunks[1]), -0.25)
                      .compute(scheduler="synchronous"), want)


def test_leaky_relu_backward_refuses_what_the_in_memory_one_refuses_at_once():
    g = da.ones((4, 3), chunks=2, dtype=np.float32)
    with pytest.raises(ValueError, match=r"must broadcast against each other, got \(4, 3\) and \(4,\)"):
        sgd.leaky_relu_backward(g, da.ones(4, chunks=2, dtype=np.float32))
    with pytest.raises(ValueError, match="at most 8"):
        sgd.leaky_relu_backward(g, da.ones((1,) * 9, chunks=1, dtype=np.float32))
    with pytest.raises(ValueError, match="self_is_result=True needs negative_slope >= 0"):
        sgd.leaky_relu_backward(g, g, -0.5, self_is_result=True)
