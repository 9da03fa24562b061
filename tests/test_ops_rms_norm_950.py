"""rms_norm on the Ascend 950 full_load kernel (issue 42), bit for bit against tests/reference_rms_norm_950.py:
every branch of the square sum (64, 128, 8192, 16384), Newton-Raphson rstd with its specials, the Mula option."""
import ml_dtypes
import numpy as np
import pytest

from reference_rms_norm_950 import FLT_MAX, full_load_fits, newton_raphson_rstd, rms_norm_950
from swishgrad_numba.ops.rms_norm import rms_norm
from swishgrad_numba.platform import ASCEND950_PLATFORM

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16}
F32 = np.float32


def _bits(a):
    return a.view(np.uint32 if a.dtype.itemsize == 4 else np.uint16)


def _check(x, gamma, eps=1e-5, **kw):
    y, rstd = rms_norm(x, gamma, eps, platform=ASCEND950_PLATFORM, **kw)
    yr, rr = rms_norm_950(x, gamma, eps, **kw)
    nan = np.isnan(y.astype(F32)) & np.isnan(yr.astype(F32))
    assert np.all((_bits(y) == _bits(yr)) | nan), "y"
    assert np.all((_bits(rstd) == _bits(rr)) | (np.isnan(rstd) & np.isnan(rr))), "rstd"
    return y, rstd


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("n", [1, 9, 64, 65, 128, 129, 1000, 4097, 8192, 8193, 12000, 16384])
def test_full_load_across_its_branches(dtype, n):   # float32 16384 is split
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((3, n)) * 4).astype(DTYPES[dtype])
    _check(x, rng.standard_normal(n).astype(DTYPES[dtype]))


def test_mixed_gamma_and_gamma_axes():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((70, 3, 40)).astype(np.float16)
    _check(x, rng.standard_normal((3, 40)).astype(np.float32))


def test_specials_and_the_newton_raphson_edges():
    x = np.ones((5, 300), F32)
    x[0] = 0.0                # var = eps
    x[1] = 3e38               # sum inf: var inf, NR gives NaN
    x[2, 3] = np.nan
    x[3, :2] = np.inf
    _check(x, np.ones(300, F32), eps=0.0)           # row 0: var 0 -> rstd FLT_MAX
    _, rstd = rms_norm(x, np.ones(300, F32), 0.0, platform=ASCEND950_PLATFORM)
    assert rstd[0] == FLT_MAX
    assert newton_raphson_rstd(FLT_MAX, F32(1.0), F32(0.0)) == 0


def test_mula_rounding_option():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((200, 100)).astype(F32)
    g = np.ones(100, F32)
    _, fused = _check(x, g)
    _, twice = _check(x, g, mula_fused=False)
    assert not np.array_equal(fused, twice)


def test_many_rows_over_the_64_cores():
    rng = np.random.default_rng(4)
    _check(rng.standard_normal((130, 33)).astype(BF16), rng.standard_normal(33).astype(BF16))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("n", [16385, 16384 + 3000, 16384 + 5000, 40000, 110000])
def test_split_mode(dtype, n):
    """ubLoop pairs, both remainder shapes (tail up to ubFactor / 2 and past it), master chunks."""
    assert not full_load_fits(n, DTYPES[dtype], DTYPES[dtype])[0]
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((2, n)) * 3).astype(DTYPES[dtype])
    _check(x, rng.standard_normal(n).astype(np.float32))
