"""Sigmoid and SigmoidBackward (aclnnSigmoid, aclnnSigmoidBackward) on both kernels, through the public
functions, bit for bit against the plain references of tests/reference_activations.py."""
import numpy as np
import pytest

from activation_checks import DT16, every16
from program_interpreter import interpret
from reference import SPECIALS, assert_bits_equal
import reference_activations as ra

import swishgrad_numba as sg
from swishgrad_numba.ops import get_operator
from swishgrad_numba.platform import ASCEND950_PLATFORM, REFERENCE_PLATFORM

PLATFORMS = {"a2": REFERENCE_PLATFORM, "arch35": ASCEND950_PLATFORM}
DT = {"float32": np.dtype(np.float32), **DT16}
SATURATED = sg.Platform(overflow_mode="saturation")


def _as(a, dtype):
    with np.errstate(over="ignore"):
        return np.asarray(a).astype(np.float32).astype(DT[dtype])


def _specials(dtype):
    return _as(SPECIALS, dtype)


def _samples(rng, n):
    """float32 x: uniform over [-110, 110) (both sides of Exp's overflow), a fifth over 80 decades."""
    x = rng.uniform(-110, 110, n)
    wide = rng.random(n) < 0.2
    x[wide] = rng.standard_normal(wide.sum()) * 10.0 ** rng.integers(-40, 39, wide.sum())
    with np.errstate(over="ignore"):
        return x.astype(np.float32)

# ---------------------------------------------------------------- Sigmoid


@pytest.mark.parametrize("kernel", PLATFORMS)
@pytest.mark.parametrize("dtype", DT16)
def test_sigmoid_every_16bit_x(kernel, dtype):
    x = every16(dtype)
    assert_bits_equal(sg.sigmoid(x, platform=PLATFORMS[kernel]), ra.ref_sigmoid(x, kernel), f"{kernel} {dtype}")


@pytest.mark.parametrize("kernel", PLATFORMS)
@pytest.mark.parametrize("dtype", DT)
def test_sigmoid_specials(kernel, dtype):
    x = _specials(dtype)
    assert_bits_equal(sg.sigmoid(x, platform=PLATFORMS[kernel]), ra.ref_sigmoid(x, kernel), f"{kernel} {dtype}")


@pytest.mark.parametrize("kernel", PLATFORMS)
@pytest.mark.parametrize("n", [1, 7, 1024, 2048, 5000, 49_153, 600_001])
def test_sigmoid_float32_samples(kernel, n):
    """Sizes across the A2's single/double buffering (n = 2048 is double-buffered, 2047 single) and
    the cores and UB loops of both kernels."""
    x = _samples(np.random.default_rng(n), n)
    assert_bits_equal(sg.sigmoid(x, platform=PLATFORMS[kernel]), ra.ref_sigmoid(x, kernel), f"{kernel} n={n}")


def test_sigmoid_out_strided_and_in_place():
    rng = np.random.default_rng(3)
    x = _samples(rng, 3000).reshape(30, 100)
    want = ra.ref_sigmoid(x)
    out = np.empty((30, 200), dtype=np.float32)[:, ::2]
    assert sg.sigmoid(x[:, :], out=out) is out
    assert_bits_equal(out, want)
    y = x.copy()
    assert sg.sigmoid(y, out=y) is y                       # aclnnInplaceSigmoid
    assert_bits_equal(y, want)
    assert_bits_equal(sg.sigmoid(x.T), ra.ref_sigmoid(np.ascontiguousarray(x.T)))


def test_sigmoid_underflows_where_exp_overflows():
    """model.md: below x = -88.72 Exp overflows and the kernels give +0; bfloat16 x = -89 shows it."""
    x = np.array([-89.0], dtype=DT["bfloat16"])
    assert sg.sigmoid(x)[0] == 0 and ra.truth_sigmoid(np.float64(-89.0)) > 1e-39


@pytest.mark.parametrize("dtype", DT)
def test_sigmoid_saturation_mode_through_the_program(dtype):
    """The A2 kernel in the saturation overflow mode: every instruction as the program semantics
    saturate it (against the test interpreter of the same program)."""
    x = np.concatenate([_specials(dtype), _as(_samples(np.random.default_rng(5), 4000), dtype)])
    want = interpret(get_operator("sigmoid").program(dtype, SATURATED), {"x": x}, {}, True)
    assert_bits_equal(sg.sigmoid(x, platform=SATURATED), want.astype(DT[dtype]), dtype)


def test_sigmoid_refuses_bad_input():
    with pytest.raises(TypeError, match="x must be a numpy.ndarray"):
        sg.sigmoid([1.0])
    with pytest.raises(TypeError, match="AICPU"):
        sg.sigmoid(np.zeros(3))
    with pytest.raises(ValueError, match="x.dtype"):
        sg.sigmoid(np.zeros(3, dtype=np.int32))
    with pytest.raises(ValueError, match="out must have shape"):
        sg.sigmoid(np.zeros(3, np.float32), out=np.zeros(4, np.float32))
    with pytest.raises(TypeError, match="out must have dtype"):
        sg.sigmoid(np.zeros(3, np.float32), out=np.zeros(3, np.float16))
    with pytest.raises(TypeError, match="platform"):
        sg.sigmoid(np.zeros(3, np.float32), platform="ascend950")
    with pytest.raises(ValueError, match="bfloat16"):
        sg.sigmoid(np.zeros(3, DT["bfloat16"]), platform=sg.Platform(soc_version="ascend310p"))
    assert sg.sigmoid(np.zeros((0, 3), np.float32)).shape == (0, 3)

