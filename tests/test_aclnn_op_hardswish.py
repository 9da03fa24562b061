"""aclnnHardswish / aclnnInplaceHardswish / aclnnHardswishBackward (swishgrad_numba.aclnn.op_hardswish): the
op_api's checks and statuses, the A2 refusal of Hardswish, the Cast to out, and launches bit for bit
against the plain readings (tests/reference_hardswish.py)."""
import numpy as np
import pytest

from aclnn_helpers import BF16, F16, F32, WORKSPACE, random_values, stream, tensor, tensor_over  # noqa: F401
from reference import assert_bits_equal
from reference_hardswish import ref_hardswish, ref_hardswish_backward
from swishgrad_numba import Platform, aclnn
from swishgrad_numba.aclnn import (ACL_DOUBLE, ACL_INT32, ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID,
                                   ACLNN_ERR_PARAM_NULLPTR, ACLNN_SUCCESS)

P950 = Platform(soc_version="ascend950")
A2 = Platform(soc_version="ascend910b")


def _run(phase_one, launch, args, s=None):
    status, ws, ex = phase_one(*args)
    if status != ACLNN_SUCCESS:
        assert ws == 0 and ex is None
        return status
    status = launch(WORKSPACE if ws else None, ws, ex, s)
    assert aclnn.aclrtSynchronizeStream(s) == aclnn.ACL_SUCCESS
    return status


def _forward(*args, s=None):
    return _run(aclnn.aclnnHardswishGetWorkspaceSize, aclnn.aclnnHardswish, args, s)


def _backward(*args, s=None):
    return _run(aclnn.aclnnHardswishBackwardGetWorkspaceSize, aclnn.aclnnHardswishBackward, args, s)


@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("platform", [P950, A2], ids=["950", "a2"])
def test_launch_bits(dtype, platform, stream):
    aclnn.set_platform(platform)
    rng = np.random.default_rng(4)
    x, dy = random_values(rng, (3, 777), dtype) * dtype.type(2), random_values(rng, (3, 777), dtype)
    x.reshape(-1)[:4] = np.array([-3, 3, -3, 3], dtype=dtype)
    if platform is P950:
        out = np.zeros_like(x)
        assert _forward(tensor(x), tensor(out), s=stream) == ACLNN_SUCCESS
        assert_bits_equal(out, ref_hardswish(x))
        y = x.copy()
        assert _run(aclnn.aclnnInplaceHardswishGetWorkspaceSize, aclnn.aclnnInplaceHardswish, (tensor(y),),
                    stream) == ACLNN_SUCCESS
        assert_bits_equal(y, ref_hardswish(x))
    grad_in = np.zeros_like(x)
    assert _backward(tensor(dy), tensor(x), tensor(grad_in), s=stream) == ACLNN_SUCCESS
    assert_bits_equal(grad_in, ref_hardswish_backward(dy, x, "arch35" if platform is P950 else "a2"))


def test_hardswish_on_the_a2_fails_at_the_launcher():
    aclnn.set_platform(A2)
    x = np.ones((2, 3), dtype=F32)
    assert _forward(tensor(x), tensor(np.zeros_like(x))) == ACLNN_ERR_INNER_NULLPTR
    message = aclnn.aclGetRecentErrMsg()
    assert "ascend910b" in message and "HardSwish" in message


def test_hardswish_casts_to_out_and_views():
    aclnn.set_platform(P950)
    x = random_values(np.random.default_rng(1), (4, 6), F16) * F16.type(3)
    out = np.zeros((4, 6), F32)
    assert _forward(tensor(x), tensor(out)) == ACLNN_SUCCESS
    assert_bits_equal(out, ref_hardswish(x).astype(F32))          # the float16 result, widened
    base = np.zeros((6, 8), F16)
    view = base.T[1:7, 0:4].T                                      # a strided out
    assert _forward(tensor(x), tensor_over(view, base)) == ACLNN_SUCCESS
    assert_bits_equal(np.ascontiguousarray(view), ref_hardswish(x))


