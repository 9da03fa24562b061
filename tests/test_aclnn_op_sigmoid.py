"""aclnnSigmoid, aclnnInplaceSigmoid and aclnnSigmoidBackward (swishgrad_numba.aclnn.op_sigmoid): the op_apis'
checks and statuses, and launches compared bit for bit with tests/reference_activations.py."""
import numpy as np
import pytest

from aclnn_helpers import BF16, F16, F32, WORKSPACE, random_values, reference_platform, stream, tensor  # noqa: F401
from reference import assert_bits_equal
import reference_activations as ra
from swishgrad_numba import ASCEND950_PLATFORM, Platform, aclnn
from swishgrad_numba.aclnn import (
    ACL_COMPLEX64, ACL_DOUBLE, ACL_FORMAT_NC1HWC0, ACL_INT32, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR,
    ACLNN_SUCCESS,
)

KERNEL = {"a2": Platform(), "arch35": ASCEND950_PLATFORM}


def _run(get, run, *tensors, stream):
    status, ws, executor = get(*tensors)
    if status != ACLNN_SUCCESS:
        assert ws == 0 and executor is None
        return status, ws
    assert run(WORKSPACE if ws else None, ws, executor, stream) == ACLNN_SUCCESS
    assert aclnn.aclrtSynchronizeStream(stream) == aclnn.ACL_SUCCESS
    return ACLNN_SUCCESS, ws


@pytest.mark.parametrize("kernel", KERNEL)
@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=str)
def test_sigmoid_and_inplace_match_the_reference(kernel, dtype, stream):
    aclnn.set_platform(KERNEL[kernel])
    x = random_values(np.random.default_rng(1), (3, 5, 7), dtype)
    out = np.zeros_like(x)
    status, ws = _run(aclnn.aclnnSigmoidGetWorkspaceSize, aclnn.aclnnSigmoid, tensor(x), tensor(out), stream=stream)
    assert status == ACLNN_SUCCESS and ws == (32 if kernel == "arch35" else KERNEL[kernel].lib_workspace_size)
    assert_bits_equal(out, ra.ref_sigmoid(x, kernel))
    y = x.copy()
    status, _ = _run(aclnn.aclnnInplaceSigmoidGetWorkspaceSize, aclnn.aclnnInplaceSigmoid, tensor(y), stream=stream)
    assert status == ACLNN_SUCCESS
    assert_bits_equal(y, ra.ref_sigmoid(x, kernel))


def test_sigmoid_casts_the_result_to_out(stream):
    x = random_values(np.random.default_rng(2), (40,), F32)
    out = np.zeros(40, F16)
    assert _run(aclnn.aclnnSigmoidGetWorkspaceSize, aclnn.aclnnSigmoid, tensor(x), tensor(out),
                stream=stream)[0] == ACLNN_SUCCESS
    assert_bits_equal(out, ra.ref_sigmoid(x).astype(F16))


def test_sigmoid_statuses():
    get = aclnn.aclnnSigmoidGetWorkspaceSize
    x, out = np.zeros((2, 3), F32), np.zeros((2, 3), F32)
    assert get(None, tensor(out))[0] == ACLNN_ERR_PARAM_NULLPTR
    assert get(tensor(x), tensor(np.zeros((3, 2), F32)))[0] == ACLNN_ERR_PARAM_INVALID
    assert get(tensor(x), tensor(np.zeros((2, 3), np.int32), ACL_INT32))[0] == ACLNN_ERR_PARAM_INVALID
    assert get(tensor(np.zeros((1,) * 9, F32)), tensor(np.zeros((1,) * 9, F32)))[0] == ACLNN_ERR_PARAM_INVALID
    # in the lists, but no public kernel (float64: AICPU Sigmoid) or not modelled (an integer self's Cast)
    assert get(tensor(np.zeros(3), ACL_DOUBLE), tensor(np.zeros(3), ACL_DOUBLE))[0] == ACLNN_ERR_PARAM_INVALID
    assert "AICPU" in aclnn.aclGetRecentErrMsg()
    assert get(tensor(np.zeros(3, np.int32), ACL_INT32), tensor(np.zeros(3, F32)))[0] == ACLNN_ERR_PARAM_INVALID
    aclnn.set_platform(Platform(soc_version="ascend310p"))
    assert get(tensor(np.zeros(3, BF16)), tensor(np.zeros(3, F32)))[0] == ACLNN_ERR_PARAM_INVALID
    assert aclnn.aclnnInplaceSigmoidGetWorkspaceSize(tensor(np.zeros(3, BF16)))[0] == ACLNN_ERR_PARAM_INVALID
    aclnn.set_platform(Platform())
    status, ws, _ = get(tensor(np.zeros((0, 3), F32)), tensor(np.zeros((0, 3), F32)))
    assert (status, ws) == (ACLNN_SUCCESS, 0)
    nz = np.zeros(64, F32)
    assert get(tensor(nz, fmt=ACL_FORMAT_NC1HWC0), tensor(nz))[0] == ACLNN_ERR_PARAM_INVALID


