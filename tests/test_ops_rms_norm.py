"""rms_norm on the A2 kernel (issue 42), bit for bit against the plain references of tests/reference_rms_norm.py:
every mode (merge_n, normal, single_row, split_d) across its boundaries, the three dtypes and the mixed 16-bit x
with float32 gamma, gamma over 1-4 axes, specials, the model options, and the argument rules."""
import ml_dtypes
import numpy as np
import pytest

from reference_rms_norm import a2_mode, rms_norm_a2
from swishgrad_numba.ops.rms_norm import rms_norm
from swishgrad_numba.platform import Platform

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": BF16}


def _same(a, b):
    assert a.shape == b.shape and a.dtype == b.dtype
    wide_a, wide_b = a.astype(np.float32), b.astype(np.float32)
    both_nan = np.isnan(wide_a) & np.isnan(wide_b)
    bits = np.uint32 if a.dtype.itemsize == 4 else np.uint16
    return bool(np.all((a.view(bits) == b.view(bits)) | both_nan))


def _check(x, gamma, eps=1e-6, **kw):
    y, rstd = rms_norm(x, gamma, eps, **{k: v for k, v in kw.items() if k != "soc"},
                       platform=Platform(soc_version=kw.get("soc", "ascend910b")))
    ref_kw = {k: v for k, v in kw.items() if k in ("order", "scalar_fused", "scalar_sqrt")}
    yr, rr = rms_norm_a2(x, gamma, eps, soc=kw.get("soc", "ascend910b").upper(), **ref_kw)
    assert _same(y, yr), "y"
    assert _same(rstd, rr), "rstd"
    return y, rstd


@pytest.fixture(scope="module")
def rng():
    return np.random.default_rng(7)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("n", [1, 7, 64, 65, 1000, 2000, 2001, 4097, 10240, 10241, 12289, 16400])
def test_every_mode_across_its_boundaries(rng, dtype, n):
    x = (rng.standard_normal((2, n)) * 3).astype(DTYPES[dtype])
    gamma = rng.standard_normal(n).astype(DTYPES[dtype])
    _check(x, gamma)


