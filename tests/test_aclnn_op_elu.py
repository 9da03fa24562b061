"""aclnnElu / aclnnEluBackward (swishgrad_numba.aclnn.op_elu): the op_api's checks and statuses, the A2 refusal
of Elu, the Threshold path, the output Cast, and launches bit for bit against ref_elu / ref_elu_backward."""
import numpy as np
import pytest

from aclnn_helpers import (BF16, F16, F32, WORKSPACE, random_values, reference_platform,  # noqa: F401
                           stream, tensor)
from reference import assert_bits_equal
from reference_activations_tier2 import ref_elu, ref_elu_backward
from swishgrad_numba import Platform, aclnn
from swishgrad_numba.aclnn import (ACL_COMPLEX64, ACL_DOUBLE, ACL_FLOAT, ACL_INT32, ACLNN_ERR_INNER_NULLPTR,
                                   ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, ACLNN_SUCCESS)

P950 = Platform(soc_version="ascend950")


def _s(v, dt=ACL_FLOAT):
    return aclnn.aclCreateScalar(v, dt)


def _t(a):
    return tensor(a, {np.dtype(np.int32): ACL_INT32, np.dtype(np.float64): ACL_DOUBLE}.get(a.dtype))


def _elu(x, out, alpha=1.0, scale=1.0, input_scale=1.0, s=None):
    status, ws, ex = aclnn.aclnnEluGetWorkspaceSize(_t(x), _s(alpha), _s(scale), _s(input_scale), _t(out))
    if status != ACLNN_SUCCESS:
        assert ws == 0 and ex is None
        return status
    status = aclnn.aclnnElu(WORKSPACE if ws else None, ws, ex, s)
    assert aclnn.aclrtSynchronizeStream(s) == aclnn.ACL_SUCCESS
    return status


def _back(g, a, out, alpha=1.0, scale=1.0, input_scale=1.0, is_result=False, s=None):
    status, ws, ex = aclnn.aclnnEluBackwardGetWorkspaceSize(_t(g), _s(alpha), _s(scale), _s(input_scale),
                                                            is_result, _t(a), _t(out))
    if status != ACLNN_SUCCESS:
        assert ws == 0 and ex is None
        return status
    status = aclnn.aclnnEluBackward(WORKSPACE if ws else None, ws, ex, s)
    assert aclnn.aclrtSynchronizeStream(s) == aclnn.ACL_SUCCESS
    return status


@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("attrs", [(1.0, 1.0, 1.0), (0.5, 1.7, 0.3), (np.inf, 2.0, 1.0), (1.0, 1.0, np.nan)])
def test_elu_launch_bits(dtype, attrs, stream):
    aclnn.set_platform(P950)
    x = random_values(np.random.default_rng(4), (3, 777), dtype)
    out = np.zeros_like(x)
    assert _elu(x, out, *attrs, s=stream) == ACLNN_SUCCESS
    assert_bits_equal(out, ref_elu(x, *attrs))


@pytest.mark.parametrize("soc", ["ascend950", "ascend910b"])
@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("is_result", [False, True])
def test_elu_backward_launch_bits(soc, dtype, is_result, stream):
    aclnn.set_platform(Platform(soc_version=soc))
    rng = np.random.default_rng(6)
    g, a = random_values(rng, (5, 999), dtype), random_values(rng, (5, 999), dtype)
    out = np.zeros_like(g)
    attrs = (0.5, 1.7, 0.3)
    assert _back(g, a, out, *attrs, is_result, s=stream) == ACLNN_SUCCESS
    kernel = "arch35" if soc == "ascend950" else "a2"
    assert_bits_equal(out, ref_elu_backward(g, a, *attrs, is_result, kernel=kernel))


def test_output_cast_and_float64_scalars(stream):
    aclnn.set_platform(P950)
    x = random_values(np.random.default_rng(1), (100,), F16)
    out = np.zeros(x.shape, dtype=F32)
    status, ws, ex = aclnn.aclnnEluGetWorkspaceSize(tensor(x), _s(0.7, ACL_DOUBLE), _s(1.0), _s(2, ACL_INT32),
                                                    tensor(out))
    assert status == ACLNN_SUCCESS and aclnn.aclnnElu(WORKSPACE, ws, ex, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    assert_bits_equal(out, ref_elu(x, 0.7, 1.0, 2.0).astype(F32))


def test_statuses():
    aclnn.set_platform(P950)
    x = np.ones((2, 3), dtype=F32)
    o = np.zeros_like(x)
    assert aclnn.aclnnEluGetWorkspaceSize(tensor(x), None, _s(1.0), _s(1.0), tensor(o))[0] == ACLNN_ERR_PARAM_NULLPTR
    assert aclnn.aclnnEluGetWorkspaceSize(None, _s(1.0), _s(1.0), _s(1.0), tensor(o))[0] == ACLNN_ERR_PARAM_NULLPTR
    assert aclnn.aclnnEluGetWorkspaceSize(tensor(x), _s(1.0, ACL_COMPLEX64), _s(1.0), _s(1.0),
                                          tensor(o))[0] == ACLNN_ERR_PARAM_INVALID
    assert _elu(x, np.zeros((3, 2), F32)) == ACLNN_ERR_PARAM_INVALID
    assert _elu(x, np.zeros((2, 3), np.int32)) == ACLNN_ERR_PARAM_INVALID
    assert _elu(x.astype(np.int32), np.zeros((2, 3), F32)) == ACLNN_ERR_PARAM_INVALID
    assert _elu(np.ones((0, 3), F32), np.zeros((0, 3), F32)) == ACLNN_SUCCESS
    assert _back(x, x, o, alpha=-1.0, is_result=True) == ACLNN_ERR_PARAM_INVALID
    assert _back(x, x, o, alpha=-1.0, is_result=False) == ACLNN_SUCCESS
    assert _back(x, x.astype(F16), o) == ACLNN_ERR_PARAM_INVALID
    assert _back(x, x, o, is_result=1) == ACLNN_ERR_PARAM_INVALID
    assert _back(x.astype(np.float64), x.astype(np.float64), o.astype(np.float64)) == ACLNN_ERR_PARAM_INVALID


def test_elu_on_the_a2_fails_at_the_launcher():
    """The op_api passes; no A2 kernel registers op type Elu: 561103."""
    aclnn.set_platform(Platform(soc_version="ascend910b"))
    x = np.ones((2, 3), dtype=F32)
    assert _elu(x, np.zeros_like(x)) == ACLNN_ERR_INNER_NULLPTR
    assert "op type Elu" in aclnn.aclGetRecentErrMsg()


def test_bfloat16_backward_list_by_soc():
    aclnn.set_platform(Platform(soc_version="ascend310p"))
    x = np.ones((2, 3), dtype=BF16)
    assert _back(x, x, np.zeros_like(x)) == ACLNN_ERR_PARAM_INVALID


def test_threshold_path_casts_once_to_out(stream):
    """Alpha or inputScale not finite: Threshold and Muls in float32 on the widened self, then one Cast to
    out's dtype (a float32 out keeps -alpha * scale unrounded to float16)."""
    aclnn.set_platform(P950)
    x = random_values(np.random.default_rng(2), (300,), F16)
    out = np.zeros(x.shape, dtype=F32)
    assert _elu(x, out, 0.7, 1.3, np.nan, s=stream) == ACLNN_SUCCESS
    assert_bits_equal(out, ref_elu(x.astype(F32), 0.7, 1.3, np.nan))