@pytest.mark.parametrize("kernel", KERNEL)
@pytest.mark.parametrize("dtype", [F32, F16, BF16], ids=str)
def test_backward_matches_the_reference(kernel, dtype, stream):
    aclnn.set_platform(KERNEL[kernel])
    rng = np.random.default_rng(3)
    dy, y = random_values(rng, (4, 9), dtype), rng.uniform(0, 1, (4, 9)).astype(dtype)
    out = np.zeros_like(dy)
    status, ws = _run(aclnn.aclnnSigmoidBackwardGetWorkspaceSize, aclnn.aclnnSigmoidBackward, tensor(dy), tensor(y),
                      tensor(out), stream=stream)
    assert status == ACLNN_SUCCESS and ws > 0
    assert_bits_equal(out, ra.ref_sigmoid_backward(dy, y, kernel))


def test_backward_broadcasts_promotes_and_casts(stream):
    aclnn.set_platform(ASCEND950_PLATFORM)
    rng = np.random.default_rng(4)
    dy = random_values(rng, (3, 1), F16)
    y = rng.uniform(0, 1, (1, 5)).astype(BF16)
    out = np.zeros((3, 5), F32)
    status, _ = _run(aclnn.aclnnSigmoidBackwardGetWorkspaceSize, aclnn.aclnnSigmoidBackward, tensor(dy), tensor(y),
                     tensor(out), stream=stream)
    assert status == ACLNN_SUCCESS
    full = [np.broadcast_to(a, (3, 5)).astype(F32) for a in (dy, y)]     # float16 + bfloat16 -> float32, exactly
    assert_bits_equal(out, ra.ref_sigmoid_backward(*full, "arch35"))


def test_backward_aicpu_dtypes(stream):
    rng = np.random.default_rng(5)
    dy = (rng.uniform(-2, 2, 12) + 1j * rng.uniform(-2, 2, 12)).astype(np.complex64)
    y = rng.uniform(0, 1, 12).astype(np.float32)
    out = np.zeros(12, np.complex64)
    status, ws = _run(aclnn.aclnnSigmoidBackwardGetWorkspaceSize, aclnn.aclnnSigmoidBackward,
                      tensor(dy, ACL_COMPLEX64), tensor(y), tensor(out, ACL_COMPLEX64), stream=stream)
    assert (status, ws) == (ACLNN_SUCCESS, 0)
    want = ra.ref_sigmoid_backward_aicpu_complex(dy, y.astype(np.complex64))
    assert out.view(np.uint32).tolist() == want.view(np.uint32).tolist()
    d64, y64, o64 = rng.uniform(-2, 2, 8), rng.uniform(0, 1, 8), np.zeros(8)
    assert _run(aclnn.aclnnSigmoidBackwardGetWorkspaceSize, aclnn.aclnnSigmoidBackward, tensor(d64, ACL_DOUBLE),
                tensor(y64, ACL_DOUBLE), tensor(o64, ACL_DOUBLE), stream=stream)[0] == ACLNN_SUCCESS
    assert o64.tolist() == ra.ref_sigmoid_backward_aicpu_real(d64, y64).tolist()


def test_backward_statuses():
    get = aclnn.aclnnSigmoidBackwardGetWorkspaceSize
    a = np.zeros((2, 3), F32)
    assert get(tensor(a), None, tensor(a))[0] == ACLNN_ERR_PARAM_NULLPTR
    assert get(tensor(a), tensor(a), tensor(np.zeros((2, 3), np.int32), ACL_INT32))[0] == ACLNN_ERR_PARAM_INVALID
    assert get(tensor(a), tensor(np.zeros((4, 3), F32)), tensor(a))[0] == ACLNN_ERR_PARAM_INVALID
    assert get(tensor(a), tensor(a), tensor(np.zeros((3, 3), F32)))[0] == ACLNN_ERR_PARAM_INVALID
    c = np.zeros((2, 3), np.complex64)
    assert get(tensor(c, ACL_COMPLEX64), tensor(a), tensor(a))[0] == ACLNN_ERR_PARAM_INVALID    # complex -> real
    assert get(tensor(np.zeros((1,) * 9, F32)), tensor(np.zeros((1,) * 9, F32)),
               tensor(np.zeros((1,) * 9, F32)))[0] == ACLNN_ERR_PARAM_INVALID
    aclnn.set_platform(Platform(soc_version="ascend310p"))
    b = np.zeros(3, BF16)
    assert get(tensor(b), tensor(b), tensor(b))[0] == ACLNN_ERR_PARAM_INVALID
    aclnn.set_platform(Platform())
    e = np.zeros((0, 3), F32)
    assert get(tensor(e), tensor(e), tensor(e))[:2] == (ACLNN_SUCCESS, 0)
