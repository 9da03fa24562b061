"""aclnnSiluBackward (generated: swishgrad_numba.aclnn.described): the op_api's checks and statuses, and launches compared
bit for bit with the plain reference of tests/reference_silu_grad.py."""
import numpy as np
import pytest

from aclnn_helpers import BF16, F16, F32, WORKSPACE, random_values, reference_platform, stream, tensor  # noqa: F401
from reference import assert_bits_equal
from reference_silu_grad import ref_silu_grad
from swishgrad_numba import ASCEND950_PLATFORM, Platform, aclnn
from swishgrad_numba.aclnn import (
    ACL_FORMAT_NC1HWC0, ACL_INT32, ACLNN_ERR_INNER_EXECUTOR_REUSED, ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_PARAM_NULLPTR, ACLNN_SUCCESS,
)
from swishgrad_numba.aclnn import aclnnSiluBackward, aclnnSiluBackwardGetWorkspaceSize


def _launch(go, x, gi, stream):
    status, ws, executor = aclnnSiluBackwardGetWorkspaceSize(go, x, gi)
    if status != ACLNN_SUCCESS:
        assert ws == 0 and executor is None
        return status, ws
    status = aclnnSiluBackward(WORKSPACE if ws else None, ws, executor, stream)
    assert status == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    return status, ws


def _status(go, x, gi):
    return aclnnSiluBackwardGetWorkspaceSize(go, x, gi)[0]


@pytest.mark.parametrize("platform", [Platform(), ASCEND950_PLATFORM], ids=["a2", "950"])
@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=str)
def test_launch_matches_reference(platform, dtype, stream):
    aclnn.set_platform(platform)
    rng = np.random.default_rng(11)
    g, x = random_values(rng, (3, 5, 7), dtype), random_values(rng, (3, 5, 7), dtype)
    out = np.zeros((3, 5, 7), dtype)
    status, ws = _launch(tensor(g), tensor(x), tensor(out), stream)
    assert status == ACLNN_SUCCESS
    assert ws == (32 if platform.architecture == "arch35" else platform.lib_workspace_size)
    assert_bits_equal(out, ref_silu_grad(g, x))


def test_broadcast_and_mixed_dtypes_on_the_950(stream):
    aclnn.set_platform(ASCEND950_PLATFORM)
    rng = np.random.default_rng(2)
    g = random_values(rng, (4, 1, 6), F16)
    x = random_values(rng, (3, 1), BF16)
    out = np.zeros((4, 3, 6), np.float32)
    assert _launch(tensor(g), tensor(x), tensor(out), stream)[0] == ACLNN_SUCCESS
    assert_bits_equal(out, ref_silu_grad(g, x))


def test_statuses_in_op_api_order():
    g, x, o = np.ones((2, 3), F32), np.ones((2, 3), F32), np.zeros((2, 3), F32)
    assert _status(None, tensor(x), tensor(o)) == ACLNN_ERR_PARAM_NULLPTR
    assert _status(tensor(g), tensor(x), None) == ACLNN_ERR_PARAM_NULLPTR
    # a null pointer is reported before a bad dtype
    assert _status(tensor(np.ones((2, 3), np.int32), ACL_INT32), None, tensor(o)) == ACLNN_ERR_PARAM_NULLPTR
    assert _status(tensor(g), tensor(x), tensor(np.zeros((2, 3), np.int32), ACL_INT32)) == ACLNN_ERR_PARAM_INVALID
    # A2: mixed dtypes and broadcasting are refused
    h = np.ones((2, 3), F16)
    assert _status(tensor(h), tensor(x), tensor(o)) == ACLNN_ERR_PARAM_INVALID
    assert _status(tensor(np.ones((1, 3), F32)), tensor(x), tensor(o)) == ACLNN_ERR_PARAM_INVALID
    # more than 8 dims on an input; gradInput's rank is not checked by the op_api
    nine = np.ones((1,) * 9, F32)
    assert _status(tensor(nine), tensor(nine), tensor(np.zeros((1,) * 9, F32))) == ACLNN_ERR_PARAM_INVALID
    assert _status(tensor(g), tensor(x), tensor(o, fmt=ACL_FORMAT_NC1HWC0)) == ACLNN_ERR_PARAM_INVALID