@pytest.mark.parametrize("x_dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("n, mode", [(100, "merge_n"), (3000, "normal"), (13000, "single_row"), (14000, "split_d")])
def test_mixed_16_bit_x_with_float32_gamma(rng, x_dtype, n, mode):
    assert a2_mode(n, DTYPES[x_dtype], np.float32)[0] == mode
    x = rng.standard_normal((2, n)).astype(DTYPES[x_dtype])
    _check(x, rng.standard_normal(n).astype(np.float32))


@pytest.mark.parametrize("axes", [1, 2, 3, 4])
def test_gamma_over_one_to_four_axes(rng, axes):
    x = rng.standard_normal((2, 3, 4, 5, 6)).astype(np.float16)
    y, rstd = _check(x, rng.standard_normal(x.shape[5 - axes:]).astype(np.float16))
    assert rstd.shape == x.shape[:5 - axes] + (1,) * axes


def test_many_rows_over_the_cores(rng):
    x = rng.standard_normal((101, 96)).astype(np.float32)
    _check(x, rng.standard_normal(96).astype(np.float32))
    _check(x, rng.standard_normal(96).astype(np.float32), soc="ascend910_93")   # normal: no merge_n there


@pytest.mark.parametrize("n", [40, 3000, 12000])
def test_specials(n):
    x = np.ones((6, n), np.float32)
    x[0] = 0.0                       # variance 0: rstd 1/sqrt(eps)
    x[1] = 3e38                      # a sum of squares past FLT_MAX: rstd 0, y NaN (inf * 0)
    x[2, 5] = np.nan
    x[3, 1] = np.inf
    x[4, ::2] = -np.inf
    x[5] = 1e-30                     # squares underflow to subnormals and 0
    gamma = np.linspace(-2, 2, n).astype(np.float32)
    y, rstd = _check(x, gamma)
    assert rstd[0] == np.float32(1) / np.sqrt(np.float32(1e-6)) and rstd[1] == 0
    _check(x.astype(BF16), gamma.astype(BF16))
    x[1] = 6e4                       # float16: past 65504 only as y, never in the sum
    _check(x.astype(np.float16), gamma.astype(np.float16))


@pytest.mark.parametrize("order", ["sequential", "block8"])
def test_the_repeat_order_option(rng, order):
    x = (rng.standard_normal((64, 300)) * 10.0 ** rng.integers(-3, 4, (64, 300))).astype(np.float32)
    gamma = np.ones(300, np.float32)
    _, tree = rms_norm(x, gamma)
    _, other = _check(x, gamma, order=order)
    assert not np.array_equal(tree, other)   # the option is seen


def test_the_scalar_fused_option(rng):
    x = rng.standard_normal((64, 3000)).astype(np.float32)
    gamma = np.ones(3000, np.float32)
    _check(x, gamma, eps=0.3, scalar_fused=True)


def test_the_scalar_sqrt_option(rng):
    x = (rng.standard_normal((512, 2100)) * 10.0 ** rng.integers(-3, 4, (512, 1))).astype(np.float32)
    gamma = np.ones(2100, np.float32)
    _, double = _check(x, gamma, scalar_sqrt="double")     # normal mode: the scalar unit's rstd
    _, single = rms_norm(x, gamma)
    assert not np.array_equal(double, single)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("layout", ["apart", "y_strided", "y_is_x"])
def test_out_is_written(rng, dtype, layout):
    """out=(y, rstd): written by the kernel where each is C-contiguous and apart from the inputs and the other,
    else through a copy (a strided y; y x itself); the reference's bits either way."""
    x = rng.standard_normal((3, 100)).astype(np.float32).astype(DTYPES[dtype])
    gamma = rng.standard_normal(100).astype(np.float32).astype(DTYPES[dtype])
    want_y, want_rstd = rms_norm_a2(x, gamma)
    rstd = np.full((3, 1), -1.0, np.float32)
    y = {"apart": np.zeros_like(x), "y_strided": np.zeros((3, 200), x.dtype)[:, ::2], "y_is_x": x}[layout]
    res = rms_norm(x, gamma, out=(y, rstd))
    assert res[0] is y and res[1] is rstd
    assert _same(y, want_y) and _same(rstd, want_rstd)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_read_only_and_strided_inputs(rng, dtype):
    """x read where it lies (float32) or widened (16-bit): read-only and strided tensors too, the same bits."""
    x = rng.standard_normal((6, 2 * 300)).astype(np.float32).astype(DTYPES[dtype])[:, ::2]
    gamma = rng.standard_normal(300).astype(np.float32).astype(DTYPES[dtype])
    ro_x, ro_gamma = np.ascontiguousarray(x), gamma.copy()
    ro_x.flags.writeable = ro_gamma.flags.writeable = False
    y, rstd = _check(x, gamma)
    y2, rstd2 = _check(ro_x, ro_gamma)
    assert _same(y, y2) and _same(rstd, rstd2)


@pytest.mark.parametrize("args, kw, error, message", [
    ((np.ones(4, np.float64), np.ones(4, np.float64)), {}, ValueError, "x.dtype"),
    ((np.ones(4, np.float16), np.ones(4, BF16)), {}, TypeError, "gamma.dtype"),
    ((np.ones((2, 4), np.float32), np.ones(3, np.float32)), {}, ValueError, "last 1 axes"),
    ((np.ones(4, np.float32), np.ones((1, 4), np.float32)), {}, ValueError, "last 2 axes"),
    ((np.ones(4, np.float32), np.ones(4, np.float32), -1.0), {}, ValueError, "epsilon"),
    ((np.ones(4, np.float32), np.ones(4, np.float32)), {"order": "pairs"}, ValueError, "order"),
    ((np.ones(4, np.float32), np.ones(4, np.float32)), {"platform": Platform(overflow_mode="saturation")},
     NotImplementedError, "Inf/NaN"),
    ((np.ones(4, np.float32), np.ones(4, np.float32)), {"platform": Platform(soc_version="ascend910")},
     NotImplementedError, "ascend910"),
    ((np.ones(4, np.float32), np.ones(4, np.float32)), {"out": (np.empty(4, np.float32),)}, TypeError, "out"),
    ((np.ones(4, np.float32), np.ones(4, np.float32)), {"out": (np.empty(4, np.float32), np.empty(1, np.float16))},
     TypeError, "float32"),
])
def test_argument_rules(args, kw, error, message):
    with pytest.raises(error, match=message):
        rms_norm(*args, **kw)


def test_empty_rows():
    y, rstd = rms_norm(np.ones((0, 4), np.float32), np.ones(4, np.float32))
    assert y.shape == (0, 4) and rstd.shape == (0, 1)


def test_tiling_for_names_each_kernels_mode():
    from swishgrad_numba.ops.rms_norm.api import tiling_for
    from swishgrad_numba.platform import ASCEND950_PLATFORM
    gamma = np.ones(3000, np.float32)
    assert tiling_for((7, 3000), gamma, 1e-6, np.float32).mode == "normal"
    assert tiling_for((7, 3000), gamma, 1e-6, np.float32, ASCEND950_PLATFORM).mode == "full_load"
    assert tiling_for((7, 20000), np.ones(20000, np.float32), 1e-6, np.float32, ASCEND950_PLATFORM).mode == "split"
