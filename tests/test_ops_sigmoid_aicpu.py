"""SigmoidBackward's AICPU kernel (float64, complex64, complex128) against the plain references of
tests/reference_activations.py (exact rational fused multiply-adds, libgcc's recovery), bit for bit."""
import itertools

import numpy as np
import pytest

import reference_activations as ra

import swishgrad_numba as sg
from swishgrad_numba.ops.sigmoid import aicpu

PARTS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-310, -5e-324, 1e300, -3e38, 1e-40, 0.75]


def _part_bits(a):
    """Bits of every real part, every NaN one pattern."""
    parts = np.asarray(a).reshape(-1)
    parts = np.stack([parts.real, parts.imag], axis=1) if np.iscomplexobj(parts) else parts[:, None]
    width = np.uint64 if parts.dtype == np.float64 else np.uint32
    b = parts.view(width).copy()
    b[np.isnan(parts)] = np.iinfo(width).max
    return b


def assert_parts_equal(got, want, context=""):
    assert got.dtype == want.dtype and got.shape == want.shape
    bad = np.flatnonzero((_part_bits(got) != _part_bits(want)).any(axis=1))
    assert not bad.size, f"{bad.size} differ {context}; first {got.reshape(-1)[bad[0]]!r} vs {want.reshape(-1)[bad[0]]!r}"


def test_float64_every_special_pair_and_samples():
    vals = np.array(PARTS)
    dy, y = (a.reshape(-1) for a in np.meshgrid(vals, vals))
    rng = np.random.default_rng(1)
    dy = np.concatenate([dy, rng.uniform(-5, 5, 5000)])
    y = np.concatenate([y, rng.uniform(-0.5, 1.5, 5000)])
    assert_parts_equal(sg.sigmoid_backward(dy, y), ra.ref_sigmoid_backward_aicpu_real(dy, y))
    # whatever the platform: the AICPU kernel runs on the host CPU
    assert_parts_equal(sg.sigmoid_backward(dy, y, platform=sg.ASCEND950_PLATFORM),
                       ra.ref_sigmoid_backward_aicpu_real(dy, y))


def _complex_cases(dtype, rng, n):
    real = np.float32 if dtype == np.complex64 else np.float64
    with np.errstate(over="ignore"):
        parts = np.array(PARTS).astype(real)
        quads = np.array(list(itertools.product(parts[:8], repeat=2)))
        y = np.empty(len(quads), dtype)
        y.real, y.imag = quads[:, 0], quads[:, 1]            # (1j * inf would make a NaN real part)
        dy = np.resize(np.array([1 + 2j, -0.5 + 0j, np.inf + 0j, complex(np.nan, 1), 0j, 3e38 - 3e38j], dtype), y.size)
        ry = (rng.uniform(-0.5, 1.5, n) + 1j * rng.uniform(-0.5, 0.5, n)).astype(dtype)
        rdy = (rng.uniform(-5, 5, n) + 1j * rng.uniform(-5, 5, n)).astype(dtype)
        big = ((rng.standard_normal(n) + 1j * rng.standard_normal(n)) * 10.0 ** rng.integers(-300, 300, n))
        big = big.astype(dtype)
    return np.concatenate([y, ry, big, ry]), np.concatenate([dy, rdy, rdy, big])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_specials_and_samples(dtype):
    y, dy = _complex_cases(dtype, np.random.default_rng(2), 1500)
    got = sg.sigmoid_backward(dy, y)
    assert_parts_equal(got, ra.ref_sigmoid_backward_aicpu_complex(dy, y), np.dtype(dtype).name)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_the_products_are_contracted(dtype):
    """Some ordinary inputs tell the fused products (GCC's default for C++) from the plain ones."""
    rng = np.random.default_rng(7)
    y = (rng.uniform(0, 1, 400) + 1j * rng.uniform(-1, 1, 400)).astype(dtype)
    dy = (rng.uniform(-5, 5, 400) + 1j * rng.uniform(-5, 5, 400)).astype(dtype)
    got = sg.sigmoid_backward(dy, y)
    plain = ra.ref_sigmoid_backward_aicpu_complex(dy, y, contract=False)
    assert (_part_bits(got) != _part_bits(plain)).any()


def test_fma64_rounds_once():
    """The vectorised binary64 fused multiply-add against exact rationals, where it is hard: products
    that cancel the addend, ties, the subnormal range and the range's top."""
    rng = np.random.default_rng(9)
    n = 3000
    a = rng.standard_normal(n) * 2.0 ** rng.integers(-600, 600, n)
    b = rng.standard_normal(n) * 2.0 ** rng.integers(-600, 600, n)
    with np.errstate(all="ignore"):
        c = -(a * b) * (1 + rng.integers(-3, 4, n) * 2.0 ** -52)         # near cancellation
        c[::3] = rng.standard_normal(n)[::3] * 2.0 ** rng.integers(-1074, 1000, n)[::3]
        c[1::7] = np.nextafter(a * b, 0)[1::7] * 2.0 ** -54             # near ties
    a[::11], b[::13] = 5e-324, -0.0
    got = aicpu.fma(a, b, c)
    want = np.array([ra._fma_scalar(x, y, z, np.float64) for x, y, z in zip(a, b, c)])
    assert_parts_equal(got, want)


def test_aicpu_promotes_mixed_dtypes_and_checks_out():
    # two dtypes: promoted (float64 with complex128: complex128), as aclnnSigmoidBackward promotes them (issue 40)
    dy, y2 = np.array([0.5, -1.0]), np.array([0.25, 2 + 1j], np.complex128)
    assert_parts_equal(sg.sigmoid_backward(dy, y2), ra.ref_sigmoid_backward_aicpu_complex(dy.astype(np.complex128), y2))
    with pytest.raises(TypeError, match="out must have dtype"):
        sg.sigmoid_backward(np.zeros(2), np.zeros(2), out=np.zeros(2, np.float32))
    out = np.empty(4, np.complex64)
    y = np.array([0.5, 0.25, 1j, 2], np.complex64)
    assert sg.sigmoid_backward(np.ones(4, np.complex64), y, out=out) is out
    assert_parts_equal(out, ra.ref_sigmoid_backward_aicpu_complex(np.ones(4, np.complex64), y))