def test_950_rules():
    aclnn.set_platform(ASCEND950_PLATFORM)
    g, x = np.ones((2, 1), F16), np.ones((1, 3), F32)
    assert _status(tensor(g), tensor(x), tensor(np.zeros((2, 3), F32))) == ACLNN_SUCCESS
    # mixed dtypes need a float32 gradInput
    assert _status(tensor(g), tensor(x), tensor(np.zeros((2, 3), F16))) == ACLNN_ERR_PARAM_INVALID
    # the broadcast shape must be gradInput's
    assert _status(tensor(g), tensor(x), tensor(np.zeros((2, 4), F32))) == ACLNN_ERR_PARAM_INVALID
    assert _status(tensor(g), tensor(np.ones((1, 4), F32)), tensor(np.zeros((2, 4), F32))) == ACLNN_SUCCESS
    assert _status(tensor(np.ones(3, F32)), tensor(np.ones(4, F32)),
                   tensor(np.zeros(4, F32))) == ACLNN_ERR_PARAM_INVALID


@pytest.mark.parametrize("soc, ok", [("ascend910b", True), ("Ascend910_9391", True), ("ascend950", True),
                                     ("ascend910", False), ("ascend310p", False)])
def test_bfloat16_gate(soc, ok):
    aclnn.set_platform(Platform(soc_version=soc))
    b = np.ones(4, BF16)
    want = ACLNN_SUCCESS if ok else ACLNN_ERR_PARAM_INVALID
    assert _status(tensor(b), tensor(b.copy()), tensor(np.zeros(4, BF16))) == want


def test_empty_and_reuse(stream):
    e = np.zeros((0, 3), F32)
    status, ws, executor = aclnnSiluBackwardGetWorkspaceSize(tensor(e), tensor(e.copy()), tensor(e.copy()))
    assert (status, ws) == (ACLNN_SUCCESS, 0)
    assert aclnnSiluBackward(None, 0, executor, stream) == ACLNN_SUCCESS
    assert aclnnSiluBackward(None, 0, executor, stream) == ACLNN_ERR_INNER_EXECUTOR_REUSED
    assert aclnnSiluBackward(None, 0, None, stream) == ACLNN_ERR_PARAM_NULLPTR



@pytest.mark.parametrize("platform", [Platform(), ASCEND950_PLATFORM], ids=["a2", "950"])
def test_non_contiguous_views(platform, stream):
    """A transposed gradOutput, a stride-0 self and a sliced gradInput: made contiguous, computed, copied back."""
    aclnn.set_platform(platform)
    rng = np.random.default_rng(4)
    g_base = random_values(rng, (6, 4), F16)
    x_row = random_values(rng, (6,), F16)
    o_base = np.zeros((4, 12), F16)
    g_view = g_base.T
    x_view = np.lib.stride_tricks.as_strided(x_row, shape=(4, 6), strides=(0, 2))
    o_view = o_base[:, ::2]
    g_t = aclnn.aclCreateTensor((4, 6), aclnn.ACL_FLOAT16, [1, 4], 0, aclnn.ACL_FORMAT_ND, (6, 4), g_base)
    x_t = aclnn.aclCreateTensor((4, 6), aclnn.ACL_FLOAT16, [0, 1], 0, aclnn.ACL_FORMAT_ND, (6,), x_row)
    o_t = aclnn.aclCreateTensor((4, 6), aclnn.ACL_FLOAT16, [12, 2], 0, aclnn.ACL_FORMAT_ND, (4, 12), o_base)
    assert _launch(g_t, x_t, o_t, stream)[0] == ACLNN_SUCCESS
    assert_bits_equal(o_view, ref_silu_grad(g_view, x_view))
    assert not o_base[:, 1::2].any()
