"""Relu and ThresholdBackward (issue 41) against tests/reference_relu.py, bit for bit: exhaustive 16-bit
sweeps, float32 samples with specials, every integer dtype, both platforms, the functional and the aclnn
faces (in place too), broadcasting, the dtype and shape refusals."""
import numpy as np
import pytest

from aclnn_helpers import WORKSPACE, stream, tensor  # noqa: F401
from reference_relu import BF16, ref_relu, ref_threshold_backward
from swishgrad_numba import Platform, aclnn, relu, threshold_backward
from swishgrad_numba.aclnn import (ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT32, ACL_INT64, ACL_UINT8,
                                   ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_SUCCESS, aclCreateScalar)

A2, A950 = Platform(soc_version="ascend910b"), Platform(soc_version="ascend950")
PLATFORMS = {"a2": A2, "950": A950}
F16, F32 = np.dtype(np.float16), np.dtype(np.float32)
ACL = {F32: ACL_FLOAT, F16: ACL_FLOAT16, BF16: 27, np.dtype(np.int8): ACL_INT8, np.dtype(np.uint8): ACL_UINT8,
       np.dtype(np.int32): ACL_INT32, np.dtype(np.int64): ACL_INT64}
SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40, -1e-40, 2.0 ** -126, 0.5, -0.5,
                     3.4e38, -3.4e38, 1.0, -1.0], dtype=np.float32)


def same(actual, expected):
    with np.errstate(invalid="ignore"):
        _same(actual, expected)


def _same(actual, expected):
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    a = actual.reshape(-1).view(f"u{actual.itemsize}")
    e = expected.reshape(-1).view(f"u{expected.itemsize}")
    nan = np.isnan(expected.astype(np.float32)).reshape(-1) if expected.dtype.kind == "f" or expected.dtype == BF16 \
        else 0
    bad = np.flatnonzero((a != e) & ~(nan & np.isnan(actual.astype(np.float32)).reshape(-1)) if
                         np.ndim(nan) else a != e)
    assert bad.size == 0, f"{bad.size} differ; first at {bad[0]}: got {actual.reshape(-1)[bad[0]]!r}, " \
                          f"expected {expected.reshape(-1)[bad[0]]!r}"


def all16(dtype):
    return np.arange(65536, dtype=np.uint16).view(dtype)


def f32_sample(rng, n=20000):
    return np.concatenate([SPECIALS, rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32).view(F32)])

# ---------------------------------------------------------------- Relu


@pytest.mark.parametrize("arch", ["a2", "950"])
@pytest.mark.parametrize("dtype", [F16, BF16], ids=str)
def test_relu_exhaustive_16bit(arch, dtype):
    x = all16(dtype)
    same(relu(x, platform=PLATFORMS[arch]), ref_relu(x))


@pytest.mark.parametrize("arch", ["a2", "950"])
def test_relu_float32_sample_and_specials(arch):
    x = f32_sample(np.random.default_rng(41)).reshape(4, -1)
    y = relu(x, platform=PLATFORMS[arch])
    same(y, ref_relu(x))
    assert not np.signbit(relu(np.float32([-0.0, -1e-45]), platform=PLATFORMS[arch])).any()   # -0 -> +0


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64])
def test_relu_integers(dtype):
    info = np.iinfo(dtype)
    x = np.arange(256, dtype=np.int64).astype(np.uint8).view(np.int8).astype(dtype) if dtype in (np.int8, np.uint8) \
        else np.array([info.min, -1, 0, 1, info.max, 2 ** 24 + 1, -(2 ** 24) - 1], dtype=dtype)
    for p in (A2, A950):
        same(relu(x, platform=p), ref_relu(x))


@pytest.mark.parametrize("arch", ["a2", "950"])
def test_relu_aclnn_and_in_place(arch, stream):
    previous = aclnn.set_platform(PLATFORMS[arch])
    try:
        for dtype in (F32, F16, BF16, np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.uint8)):
            x = np.arange(-12, 12, dtype=np.float32).astype(dtype).reshape(2, 3, 4)
            out = np.zeros_like(x)
            status, ws, ex = aclnn.aclnnReluGetWorkspaceSize(tensor(x, ACL[x.dtype]), tensor(out, ACL[x.dtype]))
            assert status == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
            assert aclnn.aclnnRelu(WORKSPACE if ws else None, ws, ex, stream) == ACLNN_SUCCESS
            assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
            same(out, ref_relu(x))
            status, ws, ex = aclnn.aclnnInplaceReluGetWorkspaceSize(tensor(x, ACL[x.dtype]))
            assert status == ACLNN_SUCCESS
            assert aclnn.aclnnInplaceRelu(WORKSPACE if ws else None, ws, ex, stream) == ACLNN_SUCCESS
            assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
            same(x, out)
        x = np.ones(3, F32)
        status, _, _ = aclnn.aclnnReluGetWorkspaceSize(tensor(x), tensor(np.ones(3, F16), ACL_FLOAT16))
        assert status == ACLNN_ERR_PARAM_INVALID and "dtype of out (ACL_FLOAT16) must equal dtype of self" in aclnn.aclGetRecentErrMsg()
    finally:
        aclnn.set_platform(previous)


