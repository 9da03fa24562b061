"""swishgrad_numba.dask.rms_norm (issue 42): row blocks through the emulated kernel, bit for bit the in-memory
call (itself checked against tests/reference_rms_norm.py in test_ops_rms_norm.py)."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")

from swishgrad_numba import dask as sgd  # noqa: E402
from swishgrad_numba.ops.rms_norm import rms_norm  # noqa: E402


@pytest.mark.parametrize("shape, axes, chunks", [((40, 300), 1, (7, 50)), ((6, 5, 4, 33), 2, (2, 3, 2, 10))])
def test_row_blocks_are_the_in_memory_call(shape, axes, chunks):
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape).astype(np.float16)
    gamma = rng.standard_normal(shape[len(shape) - axes:]).astype(np.float32)
    y, rstd = sgd.rms_norm(da.from_array(x, chunks=chunks), gamma, 1e-5)
    want_y, want_r = rms_norm(x, gamma, 1e-5)
    got_y, got_r = y.compute(scheduler="synchronous"), rstd.compute(scheduler="synchronous")
    assert np.array_equal(got_y.view(np.uint16), want_y.view(np.uint16))
    assert np.array_equal(got_r.view(np.uint32), want_r.view(np.uint32))


@pytest.mark.parametrize("gamma, kwargs", [(np.ones(5, np.float32), {}), (np.ones(8, np.float64), {}),
                                           (np.ones(8, np.float32), {"epsilon": -1.0}),
                                           (np.ones(8, np.float32), {"platform": "a2"})])
def test_refusals_come_when_the_graph_is_built_with_the_in_memory_message(gamma, kwargs):
    import re
    x = np.ones((4, 8), np.float32)
    with pytest.raises((TypeError, ValueError)) as in_memory:
        rms_norm(x, gamma, **kwargs)
    with pytest.raises(in_memory.type, match="^" + re.escape(str(in_memory.value)) + "$"):
        sgd.rms_norm(da.from_array(x, chunks=2), gamma, **kwargs)
