"""Tests of swishgrad_numba.formats: storage layouts of model section 6.

The reference layouts below are element-by-element loops written from the
the index formulas of model section 6; the module under test uses reshapes and transposes.
"""
import itertools
import math

import ml_dtypes
import numpy as np
import pytest

from swishgrad_numba import formats, swish_backward

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [np.dtype(np.float32), np.dtype(np.float16), BF16]
UINT = {4: np.uint32, 2: np.uint16}


def bits(a):
    return np.ascontiguousarray(a).view(UINT[a.dtype.itemsize])


def random_values(rng, shape, dtype):
    """Values in [-5, 5] with NaN, +-inf and -0.0 sprinkled in."""
    a = rng.uniform(-5, 5, size=shape).astype(np.float32)
    flat = a.reshape(-1)
    specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype=np.float32)
    if flat.size:
        idx = rng.integers(0, flat.size, size=min(5, flat.size))
        flat[idx] = specials[: idx.size]
    return a.astype(dtype)


def ref_nc1hwc0(a, c0):
    n, c, h, w = a.shape
    out = np.zeros((n, math.ceil(c / c0), h, w, c0), dtype=a.dtype)
    for i, j, k, m in itertools.product(range(n), range(c), range(h), range(w)):
        out[i, j // c0, k, m, j % c0] = a[i, j, k, m]
    return out


def ref_fractal_nz(a, n0, m0=16):
    *batch, m, n = a.shape
    out = np.zeros((*batch, math.ceil(n / n0), math.ceil(m / m0), m0, n0), dtype=a.dtype)
    for b in itertools.product(*(range(d) for d in batch)):
        for i, j in itertools.product(range(m), range(n)):
            out[b + (j // n0, i // m0, i % m0, j % n0)] = a[b + (i, j)]
    return out


def test_default_c0_is_32_bytes():
    assert formats.default_c0(np.float32) == 8
    assert formats.default_c0(np.float16) == 16
    assert formats.default_c0(BF16) == 16


def test_storage_shapes_follow_the_spec():
    assert formats.nc1hwc0_shape((2, 3, 4, 5), 8) == (2, 1, 4, 5, 8)
    assert formats.nc1hwc0_shape((2, 17, 4, 5), 16) == (2, 2, 4, 5, 16)
    assert formats.fractal_nz_shape((17, 19), 16) == (2, 2, 16, 16)
    assert formats.fractal_nz_shape((3, 33, 8), 8) == (3, 1, 3, 16, 8)
    assert formats.fractal_nz_shape((5, 4), 8, m0=4) == (1, 2, 4, 8)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("shape,c0", [((2, 3, 4, 5), None), ((1, 17, 2, 3), None), ((2, 5, 3, 1), 4),
                                      ((1, 8, 2, 2), 8), ((0, 3, 2, 2), None), ((2, 0, 2, 2), 3)])
def test_nc1hwc0_matches_reference_and_round_trips(dtype, shape, c0):
    rng = np.random.default_rng(11)
    a = random_values(rng, shape, dtype)
    storage = formats.nd_to_nc1hwc0(a, c0)
    expected = ref_nc1hwc0(a, c0 or 32 // dtype.itemsize)
    assert storage.shape == expected.shape and storage.dtype == dtype
    assert storage.flags.c_contiguous
    np.testing.assert_array_equal(bits(storage), bits(expected))
    back = formats.nc1hwc0_to_nd(storage, shape)
    np.testing.assert_array_equal(bits(back), bits(a))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("shape,n0,m0", [((17, 19), None, 16), ((2, 3, 5), None, 16), ((33, 8), 8, 16),
                                         ((2, 1, 7, 9), 4, 3), ((0, 5), None, 16), ((4, 0), None, 16)])
def test_fractal_nz_matches_reference_and_round_trips(dtype, shape, n0, m0):
    rng = np.random.default_rng(12)
    a = random_values(rng, shape, dtype)
    storage = formats.nd_to_fractal_nz(a, n0, m0)
    expected = ref_fractal_nz(a, n0 or 32 // dtype.itemsize, m0)
    assert storage.shape == expected.shape and storage.dtype == dtype
    np.testing.assert_array_equal(bits(storage), bits(expected))
    back = formats.fractal_nz_to_nd(storage, shape)
    np.testing.assert_array_equal(bits(back), bits(a))


def test_non_contiguous_input_converts_like_its_copy():
    rng = np.random.default_rng(13)
    base = random_values(rng, (6, 5, 4, 3), np.float32)
    view = base.transpose(3, 1, 2, 0)[:, ::2]
    np.testing.assert_array_equal(bits(formats.nd_to_nc1hwc0(view)), bits(ref_nc1hwc0(np.array(view), 8)))
    view2 = base[0, :, ::-1, 1].T
    np.testing.assert_array_equal(bits(formats.nd_to_fractal_nz(view2)), bits(ref_fractal_nz(np.array(view2), 8)))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_kernel_on_storage_converts_back_to_the_nd_result(dtype):
    rng = np.random.default_rng(14)
    g = random_values(rng, (2, 19, 3, 4), dtype)
    x = random_values(rng, (2, 19, 3, 4), dtype)
    nd = swish_backward(g, x, 1.1)
    out = swish_backward(formats.nd_to_nc1hwc0(g), formats.nd_to_nc1hwc0(x), 1.1)
    np.testing.assert_array_equal(bits(formats.nc1hwc0_to_nd(out, g.shape)), bits(nd))
    g2, x2 = g.reshape(2, 57, 4), x.reshape(2, 57, 4)
    out2 = swish_backward(formats.nd_to_fractal_nz(g2), formats.nd_to_fractal_nz(x2), 1.1)
    np.testing.assert_array_equal(bits(formats.fractal_nz_to_nd(out2, g2.shape)), bits(nd.reshape(2, 57, 4)))


def test_bad_arguments_name_the_argument():
    a4 = np.zeros((1, 2, 3, 4), np.float32)
    with pytest.raises(ValueError, match="shape must have 4 dims"):
        formats.nd_to_nc1hwc0(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="at least 2 dims"):
        formats.nd_to_fractal_nz(np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="c0 must be > 0"):
        formats.nd_to_nc1hwc0(a4, 0)
    with pytest.raises(TypeError, match="n0 must be an integer"):
        formats.nd_to_fractal_nz(a4, 2.5)
    with pytest.raises(TypeError, match="array must be a numpy.ndarray"):
        formats.nd_to_nc1hwc0([[1.0]])
    with pytest.raises(ValueError, match="is not the NC1HWC0 storage"):
        formats.nc1hwc0_to_nd(formats.nd_to_nc1hwc0(a4), (1, 9, 3, 4))
    with pytest.raises(ValueError, match="storage must have 5 dims"):
        formats.nc1hwc0_to_nd(a4, (1, 2, 3, 4))
    with pytest.raises(ValueError, match="is not the FRACTAL_NZ storage"):
        formats.fractal_nz_to_nd(formats.nd_to_fractal_nz(a4), (1, 2, 30, 4))
    with pytest.raises(ValueError, match="non-negative"):
        formats.fractal_nz_shape((-1, 3), 8)
    with pytest.raises(ValueError, match="does not divide"):
        formats.default_c0(np.dtype("V3"))