def test_relu_refusals():
    with pytest.raises(ValueError, match="x.dtype must be one of"):
        relu(np.ones(3, np.int16))
    with pytest.raises(ValueError, match="at most 8"):
        relu(np.ones((1,) * 9, F32))
    with pytest.raises(TypeError, match="must be a Platform"):
        relu(np.ones(3, np.int8), platform="ascend950")

# ---------------------------------------------------------------- ThresholdBackward


THRESHOLDS = [0.0, 1e-8, -1e-8, 0.5, -2.0, 0.10002, np.inf, np.nan]


@pytest.mark.parametrize("arch", ["a2", "950"])
@pytest.mark.parametrize("dtype", [F16, BF16], ids=str)
@pytest.mark.parametrize("threshold", [0.0, 0.5, 0.10002, np.nan])
def test_threshold_backward_exhaustive_16bit(arch, dtype, threshold):
    x = all16(dtype)
    g = np.random.default_rng(7).permutation(all16(dtype))
    t32 = np.float32(threshold)
    same(threshold_backward(g, x, threshold, platform=PLATFORMS[arch]), ref_threshold_backward(g, x, t32, arch))


@pytest.mark.parametrize("arch", ["a2", "950"])
@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_threshold_backward_float32(arch, threshold):
    rng = np.random.default_rng(42)
    x = f32_sample(rng, 5000)
    g = rng.permutation(f32_sample(rng, 5000))
    t32 = np.float32(threshold)
    same(threshold_backward(g, x, threshold, platform=PLATFORMS[arch]), ref_threshold_backward(g, x, t32, arch))


def test_threshold_backward_quirks():
    """The A2 bfloat16 ReluGrad returns 0 * grad; a NaN self gives grad on the 950 and 0 on the A2."""
    g = np.array([3.0, -3.0, np.inf, 2.0], BF16)
    x = np.array([1.0, 1.0, 1.0, np.nan], BF16)
    a2 = threshold_backward(g, x, 0.0, platform=A2).astype(F32)
    assert a2[0] == 0 and np.signbit(a2[1]) and np.isnan(a2[2]) and np.isnan(a2[3])
    assert threshold_backward(np.float32([5.0]), np.float32([np.nan]), 1.0, platform=A2)[0] == 0
    assert threshold_backward(np.float32([5.0]), np.float32([np.nan]), 1.0, platform=A950)[0] == 5


@pytest.mark.parametrize("arch", ["a2", "950"])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32])
@pytest.mark.parametrize("threshold", [0.0, 0.5, -1.5, 100.0, np.nan])
def test_threshold_backward_integers(arch, dtype, threshold):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(3)
    x = rng.integers(info.min, info.max, 4096, endpoint=True).astype(dtype)
    g = rng.integers(info.min, info.max, 4096, endpoint=True).astype(dtype)
    if dtype == np.int32:
        g[:3] = [2 ** 24 + 1, info.max, info.min]
        x[:3] = 5
    same(threshold_backward(g, x, threshold, platform=PLATFORMS[arch]),
         ref_threshold_backward(g, x, np.float32(threshold), arch))


def test_threshold_backward_broadcasts_on_the_950():
    rng = np.random.default_rng(5)
    g, x = rng.standard_normal((4, 1, 6)).astype(F32), rng.standard_normal((3, 1)).astype(F32)
    for t in (0.0, 0.25):
        gb, xb = np.broadcast_to(g, (4, 3, 6)), np.broadcast_to(x, (4, 3, 6))
        same(threshold_backward(g, x, t, platform=A950), ref_threshold_backward(gb, xb, np.float32(t), "950"))
    with pytest.raises(ValueError, match="does not broadcast"):
        threshold_backward(g, x, 0.25, platform=A2)


