"""aclnnFastGelu / aclnnFastGeluBackward (swishgrad_numba.aclnn.op_fast_gelu): the op_api's checks and
statuses, the A2 refusal, and launches bit for bit against the plain references
(tests/reference_activations.py)."""
import numpy as np
import pytest

from aclnn_helpers import (BF16, F16, F32, WORKSPACE, random_values, reference_platform,  # noqa: F401
                           stream, tensor, tensor_over)
from reference import assert_bits_equal
from reference_activations import ref_fast_gelu, ref_fast_gelu_backward
from swishgrad_numba import Platform, aclnn
from swishgrad_numba.aclnn import (ACL_FORMAT_NC1HWC0, ACL_FORMAT_NCHW, ACL_INT32, ACLNN_ERR_INNER_NULLPTR,
                                   ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, ACLNN_SUCCESS)

P950 = Platform(soc_version="ascend950")


def _run(tensors, s=None):
    """Both phases of aclnnFastGelu (one input tensor and out) or aclnnFastGeluBackward (three)."""
    if len(tensors) == 2:
        status, ws, ex = aclnn.aclnnFastGeluGetWorkspaceSize(*tensors)
        launch = aclnn.aclnnFastGelu
    else:
        status, ws, ex = aclnn.aclnnFastGeluBackwardGetWorkspaceSize(*tensors)
        launch = aclnn.aclnnFastGeluBackward
    if status != ACLNN_SUCCESS:
        assert ws == 0 and ex is None
        return status
    status = launch(WORKSPACE if ws else None, ws, ex, s)
    assert aclnn.aclrtSynchronizeStream(s) == aclnn.ACL_SUCCESS
    return status


@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=["f32", "f16", "bf16"])
def test_launch_bits(dtype, stream):
    aclnn.set_platform(P950)
    rng = np.random.default_rng(4)
    x, dy = random_values(rng, (3, 777), dtype), random_values(rng, (3, 777), dtype)
    out = np.zeros_like(x)
    assert _run((tensor(x), tensor(out)), stream) == ACLNN_SUCCESS
    assert_bits_equal(out, ref_fast_gelu(x))
    grad_in = np.zeros_like(x)
    assert _run((tensor(dy), tensor(x), tensor(grad_in)), stream) == ACLNN_SUCCESS
    assert_bits_equal(grad_in, ref_fast_gelu_backward(dy, x))


def test_strided_views(stream):
    aclnn.set_platform(P950)
    base_x = random_values(np.random.default_rng(5), (6, 8), F16)
    base_o = np.zeros((8, 6), dtype=F16)
    assert _run((tensor_over(base_x.T, base_x), tensor(base_o)), stream) == ACLNN_SUCCESS
    assert_bits_equal(base_o, ref_fast_gelu(np.ascontiguousarray(base_x.T)))


@pytest.mark.parametrize("soc", ["ascend910b", "ascend910_93"])
def test_a2_and_a3_pass_the_op_api_and_fail_at_the_launcher(soc):
    """The op_api's dtype list holds all three on DAV_2201; the kernel is not public: 561103."""
    aclnn.set_platform(Platform(soc_version=soc))
    x = np.ones((2, 3), dtype=BF16)
    assert _run((tensor(x), tensor(np.zeros_like(x)))) == ACLNN_ERR_INNER_NULLPTR
    message = aclnn.aclGetRecentErrMsg()
    assert f"soc_version {soc!r}" in message and "Ascend 950 only" in message and "FastGelu launcher" in message
    assert _run((tensor(x), tensor(x), tensor(np.zeros_like(x)))) == ACLNN_ERR_INNER_NULLPTR
    assert "FastGeluGrad launcher" in aclnn.aclGetRecentErrMsg()
    # the op_api's own checks still come first, and an empty tensor succeeds before any launch
    assert _run((tensor(x), tensor(np.zeros((3, 2), dtype=BF16)))) == ACLNN_ERR_PARAM_INVALID
    e = np.zeros((0, 4), dtype=F32)
    status, ws, ex = aclnn.aclnnFastGeluGetWorkspaceSize(tensor(e), tensor(np.zeros_like(e)))
    assert (status, ws) == (ACLNN_SUCCESS, 0) and ex is not None


