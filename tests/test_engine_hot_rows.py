"""The hot tier over rows (swishgrad_numba.engine.hot_rows): SwiGlu's and SwiGluGrad's large calls, bit for bit
against the plain references (tests/reference_swiglu.py), and what the launch refuses or leaves to the row machine."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from reference import assert_bits_equal
from reference_swiglu import swiglu_grad_950_ref, swiglu_grad_a2_ref, swiglu_ref
from swishgrad_numba.engine import hot, hot_rows
from swishgrad_numba.ops.swi_glu import kernel, swiglu, swiglu_backward
from swishgrad_numba.platform import Platform

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = (np.dtype(np.float32), np.dtype(np.float16), BF16)
SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 88.0, -88.0, 89.0, -89.0, 100.0, -100.0, 3e4, -3e4,
                     1e-40, -1e-40, 6e-8, 65504.0, -65504.0], np.float32)


@pytest.fixture
def ran(monkeypatch):
    """The return value of each :func:`hot_rows.run_rows` call."""
    seen = []
    real = hot_rows.run_rows

    def spy(*args, **kwargs):
        seen.append(real(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(hot_rows, "run_rows", spy)
    return seen


def _large(dtype, shape, seed):
    """Random values (scale 6) with the specials and float32 NaNs of other payloads spread through them."""
    rng = np.random.default_rng(seed)
    v = (rng.standard_normal(int(np.prod(shape))) * 6).astype(np.float32)
    at = rng.choice(v.size, 4000, replace=False)
    v[at[:2000]] = rng.choice(SPECIALS, 2000)
    v[at[2000:]] = (rng.integers(0x7F800001, 0x80000000, 2000, dtype=np.int64).astype(np.uint32)
                    | rng.choice(np.uint32([0, 0x80000000]), 2000)).view(np.float32)   # NaN payloads, both signs
    with np.errstate(invalid="ignore"):
        return v.astype(dtype).reshape(shape)


@pytest.mark.parametrize("soc", ("ascend910b", "ascend950"))
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape, dim", [((2, 1 << 20), -1), ((2048, 2, 514), 1), ((2, 3, 349526), 0)])
def test_a_large_call_runs_hot_and_gives_the_references_bits(shape, dim, dtype, soc, ran):
    x = _large(dtype, shape, seed=shape[-1])
    got = swiglu(x, dim, platform=Platform(soc_version=soc))
    assert ran == [True]
    assert_bits_equal(got, swiglu_ref(x, dim), f"{dtype} {shape} dim={dim} {soc}")


@pytest.mark.parametrize("dtype", (np.dtype(np.float16), BF16), ids=str)
def test_every_16bit_a_on_the_hot_tier(dtype, ran):
    """Every 16-bit a, 16 times, against b of every sign and size (rows of 65,536: a then b)."""
    a = np.tile(np.arange(1 << 16, dtype=np.uint16), 16).reshape(16, -1)
    b = np.random.default_rng(3).integers(0, 1 << 16, a.shape, dtype=np.uint64).astype(np.uint16)
    x = np.concatenate([a, b], axis=1).view(dtype)
    got = swiglu(x)
    assert ran == [True]
    assert_bits_equal(got, swiglu_ref(x))


def test_out_is_written_in_place_or_through_a_copy(ran):
    """A C-contiguous ``out`` apart from x is the launch's own result; a strided one, or one inside x, gets a
    copy: the same bits each time."""
    x = _large(np.float32, (8, 1 << 18), seed=7)
    want = swiglu_ref(x)
    out = np.full((8, 1 << 17), 7.0, np.float32)
    assert swiglu(x, out=out) is out
    assert_bits_equal(out, want)
    strided = np.full((8, 1 << 18), 7.0, np.float32)[:, ::2]
    assert swiglu(x, out=strided) is strided
    assert_bits_equal(strided, want)
    inside = x.copy()
    view = inside[:, :1 << 17]       # the result over a's own elements
    assert swiglu(inside, out=view) is view
    assert_bits_equal(view, want)
    assert ran == [True, True, True]


def test_a_gradients_out_is_written_in_place(ran):
    x = _large(np.float16, (4, 1 << 19), seed=9)
    grad = _large(np.float16, (4, 1 << 18), seed=10)
    out = np.full(x.shape, 7.0, np.float16)
    assert swiglu_backward(grad, x, out=out) is out
    assert_bits_equal(out, swiglu_grad_a2_ref(grad, x))
    assert ran == [True, True]


def test_the_row_machine_runs_what_the_hot_tier_does_not_take(ran):
    x = _large(np.float32, (4, 1 << 18), seed=8)
    want = swiglu_ref(x)
    with hot.use(False):
        assert_bits_equal(swiglu(x), want)
    assert_bits_equal(swiglu(x[:, :1 << 10]), swiglu_ref(x[:, :1 << 10]))     # too small: not even asked
    grad = np.ones((4, 1 << 17), np.float32)
    out = np.empty_like(x)
    with hot.use(False):
        assert swiglu_backward(grad, x, out=out) is out
    assert_bits_equal(out, swiglu_grad_a2_ref(grad, x))
    assert ran == [False, False]


@pytest.mark.parametrize("soc, ref", [("ascend910b", swiglu_grad_a2_ref), ("ascend950", swiglu_grad_950_ref)])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape, dim", [((2, 1 << 20), -1), ((2, 3, 349526), 0)])
def test_a_large_gradient_runs_hot_and_gives_the_references_bits(shape, dim, dtype, soc, ref, ran):
    x = _large(dtype, shape, seed=shape[-1] + 1)
    half = list(shape)
    half[dim] //= 2
    grad = _large(dtype, tuple(half), seed=shape[-1] + 2)
    got = swiglu_backward(grad, x, dim, platform=Platform(soc_version=soc))
    assert ran == [True, True]                                     # grad_a's stream, then grad_b's
    assert_bits_equal(got, ref(grad, x, dim), f"{dtype} {shape} dim={dim} {soc}")


def test_run_rows_refuses_operands_whose_rows_leave_their_tensors():
    prepared = kernel.prepared(kernel._programs, "float32")[0]
    rows, cols = 4, 1 << 18
    x = np.zeros(2 * rows * cols, np.float32)
    out = np.zeros(rows * cols, np.float32)

    def call(ins, to):
        return hot_rows.run_rows(prepared, ins, to, rows, cols)

    halves = ((x, 2 * cols, 0), (x, 2 * cols, cols))
    for ins, to, words in [
            (((x, 2 * cols, 0), (x[:-2], 2 * cols, cols)), (out, cols, 0), "input 1"),
            (((x, 2 * cols, 0), (x, 2 * cols, cols + 1)), (out, cols, 0), "input 1"),
            (((x, 2 * cols, -1), (x, 2 * cols, cols)), (out, cols, 0), "input 0"),
            (halves, (out[:-1], cols, 0), "out"),
            (halves, (out, cols - 1, 0), "out"),
            (((x.reshape(2, -1), 2 * cols, 0), (x, 2 * cols, cols)), (out, cols, 0), "input 0"),
            (((x[::2], 2 * cols, 0), (x, 2 * cols, cols)), (out, cols, 0), "input 0"),
            (halves, (out.astype(np.float16).view(np.uint16), cols, 0), "out")]:
        with pytest.raises(ValueError, match=words):
            call(ins, to)
    with pytest.raises(ValueError, match="share no memory"):
        call(halves, (x, 2 * cols, 0))
    assert not call(((x.astype(np.float64), 2 * cols, 0),) * 2, (out.astype(np.float64), cols, 0))
    assert not call(halves[:1], (out, cols, 0))                    # the stream takes two inputs
    assert not hot_rows.run_rows(prepared, halves, (out, cols, 0), 0, cols)