def test_checks():
    aclnn.set_platform(P950)
    x = np.ones((2, 3), F32)
    assert _forward(None, tensor(x)) == ACLNN_ERR_PARAM_NULLPTR
    assert _forward(tensor(x.astype(np.float64), ACL_DOUBLE), tensor(x)) == ACLNN_ERR_PARAM_INVALID
    assert "dtype of self" in aclnn.aclGetRecentErrMsg()
    assert _forward(tensor(x), tensor(x.astype(np.int32), ACL_INT32)) == ACLNN_ERR_PARAM_INVALID
    assert _forward(tensor(x), tensor(np.ones((3, 2), F32))) == ACLNN_ERR_PARAM_INVALID
    assert "shape of out" in aclnn.aclGetRecentErrMsg()
    assert _forward(tensor(x[:0]), tensor(x[:0])) == ACLNN_SUCCESS            # empty: nothing launched
    # the backward: dtypes must match self's, shapes equal (nothing broadcasts), at most 8 dims
    g = np.ones((2, 3), F16)
    assert _backward(tensor(g), tensor(x), tensor(x)) == ACLNN_ERR_PARAM_INVALID
    assert "dtype of gradOutput" in aclnn.aclGetRecentErrMsg()
    assert _backward(tensor(x), tensor(x), tensor(x.astype(F16))) == ACLNN_ERR_PARAM_INVALID
    assert _backward(tensor(x[:1]), tensor(x), tensor(x)) == ACLNN_ERR_PARAM_INVALID
    nine = np.ones((1,) * 9, F32)
    assert _backward(tensor(nine), tensor(nine), tensor(nine)) == ACLNN_ERR_PARAM_INVALID
    assert _backward(tensor(x), None, tensor(x)) == ACLNN_ERR_PARAM_NULLPTR
    # bfloat16 outside the op_api's SoCs
    aclnn.set_platform(Platform(soc_version="ascend310p"))
    b = np.ones((2, 3), BF16)
    assert _backward(tensor(b), tensor(b), tensor(b)) == ACLNN_ERR_PARAM_INVALID
    assert _forward(tensor(b), tensor(b)) == ACLNN_ERR_PARAM_INVALID


def test_a2_saturation_stream():
    # the A2 HardSwishGrad on a saturation stream: inf * 1 saturates to FLT_MAX, inf * 0 (NaN) to +0
    aclnn.set_platform(A2)
    g = np.array([np.inf, np.inf, 1.0], F32)
    x = np.array([4.0, -5.0, 0.0], F32)
    out = np.zeros_like(x)
    assert aclnn.aclrtSetDeviceSatMode(aclnn.ACL_RT_OVERFLOW_MODE_SATURATION) == aclnn.ACL_SUCCESS
    try:
        _, s = aclnn.aclrtCreateStream()
        assert _backward(tensor(g), tensor(x), tensor(out), s=s) == ACLNN_SUCCESS
        assert out.tolist() == [float(np.finfo(F32).max), 0.0, 0.5]
        aclnn.aclrtDestroyStream(s)
    finally:
        assert aclnn.aclrtSetDeviceSatMode(aclnn.ACL_RT_OVERFLOW_MODE_INFNAN) == aclnn.ACL_SUCCESS

# ---------------------------------------------------------------- aclnnMish / aclnnInplaceMish (issue 41)


@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("platform", [P950, A2, Platform(soc_version="ascend950", axpy_rounding="unfused")],
                         ids=["950", "a2", "950-unfused"])
def test_mish_launch_bits(dtype, platform, stream):
    from reference_mish import ref_mish

    aclnn.set_platform(platform)
    x = random_values(np.random.default_rng(6), (3, 777), dtype) * dtype.type(4)
    kernel = "a2" if platform is A2 else "arch35"
    out = np.zeros_like(x)
    assert _run(aclnn.aclnnMishGetWorkspaceSize, aclnn.aclnnMish, (tensor(x), tensor(out)), stream) == ACLNN_SUCCESS
    assert_bits_equal(out, ref_mish(x, kernel, platform.axpy_rounding))
    y = x.copy()
    assert _run(aclnn.aclnnInplaceMishGetWorkspaceSize, aclnn.aclnnInplaceMish, (tensor(y),), stream) == ACLNN_SUCCESS
    assert_bits_equal(y, out)