@pytest.mark.parametrize("arch", ["a2", "950"])
def test_threshold_backward_aclnn(arch, stream):
    previous = aclnn.set_platform(PLATFORMS[arch])
    try:
        rng = np.random.default_rng(9)
        for dtype, t in ((F32, 0.0), (F16, 0.3), (BF16, 0.0), (np.dtype(np.int8), 0.5), (np.dtype(np.int32), 0.0)):
            x = (rng.standard_normal((2, 5)) * 4).astype(dtype)
            g = (rng.standard_normal((2, 5)) * 4).astype(dtype)
            out = np.zeros_like(x)
            status, ws, ex = aclnn.aclnnThresholdBackwardGetWorkspaceSize(
                tensor(g, ACL[g.dtype]), tensor(x, ACL[x.dtype]), aclCreateScalar(t, ACL_FLOAT),
                tensor(out, ACL[out.dtype]))
            assert status == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
            assert aclnn.aclnnThresholdBackward(WORKSPACE if ws else None, ws, ex, stream) == ACLNN_SUCCESS
            assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
            same(out, ref_threshold_backward(g, x, np.float32(t), arch))
        g, x = np.ones((4, 1), F32), np.ones((1, 3), F32)
        status, _, _ = aclnn.aclnnThresholdBackwardGetWorkspaceSize(
            tensor(g), tensor(x), aclCreateScalar(0.5, ACL_FLOAT), tensor(np.zeros((4, 3), F32)))
        assert status == (ACLNN_SUCCESS if arch == "950" else ACLNN_ERR_INNER_NULLPTR)
    finally:
        aclnn.set_platform(previous)


def test_threshold_backward_refusals():
    with pytest.raises(TypeError, match="same dtype"):
        threshold_backward(np.ones(3, F32), np.ones(3, F16), 0.0)
    with pytest.raises(ValueError, match="dtype must be one of"):
        threshold_backward(np.ones(3, np.int64), np.ones(3, np.int64), 0.0)
    with pytest.raises(ValueError, match="must broadcast"):
        threshold_backward(np.ones(3, F32), np.ones(4, F32), 0.0, platform=A950)

# ---------------------------------------------------------------- Dask


def test_dask_relu_and_threshold_backward_match_in_memory():
    da = pytest.importorskip("dask.array")
    from swishgrad_numba import dask as sd

    rng = np.random.default_rng(11)
    x = (rng.standard_normal((6, 10)) * 3).astype(F32)
    g = (rng.standard_normal((6, 10)) * 3).astype(F32)
    same(sd.relu(da.from_array(x, chunks=(3, 4)), platform=A950).compute(), relu(x, platform=A950))
    xi = np.arange(-30, 30, dtype=np.int32).reshape(6, 10)
    same(sd.relu(da.from_array(xi, chunks=(2, 5))).compute(), ref_relu(xi))
    got = sd.threshold_backward(da.from_array(g, chunks=(2, 5)), da.from_array(x, chunks=(3, 5)), 0.5,
                                platform=A2).compute()
    same(got, ref_threshold_backward(g, x, np.float32(0.5), "a2"))

# ---------------------------------------------------------------- torch


def test_torch_relu_module_both_directions():
    torch = pytest.importorskip("torch")
    from swishgrad_numba.torch import ReLU

    rng = np.random.default_rng(12)
    for p, dtype in ((A2, torch.bfloat16), (A950, torch.float32), (A2, torch.float16)):
        x_np = np.concatenate([SPECIALS[:5], (rng.standard_normal(59) * 3).astype(F32)]).reshape(8, 8)
        x = torch.tensor(x_np).to(dtype).requires_grad_()
        y = ReLU(platform=p)(x)
        xn = x.detach().float().numpy().astype(x.dtype == torch.bfloat16 and BF16 or
                                                  {torch.float32: F32, torch.float16: F16}[dtype])
        same(y.detach().float().numpy().astype(xn.dtype), ref_relu(xn))
        g = torch.tensor((rng.standard_normal((8, 8)) * 2).astype(F32)).to(dtype)
        (gx,) = torch.autograd.grad(y, x, g)
        gn = g.float().numpy().astype(xn.dtype)
        arch = "a2" if p is A2 else "950"
        same(gx.float().numpy().astype(xn.dtype), ref_threshold_backward(gn, xn, np.float32(0.0), arch))
    assert "platform" in repr(ReLU(platform=A950))
