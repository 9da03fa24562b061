"""swishgrad_numba.dask's sigmoid and sigmoid_backward, block by block, bit for bit against the plain references."""
from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import swishgrad_numba as sg  # noqa: E402
from swishgrad_numba import dask as sgd  # noqa: E402
from activation_checks import DT16  # noqa: E402
from reference import assert_bits_equal  # noqa: E402
import reference_activations as ra  # noqa: E402

DTYPES = {"float32": np.dtype(np.float32), **DT16}
PLATFORMS = {"a2": sg.REFERENCE_PLATFORM, "arch35": sg.ASCEND950_PLATFORM}


@pytest.mark.parametrize("kernel", PLATFORMS)
@pytest.mark.parametrize("name", DTYPES)
def test_sigmoid_and_backward_bit_for_bit(name, kernel):
    rng = np.random.default_rng(8)
    x = rng.uniform(-100, 100, (60, 45)).astype(DTYPES[name])
    lazy = sgd.sigmoid(da.from_array(x, chunks=(25, 20)), platform=PLATFORMS[kernel])
    assert lazy.dtype == x.dtype and lazy.shape == x.shape
    y = lazy.compute(scheduler="threads")
    assert_bits_equal(y, ra.ref_sigmoid(x, kernel))
    dy = rng.uniform(-3, 3, (60, 45)).astype(DTYPES[name])
    gx = sgd.sigmoid_backward(da.from_array(dy, chunks=(30, 15)), da.from_array(y, chunks=(25, 20)),
                              platform=PLATFORMS[kernel])
    assert_bits_equal(gx.compute(scheduler="threads"), ra.ref_sigmoid_backward(dy, y, kernel))


def test_refusals_before_computing():
    assert {"sigmoid", "sigmoid_backward"} <= set(sgd.__all__)
    with pytest.raises(TypeError, match="AICPU"):
        sgd.sigmoid(da.zeros(4, dtype=np.float64))
    with pytest.raises(ValueError, match="same shape"):
        sgd.sigmoid_backward(da.zeros(4, dtype=np.float32), da.zeros(5, dtype=np.float32))
