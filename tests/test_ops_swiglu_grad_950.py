"""SwiGluGrad on the Ascend 950 (issue 41) against the plain reference (tests/reference_swiglu.py), bit for bit:
random shapes through both kernels (MoveAlign, UbRearrange with and without its Gather), every 16-bit a, the
specials; and its program form run on the engine's flat walk (another path) against the same reference."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from reference import assert_bits_equal
from reference_swiglu import swiglu_grad_950_ref, swiglu_grad_a2_ref
from swishgrad_numba.engine.runner import run_program
from swishgrad_numba.ops.swi_glu import swiglu_backward
from swishgrad_numba.ops.swi_glu.host_950 import swiglu_grad_tiling_950
from swishgrad_numba.ops.swi_glu.kernel_grad_950 import programs, run_grad_950
from swishgrad_numba.platform import ASCEND950_PLATFORM, Platform

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = (np.dtype(np.float32), np.dtype(np.float16), BF16)
P950 = ASCEND950_PLATFORM


def _half(shape, dim):
    d = dim % len(shape)
    return shape[:d] + (shape[d] // 2,) + shape[d + 1:]


def _check(g, x, dim=-1, platform=P950):
    assert_bits_equal(swiglu_backward(g, x, dim, platform=platform), swiglu_grad_950_ref(g, x, dim),
                      f"{x.dtype} {x.shape} dim={dim}")


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape, dim", [((3, 10), -1),              # UbRearrange with Gather (a half < 32 B)
                                        ((40, 2 * 100), -1),        # UbRearrange, whole rows
                                        ((2, 7, 6), -1), ((4, 6, 5), 1), ((83, 2), 1), ((8, 3), 0),
                                        ((9, 2 * 1031), -1),        # MoveAlign, grid over columns
                                        ((3, 2 * 14000), -1),       # MoveAlign, a row cut into UB pieces
                                        ((67, 2 * 200), -1)])       # the row block before the last: rowTail rows
def test_random(shape, dim, dtype):
    rng = np.random.default_rng(len(shape) + shape[-1])
    x = (rng.standard_normal(shape) * 4).astype(np.float32).astype(dtype)
    g = (rng.standard_normal(_half(shape, dim)) * 2).astype(np.float32).astype(dtype)
    _check(g, x, dim)


def test_the_950_order_is_not_the_a2s():
    """The two kernels' orders differ in the last bit now and then (float32 random), so the 950 is its own."""
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((64, 256)) * 4).astype(np.float32)
    g = rng.standard_normal((64, 128)).astype(np.float32)
    assert not np.array_equal(swiglu_grad_950_ref(g, x), swiglu_grad_a2_ref(g, x))
    _check(g, x)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_specials(dtype):
    v = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 89.0, -89.0, 100.0, -100.0, 0.5, -20.0,
                  1e-40, -1e-40, 6e-8, 1e-38], np.float32).astype(dtype)
    a, b, g = (m.reshape(-1, 1) for m in np.meshgrid(v, v, v, indexing="ij"))
    _check(g, np.concatenate([a, b], axis=1))


@pytest.mark.parametrize("dtype", (np.dtype(np.float16), BF16), ids=str)
@pytest.mark.parametrize("b, l", [(-3.0, 0.75), (1.5, -2.0), (1e-3, 6e4)])
def test_every_16bit_a(dtype, b, l):
    a = np.arange(1 << 16, dtype=np.uint16).view(dtype)
    x = np.concatenate([a, np.full_like(a, b)]).reshape(2, -1)
    _check(np.full_like(a, l).reshape(1, -1), x, 0)


@pytest.mark.parametrize("dtype", (np.dtype(np.float16), BF16), ids=str)
def test_every_16bit_b_and_l(dtype):
    every = np.arange(1 << 16, dtype=np.uint16).view(dtype)
    for a in (-2.5, 0.125, 7.0):
        x = np.concatenate([np.full_like(every, a), every]).reshape(2, -1)      # every b
        _check(np.full_like(every, -1.25).reshape(1, -1), x, 0)
        x = np.concatenate([np.full_like(every, a), np.full_like(every, 3.0)]).reshape(2, -1)
        _check(every.reshape(1, -1), x, 0)                                     # every l


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_the_program_on_the_flat_walk(dtype):
    """The program form of the Compute (one program per output) on the engine's element-wise walk."""
    rng = np.random.default_rng(9)
    x = (rng.standard_normal((5, 2 * 300)) * 6).astype(np.float32).astype(dtype)
    g = rng.standard_normal((5, 300)).astype(np.float32).astype(dtype)
    a, b = np.ascontiguousarray(x[:, :300]), np.ascontiguousarray(x[:, 300:])
    want = swiglu_grad_950_ref(g, x)
    prog_a, prog_b = programs(dtype.name)
    got = np.concatenate([run_program(p, (a.reshape(-1), b.reshape(-1), g.reshape(-1)), {}).reshape(5, 300)
                          for p in (prog_a, prog_b)], axis=1)
    assert_bits_equal(got, want, dtype.name)


def test_a_small_ub_gives_more_loops_and_the_same_bits():
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((12, 2 * 700)) * 3).astype(np.float16)
    g = rng.standard_normal((12, 700)).astype(np.float16)
    small = Platform(soc_version="ascend950", ub_size=16384, core_num=3)
    t = swiglu_grad_tiling_950(x.shape, 1, "float16", small.ub_size, small.core_num)
    assert_bits_equal(run_grad_950(g, x, t).reshape(x.shape), swiglu_grad_950_ref(g, x), "small UB")
    _check(g, x, platform=small)
