"""swishgrad_numba.dask.swiglu and swiglu_backward: dim kept whole in every block, bit for bit the plain
references (tests/reference_swiglu.py) whatever the chunking."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import swishgrad_numba as sg  # noqa: E402
import swishgrad_numba.dask as sgd  # noqa: E402
from reference import assert_bits_equal  # noqa: E402
from reference_swiglu import swiglu_grad_950_ref, swiglu_grad_a2_ref, swiglu_ref  # noqa: E402


@pytest.mark.parametrize("shape,dim,chunks", [((40, 16), -1, (7, 3)), ((12, 6, 5), 1, (5, 2, 2)),
                                              ((8, 9), 0, (3, 4))])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_swiglu_and_backward_keep_dim_whole(shape, dim, chunks, dtype):
    rng = np.random.default_rng(44)
    x = rng.uniform(-8, 8, shape).astype(dtype)
    x.reshape(-1)[:3] = [np.inf, -np.inf, np.nan]
    lazy = sgd.swiglu(da.from_array(x, chunks=chunks), dim)
    want = swiglu_ref(x, dim)
    assert lazy.shape == want.shape and len(lazy.chunks[dim]) == 1
    assert_bits_equal(lazy.compute(scheduler="synchronous"), want)
    g = rng.uniform(-2, 2, want.shape).astype(dtype)
    lazy = sgd.swiglu_backward(da.from_array(g, chunks=2), da.from_array(x, chunks=chunks), dim)
    assert_bits_equal(lazy.compute(scheduler="synchronous"), swiglu_grad_a2_ref(g, x, dim))
    assert {"swiglu", "swiglu_backward"} <= set(sgd.__all__)


def test_the_950_backward_is_its_kernel_whatever_the_chunking():
    rng = np.random.default_rng(45)
    x = rng.uniform(-8, 8, (30, 2 * 600)).astype(np.float16)
    g = rng.uniform(-2, 2, (30, 600)).astype(np.float16)
    lazy = sgd.swiglu_backward(da.from_array(g, chunks=7), da.from_array(x, chunks=(11, 100)),
                               platform=sg.ASCEND950_PLATFORM)
    assert_bits_equal(lazy.compute(scheduler="synchronous"), swiglu_grad_950_ref(g, x))


def test_refusals_with_the_in_memory_message():
    import re
    x = np.ones((4, 6), np.float32)
    for args, kwargs in (((np.ones((5, 6), np.float32), 0), {}), ((x, 2), {}), ((np.ones((4, 5), np.float32),), {}),
                         ((x,), {"platform": "a2"}), ((x.astype(np.float64),), {})):
        with pytest.raises((TypeError, ValueError)) as in_memory:
            sg.swiglu(*args, **kwargs)
        lazy_args = (da.from_array(args[0], chunks=2),) + args[1:]
        with pytest.raises(in_memory.type, match="^" + re.escape(str(in_memory.value)) + "$"):
            sgd.swiglu(*lazy_args, **kwargs)
    with pytest.raises(ValueError, match="halved"):
        sgd.swiglu_backward(da.ones((4, 6), chunks=2, dtype=np.float32), x)