def test_a_soc_outside_the_list_refuses_every_dtype():
    aclnn.set_platform(Platform(soc_version="ascend310p"))
    x = np.ones(4, dtype=F32)
    assert _run((tensor(x), tensor(np.zeros_like(x)))) == ACLNN_ERR_PARAM_INVALID
    assert "none (empty list)" in aclnn.aclGetRecentErrMsg()


def test_checks(stream):
    aclnn.set_platform(P950)
    x = np.ones((2, 3), dtype=F32)
    out = np.zeros_like(x)
    assert _run((None, tensor(out))) == ACLNN_ERR_PARAM_NULLPTR
    assert _run((tensor(x), tensor(x), None)) == ACLNN_ERR_PARAM_NULLPTR
    assert "gradInput is a null pointer" in aclnn.aclGetRecentErrMsg()
    i32 = np.ones(3, dtype=np.int32)
    assert _run((tensor(i32, ACL_INT32), tensor(i32, ACL_INT32))) == ACLNN_ERR_PARAM_INVALID
    assert _run((tensor(x), tensor(np.zeros((2, 3), dtype=F16)))) == ACLNN_ERR_PARAM_INVALID
    assert "must equal dtype of self" in aclnn.aclGetRecentErrMsg()
    assert _run((tensor(x.astype(F16)), tensor(x), tensor(out))) == ACLNN_ERR_PARAM_INVALID
    assert _run((tensor(x), tensor(np.zeros((3, 2), dtype=F32)))) == ACLNN_ERR_PARAM_INVALID
    assert _run((tensor(np.ones((3, 2), F32)), tensor(x), tensor(out))) == ACLNN_ERR_PARAM_INVALID
    assert "shape of self" in aclnn.aclGetRecentErrMsg()
    nine = np.ones((1,) * 9, dtype=F32)
    assert _run((tensor(nine), tensor(np.zeros_like(nine)))) == ACLNN_ERR_PARAM_INVALID
    assert "at most 8" in aclnn.aclGetRecentErrMsg()
    nchw = aclnn.aclCreateTensor(x.shape, aclnn.ACL_FLOAT, None, 0, ACL_FORMAT_NCHW, x.shape, x)
    assert _run((nchw, tensor(out))) == ACLNN_ERR_PARAM_INVALID
    assert "format of out" in aclnn.aclGetRecentErrMsg()
    fmt = aclnn.aclCreateTensor(x.shape, aclnn.ACL_FLOAT, None, 0, ACL_FORMAT_NC1HWC0, x.shape, x)
    fmt_out = aclnn.aclCreateTensor(x.shape, aclnn.ACL_FLOAT, None, 0, ACL_FORMAT_NC1HWC0, x.shape, out)
    assert _run((fmt, fmt_out)) == ACLNN_ERR_PARAM_INVALID


def test_executor_runs_once_and_only_for_its_operator(stream):
    aclnn.set_platform(P950)
    x = np.ones(4, dtype=F32)
    status, ws, ex = aclnn.aclnnFastGeluGetWorkspaceSize(tensor(x), tensor(np.zeros_like(x)))
    assert status == ACLNN_SUCCESS and ws == 16 * 1024 * 1024
    assert aclnn.aclnnFastGeluBackward(WORKSPACE, ws, ex, stream) == ACLNN_ERR_PARAM_INVALID
    assert aclnn.aclnnFastGelu(WORKSPACE, ws, ex, stream) == ACLNN_SUCCESS
    assert aclnn.aclnnFastGelu(WORKSPACE, ws, ex, stream) == aclnn.ACLNN_ERR_INNER_EXECUTOR_REUSED
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
