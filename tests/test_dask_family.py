"""Tests of swishgrad_numba.dask's Swish family section: swish, silu, silu_backward block by block.

Bits are checked against the plain references in tests/ (reference_family.py, reference_silu_grad.py).
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import swishgrad_numba as sg  # noqa: E402
from swishgrad_numba import dask as sgd  # noqa: E402
from reference import assert_bits_equal  # noqa: E402
from reference_family import ref_swish  # noqa: E402
from reference_silu_grad import ref_silu_grad  # noqa: E402

DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": np.dtype(ml_dtypes.bfloat16)}
PLATFORMS = {"a2": sg.REFERENCE_PLATFORM, "arch35": sg.ASCEND950_PLATFORM}
SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-40, -3.0e4, 88.0, -88.0, -100.0]


def sample(shape, dtype, seed):
    """Seeded array with values in [-12, 12] and, if it has room, special values."""
    a = np.random.default_rng(seed).uniform(-12, 12, shape)
    flat = a.reshape(-1)
    if flat.size >= 2 * len(SPECIALS):
        flat[: len(SPECIALS)] = SPECIALS
    return a.astype(dtype)


def compute(lazy):
    return lazy.compute(scheduler="threads")


def test_public_names():
    assert {"swish", "silu", "silu_backward", "swish_backward"} <= set(sgd.__all__)


@pytest.mark.parametrize("arch", PLATFORMS)
@pytest.mark.parametrize("beta", [1.1, -842.45, -1.0, 0.0])
@pytest.mark.parametrize("name", DTYPES)
def test_forward_bit_for_bit(name, beta, arch):
    dtype = DTYPES[name]
    x = sample((60, 45), dtype, seed=1)
    lazy = sgd.swish(da.from_array(x, chunks=(25, 20)), beta, platform=PLATFORMS[arch])
    assert isinstance(lazy, da.Array) and lazy.dtype == dtype and lazy.shape == x.shape
    assert_bits_equal(compute(lazy), ref_swish(x, beta, arch))
    silu = sgd.silu(da.from_array(x, chunks=(60, 7)), platform=PLATFORMS[arch])
    assert_bits_equal(compute(silu), ref_swish(x, 1.0, arch))


# (shape, grad_output chunks, x chunks)
CHUNKINGS = {
    "same": ((60, 45), (30, 45), (30, 45)),
    "mismatched": ((60, 45), (20, 25), (30, 45)),
    "ragged-1d": ((1009,), (300,), (457,)),
    "3d": ((6, 20, 16), (3, 20, 16), (6, 20, 5)),
}


@pytest.mark.parametrize("arch", PLATFORMS)
@pytest.mark.parametrize("chunking", CHUNKINGS)
@pytest.mark.parametrize("name", DTYPES)
def test_silu_backward_bit_for_bit(name, chunking, arch):
    dtype = DTYPES[name]
    shape, g_chunks, x_chunks = CHUNKINGS[chunking]
    g, x = sample(shape, dtype, seed=2), sample(shape, dtype, seed=3)
    lazy = sgd.silu_backward(da.from_array(g, chunks=g_chunks), da.from_array(x, chunks=x_chunks),
                             platform=PLATFORMS[arch])
    assert lazy.dtype == dtype and lazy.shape == shape
    assert_bits_equal(compute(lazy), ref_silu_grad(g, x))


def test_silu_backward_mixed_dtypes_on_950():
    g = sample((40, 30), np.float16, seed=4)
    x = sample((40, 30), ml_dtypes.bfloat16, seed=5)
    lazy = sgd.silu_backward(da.from_array(g, chunks=(13, 30)), da.from_array(x, chunks=(40, 7)),
                             platform=sg.ASCEND950_PLATFORM)
    assert lazy.dtype == np.float32
    assert_bits_equal(compute(lazy), ref_silu_grad(g, x))
    with pytest.raises(TypeError, match="grad_output and x must have the same dtype"):
        sgd.silu_backward(da.from_array(g), da.from_array(x))        # the A2 takes one dtype


def test_numpy_inputs_zero_dim_and_empty():
    g = sample((40, 30), np.float32, seed=6)
    x = sample((40, 30), np.float32, seed=7)
    dx = da.from_array(x, chunks=(13, 7))
    mixed = sgd.silu_backward(g, dx)
    assert mixed.chunks == dx.chunks          # the NumPy input takes the Dask input's chunks
    assert_bits_equal(compute(mixed), ref_silu_grad(g, x))
    assert_bits_equal(compute(sgd.swish(x, 0.5)), ref_swish(x, 0.5, "a2"))
    x0 = np.array(-0.75, dtype=np.float16)
    assert_bits_equal(np.asarray(compute(sgd.silu(da.from_array(x0))), np.float16), ref_swish(x0, 1.0, "a2"))
    empty = np.empty((3, 0), dtype=np.float16)
    result = compute(sgd.silu_backward(da.from_array(empty, chunks=(1, 0)), da.from_array(empty, chunks=(2, 0))))
    assert result.shape == (3, 0) and result.dtype == np.float16


def test_distributed_round_trip():
    # The block functions and their arguments (a Platform included) travel through a real scheduler.
    x = sample((64, 50), DTYPES["bfloat16"], seed=8)
    g = sample((64, 50), DTYPES["bfloat16"], seed=9)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as c:
            fwd = c.compute(sgd.swish(da.from_array(x, chunks=(32, 50)), 1.1, platform=sg.ASCEND950_PLATFORM))
            bwd = c.compute(sgd.silu_backward(da.from_array(g, chunks=(32, 25)), da.from_array(x, chunks=(64, 25))))
            assert_bits_equal(fwd.result(), ref_swish(x, 1.1, "arch35"))
            assert_bits_equal(bwd.result(), ref_silu_grad(g, x))


def test_rejects_bad_inputs():
    x = da.ones((4, 5), dtype=np.float32, chunks=2)
    with pytest.raises(ValueError, match="x.dtype must be one of float32, float16, bfloat16; got float64"):
        sgd.swish(x.astype(np.float64))
    with pytest.raises(ValueError, match="x.dtype must be one of"):
        sgd.silu(x.astype(np.float64))
    with pytest.raises(ValueError, match="grad_output.dtype must be one of"):
        sgd.silu_backward(x.astype(np.float64), x)
    with pytest.raises(ValueError, match="grad_output and x must have the same shape"):
        sgd.silu_backward(da.ones((4, 6), dtype=np.float32), x)
    with pytest.raises(TypeError, match="x must be a dask.array.Array or a numpy.ndarray, got list"):
        sgd.silu([1.0, 2.0])
    with pytest.raises(TypeError, match="grad_output must be a dask.array.Array or a numpy.ndarray, got list"):
        sgd.silu_backward([1.0, 2.0], x)
    with pytest.raises(TypeError, match="beta must be a real number"):
        sgd.swish(x, 1j)
    with pytest.raises(TypeError, match="platform must be a Platform"):
        sgd.silu(x, platform="ascend950")
    unknown = x[x > 0]
    with pytest.raises(ValueError, match="^x has unknown chunk sizes"):
        sgd.swish(unknown)
    with pytest.raises(ValueError, match="^grad_output has unknown chunk sizes"):
        sgd.silu_backward(unknown, x.reshape(-1))


# Each Dask function as (grad, x, platform) -> lazy array, with the message its in-memory function gives.
LAZY = {
    "swish": lambda g, x, p: sgd.swish(x, 1.3, platform=p),
    "silu": lambda g, x, p: sgd.silu(x, platform=p),
    "silu_backward": lambda g, x, p: sgd.silu_backward(g, x, platform=p),
    "swish_backward": lambda g, x, p: sgd.swish_backward(g, x, 1.3, platform=p),
}


@pytest.mark.parametrize("name", LAZY)
def test_a_masked_array_is_refused_when_the_graph_is_built(name):
    x = np.linspace(-3, 3, 20, dtype=np.float32)
    masked = np.ma.masked_array(x, mask=x > 0)
    lazy_masked = da.ma.masked_array(da.from_array(x, chunks=5), mask=da.from_array(x > 0, chunks=5))
    message = "must be a plain numpy.ndarray, not a masked array"
    for value in (masked, lazy_masked):
        with pytest.raises(TypeError, match="^x " + message):
            LAZY[name](da.from_array(x, chunks=5), value, None)
        if name.endswith("backward"):
            with pytest.raises(TypeError, match="^grad_output " + message):
                LAZY[name](value, da.from_array(x, chunks=5), None)


@pytest.mark.parametrize("name", LAZY)
def test_bfloat16_on_a_soc_without_it_is_refused_when_the_graph_is_built(name):
    x = da.ones((4, 5), dtype=DTYPES["bfloat16"], chunks=2)
    with pytest.raises(ValueError, match="bfloat16 is only supported on ASCEND910B..ASCEND910E"):
        LAZY[name](x, x, sg.Platform(soc_version="ascend310p"))


@pytest.mark.parametrize("name", LAZY)
def test_a_platform_the_operator_refuses_is_refused_when_the_graph_is_built(name):
    x = da.ones((4, 5), dtype=np.float32, chunks=2)
    with pytest.raises(ValueError, match="block_size"):
        LAZY[name](x, x, sg.Platform(block_size=2))
