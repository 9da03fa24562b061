"""aclnnGeluV2 and aclnnGeluBackwardV2 (generated from ops/gelu_v2/, ops/gelu_grad_v2/): the op_apis'
statuses, and launches bit for bit against the plain references of tests/reference_activations_tier2.py."""
import numpy as np
import pytest

import reference_activations_tier2 as rb
from aclnn_helpers import BF16, F16, F32, WORKSPACE, random_values, reference_platform, stream, tensor  # noqa: F401
from reference import assert_bits_equal
from swishgrad_numba import ASCEND950_PLATFORM, Platform, aclnn
from swishgrad_numba.aclnn import (ACL_INT32, ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID,
                                   ACLNN_ERR_PARAM_NULLPTR, ACLNN_SUCCESS, aclnnGeluBackwardV2,
                                   aclnnGeluBackwardV2GetWorkspaceSize, aclnnGeluV2, aclnnGeluV2GetWorkspaceSize)

PLATFORMS = {"a2": Platform(), "arch35": ASCEND950_PLATFORM}


def _run(phase_one, phase_two, args, stream):
    status, ws, executor = phase_one(*args)
    assert status == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    assert phase_two(WORKSPACE if ws else None, ws, executor, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    return ws


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=str)
def test_launches_match_the_references(approximate, dtype, stream):
    rng = np.random.default_rng(30)
    x = (random_values(rng, (3, 5, 7), dtype).astype(F32) * 2).astype(dtype)
    dy = random_values(rng, (3, 5, 7), dtype)
    aclnn.set_platform(ASCEND950_PLATFORM)
    out = np.zeros_like(x)
    # the int attribute: 1 is tanh, every other value none (no check)
    code = {"none": 7, "tanh": 1}[approximate]
    assert _run(aclnnGeluV2GetWorkspaceSize, aclnnGeluV2, (tensor(x), code, tensor(out)), stream) == 16 << 20
    assert_bits_equal(out, rb.ref_gelu_v2(x, approximate))
    for kernel, platform in PLATFORMS.items():
        aclnn.set_platform(platform)
        grad = np.zeros_like(x)
        _run(aclnnGeluBackwardV2GetWorkspaceSize, aclnnGeluBackwardV2,
             (tensor(dy), tensor(x), approximate, tensor(grad)), stream)
        assert_bits_equal(grad, rb.ref_gelu_backward_v2(dy, x, approximate, kernel), kernel)


@pytest.mark.parametrize("kernel", list(PLATFORMS))
def test_backward_broadcasts(kernel, stream):
    aclnn.set_platform(PLATFORMS[kernel])
    rng = np.random.default_rng(5)
    dy, x = random_values(rng, (4, 1, 6), F32), random_values(rng, (3, 1), F32)
    out = np.zeros((4, 3, 6), F32)
    _run(aclnnGeluBackwardV2GetWorkspaceSize, aclnnGeluBackwardV2, (tensor(dy), tensor(x), "none", tensor(out)),
         stream)
    b = np.broadcast_to
    assert_bits_equal(out, rb.ref_gelu_backward_v2(b(dy, out.shape).copy(), b(x, out.shape).copy(), "none", kernel))


def test_statuses():
    x, o = np.ones((2, 3), F32), np.zeros((2, 3), F32)
    aclnn.set_platform(ASCEND950_PLATFORM)
    gelu = lambda *t: aclnnGeluV2GetWorkspaceSize(*t)[0]   # noqa: E731
    grad = lambda *t: aclnnGeluBackwardV2GetWorkspaceSize(*t)[0]   # noqa: E731
    assert gelu(None, 0, tensor(o)) == ACLNN_ERR_PARAM_NULLPTR
    assert gelu(tensor(np.ones((2, 3), np.int32), ACL_INT32), 0, tensor(o)) == ACLNN_ERR_PARAM_INVALID
    assert gelu(tensor(x), 0, tensor(np.zeros((2, 3), F16))) == ACLNN_ERR_PARAM_INVALID        # dtypes differ
    assert gelu(tensor(x), 0, tensor(np.zeros((3, 2), F32))) == ACLNN_ERR_PARAM_INVALID        # shapes differ
    assert gelu(tensor(np.zeros((0, 3), F32)), 1, tensor(np.zeros((0, 3), F32))) == ACLNN_SUCCESS
    assert grad(tensor(x), tensor(x), None, tensor(o)) == ACLNN_ERR_PARAM_NULLPTR
    assert grad(tensor(x), tensor(x), "Tanh", tensor(o)) == ACLNN_ERR_PARAM_INVALID
    assert "approximate" in aclnn.aclGetRecentErrMsg()
    assert grad(tensor(x), None, "none", tensor(o)) == ACLNN_ERR_PARAM_NULLPTR
    assert grad(tensor(np.ones((2, 1), F32)), tensor(x), "tanh", tensor(o)) == ACLNN_SUCCESS   # broadcasts
    assert grad(tensor(np.ones((4, 1), F32)), tensor(x), "tanh", tensor(o)) == ACLNN_ERR_PARAM_INVALID
    assert grad(tensor(np.ones((2, 3), F16)), tensor(x), "none", tensor(o)) == ACLNN_SUCCESS   # promoted
    aclnn.set_platform(Platform())                     # the A2: GeluV2's launcher has no kernel there
    assert gelu(tensor(x), 0, tensor(o)) == ACLNN_ERR_INNER_NULLPTR
    assert "ascend950" in aclnn.aclGetRecentErrMsg().lower()
    assert grad(tensor(x), tensor(x), "none", tensor(o)) == ACLNN_SUCCESS
