"""aclnnLeakyRelu, aclnnInplaceLeakyRelu and aclnnLeakyReluBackward (aclnn/described.py): the
op_apis' statuses, and launches bit for bit against tests/reference_activations_tier2.py."""
import numpy as np
import pytest

from aclnn_helpers import BF16, F16, F32, WORKSPACE, random_values, reference_platform, stream, tensor  # noqa: F401
from reference import assert_bits_equal
from reference_activations_tier2 import ref_leaky_relu, ref_leaky_relu_backward
from swishgrad_numba import ASCEND950_PLATFORM, Platform, aclnn
from swishgrad_numba.aclnn import (ACL_DOUBLE, ACL_FLOAT, ACL_INT32, ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_PARAM_INVALID,
                                   ACLNN_ERR_PARAM_NULLPTR, ACLNN_SUCCESS, aclCreateScalar, aclnnInplaceLeakyRelu,
                                   aclnnInplaceLeakyReluGetWorkspaceSize, aclnnLeakyRelu, aclnnLeakyReluBackward,
                                   aclnnLeakyReluBackwardGetWorkspaceSize, aclnnLeakyReluGetWorkspaceSize)

F64 = np.dtype(np.float64)


def _run(phase_one, phase_two, args, stream):
    status, ws, executor = phase_one(*args)
    assert status == ACLNN_SUCCESS, aclnn.aclGetRecentErrMsg()
    assert phase_two(WORKSPACE if ws else None, ws, executor, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    return ws


def _slope(value):
    return aclCreateScalar(value, ACL_DOUBLE)


@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=str)
@pytest.mark.parametrize("slope", [0.01, 0.0, -1.5])
def test_launches_match_the_references(dtype, slope, stream):
    aclnn.set_platform(ASCEND950_PLATFORM)
    rng = np.random.default_rng(30)
    x = random_values(rng, (3, 5, 7), dtype)
    out = np.zeros_like(x)
    assert _run(aclnnLeakyReluGetWorkspaceSize, aclnnLeakyRelu, (tensor(x), _slope(slope), tensor(out)),
                stream) == 16 << 20
    assert_bits_equal(out, ref_leaky_relu(x, np.float32(slope)))
    y = x.copy()
    _run(aclnnInplaceLeakyReluGetWorkspaceSize, aclnnInplaceLeakyRelu, (tensor(y), _slope(slope)), stream)
    assert_bits_equal(y, out, "in place")
    dy, grad = random_values(rng, (3, 5, 7), dtype), np.zeros_like(x)
    _run(aclnnLeakyReluBackwardGetWorkspaceSize, aclnnLeakyReluBackward,
         (tensor(dy), tensor(x), _slope(slope), False, tensor(grad)), stream)
    assert_bits_equal(grad, ref_leaky_relu_backward(dy, x, np.float32(slope)))


def test_backward_broadcasts_and_promotes(stream):
    aclnn.set_platform(ASCEND950_PLATFORM)
    rng = np.random.default_rng(31)
    dy, x = random_values(rng, (4, 1, 6), F16), random_values(rng, (3, 1), BF16)
    out = np.zeros((4, 3, 6), F32)
    _run(aclnnLeakyReluBackwardGetWorkspaceSize, aclnnLeakyReluBackward,
         (tensor(dy), tensor(x), _slope(0.2), True, tensor(out)), stream)
    b = (lambda a: np.broadcast_to(a, out.shape).astype(F32))
    assert_bits_equal(out, ref_leaky_relu_backward(b(dy), b(x), np.float32(0.2)))


