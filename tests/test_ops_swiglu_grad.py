"""SwiGluGrad on the Atlas A2 (issue 41) against the plain reference (tests/reference_swiglu.py), bit for bit."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from reference import assert_bits_equal
from reference_swiglu import swiglu_grad_a2_ref
from swishgrad_numba.ops.swi_glu import swiglu_backward, swiglu_tiling
from swishgrad_numba.platform import ASCEND950_PLATFORM

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = (np.dtype(np.float32), np.dtype(np.float16), BF16)


def _half(shape, dim):
    d = dim % len(shape)
    return shape[:d] + (shape[d] // 2,) + shape[d + 1:]


def _check(g, x, dim=-1):
    assert_bits_equal(swiglu_backward(g, x, dim), swiglu_grad_a2_ref(g, x, dim), f"{x.dtype} {x.shape} dim={dim}")


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape, dim", [((3, 10), -1), ((2, 7, 6), -1), ((4, 6, 5), 1), ((6, 3), 0),
                                        ((300, 2 * 4007), -1)])
def test_random(shape, dim, dtype):
    rng = np.random.default_rng(len(shape))
    x = (rng.standard_normal(shape) * 4).astype(np.float32).astype(dtype)
    g = (rng.standard_normal(_half(shape, dim)) * 2).astype(np.float32).astype(dtype)
    _check(g, x, dim)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_specials(dtype):
    v = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 89.0, -89.0, 100.0, -100.0, 0.5, -20.0],
                 np.float32).astype(dtype)
    a, b, g = (m.reshape(-1, 1) for m in np.meshgrid(v, v, v, indexing="ij"))
    _check(g, np.concatenate([a, b], axis=1))


@pytest.mark.parametrize("dtype", (np.dtype(np.float16), BF16), ids=str)
def test_every_16bit_a(dtype):
    a = np.arange(1 << 16, dtype=np.uint16).view(dtype)
    x = np.concatenate([a, np.full_like(a, -3.0)]).reshape(2, -1)
    _check(np.full_like(a, 0.75).reshape(1, -1), x, 0)


def test_the_grad_tiling_divides_the_ub_its_own_way():
    fwd = swiglu_tiling((8, 40000), 1, "float16", 196608, 48)
    bwd = swiglu_tiling((8, 40000), 1, "float16", 196608, 48, grad=True)
    assert bwd.tile_length < fwd.tile_length


def test_empty_and_refusals():
    with pytest.raises(ValueError, match=r"x \(0, 4\) is empty"):
        swiglu_backward(np.ones((0, 2), np.float32), np.ones((0, 4), np.float32))
    x = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError, match=r"grad_output's shape .* \(3, 2\)"):
        swiglu_backward(np.ones((3, 4), np.float32), x)
    with pytest.raises(TypeError, match="grad_output.dtype"):
        swiglu_backward(np.ones((3, 2), np.float16), x)
    with pytest.raises(ValueError, match="dim=0"):
        swiglu_backward(np.ones((3, 2), np.float32), np.ones((3, 2), np.float32), 0)
    with pytest.raises(ValueError, match=r"x \(0, 4\) is empty"):
        swiglu_backward(np.ones((0, 2), np.float32), np.ones((0, 4), np.float32), platform=ASCEND950_PLATFORM)
