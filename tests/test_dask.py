"""Tests of swishgrad_numba.dask: chunked SwishGrad on a real dask.distributed cluster."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import swishgrad_numba as sg  # noqa: E402
from swishgrad_numba.dask import swish_backward  # noqa: E402

DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": np.dtype(ml_dtypes.bfloat16)}
SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -3.0e4, 88.0, -88.0]


def sample(shape, dtype, seed):
    """Seeded array with values in [-5, 5] and, if it has room, special values."""
    a = np.random.default_rng(seed).uniform(-5, 5, shape)
    flat = a.reshape(-1)
    if flat.size >= 2 * len(SPECIALS):
        flat[: len(SPECIALS)] = SPECIALS
    return a.astype(dtype)


def bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint32 if a.dtype.itemsize == 4 else np.uint16)


@pytest.fixture(scope="module")
def client():
    # A real scheduler and worker in this process (threads, no spawn cost);
    # ":0" puts the dashboard on a free port, so a busy 8787 warns nothing.
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as c:
            yield c


# (shape, grad_output chunks, x chunks); few blocks each, as every task costs
# the scheduler milliseconds.
CHUNKINGS = {
    "same": ((120, 90), (60, 45), (60, 45)),
    "mismatched": ((120, 90), (40, 50), (60, 45)),
    "one-block-vs-many": ((120, 90), (120, 90), (25, 90)),
    "ragged-1d": ((1009,), (300,), (457,)),
    "3d": ((6, 20, 16), (3, 20, 16), (6, 20, 5)),
}


@pytest.mark.parametrize("beta", [1.0, -842.45])
@pytest.mark.parametrize("chunking", CHUNKINGS)
@pytest.mark.parametrize("name", DTYPES)
def test_bit_identical_to_in_memory(client, name, chunking, beta):
    dtype = DTYPES[name]
    shape, g_chunks, x_chunks = CHUNKINGS[chunking]
    g = sample(shape, dtype, seed=1)
    x = sample(shape, dtype, seed=2)
    lazy = swish_backward(da.from_array(g, chunks=g_chunks), da.from_array(x, chunks=x_chunks), beta)
    assert isinstance(lazy, da.Array) and lazy.shape == shape and lazy.dtype == dtype
    if g_chunks != x_chunks:
        # Blocks cover the common refinement of both chunkings.
        for axis, sizes in enumerate(lazy.chunks):
            edges = set(np.cumsum(sizes))
            assert set(np.cumsum(da.core.normalize_chunks(g_chunks, shape)[axis])) <= edges
            assert set(np.cumsum(da.core.normalize_chunks(x_chunks, shape)[axis])) <= edges
    result = client.compute(lazy).result()
    assert result.dtype == dtype and result.shape == shape
    np.testing.assert_array_equal(bits(result), bits(sg.swish_backward(g, x, beta)))


@pytest.mark.parametrize("name", ["float32", "float16"])
def test_large_blocks_in_parallel(client, name):
    # Blocks big enough for the emulator's multithreaded launch, run by two
    # worker threads at once.
    dtype = DTYPES[name]
    g = sample((160000,), dtype, seed=3)
    x = sample((160000,), dtype, seed=4)
    lazy = swish_backward(da.from_array(g, chunks=40000), da.from_array(x, chunks=40000), 1.1)
    result = client.compute(lazy).result()
    np.testing.assert_array_equal(bits(result), bits(sg.swish_backward(g, x, 1.1)))


@pytest.mark.parametrize("name", DTYPES)
def test_zero_dim_and_empty(client, name):
    dtype = DTYPES[name]
    g0, x0 = np.array(1.5, dtype=dtype), np.array(-0.75, dtype=dtype)
    result = client.compute(swish_backward(da.from_array(g0), da.from_array(x0), 2.0)).result()
    assert result.shape == ()
    np.testing.assert_array_equal(bits(np.asarray(result, dtype=dtype)), bits(sg.swish_backward(g0, x0, 2.0)))
    empty = np.empty((3, 0), dtype=dtype)
    lazy = swish_backward(da.from_array(empty, chunks=(1, 0)), da.from_array(empty, chunks=(2, 0)))
    result = client.compute(lazy).result()
    assert result.shape == (3, 0) and result.dtype == dtype


def test_numpy_inputs(client):
    g = sample((40, 30), np.float16, seed=5)
    x = sample((40, 30), np.float16, seed=6)
    expected = bits(sg.swish_backward(g, x, 0.5))
    dx = da.from_array(x, chunks=(13, 7))
    mixed = swish_backward(g, dx, 0.5)
    assert mixed.chunks == dx.chunks  # the NumPy input takes the Dask input's chunks
    np.testing.assert_array_equal(bits(client.compute(mixed).result()), expected)
    both = swish_backward(g, x, 0.5)
    assert isinstance(both, da.Array)
    np.testing.assert_array_equal(bits(client.compute(both).result()), expected)


def test_process_cluster_round_trip():
    # Blocks pickled to a worker process and back, bfloat16 included: the
    # worker imports swishgrad_numba itself, as a remote worker would.
    g = sample((64, 50), DTYPES["bfloat16"], seed=7)
    x = sample((64, 50), DTYPES["bfloat16"], seed=8)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as c:
            lazy = swish_backward(da.from_array(g, chunks=(32, 50)), da.from_array(x, chunks=(64, 25)), 1.1)
            result = c.compute(lazy).result()
    assert result.dtype == DTYPES["bfloat16"]
    np.testing.assert_array_equal(bits(result), bits(sg.swish_backward(g, x, 1.1)))


def test_platform_picks_the_kernel(client):
    # The 950 and A2 kernels differ in many float32 elements; each block must run the platform's.
    g, x = sample((300, 40), DTYPES["float32"], 41), sample((300, 40), DTYPES["float32"], 42)
    results = {}
    for platform in (sg.REFERENCE_PLATFORM, sg.ASCEND950_PLATFORM):
        lazy = swish_backward(da.from_array(g, chunks=(100, 40)), da.from_array(x, chunks=(60, 20)), 1.1,
                              platform=platform)
        results[platform.architecture] = lazy.compute()
        np.testing.assert_array_equal(bits(results[platform.architecture]),
                                      bits(sg.swish_backward(g, x, 1.1, platform=platform)))
    assert (bits(results["a2"]) != bits(results["arch35"])).any()
    with pytest.raises(TypeError, match="platform must be a Platform"):
        swish_backward(g, x, platform="ascend950")


def test_rejects_bad_inputs():
    x = da.ones((4, 5), dtype=np.float32, chunks=2)
    with pytest.raises(TypeError, match="grad_output and x must have the same dtype"):
        swish_backward(x.astype(np.float16), x)
    with pytest.raises(ValueError, match="grad_output and x must have the same shape"):
        swish_backward(da.ones((4, 6), dtype=np.float32), x)
    with pytest.raises(ValueError, match="x.dtype must be one of float32, float16, bfloat16; got float64"):
        swish_backward(x, x.astype(np.float64))
    with pytest.raises(TypeError, match="grad_output must be a dask.array.Array or a numpy.ndarray, got list"):
        swish_backward([1.0, 2.0], x)
    unknown = x[x > 0]
    with pytest.raises(ValueError, match="^x has unknown chunk sizes"):
        swish_backward(x.reshape(-1), unknown)
    with pytest.raises(ValueError, match="^grad_output has unknown chunk sizes"):
        swish_backward(unknown, x.reshape(-1))
    with pytest.raises(TypeError, match="beta must be a real number"):
        swish_backward(x, x, 1j)


def test_imports_without_dask():
    code = textwrap.dedent(
        """
        import sys
        sys.modules["dask"] = None  # makes "import dask.array" fail
        import numpy as np
        import swishgrad_numba.dask as sd
        try:
            sd.swish_backward(np.ones(3, np.float32), np.ones(3, np.float32))
        except ImportError as exc:
            assert "needs Dask" in str(exc) and "pip install" in str(exc), exc
        else:
            raise SystemExit("no ImportError")
        print("ok")
        """
    )
    env = dict(os.environ, PYTHONWARNINGS="error")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