def test_float64_runs_the_aicpu_model_on_any_platform(stream):
    rng = np.random.default_rng(32)
    x = rng.standard_normal((4, 5))
    for platform in (Platform(), ASCEND950_PLATFORM):
        aclnn.set_platform(platform)
        out = np.zeros_like(x)
        assert _run(aclnnLeakyReluGetWorkspaceSize, aclnnLeakyRelu,
                    (tensor(x, ACL_DOUBLE), _slope(0.1), tensor(out, ACL_DOUBLE)), stream) == 0
        assert np.array_equal(out, ref_leaky_relu(x, 0.1, kernel="aicpu"))
        grad = np.zeros_like(x)
        _run(aclnnLeakyReluBackwardGetWorkspaceSize, aclnnLeakyReluBackward,
             (tensor(x, ACL_DOUBLE), tensor(x.astype(F32)), _slope(0.1), False, tensor(grad, ACL_DOUBLE)), stream)
        assert np.array_equal(grad, ref_leaky_relu_backward(x, x.astype(F32), 0.1, kernel="aicpu"))


def test_result_cast_to_out(stream):
    aclnn.set_platform(ASCEND950_PLATFORM)
    x = np.array([-3.0, 1.0, 2.5], F32)
    out = np.zeros(3, F16)
    _run(aclnnLeakyReluGetWorkspaceSize, aclnnLeakyRelu, (tensor(x), _slope(0.1), tensor(out)), stream)
    assert_bits_equal(out, ref_leaky_relu(x, np.float32(0.1)).astype(F16))


def test_statuses():
    aclnn.set_platform(ASCEND950_PLATFORM)
    x, o, s = np.ones((2, 3), F32), np.zeros((2, 3), F32), _slope(0.1)
    fwd = lambda *t: aclnnLeakyReluGetWorkspaceSize(*t)[0]   # noqa: E731
    grad = lambda *t: aclnnLeakyReluBackwardGetWorkspaceSize(*t)[0]   # noqa: E731
    assert fwd(None, s, tensor(o)) == ACLNN_ERR_PARAM_NULLPTR
    assert fwd(tensor(x), None, tensor(o)) == ACLNN_ERR_PARAM_NULLPTR
    assert grad(tensor(x), tensor(x), None, False, tensor(o)) == ACLNN_ERR_PARAM_NULLPTR
    assert fwd(tensor(np.ones((2, 3), np.int32), ACL_INT32), s, tensor(o)) == ACLNN_ERR_PARAM_INVALID
    assert fwd(tensor(x), s, tensor(np.zeros((2, 3), np.int32), ACL_INT32)) == ACLNN_ERR_PARAM_INVALID
    assert fwd(tensor(x), s, tensor(np.zeros((3, 2), F32))) == ACLNN_ERR_PARAM_INVALID
    assert fwd(tensor(np.ones((1,) * 9, F32)), s, tensor(np.zeros((1,) * 9, F32))) == ACLNN_ERR_PARAM_INVALID
    assert grad(tensor(np.ones((2, 1), F32)), tensor(x), s, False, tensor(o)) == ACLNN_SUCCESS
    assert grad(tensor(np.ones((4, 1), F32)), tensor(x), s, False, tensor(o)) == ACLNN_ERR_PARAM_INVALID
    assert grad(tensor(x), tensor(x), _slope(-0.01), True, tensor(o)) == ACLNN_ERR_PARAM_INVALID
    assert "selfIsResult" in aclnn.aclGetRecentErrMsg()
    assert grad(tensor(x), tensor(x), _slope(-0.01), False, tensor(o)) == ACLNN_SUCCESS
    assert grad(tensor(x), tensor(x), aclCreateScalar(1, ACL_INT32), True, tensor(o)) == ACLNN_SUCCESS
    assert fwd(tensor(np.zeros((0, 3), F32)), s, tensor(np.zeros((0, 3), F32))) == ACLNN_SUCCESS
    aclnn.set_platform(Platform())          # the A2: the op_api lets it through, no public kernel launches it
    assert fwd(tensor(x), s, tensor(o)) == ACLNN_ERR_INNER_NULLPTR
    assert "Ascend 950 only" in aclnn.aclGetRecentErrMsg()
    assert grad(tensor(x), tensor(x), s, False, tensor(o)) == ACLNN_ERR_INNER_NULLPTR
    assert fwd(tensor(x, ACL_FLOAT), s, tensor(o)) == ACLNN_ERR_INNER_NULLPTR