def test_mish_checks():
    aclnn.set_platform(A2)
    x = np.ones((2, 3), F32)
    mish = aclnn.aclnnMishGetWorkspaceSize
    assert mish(None, tensor(x))[0] == ACLNN_ERR_PARAM_NULLPTR
    assert mish(tensor(x), tensor(x.astype(F16)))[0] == ACLNN_ERR_PARAM_INVALID
    assert "dtype of out" in aclnn.aclGetRecentErrMsg()
    assert mish(tensor(x), tensor(np.ones((3, 2), F32)))[0] == ACLNN_ERR_PARAM_INVALID
    assert mish(tensor(x.astype(np.float64), ACL_DOUBLE), tensor(x.astype(np.float64), ACL_DOUBLE))[0] == \
        ACLNN_ERR_PARAM_INVALID
    nine = np.ones((1,) * 9, F32)
    assert mish(tensor(nine), tensor(nine))[0] == ACLNN_ERR_PARAM_INVALID
    assert mish(tensor(x[:0]), tensor(x[:0]))[0] == ACLNN_SUCCESS
    aclnn.set_platform(Platform(soc_version="ascend910e"))       # outside GetDtypeSupportListV2's bfloat16 SoCs
    b = np.ones((2, 3), BF16)
    assert mish(tensor(b), tensor(b))[0] == ACLNN_ERR_PARAM_INVALID


@pytest.mark.parametrize("platform", [P950, A2], ids=["950", "a2"])
@pytest.mark.parametrize("gdt, xdt, outdt", [(F32, F32, F32), (F16, BF16, F32), (BF16, BF16, F16), (F16, F32, F16),
                                             (F16, F16, F16)])
def test_mish_backward_promotes_broadcasts_and_casts(gdt, xdt, outdt, platform, stream):
    from reference_mish import ref_mish_backward, ref_mish_backward_a2

    aclnn.set_platform(platform)
    rng = np.random.default_rng(9)
    x = random_values(rng, (3, 1, 70), xdt) * xdt.type(3)
    x.reshape(-1)[:3] = np.array([np.nan, np.inf, -0.0], xdt)
    g = random_values(rng, (4, 70), gdt)
    out = np.zeros((3, 4, 70), outdt)
    status = _run(aclnn.aclnnMishBackwardGetWorkspaceSize, aclnn.aclnnMishBackward, (tensor(g), tensor(x), tensor(out)),
                  stream)
    assert status == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    kd = np.result_type(np.float32, np.float32) if gdt != xdt else xdt
    reference = ref_mish_backward if platform is P950 else ref_mish_backward_a2
    want = reference(np.broadcast_to(g.astype(kd), out.shape), np.broadcast_to(x.astype(kd), out.shape))
    with np.errstate(over="ignore"):
        assert_bits_equal(out, want.astype(outdt))


def test_mish_backward_checks():
    aclnn.set_platform(P950)
    x = np.ones((2, 3), F32)
    mb = aclnn.aclnnMishBackwardGetWorkspaceSize
    assert mb(tensor(x), None, tensor(x))[0] == ACLNN_ERR_PARAM_NULLPTR
    assert mb(tensor(x), tensor(np.ones((3, 2), F32)), tensor(x))[0] == ACLNN_ERR_PARAM_INVALID
    assert "do not broadcast" in aclnn.aclGetRecentErrMsg()
    assert mb(tensor(x), tensor(x[:1]), tensor(np.ones((1, 3), F32)))[0] == ACLNN_ERR_PARAM_INVALID
    assert "broadcast shape" in aclnn.aclGetRecentErrMsg()
    assert mb(tensor(x), tensor(x), tensor(x.astype(np.float64), ACL_DOUBLE))[0] == ACLNN_ERR_PARAM_INVALID
    assert mb(tensor(x[:0]), tensor(x[:0]), tensor(x[:0]))[0] == ACLNN_SUCCESS
    aclnn.set_platform(A2)
    status, ws, ex = mb(tensor(x), tensor(x), tensor(np.zeros_like(x)))
    assert status == ACLNN_SUCCESS and ws == A2.lib_workspace_size
