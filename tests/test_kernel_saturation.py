"""The device's saturation overflow mode (the compiled programs with every instruction saturated; model section 2, overflow modes).

Against tests/reference.py's ref_saturated_swish_grad, which runs the A2 sequence one element at a time in
numpy float32 and saturates after every instruction; on the regions where Exp overflows, NaN and inf inputs,
and products past the 16-bit range.
"""
import numpy as np
import pytest

from reference import DTYPES, SPECIALS, assert_bits_equal, random_inputs, ref_saturated_swish_grad
from swishgrad_numba import Platform, compute_tiling, run_tiling, swish_backward

SATURATION = Platform(overflow_mode="saturation")


def _inputs(dtype):
    g, x = random_inputs(np.random.default_rng(8), 500, dtype, special_fraction=0.3)
    # Exp overflows (beta*x below -88.7) and the sigmoid's quotient is subnormal or 0.
    region = np.array([-88.8, -89.0, -95.0, -100.0, -103.0, -1e4, -3e38, 88.8, 100.0], np.float64)
    with np.errstate(over="ignore"):
        x = np.concatenate([x, region.astype(np.float32).astype(DTYPES[dtype]), SPECIALS.astype(np.float32)
                            .astype(DTYPES[dtype])])
        g = np.concatenate([g, np.full(region.size, 3.0, np.float32).astype(DTYPES[dtype]),
                            SPECIALS[::-1].astype(np.float32).astype(DTYPES[dtype])])
    return g, x


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("beta", [1.0, -1.3])
def test_saturation_matches_reference(dtype, beta):
    g, x = _inputs(dtype)
    got = swish_backward(g, x, beta, platform=SATURATION)
    assert_bits_equal(got, ref_saturated_swish_grad(g, x, beta, dtype), f"({dtype}, beta {beta})")
    assert not np.isnan(got.astype(np.float32)).any() and not np.isinf(got.astype(np.float32)).any()
    # The two modes differ exactly where the Inf/NaN mode meets an inf or NaN.
    assert (swish_backward(g, x, beta).view(np.uint8) != got.view(np.uint8)).any()


def test_nan_x_becomes_half_of_g():
    """A NaN x: Muls(x, beta) gives NaN, saturated to 0, so s'(x) = s'(0) = 1/2."""
    x = np.full(4, np.nan, np.float32)
    g = np.array([2.0, -4.0, 1.0, 0.0], np.float32)
    np.testing.assert_array_equal(swish_backward(g, x, platform=SATURATION), g / 2)


def test_run_tiling_overflow_mode():
    g, x = _inputs("float32")
    tiling = compute_tiling(x.size, x.dtype)
    out = np.empty_like(x)
    run_tiling(g, x, out, tiling, overflow_mode="saturation")
    assert_bits_equal(out, swish_backward(g, x, platform=SATURATION))
    with pytest.raises(ValueError, match="overflow_mode must be one of 'infnan', 'saturation'"):
        run_tiling(g, x, out, tiling, overflow_mode="sat")
    t950 = compute_tiling(x.size, x.dtype, platform=Platform(soc_version="ascend950"))
    with pytest.raises(ValueError, match="not supported by the Ascend 950 kernel"):
        run_tiling(g, x, out, t950, overflow_mode="saturation")
