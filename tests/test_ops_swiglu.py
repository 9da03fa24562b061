"""SwiGlu (issue 41) against the plain reference (tests/reference_swiglu.py), bit for bit, on both kernels."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from reference import assert_bits_equal
from reference_swiglu import swiglu_ref
from swishgrad_numba.ops.swi_glu import swiglu, swiglu_tiling
from swishgrad_numba.ops.swi_glu.api import tiling_for
from swishgrad_numba.ops.swi_glu.kernel import schedule
from swishgrad_numba.platform import Platform

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = (np.dtype(np.float32), np.dtype(np.float16), BF16)
SOCS = ("ascend910b", "ascend950")


def _random(shape, dtype, seed=0, scale=4.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32).astype(dtype)


def _check(x, dim=-1, soc="ascend910b"):
    got = swiglu(x, dim, platform=Platform(soc_version=soc))
    assert_bits_equal(got, swiglu_ref(x, dim), f"{x.dtype} {x.shape} dim={dim} {soc}")


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape, dim", [((3, 10), -1), ((2, 7, 6), -1), ((4, 6, 5), 1), ((6, 3), 0),
                                        ((2, 3, 4, 2), 2), ((2,), 0), ((1, 1, 26), -1)])
def test_random_shapes_and_dims(shape, dim, dtype, soc):
    _check(_random(shape, dtype, seed=len(shape) + dim), dim, soc)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_specials(dtype, soc):
    """+-0, +-inf, NaN, subnormals and |a| large enough that Exp(-a) overflows, against every b special."""
    info = np.finfo(np.float32) if dtype == np.float32 else None
    vals = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 88.0, -88.0, 89.0, -89.0, 100.0, -100.0, 3e4, -3e4,
            1e-40 if info else 1e-7, -1e-40 if info else -1e-7, 0.5, -20.0]
    v = np.array(vals, np.float32).astype(dtype)
    a, b = np.meshgrid(v, v, indexing="ij")
    x = np.concatenate([a.reshape(-1, 1), b.reshape(-1, 1)], axis=1)   # (n, 2): one a, one b per row
    _check(x, -1, soc)
    _check(np.ascontiguousarray(x.T), 0, soc)


@pytest.mark.parametrize("dtype", (np.dtype(np.float16), BF16), ids=str)
def test_every_16bit_a(dtype):
    """Every 16-bit a against b = 1 and b = -3 (A2 kernel)."""
    a = np.arange(1 << 16, dtype=np.uint16).view(dtype)
    for bval in (1.0, -3.0):
        b = np.full_like(a, bval)
        _check(np.concatenate([a, b]).reshape(2, -1), 0)


@pytest.mark.parametrize("soc", SOCS)
def test_many_tiles_and_cores(soc):
    """A shape the host cuts into several column tiles, tail rows and more tiles than cores."""
    x = _random((300, 2 * 4007), np.float32, seed=5)
    t = tiling_for(x.shape, -1, x.dtype, Platform(soc_version=soc))
    assert t.total_tiles > t.block_dim > 1 and t.col_len % t.base_col_len
    _check(x, -1, soc)


def test_schedule_writes_each_output_once():
    for shape, dtype in (((70, 8028), "float32"), ((5000, 6), "float16"), ((3, 2, 9000), "bfloat16"),
                         ((9, 140000), "float32")):
        t = swiglu_tiling(shape, len(shape) - 1, dtype, 196608, 48)
        seg = np.array([[0, 2 * t.row_len * t.col_len], [2 * t.row_len * t.col_len, t.row_len * t.col_len]])
        tiles, core_ptr = schedule(t, seg)
        hits = np.zeros(t.row_len * t.col_len, np.int64)
        for _kind, _xb, yb in tiles:
            base = yb - seg[1, 0]
            r0, c0 = divmod(base, t.col_len)
            rows = min(t.base_row_len, t.row_len - r0)
            cols = min(t.base_col_len, t.col_len - c0)
            for r in range(rows):
                hits[(r0 + r) * t.col_len + c0:(r0 + r) * t.col_len + c0 + cols] += 1
        assert (hits == 1).all(), shape
        assert len(core_ptr) == t.block_dim + 1 and t.block_dim <= 48


def test_empty_tensors():
    for shape, dim in (((0, 4), -1), ((4, 0), 0), ((2, 0, 6), -1)):
        x = np.zeros(shape, np.float16)
        y = swiglu(x, dim)
        d = dim % len(shape)
        assert y.shape == shape[:d] + (shape[d] // 2,) + shape[d + 1:] and y.dtype == x.dtype


def test_out_argument():
    x = _random((4, 8), np.float32)
    out = np.empty((4, 4), np.float32)
    assert swiglu(x, out=out) is out
    assert_bits_equal(out, swiglu_ref(x))


@pytest.mark.parametrize("args, kwargs, exc, words", [
    ((np.ones((3, 5), np.float32),), {}, ValueError, ["dim=-1", "even", "(3, 5)"]),
    ((np.ones((3, 4), np.float32), 0), {}, ValueError, ["dim=0", "even"]),
    ((np.ones((3, 4), np.float32), 2), {}, ValueError, ["dim", "[-2, 1]"]),
    ((np.ones((3, 4), np.float32), 1.0), {}, TypeError, ["dim", "int"]),
    ((np.ones((3, 4), np.float64),), {}, (TypeError, ValueError), ["x.dtype"]),
    ((np.ones((3, 4), np.int32),), {}, (TypeError, ValueError), ["x.dtype"]),
    (([1.0, 2.0],), {}, TypeError, ["x", "numpy.ndarray"]),
    ((np.ones(()), ), {}, (TypeError, ValueError), ["x"]),
    ((np.ones((3, 4), np.float32),), {"out": np.empty((3, 4), np.float32)}, ValueError, ["out", "(3, 2)"]),
    ((np.ones((3, 4), np.float32),), {"out": np.empty((3, 2), np.float16)}, TypeError, ["out", "float32"]),
    ((np.ones((3, 4), np.float32),), {"platform": Platform(soc_version="ascend910")}, NotImplementedError,
     ["ascend910"]),
    ((np.ones((3, 4), np.float32),), {"platform": Platform(overflow_mode="saturation")}, NotImplementedError,
     ["overflow"]),
])
def test_refusals_name_the_argument(args, kwargs, exc, words):
    with pytest.raises(exc) as e:
        swiglu(*args, **kwargs)
    for w in words:
        assert w in str(e.value), (w, str(e.value))


def test_host_worked_cases():
    """Tilings worked out by hand from swi_glu_tiling.cpp (A2: 196608-byte UB, 48 cores)."""
    # float32 (48, 2 * 10000): double buffering fits 7016 elements, no whole row, and needs more tiles than
    # cores (two per core); single buffering fits 12288: (1, 10000), (2, 6144), (3, 4096) and (4, 3072) all
    # give 48 tiles on 48 cores; (4, 3072) has the biggest tile (12288, as (2, 6144)) and the most whole
    # tiles (36); narrower blocks give fewer tiles than cores or smaller tiles. One tile per core: it wins.
    t = swiglu_tiling((48, 20000), 1, "float32", 196608, 48)
    assert (t.is_double_buffer, t.base_row_len, t.base_col_len, t.block_dim, t.is_32b_aligned) == (0, 4, 3072,
                                                                                                     48, 1)
    # float16 (3, 80002): colLen 40001 is not whole 32-byte blocks; 9824 elements fit, aligned down to 512
    # bytes: 9728; the 160004-byte row stride less 9728 elements passes DataCopy's 65535 bytes: one row.
    t = swiglu_tiling((3, 80002), 1, "float16", 196608, 48)
    assert (t.is_double_buffer, t.base_row_len, t.base_col_len, t.block_dim, t.is_32b_aligned) == (1, 1, 9728,
                                                                                                     15, 0)
    # float32 (3, 10): one tile of the whole view.
    t = swiglu_tiling((3, 10), 1, "float32", 196608, 48)
    assert (t.is_double_buffer, t.base_row_len, t.base_col_len, t.block_dim, t.tiling_key) == (1, 3, 5, 1, 0)


@pytest.mark.parametrize("shape, dtype", [((48, 20000), "float32"), ((3, 80002), "float16"),
                                          ((5000, 6), "bfloat16"), ((70, 8028), "float32")])
def test_host_limits_hold(shape, dtype):
    """The tile fits the UB with its buffers, DataCopy's block count and length, at most one tile per core."""
    for grad, per in ((False, {4: (3, 1), 2: (3, 2)}), (True, {4: (5, 2), 2: (5, 5)})):
        t = swiglu_tiling(shape, 1, dtype, 196608, 48, grad=grad)
        q, b = per[t.dsize]
        bufs = 2 if t.is_double_buffer else 1
        assert (bufs * q * t.dsize + b * 4) * t.tile_length <= 196608
        assert 1 <= t.base_row_len <= 4095 and t.base_col_len * t.dsize <= 65535 * (32 if t.is_32b_aligned else 1)
        assert t.block_dim == min(t.total_tiles, 48)


@pytest.mark.parametrize("ub_size", [64, 200])
@pytest.mark.parametrize("grad", [False, True])
def test_a_ub_too_small_for_one_block_is_refused_naming_ub_size(ub_size, grad):
    with pytest.raises(ValueError, match="ub_size"):
        swiglu_tiling((4, 64), 1, "float16", ub_size, 8, grad=grad)