# ---------------------------------------------------------------- SigmoidBackward (AI Core)


@pytest.mark.parametrize("kernel", PLATFORMS)
@pytest.mark.parametrize("dtype", DT16)
def test_sigmoid_backward_every_16bit_y_and_dy(kernel, dtype):
    """All 2^16 y with a few dy, and all 2^16 dy with a few y."""
    every = every16(dtype)
    few = np.array([1.0, -2.5, 0.0078125, 0.75], dtype=np.float32).astype(DT[dtype])
    dy = np.concatenate([np.repeat(few, every.size), np.tile(every, few.size)])
    y = np.concatenate([np.tile(every, few.size), np.repeat(few, every.size)])
    got = sg.sigmoid_backward(dy, y, platform=PLATFORMS[kernel])
    assert_bits_equal(got, ra.ref_sigmoid_backward(dy, y, kernel), f"{kernel} {dtype}")


@pytest.mark.parametrize("kernel", PLATFORMS)
@pytest.mark.parametrize("dtype", DT)
def test_sigmoid_backward_specials_every_pair(kernel, dtype):
    vals = _specials(dtype)
    dy, y = (a.reshape(-1) for a in np.meshgrid(vals, vals))
    got = sg.sigmoid_backward(dy, y, platform=PLATFORMS[kernel])
    assert_bits_equal(got, ra.ref_sigmoid_backward(dy, y, kernel), f"{kernel} {dtype}")


@pytest.mark.parametrize("kernel", PLATFORMS)
@pytest.mark.parametrize("n", [1, 7, 5000, 600_001])
def test_sigmoid_backward_float32_samples(kernel, n):
    rng = np.random.default_rng(n)
    y = rng.uniform(-0.25, 1.25, n).astype(np.float32)
    dy = _samples(rng, n)
    got = sg.sigmoid_backward(dy, y, platform=PLATFORMS[kernel])
    assert_bits_equal(got, ra.ref_sigmoid_backward(dy, y, kernel), f"{kernel} n={n}")


def test_sigmoid_backward_kernels_multiply_in_their_own_order():
    """The quirk: the two kernels' results differ (by an ulp or two) on a third of ordinary inputs."""
    rng = np.random.default_rng(11)
    y, dy = rng.uniform(0, 1, 20000).astype(np.float32), rng.uniform(-5, 5, 20000).astype(np.float32)
    a2 = sg.sigmoid_backward(dy, y)
    arch35 = sg.sigmoid_backward(dy, y, platform=ASCEND950_PLATFORM)
    differ = (a2 != arch35).mean()
    assert 0.2 < differ < 0.5
    big = np.array([2e19], np.float32), np.array([1e-3], np.float32)
    assert np.isneginf(sg.sigmoid_backward(big[1], big[0])[0])
    assert np.isfinite(sg.sigmoid_backward(big[1], big[0], platform=ASCEND950_PLATFORM)[0])


def test_sigmoid_backward_broadcasts_and_writes_out():
    rng = np.random.default_rng(4)
    y = rng.uniform(0, 1, (1, 40)).astype(np.float32)
    dy = rng.uniform(-3, 3, (30, 1)).astype(np.float32)
    full = [np.ascontiguousarray(np.broadcast_to(a, (30, 40))) for a in (dy, y)]
    out = np.empty((30, 80), np.float32)[:, 1::2]
    assert sg.sigmoid_backward(dy, y, out=out, platform=ASCEND950_PLATFORM) is out
    assert_bits_equal(out, ra.ref_sigmoid_backward(*full, "arch35"))
    assert_bits_equal(sg.sigmoid_backward(dy, y), ra.ref_sigmoid_backward(*full, "a2"))


@pytest.mark.parametrize("dtype", DT)
def test_sigmoid_backward_saturation_mode_through_the_program(dtype):
    rng = np.random.default_rng(6)
    vals = _specials(dtype)
    dy, y = (a.reshape(-1) for a in np.meshgrid(vals, vals))
    dy = np.concatenate([dy, _as(rng.uniform(-1e36, 1e36, 2000), dtype)])
    y = np.concatenate([y, _as(rng.uniform(-1e5, 1e5, 2000), dtype)])
    want = interpret(get_operator("sigmoid_grad").program(dtype, SATURATED), {"dy": dy, "y": y}, {}, True)
    assert_bits_equal(sg.sigmoid_backward(dy, y, platform=SATURATED), want.astype(DT[dtype]), dtype)


def test_sigmoid_backward_refuses_bad_input():
    f32 = np.zeros(3, np.float32)
    with pytest.raises(TypeError, match="output must be a numpy.ndarray"):
        sg.sigmoid_backward(f32, 1.0)
    # two dtypes: promoted (float32 here), as aclnnSigmoidBackward promotes them (issue 40: the faces agree)
    mixed = sg.sigmoid_backward(f32 + 0.5, (f32 + 0.25).astype(np.float16))
    assert mixed.dtype == np.float32
    assert_bits_equal(mixed, ra.ref_sigmoid_backward(f32 + 0.5, f32 + 0.25, "a2"))
    with pytest.raises(ValueError, match="broadcast"):
        sg.sigmoid_backward(f32, np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="at most 8 dimensions"):
        sg.sigmoid_backward(np.zeros((1,) * 9, np.float32), np.zeros((1,) * 9, np.float32))
    with pytest.raises(ValueError, match="grad_output.dtype"):
        sg.sigmoid_backward(f32.astype(np.int32), f32.astype(np.int32))
    with pytest.raises(ValueError, match="out must have shape"):
        sg.sigmoid_backward(f32, f32, out=np.zeros(2, np.float32))
